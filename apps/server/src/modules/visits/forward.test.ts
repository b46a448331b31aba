import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { bridgeWebSocket } from "./forward.ts";

/**
 * A WebSocket carried to the node that holds the device's tunnel (`/visit-tcp`,
 * `/visit-screen` landing elsewhere), between real ws endpoints: this node reads nothing of
 * the caller while the other node has not answered, and passes every message on, in order,
 * once it has.
 */

const closers: Array<() => void> = [];
afterAll(() => {
  for (const close of closers) close();
});

const listen = async (server: Server) => {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  closers.push(() => server.close());
  return (server.address() as AddressInfo).port;
};

/** The other node: answers WebSocket upgrades only once released; keeps what it receives. */
async function slowNode() {
  let release = () => {};
  const released = new Promise<void>((done) => {
    release = done;
  });
  const got: Buffer[] = [];
  const sockets: WebSocket[] = [];
  const wss = new WebSocketServer({ noServer: true, maxPayload: 2 * 1024 * 1024 });
  const server = createServer();
  server.on("upgrade", async (request, socket, head) => {
    await released;
    wss.handleUpgrade(request, socket, head, (ws) => {
      closers.push(() => ws.terminate());
      sockets.push(ws);
      ws.on("message", (data: Buffer) => got.push(data));
    });
  });
  return { url: `http://127.0.0.1:${await listen(server)}`, release, got, sockets };
}

/** This node: hands the caller's WebSocket to the carrier as soon as it is accepted. */
async function carryingNode(to: string) {
  const accepted: WebSocket[] = [];
  const server = createServer();
  const wss = new WebSocketServer({ server, maxPayload: 2 * 1024 * 1024 });
  wss.on("connection", (ws) => {
    accepted.push(ws);
    closers.push(() => ws.terminate());
    bridgeWebSocket(ws, to, "/visit-tcp/v1", "token");
  });
  const port = await listen(server);
  /** Bytes this node has read from the caller's connection. */
  const read = () =>
    accepted.reduce(
      (sum, ws) =>
        sum + ((ws as unknown as { _socket: { bytesRead: number } })._socket.bytesRead ?? 0),
      0,
    );
  return { url: `ws://127.0.0.1:${port}/`, read };
}

/** Waits until `ws`'s writes have stalled: bytes left to write, and no change for 0.5 s. */
async function stalled(ws: WebSocket, what: string) {
  let last = -1;
  let same = 0;
  const deadline = Date.now() + 15_000;
  while (same < 5) {
    if (Date.now() > deadline)
      throw new Error(`${what}'s writes did not stall: ${ws.bufferedAmount} bytes left`);
    await new Promise((done) => setTimeout(done, 100));
    same = ws.bufferedAmount > 0 && ws.bufferedAmount === last ? same + 1 : 0;
    last = ws.bufferedAmount;
  }
}

async function opened(url: string) {
  const ws = new WebSocket(url);
  closers.push(() => ws.terminate());
  await new Promise((done, fail) => {
    ws.once("open", done);
    ws.once("error", fail);
  });
  return ws;
}

const MiB = 1024 * 1024;

describe("a WebSocket carried to the node holding the tunnel", () => {
  it("is not read while that node has not answered, then passes every message on in order", async () => {
    const other = await slowNode();
    const here = await carryingNode(other.url);
    const caller = await opened(here.url);
    const count = 32;
    for (let i = 0; i < count; i++) caller.send(Buffer.alloc(MiB, i));

    // The caller's writes stall: this node takes nothing while the other has not answered
    // (it took all 32 MiB, to hold in memory, when it read at once).
    await stalled(caller, "the caller");
    expect(here.read()).toBeLessThan(MiB);

    other.release();
    await expect.poll(() => other.got.length, { timeout: 20_000 }).toBe(count);
    expect(other.got.map((data) => [data.byteLength, data[0]])).toEqual(
      Array.from({ length: count }, (_, i) => [MiB, i]),
    );
  });

  it("holds at most about 1 MiB for a caller that does not read, pausing the other node", async () => {
    const other = await slowNode();
    other.release();
    const here = await carryingNode(other.url);
    const caller = await opened(here.url);
    caller.pause();
    await expect.poll(() => other.sockets.length).toBe(1);
    const [device] = other.sockets;
    const count = 32;
    for (let i = 0; i < count; i++) device.send(Buffer.alloc(MiB, i));
    // The other node's writes stall (this node read all 32 MiB, to hold for the caller, before).
    await stalled(device, "the other node");
    const received: Buffer[] = [];
    caller.on("message", (data: Buffer) => received.push(data));
    caller.resume();
    await expect.poll(() => received.length, { timeout: 20_000 }).toBe(count);
    expect(received.map((data) => [data.byteLength, data[0]])).toEqual(
      Array.from({ length: count }, (_, i) => [MiB, i]),
    );
  });
});
