import {
  decodePush,
  encodePush,
  PONG_FRAME,
  PUSH_SCENES,
  type PushMessage,
} from "@keyway/protocol";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import type { Events } from "../../events.ts";
import { pushRoutes } from "./routes.ts";

export type { PushMessage };

/** Who holds a socket: `accounts.authenticate`'s answer. */
export interface PushIdentity {
  userId: number;
  terminalId: number;
  role: string;
}

/** What travels on the bus (JSON): the frame is encoded once, on the publishing node. */
export interface PushEnvelope {
  to: "user" | "terminal";
  id: number;
  scene: string;
  /** The PushWrapper frame, base64. */
  frame: string;
}

/** Close codes of `/ws` (4000-4999 are the application's). */
export const PUSH_CLOSE = {
  /** The token is missing, unknown or expired. */
  tokenInvalid: 4401,
  /** After a `ws.user.logout.resp`: the client must not reconnect with this token. */
  loggedOut: 4001,
  /** No heartbeat for `heartbeatTimeoutMs`. */
  heartbeatTimeout: 4408,
  /** The client does not read its frames (more than `maxBufferedBytes` waiting). */
  tooSlow: 4429,
  /** Text frames are not part of the protocol (RFC 6455 1003: unsupported data). */
  unsupportedData: 1003,
  /** The server is shutting down (RFC 6455 1001: going away). */
  goingAway: 1001,
} as const;

export interface PushHubDeps {
  events: Events;
  authenticate: (token: string) => Promise<PushIdentity | null>;
  log: FastifyBaseLogger;
  /** A socket silent this long is closed (SPEC: heartbeat every 15 s; three missed). */
  heartbeatTimeoutMs?: number;
  /** How often silent sockets are looked for. */
  sweepEveryMs?: number;
  /** A socket with more than this waiting to be sent is closed as too slow. */
  maxBufferedBytes?: number;
}

interface Connection {
  socket: WebSocket;
  userId: number;
  terminalId: number;
  lastSeen: number;
}

export type PushHub = ReturnType<typeof createPushHub>;

/**
 * The push hub (ARCHITECTURE "Push channel"): holds this node's authenticated `/ws` sockets
 * by user and by terminal. `toUser`/`toTerminal` publish on the bus; every node's hub
 * (this one included) delivers to the sockets it holds, so with the Redis bus a push made
 * on one node reaches a socket held on another.
 */
