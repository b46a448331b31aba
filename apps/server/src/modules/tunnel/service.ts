import type { Duplex } from "node:stream";
import {
  AGENT_FEATURE_CONTROL,
  type AgentHello,
  TUNNEL_CLOSE,
  TUNNEL_PING_MS,
  TUNNEL_RESET,
  type TunnelControl,
  type TunnelTarget,
} from "@keyway/protocol";
import { TunnelError, TunnelMux, type TunnelStream } from "@keyway/protocol/mux";
import { tunnelOverSocket } from "@keyway/protocol/tunnel-socket";
import type { FastifyBaseLogger } from "fastify";
import type { WebSocket } from "ws";
import type { Events } from "../../events.ts";
import { localTunnelRegistry, type TunnelPlace, type TunnelRegistry } from "./registry.ts";

export interface TunnelDevice {
  id: number;
  code: string;
}

/** What carries a link: the agent's socket (TUNNEL_PROTOCOL) or a version-1 WebSocket. */
interface Carrier {
  close(code: number, reason: string): void;
  terminate(): void;
}

interface Link {
  device: TunnelDevice;
  socket: Carrier;
  mux: TunnelMux;
  hello: AgentHello | null;
  connectedAt: Date;
}

/** No agent holds a tunnel for the device (on this node). */
export class DeviceOfflineError extends TunnelError {
  constructor() {
    super(TUNNEL_RESET.goingAway, "the device's tunnel is not connected");
  }
}

export type TunnelHub = ReturnType<typeof createTunnelHub>;

/** What an agent may say on the control channel (the rest is the server's to say). */
export type AgentControl = Extract<TunnelControl, { t: "consent.answer" | "visit.end" }>;

/** Hears the control messages of the agents whose links this node holds. */
export type ControlListener = (deviceId: number, message: AgentControl) => void;

/**
 * The agents' `/tunnel` connections on this node (ARCHITECTURE "Remote access"): one link per
 * device, the newest winning; `open` gives a byte stream to a target on the device's LAN.
 * Links silent for three ping periods are dropped (the agent pings every 15 s).
 */
