import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  decodeFrame,
  encodeFrame,
  TUNNEL_CLOSE,
  TUNNEL_FRAME,
  TUNNEL_MAX_DATA,
  TUNNEL_PROTOCOL,
  TUNNEL_RESET,
  type TunnelFrame,
} from "@keyway/protocol";
import type { TunnelMux, TunnelStream } from "@keyway/protocol/mux";
import { type TunnelSocketLink, tunnelOverSocket } from "@keyway/protocol/tunnel-socket";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  encodeControl,
  HOSTILE_ID_MIN,
  hostileControl,
  hostileFrame,
  malformedFrame,
} from "../../server/src/testing/tunnelFrames.ts";
import { type AgentProcess, freePort, kill9, spawnAgent, until } from "./testing.ts";

/**
 * A hostile cloud: the real `keyway-agent run` as a child process dials a local HTTP server
 * posing as `/tunnel` (upgraded to TUNNEL_PROTOCOL), which speaks the protocol through the real mux on one stream
 * (to an echo server on the device's "LAN") and sends random and malformed frames around it.
 * The agent must stay up, keep its memory, keep the sound stream working, and drop and
 * re-dial a link only when the link itself is broken.
 */

const MiB = 1024 * 1024;

/** A frame of the agent's without its payload (the test keeps thousands). */
interface Seen {
  type: TunnelFrame["type"];
  id?: number;
  code?: number;
}

function seen(frame: TunnelFrame | null): Seen | null {
  if (!frame) return null;
  return {
    type: frame.type,
    id: "id" in frame ? frame.id : undefined,
    code: frame.type === "reset" ? frame.code : undefined,
  };
}

/** One `/tunnel` connection of the agent, as the fake cloud holds it. */
interface Link {
  carrier: TunnelSocketLink;
  /** Sends one frame as it is (length-prefixed by the carrier). */
  send(frame: Uint8Array): void;
  mux: TunnelMux;
  /** Every frame the agent sent, in short (null: one that did not parse). */
  seen: Array<Seen | null>;
  /** Link-level complaints of our mux about the agent's frames (there must be none). */
  violations: string[];
  closed: Promise<number>;
}

let agent: AgentProcess;
let dataDir: string;
let cloud: HttpServer;
let echo: Server;
let echoPort: number;
/** Accepts and never reads: the agent's stream to it backs up. */
let sink: Server;
let sinkPort: number;
const sinkSockets = new Set<Socket>();
const links: Link[] = [];

const alive = () => agent.child.exitCode === null && agent.child.signalCode === null;