export function createPushHub(deps: PushHubDeps) {
  const { events, log } = deps;
  const heartbeatTimeoutMs = deps.heartbeatTimeoutMs ?? 45_000;
  const maxBufferedBytes = deps.maxBufferedBytes ?? 1024 * 1024;
  const byUser = new Map<number, Set<Connection>>();
  const byTerminal = new Map<number, Set<Connection>>();
  /** Upgraded sockets, authenticated or not yet: all are closed on shutdown. */
  const open = new Set<WebSocket>();
  let connections = 0;
  let closed = false;

  const unsubscribe = events.subscribe("push", (envelope) => {
    const set = (envelope.to === "user" ? byUser : byTerminal).get(envelope.id);
    if (!set?.size) return;
    const frame = Buffer.from(envelope.frame, "base64");
    const logout = envelope.scene === PUSH_SCENES.userLogout;
    for (const connection of [...set]) {
      send(connection, frame);
      // ws sends the close frame after what is queued, so the logout push arrives first.
      if (logout) connection.socket.close(PUSH_CLOSE.loggedOut, "logged out");
    }
  });

  // A session ended from elsewhere (a login elsewhere, a removed terminal) is told at once:
  // the logout push, after which its sockets close.
  const unsubscribeEnded = events.subscribe("terminals.ended", (ended) => {
    const body = { loginIp: ended.loginIp, reason: ended.reason };
    for (const id of ended.terminalIds)
      publish("terminal", id, { scene: PUSH_SCENES.userLogout, body });
  });

  const sweep = setInterval(
    () => {
      const silentSince = Date.now() - heartbeatTimeoutMs;
      for (const set of byTerminal.values()) {
        for (const connection of set) {
          if (connection.lastSeen < silentSince) {
            closeSocket(connection.socket, PUSH_CLOSE.heartbeatTimeout, "heartbeat timeout");
          }
        }
      }
    },
    deps.sweepEveryMs ?? Math.max(50, Math.floor(heartbeatTimeoutMs / 3)),
  );
  sweep.unref();

  function send(connection: Connection, frame: Uint8Array) {
    const { socket } = connection;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > maxBufferedBytes) {
      closeSocket(socket, PUSH_CLOSE.tooSlow, "too slow");
      return;
    }
    socket.send(frame, { binary: true });
  }

  /** A close handshake, then the TCP connection is dropped if the peer does not answer. */
  function closeSocket(socket: WebSocket, code: number, reason: string) {
    if (socket.readyState === socket.CLOSED) return;
    if (socket.readyState !== socket.CLOSING) socket.close(code, reason);
    setTimeout(() => socket.terminate(), 2000).unref();
  }

  function add(map: Map<number, Set<Connection>>, id: number, connection: Connection) {
    let set = map.get(id);
    if (!set) {
      set = new Set();
      map.set(id, set);
    }
    set.add(connection);
  }

  function remove(map: Map<number, Set<Connection>>, id: number, connection: Connection) {
    const set = map.get(id);
    if (!set?.delete(connection)) return false;
    if (set.size === 0) map.delete(id);
    return true;
  }

  function publish(to: PushEnvelope["to"], id: number, push: PushMessage) {
    const frame = Buffer.from(encodePush(push.scene, push.body)).toString("base64");
    events.publish("push", { to, id, scene: push.scene, frame });
  }

  /** Serves one upgraded `/ws` socket whose token is `token`. */
  function accept(socket: WebSocket, token: string | undefined) {
    if (closed) {
      socket.close(PUSH_CLOSE.goingAway, "shutting down");
      return;
    }
    open.add(socket);
    let connection: Connection | null = null;
    /** A ping that came before authentication finished is answered right after it. */
    let earlyPing = false;
    // Listeners go on before the first await so that no early frame is lost.
    socket.on("message", (data, isBinary) => {
      if (!isBinary) {
        closeSocket(socket, PUSH_CLOSE.unsupportedData, "binary frames only");
        return;
      }
      if (connection) connection.lastSeen = Date.now();
      const bytes = Array.isArray(data)
        ? Buffer.concat(data)
        : data instanceof ArrayBuffer
          ? new Uint8Array(data)
          : data;
      let ping = false;
      try {
        ping = decodePush(bytes).scene === PUSH_SCENES.ping;
      } catch {
        // An unknown or malformed frame still proves the client alive; it is ignored.
      }
      if (!ping) return;
      if (connection) send(connection, PONG_FRAME);
      else earlyPing = true;
    });
    socket.on("close", () => {
      open.delete(socket);
      if (!connection) return;
      if (remove(byTerminal, connection.terminalId, connection)) connections--;
      remove(byUser, connection.userId, connection);
      connection = null;
    });
    socket.on("error", (error) => log.debug({ err: error }, "push socket error"));

    const refuse = () => closeSocket(socket, PUSH_CLOSE.tokenInvalid, "token invalid");
    if (!token) return refuse();
    deps.authenticate(token).then(
      (identity) => {
        if (!identity) return refuse();
        if (socket.readyState !== socket.OPEN) return; // gone while we asked
        connection = {
          socket,
          userId: identity.userId,
          terminalId: identity.terminalId,
          lastSeen: Date.now(),
        };
        add(byUser, identity.userId, connection);
        add(byTerminal, identity.terminalId, connection);
        connections++;
        // A pong therefore also tells the client that pushes now reach it.
        if (earlyPing) send(connection, PONG_FRAME);
      },
      (error) => {
        log.error({ err: error }, "push: authentication failed");
        closeSocket(socket, 1011, "internal error");
      },
    );
  }

  return {
    /** Delivers `push` to every open socket of `userId`, on every node. */
    toUser(userId: number, push: PushMessage): void {
      publish("user", userId, push);
    },
    /** Delivers `push` to the open sockets of one terminal (one login), on every node. */
    toTerminal(terminalId: number, push: PushMessage): void {
      publish("terminal", terminalId, push);
    },
    /** Registers `GET /ws`. */
    register(app: FastifyInstance): void {
      pushRoutes(app, { accept });
    },
    /** Authenticated sockets held by this node. */
    socketCount(): number {
      return connections;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      unsubscribe();
      unsubscribeEnded();
      clearInterval(sweep);
      const sockets = [...open];
      await Promise.all(
        sockets.map(
          (socket) =>
            new Promise<void>((resolve) => {
              if (socket.readyState === socket.CLOSED) return resolve();
              socket.once("close", () => resolve());
              closeSocket(socket, PUSH_CLOSE.goingAway, "server shutting down");
            }),
        ),
      );
    },
  };
}
