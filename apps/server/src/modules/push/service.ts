import {
  decodePush,
  encodePush,
  PING_FRAME,
  PONG_FRAME,
  PUSH_SCENES,
  type PushMessage,
} from "@keyway/protocol";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { RawData, WebSocket } from "ws";
import type { Events } from "../../events.ts";
import { limitMessages } from "../../http/websocketLimits.ts";
import { pushRoutes } from "./routes.ts";

export type { PushMessage };

/** Who holds a socket: `accounts.authenticate`'s answer for its token. */
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
  /** A message above CLIENT_MESSAGE_MAX (RFC 6455 1009: message too big; ws sends it). */
  tooBig: 1009,
} as const;

/** The largest message a client may send: it sends only `ws.ping`, a few bytes. */
const CLIENT_MESSAGE_MAX = 4 * 1024;

export interface PushHubDeps {
  events: Events;
  /** `accounts.authenticate`: the token check, batched by its owner on a busy node. */
  authenticate: (token: string) => Promise<PushIdentity | null>;
  log: FastifyBaseLogger;
  /** A socket silent this long is closed (SPEC: heartbeat every 15 s; three missed). */
  heartbeatTimeoutMs?: number;
  /** How often silent sockets are looked for. */
  sweepEveryMs?: number;
  /** A socket with more than this waiting to be sent is closed as too slow. */
  maxBufferedBytes?: number;
}

/**
 * One upgraded socket. Kept small and free of closures (docs/architecture/push.md#memory):
 * a node holds tens of thousands, and the listeners are shared by all of them.
 */
interface Connection {
  socket: WebSocket;
  /** Set once the token check accepted the socket: it is then in `byUser` and `byTerminal`. */
  identity: PushIdentity | null;
  lastSeen: number;
  /** A ping that came before the token check finished, answered right after it. */
  earlyPing: boolean;
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
  // Arrays rather than Sets: most terminals hold one socket and most users a few, and a Set
  // costs some 300 bytes more per socket (docs/architecture/push.md#memory).
  const byUser = new Map<number, Connection[]>();
  const byTerminal = new Map<number, Connection[]>();
  /** Upgraded sockets, authenticated or not yet: all are closed on shutdown. */
  const open = new Map<WebSocket, Connection>();
  let connections = 0;
  let closed = false;
  /**
   * Logout pushes seen while token checks were running (terminal -> their count then): a
   * check that started before its terminal's logout refuses the socket, even when the
   * lookup read the row before it was deleted. Emptied whenever no check is running.
   */
  const loggedOut = new Map<number, number>();
  let logouts = 0;
  let checking = 0;

  const unsubscribe = events.subscribe("push", (envelope) => {
    const logout = envelope.scene === PUSH_SCENES.userLogout;
    if (logout && envelope.to === "terminal" && checking > 0) loggedOut.set(envelope.id, ++logouts);
    const group = (envelope.to === "user" ? byUser : byTerminal).get(envelope.id);
    if (!group) return;
    // Decoded once per node, then the same bytes go to every socket.
    const frame = Buffer.from(envelope.frame, "base64");
    for (const connection of group.slice()) {
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

  // One sweep for every socket's heartbeat rather than a timer per socket.
  const sweep = setInterval(
    () => {
      const silentSince = Date.now() - heartbeatTimeoutMs;
      for (const group of byTerminal.values()) {
        for (const connection of group) {
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

  function add(map: Map<number, Connection[]>, id: number, connection: Connection) {
    const group = map.get(id);
    if (group) group.push(connection);
    else map.set(id, [connection]);
  }

  function remove(map: Map<number, Connection[]>, id: number, connection: Connection) {
    const group = map.get(id);
    const at = group?.indexOf(connection) ?? -1;
    if (!group || at < 0) return false;
    if (group.length === 1) map.delete(id);
    else group.splice(at, 1);
    return true;
  }

  function publish(to: PushEnvelope["to"], id: number, push: PushMessage) {
    const frame = Buffer.from(encodePush(push.scene, push.body)).toString("base64");
    events.publish("push", { to, id, scene: push.scene, frame });
  }

  // The listeners of every socket: `this` is the socket (ws emits on it).
  function onMessage(this: WebSocket, data: RawData, isBinary: boolean) {
    const connection = open.get(this);
    if (!connection) return;
    if (!isBinary) {
      closeSocket(this, PUSH_CLOSE.unsupportedData, "binary frames only");
      return;
    }
    connection.lastSeen = Date.now();
    if (!isPing(data)) return;
    if (connection.identity) send(connection, PONG_FRAME);
    else connection.earlyPing = true;
  }

  function onClose(this: WebSocket) {
    const connection = open.get(this);
    open.delete(this);
    const identity = connection?.identity;
    if (!connection || !identity) return;
    connection.identity = null;
    if (remove(byTerminal, identity.terminalId, connection)) connections--;
    remove(byUser, identity.userId, connection);
  }

  function onError(error: Error) {
    log.debug({ err: error }, "push socket error");
  }

  function checked(connection: Connection, identity: PushIdentity | null, startedAt: number) {
    const { socket } = connection;
    const revoked = identity && (loggedOut.get(identity.terminalId) ?? 0) > startedAt;
    if (!identity || revoked) return refuse(socket);
    if (socket.readyState !== socket.OPEN) return; // gone while we asked
    connection.identity = identity;
    connection.lastSeen = Date.now();
    add(byUser, identity.userId, connection);
    add(byTerminal, identity.terminalId, connection);
    connections++;
    // A pong therefore also tells the client that pushes now reach it.
    if (connection.earlyPing) send(connection, PONG_FRAME);
  }

  function refuse(socket: WebSocket) {
    closeSocket(socket, PUSH_CLOSE.tokenInvalid, "token invalid");
  }

  /** Serves one upgraded `/ws` socket whose token is `token`. */
  function accept(socket: WebSocket, token: string | undefined) {
    if (closed) {
      socket.close(PUSH_CLOSE.goingAway, "shutting down");
      return;
    }
    const connection: Connection = {
      socket,
      identity: null,
      lastSeen: Date.now(),
      earlyPing: false,
    };
    open.set(socket, connection);
    // A client sends only pings: a larger message is refused at its header (1009) rather
    // than held, before the token check and after (ws would take 2 MiB on any route).
    limitMessages(socket, CLIENT_MESSAGE_MAX);
    // Listeners go on before the token check so that no early frame is lost.
    socket.on("message", onMessage);
    socket.on("close", onClose);
    socket.on("error", onError);
    if (!token) return refuse(socket);
    const startedAt = logouts;
    checking++;
    deps
      .authenticate(token)
      .then(
        (identity) => checked(connection, identity, startedAt),
        (error) => {
          log.error({ err: error }, "push: authentication failed");
          closeSocket(socket, 1011, "internal error");
        },
      )
      .finally(() => {
        if (--checking === 0) loggedOut.clear();
      });
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
      const sockets = [...open.keys()];
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

/** Whether a frame is a heartbeat: the usual bytes are matched as they are, others decoded. */
function isPing(data: RawData): boolean {
  const bytes = Array.isArray(data)
    ? Buffer.concat(data)
    : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : data;
  if (Buffer.compare(bytes, PING_FRAME) === 0) return true;
  try {
    return decodePush(bytes).scene === PUSH_SCENES.ping;
  } catch {
    // An unknown or malformed frame still proves the client alive; it is ignored.
    return false;
  }
}
