import http from "node:http";
import { connect, createServer, type Server, type Socket } from "node:net";
import { HW } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../../testing/until.ts";
import { readFrontHead } from "./front.ts";
import { type Remote, startRemote } from "./remoteTesting.ts";

/**
 * The front door (front.ts, docs/architecture/remote-access.md "The front door"): plain
 * visit requests answered on the socket, everything else handed to Node's parser. The
 * device is a raw TCP server here, so that it can answer in ways Node's server would not.
 */

const socket = {} as Socket;
const head = (text: string) => readFrontHead(Buffer.from(text, "latin1"), socket, 72);
const GET = "GET /a?b=c HTTP/1.1\r\nHost: x.visit.localhost\r\nCookie: kw_visit=k\r\n";

describe("the front door's head reader", () => {
  it("reads a plain GET: method, path, headers, Connection: close", () => {
    const read = head(`${GET}Connection: close\r\nAccept:  text/html \r\n\r\n`);
    expect(read).toMatchObject({
      method: "GET",
      url: "/a?b=c",
      headers: { host: "x.visit.localhost", cookie: "kw_visit=k" },
      close: true,
    });
    expect(read?.rawHeaders).toContain("text/html");
  });

  it("reads a repeated head's new request line, and any changed header line anew", () => {
    const first = head(`${GET}\r\n`);
    const again = readFrontHead(
      Buffer.from(`HEAD /other HTTP/1.1${GET.slice(GET.indexOf("\r\n"))}\r\n`, "latin1"),
      socket,
      72,
      first,
    );
    expect(again).toMatchObject({ method: "HEAD", url: "/other", headers: first?.headers });
    const changed = readFrontHead(
      Buffer.from(`${GET.replace("kw_visit=k", "kw_visit=other")}\r\n`, "latin1"),
      socket,
      72,
      first,
    );
    expect(changed?.headers.cookie).toBe("kw_visit=other");
    const folded = readFrontHead(
      Buffer.from(`${GET}X-A: 1\r\n x\r\n\r\n`, "latin1"),
      socket,
      72,
      first,
    );
    expect(folded).toBeNull();
  });

  // Each of these is a head two parsers might read two ways, or one with a body: Node's.
  it.each([
    ["a body", `${GET}Content-Length: 5\r\n\r\n`],
    ["a chunked body", `${GET}Transfer-Encoding: chunked\r\n\r\n`],
    [
      "Content-Length and Transfer-Encoding",
      `${GET}Content-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n`,
    ],
    ["two Content-Lengths", `${GET}Content-Length: 0\r\nContent-Length: 0\r\n\r\n`],
    ["two Hosts", `${GET}Host: y.visit.localhost\r\n\r\n`],
    ["no Host", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n"],
    ["two Cookie headers", `${GET}Cookie: kw_visit=other\r\n\r\n`],
    ["a folded line", `${GET}X-A: 1\r\n folded\r\n\r\n`],
    ["a bare LF", `${GET}X-A: 1\nX-B: 2\r\n\r\n`],
    ["a bare CR", `${GET}X-A: 1\rX-B: 2\r\n\r\n`],
    ["a control character", `${GET}X-A: 1\x01\r\n\r\n`],
    ["a space before the colon", `${GET}X-A : 1\r\n\r\n`],
    ["HTTP/1.0", "GET / HTTP/1.0\r\nHost: x.visit.localhost\r\n\r\n"],
    ["an absolute URL", "GET http://x/ HTTP/1.1\r\nHost: x.visit.localhost\r\n\r\n"],
    ["a space in the path", "GET /a b HTTP/1.1\r\nHost: x.visit.localhost\r\n\r\n"],
    ["an upgrade", `${GET}Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n`],
    ["Expect", `${GET}Expect: 100-continue\r\n\r\n`],
    ["a second request in the same read", `${GET}\r\n${GET}\r\n`],
    ["bytes after the head that end as a head does", `${GET}\r\nabc\r\n\r\n`],
    ["half a head", GET],
    ["a head above 16 KiB", `${GET}X-A: ${"a".repeat(17_000)}\r\n\r\n`],
  ])("leaves %s to Node", (_what, text) => {
    expect(head(text)).toBeNull();
  });

  it("leaves a second request in the same read to Node after the same head read alone", () => {
    const first = head(`${GET}\r\n`);
    expect(first).not.toBeNull();
    const twice = Buffer.from(`${GET}\r\n${GET}\r\n`, "latin1");
    expect(readFrontHead(twice, socket, 72, first)).toBeNull();
  });
});

/** The device: answers by path with exactly the bytes given; every request line it got. */
class RawDevice {
  seen: string[] = [];
  /** Each request's head as bytes (latin1: one char a byte). */
  heads: string[] = [];
  /** Connections the relay (through the agent) has closed. */
  closes = 0;
  port = 0;
  private server: Server;
  constructor(answers: Record<string, string>) {
    this.server = createServer((conn) => {
      conn.on("close", () => this.closes++);
      // The relay resets a stream nobody reads any more.
      conn.on("error", () => {});
      let held = "";
      conn.on("data", (data) => {
        held += data.toString("latin1");
        for (let end = held.indexOf("\r\n\r\n"); end >= 0; end = held.indexOf("\r\n\r\n")) {
          const line = held.slice(0, held.indexOf("\r\n"));
          this.heads.push(held.slice(0, end));
          held = held.slice(end + 4);
          this.seen.push(line);
          const path = line.split(" ")[1] ?? "";
          const answer = answers[path] ?? "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
          // /slow: answered after a while, the answers after it held back in order.
          const send = () => {
            conn.write(answer);
            if (/connection: close/i.test(answer.split("\r\n\r\n")[0])) conn.end();
          };
          if (path !== "/slow") {
            send();
            continue;
          }
          conn.pause();
          setTimeout(() => {
            send();
            conn.resume();
          }, 300);
        }
      });
    });
  }
  async listen() {
    await new Promise<void>((done) => this.server.listen(0, "127.0.0.1", () => done()));
    this.port = (this.server.address() as { port: number }).port;
  }
  close() {
    this.server.close();
  }
}

/** A browser's connection read by hand: raw bytes out, whole answers back. */
class RawClient {
  private held = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  closed = false;
  constructor(readonly socket: Socket) {
    socket.on("data", (d: Buffer) => {
      this.held = Buffer.concat([this.held, d]);
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on("close", () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
  }
  static open(port: number): Promise<RawClient> {
    return new Promise((done, fail) => {
      const s = connect(port, "127.0.0.1", () => done(new RawClient(s)));
      s.once("error", fail);
    });
  }
  /** Waits until `ready(bytes)` says the answers are whole (or the connection closed). */
  async read(ready: (text: string) => boolean): Promise<string> {
    const deadline = Date.now() + 10_000;
    while (!ready(this.held.toString("latin1")) && !this.closed) {
      if (Date.now() > deadline)
        throw new Error(`no whole answer: ${this.held.toString("latin1")}`);
      await new Promise<void>((done) => {
        this.waiters.push(done);
        setTimeout(done, 200);
      });
    }
    const text = this.held.toString("latin1");
    this.held = Buffer.alloc(0);
    return text;
  }
}

/** Whether `text` holds `n` whole answers framed by Content-Length (or with no body). */
const answers = (n: number) => (text: string) => {
  let at = 0;
  for (let i = 0; i < n; i++) {
    const end = text.indexOf("\r\n\r\n", at);
    if (end < 0) return false;
    const length = /content-length: (\d+)/i.exec(text.slice(at, end))?.[1];
    at = end + 4 + Number(length ?? 0);
    if (at > text.length) return false;
  }
  return true;
};

let r: Remote;
let device: RawDevice;
let host: string;
let cookie: string;
let pathBase: string;

/** More than the tunnel's windows and the sockets' buffers hold. */
const BIG = 16 * 1024 * 1024;
const CTL = "HTTP/1.1 200 OK\r\nX-Evil: a\x01b\r\nContent-Length: 2\r\n\r\nok";
beforeAll(async () => {
  device = new RawDevice({
    "/plain":
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\n\r\nhello",
    "/chunked":
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n8\r\nlo world\r\n0\r\n\r\n",
    "/close": "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end",
    "/both":
      "HTTP/1.1 200 OK\r\nContent-Length: 999\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
    "/ctl": CTL,
    "/jar": "HTTP/1.1 200 OK\r\nSet-Cookie: hmi=1; Path=/\r\nContent-Length: 2\r\n\r\nok",
    "/slow": "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nslow",
    "/big": `HTTP/1.1 200 OK\r\nContent-Length: ${BIG}\r\n\r\n${"b".repeat(BIG)}`,
    "/reason": "HTTP/1.1 200 OK\rSet-Cookie: kw_token=stolen\r\nContent-Length: 2\r\n\r\nok",
  });
  await device.listen();
  r = await startRemote();
  const deviceId = await r.device(device.port);
  const issued = await r.visitUrl(r.owner, deviceId);
  const url = new URL(issued.body.hwdata.url);
  host = url.host;
  const claimed = await request({ path: `${url.pathname}${url.search}`, host });
  cookie = String(claimed.headers["set-cookie"]?.[0]).split(";")[0];
  const inPath = await r.visitUrl(r.owner, deviceId);
  const pathClaim = await fetch(r.local(inPath.body.hwdata.path_url), { redirect: "manual" });
  pathBase = new URL(pathClaim.headers.get("location") ?? "", "http://x").pathname;
}, 120_000);

afterAll(async () => {
  await r?.close();
  device?.close();
});

/** A request as Node's client makes it (it checks the framing of what comes back). */
function request(options: {
  path: string;
  host?: string;
  cookie?: string;
  agent?: http.Agent;
  method?: string;
}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((done, fail) => {
    const req = http.request(
      {
        port: r.port,
        host: "127.0.0.1",
        path: options.path,
        method: options.method ?? "GET",
        // A connection of its own unless given one (Node's global agent keeps them alive).
        agent: options.agent ?? false,
        headers: {
          ...(options.host && { host: options.host }),
          ...(options.cookie && { cookie: options.cookie }),
        },
      },
      (res) => {
        let body = "";
        res.setEncoding("latin1");
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", fail);
      },
    );
    req.on("error", fail);
    req.end();
  });
}

describe("the front door", () => {
  it("carries bodies framed by length, chunked and by the device's close, on one kept-alive connection", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const [path, body] of [
        ["/plain", "hello"],
        ["/chunked", "hello world"],
        ["/close", "until the end"],
        ["/both", "hi"],
        ["/plain", "hello"],
      ]) {
        const answer = await request({ path, host, cookie, agent });
        expect(answer.status, path).toBe(200);
        expect(answer.body, path).toBe(body);
        expect(answer.headers.connection, path).toBe("keep-alive");
      }
      const head = await request({ path: "/plain", host, cookie, agent, method: "HEAD" });
      expect(head.headers["content-length"]).toBe("5");
      expect(head.body).toBe("");
    } finally {
      agent.destroy();
    }
  });

  it("gives a visitor a 502, never the header, when the device's answer carries a control character or a CR", async () => {
    for (const path of ["/ctl", "/reason"]) {
      // On the front door's socket, and on a connection Node's parser holds (two requests in
      // one read are Node's): the same refusal, and the server stands.
      const front = await RawClient.open(r.port);
      front.socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`);
      const node = await RawClient.open(r.port);
      node.socket.write(
        `GET /plain HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n` +
          `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`,
      );
      const byNode = (await node.read(answers(2))).split("hello")[1];
      for (const text of [await front.read(answers(1)), byNode]) {
        expect(text, path).toMatch(/^HTTP\/1\.1 502 /);
        expect(text, path).toContain(`x-keyway-hwcode: ${HW.TARGET_UNREACHABLE.code}`);
        expect(text, path).not.toContain("stolen");
        expect(text.toLowerCase(), path).not.toContain("x-evil");
      }
      front.socket.destroy();
      node.socket.destroy();
    }
  });

  it("passes a header's UTF-8 bytes to the device unchanged, on either way", async () => {
    // "René" in UTF-8; as bytes on the wire, written here one char per byte.
    const name = "X-Name: Ren\u00c3\u00a9";
    const get = `GET /plain HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n${name}\r\n\r\n`;
    const front = await RawClient.open(r.port);
    front.socket.write(Buffer.from(get, "latin1"));
    expect(await front.read(answers(1))).toContain("hello");
    expect(device.heads.at(-1)).toContain(name);
    // Two in one read: Node's parser reads them.
    const node = await RawClient.open(r.port);
    node.socket.write(Buffer.from(get + get, "latin1"));
    expect(await node.read(answers(2))).toContain("hello");
    expect(device.heads.at(-1)).toContain(name);
    front.socket.destroy();
    node.socket.destroy();
  });

  it("refuses a hostile visitor's wrong cookie with the refusal page; the device sees nothing", async () => {
    const before = device.seen.length;
    const client = await RawClient.open(r.port);
    client.socket.write(
      `GET /plain HTTP/1.1\r\nHost: ${host}\r\nCookie: kw_visit=${"A".repeat(43)}\r\n\r\n`,
    );
    const text = await client.read(answers(1));
    expect(text).toMatch(/^HTTP\/1\.1 403 /);
    expect(text).toContain(`x-keyway-hwcode: ${HW.VISIT_LINK_INVALID.code}`);
    expect(device.seen.length).toBe(before);
    client.socket.destroy();
  });

  it("leaves a smuggled request to Node's parser, which refuses it; the device never sees it", async () => {
    const before = device.seen.length;
    for (const smuggle of [
      `GET /plain HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      `GET /plain HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\nX-A: 1\r\n Transfer-Encoding: chunked\r\n\r\n`,
    ]) {
      const client = await RawClient.open(r.port);
      client.socket.write(smuggle);
      const text = await client.read(answers(1));
      expect(text).toMatch(/^HTTP\/1\.1 400 /);
      client.socket.destroy();
    }
    expect(device.seen.slice(before)).toEqual([]);
  });

  it("answers pipelined requests in order, each with its own visit's rights", async () => {
    const before = device.seen.length;
    const client = await RawClient.open(r.port);
    // The second names no cookie: refused, though it shares the first's connection.
    client.socket.write(
      `GET /plain HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\nGET /chunked HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
    );
    const text = await client.read(answers(2));
    expect(text).toMatch(/^HTTP\/1\.1 200 [\s\S]*hello[\s\S]*HTTP\/1\.1 403 /);
    expect(device.seen.slice(before)).toEqual(["GET /plain HTTP/1.1"]);
    client.socket.destroy();
  });

  it("answers a request sent while the last was being answered after that one, in order", async () => {
    const client = await RawClient.open(r.port);
    const get = (path: string) =>
      `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`;
    client.socket.write(get("/slow"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    client.socket.write(get("/plain"));
    const text = await client.read(answers(2));
    expect(text).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nslowHTTP\/1\.1 200 [\s\S]*\r\n\r\nhello$/);
    client.socket.destroy();
  });

  /** Runs `test` with the server's keep-alive time set to `ms`, then puts it back. */
  async function withKeepAlive(ms: number, test: () => Promise<void>) {
    const server = r.h.app.server;
    const keepAlive = server.keepAliveTimeout;
    server.keepAliveTimeout = ms;
    try {
      await test();
    } finally {
      server.keepAliveTimeout = keepAlive;
    }
  }

  it("keeps a connection through an answer slower than the keep-alive time, and closes it once idle that long", async () => {
    // The device's /slow answer (300 ms) outlasts it.
    await withKeepAlive(150, async () => {
      const client = await RawClient.open(r.port);
      client.socket.write(`GET /slow HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`);
      expect(await client.read(answers(1))).toMatch(/\r\n\r\nslow$/);
      expect(client.closed).toBe(false);
      // Idle now: closed as Node closes a kept-alive connection nobody uses.
      await client.read(() => false);
      expect(client.closed).toBe(true);
    });
  });

  it("keeps an idle connection when the keep-alive time is 0 (no limit, as in Node)", async () => {
    await withKeepAlive(0, async () => {
      const client = await RawClient.open(r.port);
      client.socket.write(`GET /plain HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`);
      expect(await client.read(answers(1))).toMatch(/\r\n\r\nhello$/);
      // Past the front door's sweep (once a second): still open.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(client.closed).toBe(false);
      client.socket.destroy();
    });
  });

  it("stops a big answer when the browser leaves during it: that stream is closed, not pooled", async () => {
    const client = await RawClient.open(r.port);
    const asked = device.seen.length;
    const closes = device.closes;
    client.socket.write(`GET /big HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`);
    // The answer has begun; the browser reads no further and goes (a reset, bytes unread).
    await client.read((text) => text.includes("\r\n\r\n"));
    client.socket.pause();
    client.socket.destroy();
    await until(async () => device.closes > closes, 10_000, "the relay to close that stream");
    expect(device.seen.slice(asked)).toEqual(["GET /big HTTP/1.1"]);
    // The visit goes on serving, on another stream.
    const after = await RawClient.open(r.port);
    after.socket.write(`GET /plain HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`);
    expect(await after.read(answers(1))).toMatch(/\r\n\r\nhello$/);
    after.socket.destroy();
  });

  it("gives the device the cookie it set, on the next request of the same connection (path mode)", async () => {
    const client = await RawClient.open(r.port);
    const get = (path: string) =>
      `GET ${pathBase}${path} HTTP/1.1\r\nHost: 127.0.0.1:${r.port}\r\n\r\n`;
    for (const path of ["plain", "jar", "plain"]) {
      client.socket.write(get(path));
      await client.read(answers(1));
    }
    const [before, , after] = device.heads.slice(-3);
    expect(before).not.toContain("hmi=1");
    expect(after).toContain("Cookie: hmi=1");
    client.socket.destroy();
  });

  it("moves a kept-alive connection from a visit to Keyway's own routes and back", async () => {
    const client = await RawClient.open(r.port);
    const self = `127.0.0.1:${r.port}`;
    client.socket.write(`GET ${pathBase}plain HTTP/1.1\r\nHost: ${self}\r\n\r\n`);
    expect(await client.read(answers(1))).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nhello$/);
    client.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${self}\r\n\r\n`);
    const health = await client.read(answers(1));
    expect(health).toMatch(/^HTTP\/1\.1 200 /);
    expect(health).not.toContain("hello");
    client.socket.write(`GET ${pathBase}plain HTTP/1.1\r\nHost: ${self}\r\n\r\n`);
    expect(await client.read(answers(1))).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nhello$/);
    expect(client.closed).toBe(false);
    client.socket.destroy();
  });

  it("closes its idle kept-alive connections when the server closes its idle ones", async () => {
    const client = await RawClient.open(r.port);
    client.socket.write(`GET /plain HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`);
    expect(await client.read(answers(1))).toContain("hello");
    expect(client.closed).toBe(false);
    // What server.close() and Fastify's close do first: a stop does not wait 72 s for it.
    r.h.app.server.closeIdleConnections();
    await client.read(() => false);
    expect(client.closed).toBe(true);
  });
});
