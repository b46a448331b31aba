import { connect, createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import type { TunnelStream } from "./mux.ts";
import { tunnelOverSocket } from "./tunnelSocket.ts";

/**
 * The tunnel stream's quick paths over the socket carrier (mux.ts, tunnelSocket.ts), each the
 * same bytes in the same order as the stream's own machinery:
 * - sendNow: a request head with nothing after it goes out in one frame at once, byte for
 *   byte; behind anything already written it declines.
 * - setReader: the reader gets the bytes straight from the tunnel's reads while nothing is
 *   held, through the stream's buffer while it is paused.
 * - A small DATA frame is copied behind its header and written at once, after what the tick
 *   gathered.
 */

/** Two ends of a tunnel over a real loopback TCP connection; the device's streams paused. */
async function pair() {
  const device: TunnelStream[] = [];
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  const accepted = new Promise<Socket>((done) => server.once("connection", done));
  const client = connect((server.address() as { port: number }).port, "127.0.0.1");
  const agentSocket = await accepted;
  const agent = tunnelOverSocket(agentSocket, {
    onOpen: (stream) => {
      stream.accept();
      stream.pause();
      device.push(stream);
    },
  });
  const cloud = tunnelOverSocket(client, {});
  const close = () => {
    cloud.close(1000, "done");
    agent.close(1000, "done");
    server.close();
  };
  return { cloud: cloud.mux, cloudSocket: client, device, close };
}

/** Runs `test` on a fresh pair, closed after it whatever it does. */
async function withPair(test: (ends: Awaited<ReturnType<typeof pair>>) => Promise<void>) {
  const ends = await pair();
  try {
    await test(ends);
  } finally {
    ends.close();
  }
}

/** Everything a paused device stream has received so far, read once it has `n` bytes. */
async function received(stream: TunnelStream, n: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on("data", (c: Buffer) => {
    chunks.push(c);
    size += c.byteLength;
  });
  stream.resume();
  const deadline = Date.now() + 5_000;
  while (size < n) {
    if (Date.now() > deadline) throw new Error(`${size} of ${n} bytes`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Buffer.concat(chunks);
}

describe("a request head sent at once", () => {
  it("arrives byte for byte (latin1: a header's UTF-8 bytes pass unchanged)", async () => {
    await withPair(async ({ cloud, device }) => {
      const stream = await cloud.open(null);
      // "é" in UTF-8 (C3 A9), as Node's parser hands a header's bytes: one char per byte.
      const head = "GET / HTTP/1.1\r\nX-Name: Ren\u00c3\u00a9\r\n\r\n";
      expect(stream.sendNow(head)).toBe(true);
      const bytes = await received(device[0], head.length);
      expect(bytes.equals(Buffer.from(head, "latin1"))).toBe(true);
      expect(bytes.includes(Buffer.from("Ren\u00e9"))).toBe(true);
    });
  });

  it("declines behind bytes still waiting for the device's credit; written after them, order kept", async () => {
    await withPair(async ({ cloud, device }) => {
      const stream = await cloud.open(null);
      // More than the first window: the rest waits for the paused device to read.
      const body = Buffer.alloc(600 * 1024, 0x61);
      stream.write(body);
      const head = "GET /next HTTP/1.1\r\n\r\n";
      expect(stream.sendNow(head)).toBe(false);
      stream.write(head, "latin1");
      const bytes = await received(device[0], body.byteLength + head.length);
      expect(bytes.subarray(0, body.byteLength).equals(body)).toBe(true);
      expect(bytes.subarray(body.byteLength).toString("latin1")).toBe(head);
    });
  });
});

/** `size` bytes that tell their own position: a reordered or lost piece shows. */
function pattern(size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i += 4) bytes.writeUInt32BE(i, i);
  return bytes;
}

describe("small frames written at once", () => {
  it("go out at once, taking what the tick gathered before them, and keep their place on one stream and across two", async () => {
    await withPair(async ({ cloud, cloudSocket, device }) => {
      const one = await cloud.open(null);
      const two = await cloud.open(null);
      // Large (gathered for the tick's writev), small (copied and written at once), large.
      const large = pattern(20_000);
      const small = Buffer.from("small");
      one.write(large);
      expect(cloudSocket.writableCorked).toBe(1);
      two.write(small);
      // Nothing waits for the tick's end: the gathered frames went, then the small one.
      expect(cloudSocket.writableCorked).toBe(0);
      one.write(small);
      one.write(large);
      const [first, second] = await Promise.all([
        received(device[0], 2 * large.byteLength + small.byteLength),
        received(device[1], small.byteLength),
      ]);
      expect(first.equals(Buffer.concat([large, small, large]))).toBe(true);
      expect(second.equals(small)).toBe(true);
    });
  });
});

describe("a stream read through setReader", () => {
  it("hands its reader every byte in order through pauses, and the device's credit keeps coming", async () => {
    await withPair(async ({ cloud, device }) => {
      const stream = await cloud.open(null);
      stream.write("x");
      await received(device[0], 1);
      // Many windows' worth: the device can send it all only if credit comes back.
      const sent = pattern(3 * 1024 * 1024);
      const chunks: Buffer[] = [];
      let size = 0;
      let pauses = 0;
      stream.setReader((chunk) => {
        chunks.push(chunk);
        size += chunk.byteLength;
        // A reader whose own writer fills now and then (a slow browser).
        if (size > (pauses + 1) * 400 * 1024) {
          pauses += 1;
          stream.pause();
          setTimeout(() => stream.resume(), 5);
        }
      });
      for (let at = 0; at < sent.byteLength; at += 50_000)
        device[0].write(sent.subarray(at, at + 50_000));
      const deadline = Date.now() + 10_000;
      while (size < sent.byteLength && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(pauses).toBeGreaterThan(3);
      expect(Buffer.concat(chunks).equals(sent)).toBe(true);
      expect(stream.destroyed).toBe(false);
    });
  });

  it("shares the bytes with another 'data' listener, each getting all of them", async () => {
    await withPair(async ({ cloud, device }) => {
      const stream = await cloud.open(null);
      stream.write("x");
      await received(device[0], 1);
      const seen: Buffer[] = [];
      const alsoSeen: Buffer[] = [];
      stream.setReader((chunk) => seen.push(chunk));
      stream.on("data", (chunk: Buffer) => alsoSeen.push(chunk));
      const sent = pattern(200 * 1024);
      device[0].write(sent);
      const deadline = Date.now() + 5_000;
      while (Buffer.concat(alsoSeen).byteLength < sent.byteLength && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(Buffer.concat(seen).equals(sent)).toBe(true);
      expect(Buffer.concat(alsoSeen).equals(sent)).toBe(true);
    });
  });
});