export function createTunnelHub(deps: {
  log: FastifyBaseLogger;
  /** Per-stream receive window (bytes); the protocol default when absent. */
  window?: number;
  silentMs?: number;
  /** Told when a device's tunnel comes up or goes away. */
  /** Where changed rights and links are told (domain events). */
  events?: Pick<Events, "publish">;
  /** Where other nodes' tunnels are, and where this node's are told (several nodes). */
  registry?: TunnelRegistry;
}) {
  const { log } = deps;
  const registry = deps.registry ?? localTunnelRegistry;
  const silentMs = deps.silentMs ?? TUNNEL_PING_MS * 3;
  const links = new Map<number, Link>();
  const controlListeners = new Set<ControlListener>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const link of links.values()) {
      if (now - link.mux.lastHeard > silentMs) link.socket.close(TUNNEL_CLOSE.silent, "silent");
    }
  }, TUNNEL_PING_MS);
  sweep.unref();

  /** Hello, violation and liveness handling common to both carriers. */
  function muxOptions(device: TunnelDevice, link: () => Link) {
    return {
      window: deps.window,
      onHello: (hello: AgentHello) => {
        const l = link();
        // Said once by a sound agent; a stream of them is neither logged nor kept but the last.
        if (!l.hello) log.info({ device: device.code, target: hello.target }, "tunnel hello");
        l.hello = hello;
        if (links.get(device.id) === l) registry.held(device.id, hello);
      },
      onControl: (message: TunnelControl) => {
        const l = link();
        // Asks and notices are the server's to send: an agent sending them does not speak this.
        if (message.t !== "consent.answer" && message.t !== "visit.end") {
          l.mux.violation(`a control message only the server sends (${message.t})`);
          return;
        }
        // A replaced link's last words, or an agent that never offered control: not heard.
        if (links.get(device.id) !== l || !hasControl(l)) return;
        for (const listener of controlListeners) {
          try {
            listener(device.id, message);
          } catch (error) {
            log.warn({ err: error, device: device.code }, "tunnel control message not handled");
          }
        }
      },
      // A hostile or broken agent costs its own link, never the process or other devices.
      onViolation: (reason: string) => {
        log.warn({ device: device.code, reason }, "tunnel protocol violation");
        const l = link();
        l.socket.close(TUNNEL_CLOSE.protocol, "bad frame");
        // An agent that does not complete the closing handshake is not waited for.
        setTimeout(() => l.socket.terminate(), 2000).unref();
      },
    };
  }

  function up(link: Link): void {
    const { device } = link;
    const previous = links.get(device.id);
    links.set(device.id, link);
    // A reconnect racing its old connection's close: the newest is the one that works.
    if (previous) previous.socket.close(TUNNEL_CLOSE.replaced, "replaced");
    log.info({ device: device.code }, "tunnel up");
    registry.held(device.id, null);
    deps.events?.publish("tunnel.link", { deviceId: device.id, online: true });
  }

  function down(link: Link): void {
    const { device } = link;
    link.mux.close(new DeviceOfflineError());
    if (links.get(device.id) === link) {
      links.delete(device.id);
      registry.released(device.id);
      log.info({ device: device.code }, "tunnel down");
      deps.events?.publish("tunnel.link", { deviceId: device.id, online: false });
    }
  }

  /**
   * An authenticated agent's socket after `Upgrade: keyway-tunnel/2` (the 101 already
   * written); `head`: bytes read past the request.
   */
  function acceptSocket(socket: Duplex, device: TunnelDevice, head?: Buffer): void {
    let link: Link | undefined;
    const carried = tunnelOverSocket(socket, {
      ...muxOptions(device, () => link as Link),
      head,
      onClose: () => {
        if (link) down(link);
      },
    });
    link = { device, socket: carried, mux: carried.mux, hello: null, connectedAt: new Date() };
    up(link);
    if (carried.closed) down(link);
  }

  /** An authenticated agent's WebSocket (agents of protocol version 1). */
  function accept(socket: WebSocket, device: TunnelDevice): void {
    const mux = new TunnelMux({
      ...muxOptions(device, () => link),
      link: {
        send: (frame, done) => {
          if (socket.readyState !== socket.OPEN) return done(new Error("tunnel closed"));
          socket.send(frame, { binary: true }, done);
        },
      },
    });
    const link: Link = {
      device,
      socket: {
        close: (code, reason) => socket.close(code, reason),
        terminate: () => socket.terminate(),
      },
      mux,
      hello: null,
      connectedAt: new Date(),
    };
    up(link);
    socket.on("message", (data, isBinary) => {
      if (isBinary) mux.receive(data as Buffer);
      else mux.violation("a text message");
    });
    socket.on("error", (error) => log.warn({ err: error, device: device.code }, "tunnel error"));
    socket.on("close", () => down(link));
  }

  function hasControl(link: Link): boolean {
    return Boolean(link.hello?.features?.includes(AGENT_FEATURE_CONTROL));
  }

  /**
   * A control message to the device's agent, when this node holds its link and the agent
   * announced "control" (older agents end the link on a frame type they do not know).
   */
  function sendControl(deviceId: number, message: TunnelControl): boolean {
    const link = links.get(deviceId);
    if (!link || link.mux.closed || !hasControl(link)) return false;
    link.mux.send({ type: "control", message });
    return true;
  }

  /** Hears agents' control messages (on-site consent answers, visits ended on site). */
  function onControl(listener: ControlListener): () => void {
    controlListeners.add(listener);
    return () => controlListeners.delete(listener);
  }

  function isOnline(deviceId: number): boolean {
    return links.has(deviceId);
  }

  /** What the device's agent said about its targets; undefined when offline or not yet said. */
  function hello(deviceId: number): AgentHello | undefined {
    return links.get(deviceId)?.hello ?? undefined;
  }

  /**
   * Where the device's tunnel is: here (node null), on another node (its URL, from the
   * registry), or nowhere (null).
   */
  async function locate(
    deviceId: number,
  ): Promise<TunnelPlace | { node: null; hello: AgentHello | null } | null> {
    const link = links.get(deviceId);
    if (link) return { node: null, hello: link.hello };
    return registry.lookup(deviceId);
  }

  /** A stream to `target` on the device's LAN (null: the agent's default target). */
  async function open(deviceId: number, target: TunnelTarget | null): Promise<TunnelStream> {
    const link = links.get(deviceId);
    if (!link) throw new DeviceOfflineError();
    return link.mux.open(target);
  }

  function stats() {
    let streams = 0;
    let buffered = 0;
    let peakStreamBuffered = 0;
    let linkPending = 0;
    for (const link of links.values()) {
      const s = link.mux.stats();
      streams += s.streams;
      buffered += s.buffered;
      linkPending += s.linkPending;
      peakStreamBuffered = Math.max(peakStreamBuffered, s.peakStreamBuffered);
    }
    return { links: links.size, streams, buffered, peakStreamBuffered, linkPending };
  }

  /**
   * Every link told the server is stopping. Socket links are connections of the HTTP server,
   * which waits for them when it closes: this runs before it does (preClose).
   */
  function closeLinks(): void {
    for (const link of links.values()) link.socket.close(1001, "server stopping");
  }

  async function close(): Promise<void> {
    clearInterval(sweep);
    for (const link of links.values()) link.socket.close(1001, "server stopping");
    links.clear();
    await registry.close();
  }

  return {
    accept,
    acceptSocket,
    closeLinks,
    isOnline,
    hello,
    locate,
    open,
    sendControl,
    onControl,
    stats,
    close,
  };
}