/** The agent's resident memory (Linux). */
function rss(): number {
  const status = readFileSync(`/proc/${agent.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
}

async function nextLink(after: number): Promise<Link> {
  await until(() => links.length > after && !links[links.length - 1].carrier.closed, {
    log: agent.text,
  });
  return links[links.length - 1];
}

/** A sound stream to the echo target through the agent. */
function openEcho(link: Link): Promise<TunnelStream> {
  return link.mux.open({ host: "127.0.0.1", port: echoPort });
}

/** Sends `size` random bytes on the stream and waits for all of them to come back. */
function roundTrip(stream: TunnelStream, size = 1000): Promise<boolean> {
  const sent = randomBytes(size);
  return new Promise((done, fail) => {
    if (stream.destroyed) return fail(new Error("sound stream closed"));
    const chunks: Buffer[] = [];
    let got = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      got += chunk.length;
      if (got < size) return;
      stream.off("data", onData);
      stream.off("close", onClose);
      done(Buffer.concat(chunks).equals(sent));
    };
    const onClose = () => fail(new Error(`sound stream closed: ${stream.closeError?.message}`));
    stream.on("data", onData);
    stream.once("close", onClose);
    stream.write(sent);
  });
}

beforeAll(async () => {
  echo = createServer((socket) => socket.on("error", () => {}).pipe(socket));
  sink = createServer((socket) => {
    socket.pause();
    socket.on("error", () => {});
    sinkSockets.add(socket);
  });
  for (const server of [echo, sink])
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  echoPort = (echo.address() as { port: number }).port;
  sinkPort = (sink.address() as { port: number }).port;

  cloud = createHttpServer((_request, response) => response.writeHead(426).end());
  cloud.on("upgrade", (request, socket, head) => {
    expect(request.url).toBe("/tunnel");
    expect(request.headers.upgrade).toBe(TUNNEL_PROTOCOL);
    expect(request.headers.authorization).toBe(
      `Basic ${Buffer.from("FUZZ0001:fuzz-secret").toString("base64")}`,
    );
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${TUNNEL_PROTOCOL}\r\nConnection: Upgrade\r\n\r\n`,
    );
    let closedWith: (code: number) => void = () => {};
    const carrier = tunnelOverSocket(socket, {
      head,
      onViolation: (reason) => link.violations.push(reason),
      // Every whole frame of the agent's but its DATA (which the tests do not look at).
      onFrame: (bytes) => {
        if (bytes[0] !== TUNNEL_FRAME.close) link.seen.push(seen(decodeFrame(bytes)));
      },
      onClose: (code) => closedWith(code),
    });
    const link: Link = {
      carrier,
      send: (frame) => carrier.sendFrame(frame),
      seen: [],
      violations: [],
      closed: new Promise((done) => {
        closedWith = done;
      }),
      mux: carrier.mux,
    };
    links.push(link);
  });
  await new Promise<void>((done) => cloud.listen(0, "127.0.0.1", () => done()));
  const cloudPort = (cloud.address() as { port: number }).port;

  dataDir = mkdtempSync(join(tmpdir(), "kw-fuzz-agent-"));
  // MQTT goes nowhere (nothing listens there): only the tunnel matters here.
  const deadBroker = await freePort();
  agent = await spawnAgent([
    "run",
    "--server",
    `mqtt://127.0.0.1:${deadBroker}`,
    "--code",
    "FUZZ0001",
    "--secret",
    "fuzz-secret",
    "--tunnel",
    `ws://127.0.0.1:${cloudPort}/tunnel`,
    "--target",
    `127.0.0.1:${echoPort}`,
    "--allow",
    `127.0.0.1:${sinkPort}`,
    "--data-dir",
    dataDir,
    "--location-every",
    "0",
    "--backoff-max",
    "1",
    // A consent page (on a free port): the hostile asks land in its list, which stays bounded.
    "--consent-port",
    "0",
  ]);
  await nextLink(0);
});

