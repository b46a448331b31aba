// The subpath: the package root also exports the device protocol, typed with Node's Buffer.
import {
  decodePush,
  PING_FRAME,
  PUSH_SCENES,
  type PushFrame,
  type PushMessage,
  type UserLogout,
} from "@keyway/protocol/push";
import { PUSH_HEARTBEAT_MS, PUSH_RECONNECT_MS } from "@keyway/shared";
import { create } from "zustand";

/** A push from the server (SPEC §4 scenes), its body decoded: narrow on `scene`. */
export type PushEvent = PushMessage;

/** Close codes the server uses on `/ws` (apps/server/src/modules/push/service.ts). */
const CLOSE = { tokenInvalid: 4401, loggedOut: 4001 } as const;

export interface PushState {
  /** From `totalUnreadMsg` of the latest push that carries it. */
  unread: number;
  /** The latest push (a new object each time, so `usePushStore.subscribe` sees every one). */
  lastPush: PushEvent | null;
  /** A socket is open. */
  connected: boolean;
  /** For the unread count read over HTTP (GET /msg/v1/totalUnread). */
  setUnread(unread: number): void;
}

/**
 * What the push channel last told: screens select from it (`usePushStore((s) => s.unread)`)
 * or listen with zustand's `usePushStore.subscribe((state, previous) => ...)`.
 */
export const usePushStore = create<PushState>()((set) => ({
  unread: 0,
  lastPush: null,
  connected: false,
  setUnread: (unread) => set({ unread }),
}));

type PushListener = (push: PushEvent) => void;
const listeners = new Set<PushListener>();

/** Calls `listener` with every push as it arrives; returns the unsubscribe function. */
export function subscribePush(listener: PushListener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export interface PushHandlers {
  /** Every push but the logout one. */
  onPush?(push: PushEvent): void;
  /** `ws.user.logout.resp`: the channel is closed and will not reconnect. */
  onLogout?(body: UserLogout): void;
  /** The server refused the token (close 4401): no reconnect either. */
  onRefused?(): void;
  /**
   * A socket opened again after a loss (a node restarted, the network back): what was pushed
   * meanwhile is not replayed, so whatever pushes keep fresh (the unread count) is re-read.
   */
  onReconnect?(): void;
}

/** A WebSocket constructor: the browser's, or another with the same API (tests). */
type WebSocketLike = new (url: string) => WebSocket;

export interface PushOptions {
  /** `http(s)://host[:port]` of the server; default: this page's origin. */
  origin?: string;
  WebSocket?: WebSocketLike;
  heartbeatMs?: number;
  reconnectMs?: number;
}

export interface PushConnection {
  /** Closes the channel for good (sign-out, unmount): no reconnect. */
  close(): void;
  readonly connected: boolean;
}

/** `ws(s)://<host>/ws?token=...`: a browser cannot set headers on a WebSocket. */
export function pushUrl(token: string, origin = window.location.origin): string {
  const url = new URL("/ws", origin);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("token", token);
  return url.toString();
}

/**
 * The push channel (SPEC §4): connects with the session token, sends a heartbeat every
 * PUSH_HEARTBEAT_MS, reconnects PUSH_RECONNECT_MS after a loss unless closed by `close()`,
 * by a logout push or by a refused token. Each push updates `usePushStore`, then goes to
 * `subscribePush` listeners and `handlers`. A connection silent for three heartbeats is
 * taken as lost (the server answers every heartbeat).
 */
export function connectPush(
  token: string,
  handlers: PushHandlers = {},
  options: PushOptions = {},
): PushConnection {
  const heartbeatMs = options.heartbeatMs ?? PUSH_HEARTBEAT_MS;
  const reconnectMs = options.reconnectMs ?? PUSH_RECONNECT_MS;
  const Socket = options.WebSocket ?? WebSocket;
  const url = pushUrl(token, options.origin);
  let socket: WebSocket | null = null;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let reconnect: ReturnType<typeof setTimeout> | undefined;
  let lastHeard = 0;
  let stopped = false;
  let opened = false;

  function open() {
    if (stopped) return;
    const ws = new Socket(url);
    ws.binaryType = "arraybuffer";
    socket = ws;
    ws.onopen = () => {
      lastHeard = Date.now();
      usePushStore.setState({ connected: true });
      if (opened) handlers.onReconnect?.();
      opened = true;
      heartbeat = setInterval(() => {
        if (Date.now() - lastHeard > 3 * heartbeatMs) return lost(ws);
        ws.send(PING_FRAME);
      }, heartbeatMs);
    };
    ws.onmessage = (event: MessageEvent) => {
      lastHeard = Date.now();
      if (!(event.data instanceof ArrayBuffer)) return;
      let frame: PushFrame;
      try {
        frame = decodePush(new Uint8Array(event.data));
      } catch {
        return; // a scene this client does not know yet
      }
      if (frame.scene === PUSH_SCENES.ping || frame.scene === PUSH_SCENES.pong) return;
      deliver(frame);
    };
    ws.onerror = () => {}; // a close event follows
    ws.onclose = (event: CloseEvent) => {
      if (event.code === CLOSE.tokenInvalid && !stopped) {
        stop();
        handlers.onRefused?.();
        return;
      }
      if (event.code === CLOSE.loggedOut) stop();
      lost(ws);
    };
  }

  /** This socket is gone: forget it, and try again later unless stopped. */
  function lost(ws: WebSocket) {
    if (socket !== ws) return;
    socket = null;
    clearInterval(heartbeat);
    ws.onopen = ws.onmessage = ws.onclose = null;
    if (ws.readyState === ws.CONNECTING || ws.readyState === ws.OPEN) ws.close();
    usePushStore.setState({ connected: false });
    if (!stopped) reconnect = setTimeout(open, reconnectMs);
  }

  function stop() {
    stopped = true;
    clearTimeout(reconnect);
  }

  function deliver(push: PushEvent) {
    // Every body but the logout's carries the unread total (@keyway/protocol's PushBodies).
    usePushStore.setState(
      "totalUnreadMsg" in push.body
        ? { lastPush: push, unread: push.body.totalUnreadMsg }
        : { lastPush: push },
    );
    for (const listener of [...listeners]) listener(push);
    if (push.scene === PUSH_SCENES.userLogout) {
      // The server closes the socket after this push; do not come back with this token.
      stop();
      handlers.onLogout?.(push.body);
    } else {
      handlers.onPush?.(push);
    }
  }

  open();
  return {
    close() {
      stop();
      if (socket) lost(socket);
    },
    get connected() {
      return socket !== null && socket.readyState === socket.OPEN;
    },
  };
}
