import { connect } from "node:net";

/**
 * A stranger on a WebSocket route: upgrades a raw TCP link to `path` (origin and subprotocol
 * as given), sends at once a binary frame header announcing `length` bytes and 1 KiB of them,
 * and never a close answer. Resolves, when the server drops the link (or after `giveUpMs`),
 * with the close codes the server sent and the ms from the header to the link's end: a route
 * that holds the message waits for the rest (ws' 30 s close timeout at the least).
 */
export function strangerWebSocketMessage(
  port: number,
  path: string,
  length: number,
  headers: Record<string, string> = {},
  giveUpMs = 10_000,
) {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${extra.join("")}\r\n`,
  );
  let received = Buffer.alloc(0);
  let started = 0;
  return new Promise<{ status: number; closeCodes: number[]; ms: number }>((resolve) => {
    const done = () => {
      clearTimeout(giveUp);
      socket.destroy();
      const status = Number(received.subarray(9, 12).toString()) || 0;
      const codes: number[] = [];
      const headEnd = received.indexOf("\r\n\r\n");
      // The server's frames are unmasked: a close frame is 0x88, length, code.
      let at = headEnd < 0 ? received.length : headEnd + 4;
      while (at + 2 <= received.length) {
        const size = received[at + 1] & 0x7f;
        if (size > 125) break; // a data frame of the route's own; none is expected here
        if (received[at] === 0x88 && size >= 2) codes.push(received.readUInt16BE(at + 2));
        at += 2 + size;
      }
      resolve({ status, closeCodes: codes, ms: started ? Date.now() - started : 0 });
    };
    const giveUp = setTimeout(done, giveUpMs);
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (started || received.indexOf("\r\n\r\n") < 0) return;
      started = Date.now();
      if (!received.subarray(0, 12).equals(Buffer.from("HTTP/1.1 101"))) return;
      const header = Buffer.alloc(14);
      header[0] = 0x82; // final, binary
      header[1] = 0x80 | 127; // masked, 64-bit length
      header.writeBigUInt64BE(BigInt(length), 2);
      socket.write(Buffer.concat([header, Buffer.alloc(1024)])); // mask 0: bytes as sent
    });
    socket.once("close", done);
  });
}