afterAll(async () => {
  if (agent) await kill9(agent);
  for (const s of sinkSockets) s.destroy();
  cloud?.close();
  echo?.close();
  sink?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("keyway-agent against a hostile cloud", { timeout: 120_000 }, () => {
  it("survives thousands of hostile frames with its sound stream working and memory flat", async () => {
    const link = await nextLink(0);
    const sound = await openEcho(link);
    expect(await roundTrip(sound)).toBe(true);
    const before = rss();
    let sent = 0;
    const targets = [`127.0.0.1:${echoPort}`, `127.0.0.1:${sinkPort}`, "10.0.0.1:502"];
    await fc.assert(
      fc.asyncProperty(
        fc.array(hostileFrame(targets, true), { minLength: 50, maxLength: 150 }),
        async (frames) => {
          for (const frame of frames) link.send(frame);
          sent += frames.length;
          // The echo comes back after the agent has taken every frame sent before it.
          expect(await roundTrip(sound, 200)).toBe(true);
          expect(alive()).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
    expect(sent).toBeGreaterThan(3000);
    // The same link all along: nothing here breaks the link itself.
    expect(links[links.length - 1]).toBe(link);
    expect(link.carrier.closed).toBe(false);
    // Whatever came back parsed, and our mux found nothing to complain about.
    expect(link.seen).not.toContain(null);
    expect(link.violations).toEqual([]);
    expect(await roundTrip(sound, 300_000)).toBe(true);
    expect(rss() - before).toBeLessThan(64 * MiB);
    sound.destroy();
  });

  it("resets a stream sent more than its window instead of holding it", async () => {
    const link = await nextLink(0);
    const id = HOSTILE_ID_MIN + 500;
    const frames = () => link.seen.filter((f) => f?.id === id);
    link.send(encodeFrame({ type: "open", id, window: 1024, host: "127.0.0.1", port: sinkPort }));
    await until(() => frames().some((f) => f?.type === "opened"), { log: agent.text });
    // Credit ignored: data goes on until the agent says no. The sink reads nothing, so once
    // the sockets' buffers are full only the stream's window stands between the cloud and the
    // agent's memory.
    const chunk = new Uint8Array(TUNNEL_MAX_DATA).fill(7);
    let total = 0;
    while (!frames().some((f) => f?.type === "reset") && total < 256 * MiB) {
      for (let i = 0; i < 16; i++) link.send(encodeFrame({ type: "data", id, data: chunk }));
      total += 16 * chunk.byteLength;
      await new Promise((r) => setTimeout(r, 5));
    }
    const reset = frames().find((f) => f?.type === "reset");
    expect(reset).toMatchObject({ type: "reset", code: TUNNEL_RESET.protocol });
    expect(alive()).toBe(true);
    const sound = await openEcho(link);
    expect(await roundTrip(sound)).toBe(true);
    sound.destroy();
  });

  it("drops a link that breaks the protocol and dials again, every time", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          malformedFrame.map((bytes) => ({ bytes, raw: false })),
          // What only an agent says (a consent answer, a visit ended on site), from the cloud.
          hostileControl("agent").map((m) => ({ bytes: encodeControl(m), raw: false })),
          // What no frame is on the socket: a length shorter than a frame's header, or one
          // above the largest frame (refused before anything is held).
          fc
            .oneof(
              fc.integer({ min: 0, max: 4 }),
              fc.integer({ min: 2 * MiB + 1, max: 0xffff_ffff }),
            )
            .map((length) => {
              const bytes = Buffer.alloc(9);
              bytes.writeUInt32BE(length, 0);
              bytes[4] = TUNNEL_FRAME.data;
              return { bytes, raw: true };
            }),
        ),
        async ({ bytes, raw }) => {
          const count = links.length;
          const link = await nextLink(count - 1);
          const sound = await openEcho(link);
          expect(await roundTrip(sound)).toBe(true);
          if (raw) link.carrier.socket.write(bytes);
          else link.send(bytes);
          expect(await link.closed).toBe(TUNNEL_CLOSE.protocol);
          expect(sound.destroyed).toBe(true);
          // A new link, and the device is reachable again through it.
          const next = await nextLink(count);
          const again = await openEcho(next);
          expect(await roundTrip(again)).toBe(true);
          again.destroy();
          expect(alive()).toBe(true);
        },
      ),
      // Each run costs a reconnect; a failing one is not shrunk through more of them.
      { numRuns: 8, endOnFailure: true },
    );
  });

  it("drops a link whose cloud end does not read, before its replies pile up", async () => {
    const count = links.length;
    const link = await nextLink(count - 1);
    const before = rss();
    // Pings whose pongs nobody reads: the agent must not queue them without end.
    link.carrier.socket.pause();
    const ping = encodeFrame({ type: "ping", data: new Uint8Array(64) });
    for (let round = 0; round < 40 && links.length === count; round++) {
      for (let i = 0; i < 10_000; i++) link.send(ping);
      await new Promise((r) => setTimeout(r, 20));
    }
    // The agent gave the link up and dialled again.
    const next = await nextLink(count);
    expect(alive()).toBe(true);
    expect(rss() - before).toBeLessThan(64 * MiB);
    link.carrier.terminate();
    const sound = await openEcho(next);
    expect(await roundTrip(sound)).toBe(true);
    sound.destroy();
  });
});
