import { formatTarget, parseTarget, TUNNEL_RESET } from "@keyway/protocol";
import { TunnelError, type TunnelStream } from "@keyway/protocol/mux";
import type { FastifyBaseLogger } from "fastify";
import { AppError } from "../../http/envelope.ts";
import { DeviceOfflineError, type TunnelHub } from "../tunnel/service.ts";
import { StreamPool, type VisitSession } from "./session.ts";

/**
 * Why an open stream of a visit's byte pipe (device page WebSocket, screen, TCP forward) was
 * cut, as the visitor is told: the device went away (its link dropped or is closing), the
 * visit ended, or the target's connection failed.
 */
export function cutStreamError(error: Error): AppError {
  if (
    error instanceof DeviceOfflineError ||
    (error instanceof TunnelError && error.code === TUNNEL_RESET.goingAway)
  )
    return new AppError("DEVICE_OFFLINE", null, 502);
  if (error instanceof TunnelError && error.code === TUNNEL_RESET.rightsEnded)
    return new AppError("VISIT_ENDED", null, 410);
  return new AppError("TARGET_UNREACHABLE", null, 502);
}

/**
 * The tunnel streams of open visits: each opened after the rights check, to a target on the
 * agent's list, counted into its visit's bytes and this node's totals.
 */
export function createVisitStreams(deps: {
  log: FastifyBaseLogger;
  tunnels: TunnelHub;
  sessions: Map<string, VisitSession>;
  check: (session: VisitSession, force: boolean) => Promise<void>;
  touch: (session: VisitSession) => void;
}) {
  const { log, tunnels, sessions, check, touch } = deps;
  /** Payload bytes of this node's closed visit streams, since start (/metrics; live ones in stats). */
  const relayed = { fromDevice: 0, toDevice: 0 };

  /**
   * A new stream of a visit to `target` ("host:port"; null: the device UI). Re-checks the
   * right first. Failures are AppErrors with an HTTP status for the relay's pages.
   */
  async function openStream(session: VisitSession, target: string | null): Promise<TunnelStream> {
    await check(session, false);
    const parsed = target ? parseTarget(target) : null;
    if (target && !parsed) throw new AppError("BAD_REQUEST", { field: "target" }, 400);
    // The agent refuses what is off its list too; asking first keeps such a request from
    // ever reaching the device (and gives the same answer as issuing a visit).
    const named = parsed && formatTarget(parsed);
    const allow = tunnels.hello(session.deviceId)?.allow;
    if (named && allow && !allow.includes(named))
      throw new AppError("TARGET_NOT_ALLOWED", { target: named }, 403);
    let stream: TunnelStream;
    try {
      stream = await tunnels.open(session.deviceId, parsed);
    } catch (error) {
      throw streamFailure(error);
    }
    if (session.ended) {
      stream.destroy(new TunnelError(TUNNEL_RESET.rightsEnded, "visit ended"));
      throw new AppError("VISIT_ENDED", null, 410);
    }
    session.streams.add(stream);
    touch(session);
    if (parsed) {
      const text = formatTarget(parsed);
      if (!session.targets.has(text) && session.targets.size < 8) {
        session.targets.add(text);
        session.targetsDirty = true;
      }
    }
    stream.once("close", () => {
      session.streams.delete(stream);
      session.bytesIn += stream.bytesIn;
      session.bytesOut += stream.bytesOut;
      relayed.fromDevice += stream.bytesIn;
      relayed.toDevice += stream.bytesOut;
      touch(session);
    });
    return stream;
  }

  function streamFailure(error: unknown): AppError {
    if (error instanceof AppError) return error;
    if (error instanceof DeviceOfflineError) return new AppError("DEVICE_OFFLINE", null, 502);
    if (error instanceof TunnelError) {
      if (error.code === TUNNEL_RESET.refused)
        return new AppError("TARGET_NOT_ALLOWED", { reason: error.message }, 502);
      if (error.code === TUNNEL_RESET.timeout)
        return new AppError("TARGET_UNREACHABLE", { reason: error.message }, 504);
      return new AppError("TARGET_UNREACHABLE", { reason: error.message }, 502);
    }
    log.error({ err: error }, "tunnel stream failed");
    return new AppError("SERVER_ERROR", null, 500);
  }

  /** The visit's keep-alive pool to the device UI. */
  function agentOf(session: VisitSession): StreamPool {
    session.agent ??= new StreamPool(() => openStream(session, null));
    return session.agent;
  }

  function stats() {
    let streams = 0;
    let { fromDevice, toDevice } = relayed;
    for (const s of sessions.values()) {
      streams += s.streams.size;
      for (const stream of s.streams) {
        fromDevice += stream.bytesIn;
        toDevice += stream.bytesOut;
      }
    }
    // Bytes only grow: closed streams' plus what the open ones have carried so far.
    return { sessions: sessions.size, streams, bytes: { fromDevice, toDevice } };
  }

  return { openStream, agentOf, stats };
}
