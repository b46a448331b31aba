import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket } from "ws";

/**
 * Carrying a visit to the node that holds the device's tunnel (docs/architecture/scale-out.md#the-tunnel-registry): the
 * browser's request goes on unchanged, bytes both ways, to that node's own address, which
 * checks the visit as if the browser had reached it. The header marks a request already
 * carried once, so that two nodes disagreeing about the registry never pass it back and forth.
 */
export const RELAYED_HEADER = "x-keyway-relayed";

function optionsFor(node: string, request: IncomingMessage): http.RequestOptions {
  const url = new URL(node);
  return {
    host: url.hostname,
    port: url.port || 80,
    method: request.method,
    path: request.url,
    headers: { ...request.headers, [RELAYED_HEADER]: "1" },
  };
}

export function forwardHttp(
  request: IncomingMessage,
  response: ServerResponse,
  node: string,
  fail: (error: Error) => void,
): void {
  const upstream = http.request(optionsFor(node, request), (answer) => {
    for (const name of response.getHeaderNames()) response.removeHeader(name);
    response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
    answer.pipe(response);
    answer.on("error", () => response.destroy());
  });
  upstream.on("error", (error) => {
    if (response.headersSent) response.destroy();
    else fail(error);
  });
  response.on("close", () => {
    if (!response.writableFinished) upstream.destroy();
  });
  request.pipe(upstream);
}

/** An upgrade (the device page's WebSocket) handed on whole: the other node answers it. */
export function forwardUpgrade(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  node: string,
): void {
  const upstream = http.request(optionsFor(node, request));
  const refuse = () => {
    if (!socket.destroyed) socket.end("HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n");
  };
  upstream.on("upgrade", (answer, remote, remoteHead) => {
    let text = `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}\r\n`;
    for (let i = 0; i < answer.rawHeaders.length; i += 2)
      text += `${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}\r\n`;
    socket.write(`${text}\r\n`, "latin1");
    if (remoteHead.length) socket.write(remoteHead);
    if (head.length) remote.write(head);
    remote.pipe(socket);
    socket.pipe(remote);
    remote.on("error", () => socket.destroy());
    remote.on("close", () => socket.destroy());
    socket.on("close", () => remote.destroy());
  });
  // A refusal (no upgrade): its status, headers and body go back as they are.
  upstream.on("response", (answer) => {
    let text = `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}\r\n`;
    for (let i = 0; i < answer.rawHeaders.length; i += 2)
      if (answer.rawHeaders[i].toLowerCase() !== "transfer-encoding")
        text += `${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}\r\n`;
    socket.write(`${text}Connection: close\r\n\r\n`, "latin1");
    answer.pipe(socket);
  });
  upstream.on("error", refuse);
  socket.on("error", () => upstream.destroy());
  upstream.end();
}

/** Bytes one side of a carried WebSocket may have waiting for the other before it is paused. */
const CARRY_HIGH_WATER = 1024 * 1024;

/**
 * `/visit-tcp` (or `/visit-screen`) accepted here for a device whose tunnel is elsewhere: one
 * WebSocket to the same path on that node with the caller's token, messages and the closing
 * code passed on. `local` comes paused and is read only once that node has answered, and
 * either side is paused while 1 MiB of its messages waits for the other (decision 229).
 * `spoke`: called once, at that node's first message (decision 230).
 */
export function bridgeWebSocket(
  local: WebSocket,
  node: string,
  path: string,
  token: string | null,
  spoke?: () => void,
) {
  const remote = new WebSocket(`${node.replace(/^http/, "ws")}${path}`, {
    // The screen viewer's has no token: its ticket in the path is the credential.
    headers: { ...(token !== null && { cloudtoken: token }), [RELAYED_HEADER]: "1" },
    maxPayload: 2 * 1024 * 1024,
  });
  /** Sends messages on `to`, pausing `from` while too much waits to be written. */
  const carry = (from: WebSocket, to: WebSocket) => {
    let waiting = 0;
    const send = (data: Buffer) => {
      if (to.readyState !== WebSocket.OPEN) return;
      waiting += data.byteLength;
      if (waiting > CARRY_HIGH_WATER) from.pause();
      to.send(data, { binary: true }, () => {
        waiting -= data.byteLength;
        if (waiting <= CARRY_HIGH_WATER / 2 && from.isPaused) from.resume();
      });
    };
    return { send, full: () => waiting > CARRY_HIGH_WATER };
  };
  const up = carry(local, remote);
  // Messages read before the pause took hold (at most one read's worth).
  const early: Buffer[] = [];
  local.on("message", (data: Buffer) => {
    if (remote.readyState === WebSocket.OPEN) up.send(data);
    else early.push(data);
  });
  local.pause();
  remote.on("open", () => {
    for (const data of early.splice(0)) up.send(data);
    if (!up.full()) local.resume();
  });
  const down = carry(remote, local);
  if (spoke) remote.once("message", spoke);
  remote.on("message", down.send);
  const closeWith = (socket: WebSocket, code: number, reason: Buffer | string) => {
    if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) {
      // Codes a peer may not send on the wire (1005, 1006) become a plain going-away.
      const sendable = code === 1000 || (code >= 3000 && code < 5000) ? code : 1001;
      // A paused socket would never read the answering close frame (ws' 30 s close timeout).
      socket.resume();
      socket.close(sendable, String(reason).slice(0, 120));
    }
  };
  remote.on("close", (code, reason) => closeWith(local, code, reason));
  remote.on("error", () => closeWith(local, 4504, "unreachable"));
  local.on("close", (code, reason) => closeWith(remote, code, reason));
  local.on("error", () => remote.terminate());
}
