import { connect, createServer, type Socket } from "node:net";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { readDirect, readToStream } from "./socketReads.ts";

/**
 * Reads straight into the shared buffer (socketReads.ts) on real loopback sockets, accepted
 * by a server as the front door's and the tunnel's are: what the reader gets, what it may
 * keep, and the way back to the socket's stream for Node's HTTP server.
 */

const open: { close(): void }[] = [];
afterEach(() => {
  for (const one of open.splice(0)) one.close();
});

/** A connected pair: `accepted` as a server accepted it, `client` the other end. */
async function pair(): Promise<{ accepted: Socket; client: Socket }> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  const accepted = new Promise<Socket>((done) => server.once("connection", done));
  const client = connect((server.address() as { port: number }).port, "127.0.0.1");
  const socket = await accepted;
  open.push({
    close: () => {
      client.destroy();
      socket.destroy();
      server.close();
    },
  });
  return { accepted: socket, client };
}

/** Resolves when `check` holds, polling; fails after two seconds. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((done) => setTimeout(done, 10));
  expect(check()).toBe(true);
}

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe("a socket read straight into our buffer", () => {
  it("hands each read to its reader, and reads nothing more after the reader says false until resumed", async () => {
    const { accepted, client } = await pair();
    const got: string[] = [];
    expect(
      readDirect(
        accepted,
        (bytes) => {
          got.push(bytes.toString());
          return !bytes.toString().endsWith("stop");
        },
        false,
      ),
    ).toBe(true);
    client.write("one");
    await until(() => got.join("") === "one");
    client.write("then stop");
    await until(() => got.join("") === "onethen stop");
    client.write("later");
    await pause(150);
    expect(got.join("")).toBe("onethen stop");
    accepted.resume();
    await until(() => got.join("") === "onethen stoplater");
  });

  it("gives a kept reader bytes of their own: what it held is unchanged by the reads after", async () => {
    const { accepted, client } = await pair();
    const held: Buffer[] = [];
    readDirect(accepted, (bytes) => held.push(bytes), true);
    const sent: string[] = [];
    for (let i = 0; i < 20; i++) {
      const text = `read ${i} `.repeat(i + 1);
      sent.push(text);
      client.write(text);
      await until(() => Buffer.concat(held).toString() === sent.join(""));
    }
    expect(held.length).toBeGreaterThan(1);
    // Each held read, taken again after all: borrowed bytes would be the last read's by now.
    expect(held.map((bytes) => bytes.toString()).join("")).toBe(sent.join(""));
  });

  it("gives reads back to the socket's stream: 'data' events, bytes of their own, then its end", async () => {
    const { accepted, client } = await pair();
    const first: string[] = [];
    readDirect(accepted, (bytes) => first.push(bytes.toString()), false);
    client.write("before");
    await until(() => first.join("") === "before");
    readToStream(accepted);
    const data: Buffer[] = [];
    accepted.on("data", (bytes: Buffer) => data.push(bytes));
    const ended = new Promise<void>((done) => accepted.once("end", () => done()));
    for (const text of ["after one", "after two", "after three"]) {
      client.write(text);
      await pause(20);
    }
    client.end();
    await ended;
    expect(first.join("")).toBe("before");
    expect(data.length).toBeGreaterThan(1);
    expect(Buffer.concat(data).toString()).toBe("after oneafter twoafter three");
  });

  it("tells its end as Node does after direct reads", async () => {
    const { accepted, client } = await pair();
    readDirect(accepted, () => true, false);
    const ended = new Promise<void>((done) => accepted.once("end", () => done()));
    client.end("last bytes");
    await ended;
  });

  it("declines a stream that is not a socket, and a socket with bytes already in its stream", async () => {
    expect(readDirect(new PassThrough(), () => true, false)).toBe(false);
    const { accepted } = await pair();
    accepted.pause();
    accepted.unshift(Buffer.from("waiting"));
    expect(readDirect(accepted, () => true, false)).toBe(false);
    expect(accepted.read()?.toString()).toBe("waiting");
  });
});
