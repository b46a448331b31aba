import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import http, { type IncomingMessage } from "node:http";
import type { LookupFunction } from "node:net";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { TUNNEL_MAX_WINDOW } from "@keyway/protocol";
import { HW } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { freePort } from "../../testing/ports.ts";

/**
 * Remote access end to end: the real server listening on a port, the real agent CLI as a
 * child process holding its tunnel, and real target servers (HTTP + WebSocket, raw TCP echo)
 * standing in for the device's LAN. Clients open the visit URLs the API hands out.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../..");
const MiB = 1024 * 1024;

let h: Harness;
let port: number;
let dataDir: string;
let agent: { child: ChildProcess; output: string[] };
let web: TargetWeb;
let echo: { server: Server; port: number };
let owner: Person;
let machineID: number;
let machineCode: string;

type Person = Awaited<ReturnType<Harness["person"]>>;

/** Every `*.localhost` name is this machine, as in Chromium. */
const lookup = ((_host, options, callback) => {
  if ((options as { all?: boolean }).all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
  else (callback as (e: null, a: string, f: number) => void)(null, "127.0.0.1", 4);
}) as LookupFunction;

async function until(check: () => boolean | Promise<boolean>, ms = 15_000, what = "condition") {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The device's own web UI: pages, an upload sink, a big download, a barrier, a WebSocket echo. */
class TargetWeb {
  server: http.Server;
  port = 0;
  /** Bytes the big download has handed to its socket. */
  sent = 0;
  lastHeaders: http.IncomingHttpHeaders = {};
  waiting: Array<() => void> = [];
  maxWaiting = 0;
  /** Lets a held upload (`/upload?hold=1`) be read. */
  releaseUpload: () => void = () => {};
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor() {
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.on("upgrade", (req, socket, head) => {
      this.lastHeaders = req.headers;
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on("message", (data, isBinary) => ws.send(data, { binary: isBinary }));
      });
    });
  }

  async listen() {
    await new Promise<void>((done) => this.server.listen(0, "127.0.0.1", () => done()));
    const address = this.server.address();
    this.port = typeof address === "object" && address ? address.port : 0;
  }

  private handle(req: IncomingMessage, res: http.ServerResponse) {
    this.lastHeaders = req.headers;
    const url = new URL(req.url ?? "/", "http://device");
    if (url.pathname === "/") {
      res.setHeader("set-cookie", "hmi_session=abc; Path=/; Domain=127.0.0.1; HttpOnly");
      res.end("<html><body><h1>HMI home</h1></body></html>");
    } else if (url.pathname === "/redirect") {
      res.writeHead(302, { location: `http://127.0.0.1:${this.port}/landing` }).end();
    } else if (url.pathname === "/upload") {
      // ?hold=1: the device reads nothing until released (`releaseUpload`).
      if (url.searchParams.get("hold")) {
        req.pause();
        this.releaseUpload = () => req.resume();
      }
      const hash = createHash("sha256");
      let bytes = 0;
      req.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        hash.update(chunk);
      });
      req.on("end", () => res.end(JSON.stringify({ bytes, sha256: hash.digest("hex") })));
    } else if (url.pathname === "/big") {
      const total = Number(url.searchParams.get("mb")) * MiB;
      this.sent = 0;
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(64 * 1024);
      for (let i = 0; i < chunk.length; i++) chunk[i] = i % 251;
      const pump = () => {
        while (this.sent < total) {
          this.sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    } else if (url.pathname === "/twice" || url.pathname === "/later") {
      // A hostile page: a second answer nobody asked for, on the kept-alive connection, at
      // once (with the first) or while the connection waits for the next request.
      const forged = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged";
      const socket = req.socket;
      res.end("first", () => {
        if (url.pathname === "/twice") socket.write(forged);
        else setTimeout(() => socket.writable && socket.write(forged), 100);
      });
    } else if (url.pathname === "/barrier") {
      // Answers once `n` requests are waiting at the same time: proof they were concurrent.
      const n = Number(url.searchParams.get("n"));
      const release = () => res.end("ok");
      this.waiting.push(release);
      this.maxWaiting = Math.max(this.maxWaiting, this.waiting.length);
      if (this.waiting.length >= n) for (const go of this.waiting.splice(0)) go();
    } else {
      res.writeHead(404).end("no such page");
    }
  }

  async close() {
    this.server.closeAllConnections();
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((done) => this.server.close(() => done()));
  }
}

const person = (name: string) => h.person(name);

let operator: string | undefined;
async function provision() {
  if (!operator) {
    await seedDemo(h.app.services.accounts);
    operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
  }
  const res = await h.call("POST", "/api/operator/v1/devices/provision", {
    form: { count: 1 },
    token: operator,
  });
  return res.body.hwdata.list[0] as {
    machineCode: string;
    devicePassword: string;
    deviceSecret: string;
  };
}

const visitUrl = (p: Person, id = machineID, extra: Record<string, string | number> = {}) =>
  h.call("POST", "/api/v1/audit/getValidVisitUrl", {
    form: { machineID: id, terminalID: "t", ...extra },
    token: p.token,
  });

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One HTTP request the way a browser on this machine would make it. */
function request(
  url: string,
  options: { method?: string; cookie?: string; body?: Buffer; agent?: http.Agent } = {},
): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = http.request(
      url,
      {
        method: options.method ?? "GET",
        lookup,
        agent: options.agent,
        headers: options.cookie ? { cookie: options.cookie } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on("error", fail);
      },
    );
    req.on("error", fail);
    req.end(options.body);
  });
}

/** Opens a visit URL (the one-time ticket) and returns the visit origin and its cookie. */
async function openVisit(url: string) {
  const first = await request(url);
  expect(first.status).toBe(302);
  const setCookie = first.headers["set-cookie"]?.[0] ?? "";
  expect(setCookie).toMatch(/^kw_visit=[A-Za-z0-9_-]+;/);
  expect(setCookie).toContain("HttpOnly");
  expect(setCookie).toContain("SameSite=Lax");
  const cookie = setCookie.split(";")[0];
  const origin = new URL(url).origin;
  return { origin, cookie, location: first.headers.location, setCookie };
}

/** A visitor holding a white-list visit time on the test device. */
async function visitor(minutes: number): Promise<Person> {
  const p = await person("Visitor");
  const asked = await h.call("POST", "/api/v1/audit/addVisit", {
    form: { machineID, message: "please", terminalName: "Laptop" },
    token: p.token,
  });
  expect(asked.body.hwcode).toBe(0);
  const agreed = await h.call("POST", "/api/v1/audit/visitReply", {
    form: { requestId: asked.body.hwdata.id, result: "agree", message: "ok", visitTime: minutes },
    token: owner.token,
  });
  expect(agreed.body.hwcode).toBe(0);
  // With the right to change the device: a read-only visitor's WebSockets are refused unless
  // the owner allows them (issue 20), and these tests open some.
  const level = await h.call("POST", "/api/machine/limitReadSet", {
    form: { machineID, userId: p.userId, write: 1 },
    token: owner.token,
  });
  expect(level.body.hwcode).toBe(0);
  return p;
}

/** A WebSocket from a page of the visit, as a browser opens it (Origin: the visit host). */
function openWebSocket(origin: string, cookie: string, path = "/echo"): Promise<WebSocket> {
  const ws = new WebSocket(`${origin.replace(/^http/, "ws")}${path}`, {
    lookup,
    origin,
    headers: { cookie },
  } as ConstructorParameters<typeof WebSocket>[2]);
  return new Promise((done, fail) => {
    ws.once("open", () => done(ws));
    ws.once("error", fail);
  });
}

function echoOnce(ws: WebSocket, text: string): Promise<string> {
  return new Promise((done) => {
    ws.once("message", (data) => done(String(data)));
    ws.send(text);
  });
}

function closed(ws: WebSocket): Promise<number> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve(-1);
  return new Promise((done) => ws.once("close", (code) => done(code)));
}

async function visitLog(p: Person) {
  return h.call("GET", `/api/device/v1/visits?deviceId=${machineID}&page=1&pageSize=50`, {
    token: p.token,
  });
}

beforeAll(async () => {
  port = await freePort();
  h = await createHarness({ config: { PUBLIC_URL: `http://localhost:${port}` } });
  await h.app.listen({ port, host: "127.0.0.1" });
  web = new TargetWeb();
  await web.listen();
  const echoServer = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((done) => echoServer.listen(0, "127.0.0.1", () => done()));
  const echoAddress = echoServer.address();
  echo = {
    server: echoServer,
    port: typeof echoAddress === "object" && echoAddress ? echoAddress.port : 0,
  };

  owner = await person("Owner");
  const device = await provision();
  const added = await h.call("POST", "/api/machine/add", {
    form: {
      machineName: "Press line",
      machineCode: device.machineCode,
      machinePwd: device.devicePassword,
    },
    token: owner.token,
  });
  machineID = added.body.hwdata.machine_id;
  machineCode = device.machineCode;

  dataDir = mkdtempSync(join(tmpdir(), "kw-tunnel-"));
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "apps/agent/src/cli.ts",
      "run",
      "--server",
      `ws://127.0.0.1:${port}/mqtt`,
      "--code",
      device.machineCode,
      "--data-dir",
      dataDir,
      "--target",
      `127.0.0.1:${web.port}`,
      "--allow",
      `127.0.0.1:${echo.port}`,
      "--location-every",
      "0",
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      // The secret in the environment, never on a command line (docs/security.md).
      env: { ...process.env, KEYWAY_AGENT_SECRET: device.deviceSecret },
    },
  );
  agent = { child, output: [] };
  child.stdout?.on("data", (d) => agent.output.push(String(d)));
  child.stderr?.on("data", (d) => agent.output.push(String(d)));
  await until(() => Boolean(h.app.services.tunnels.hello(machineID)), 60_000, "the agent's tunnel");
});

afterAll(async () => {
  if (agent?.child.exitCode === null) {
    const exited = new Promise((done) => agent.child.once("exit", done));
    agent.child.kill("SIGTERM");
    await exited;
  }
  await web?.close();
  echo?.server.close();
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("visit URLs", () => {
  it("are issued while the right holds, open the device UI once, and refuse anyone else", async () => {
    const issued = await visitUrl(owner);
    expect(issued.body.hwcode).toBe(0);
    const v = issued.body.hwdata;
    expect(v).toMatchObject({
      machine_id: machineID,
      online: true,
      role: "akey",
      target: `127.0.0.1:${web.port}`,
    });
    expect(v.url).toBe(
      `http://${v.visit_id}.visit.localhost:${port}/?kw_ticket=${v.url.split("=")[1]}`,
    );
    expect(v.path_url).toMatch(
      new RegExp(`^http://localhost:${port}/visit/${v.visit_id}/\\?kw_ticket=`),
    );

    const stranger = await person("Stranger");
    const refused = await visitUrl(stranger);
    expect(refused.body.hwcode).toBe(HW.NOT_BOUND.code);
    expect(refused.body.hwdata.reason).toBe("WRONG_ROLE");

    const { origin, cookie, location } = await openVisit(v.url);
    expect(location).toBe("/");
    const home = await request(`${origin}/`, { cookie });
    expect(home.status).toBe(200);
    expect(home.body.toString()).toContain("HMI home");
    // The device sees itself as the host and never sees Keyway's cookie; its own cookie stays
    // on the visit host.
    expect(web.lastHeaders.host).toBe(`127.0.0.1:${web.port}`);
    expect(web.lastHeaders.cookie ?? "").not.toContain("kw_visit");
    expect(home.headers["set-cookie"]?.[0]).toBe("hmi_session=abc; Path=/; HttpOnly");
    const moved = await request(`${origin}/redirect`, { cookie: `${cookie}; hmi_session=abc` });
    expect(moved.headers.location).toBe(`${origin}/landing`);
    expect(web.lastHeaders.cookie).toBe("hmi_session=abc");

    // The link is spent; without the cookie, or with another's, the visit is refused.
    const again = await request(v.url);
    expect(again.status).toBe(403);
    expect(again.headers["x-keyway-hwcode"]).toBe(HW.VISIT_LINK_INVALID.code);
    expect((await request(`${origin}/`)).status).toBe(403);
    const other = await visitUrl(owner);
    const second = await openVisit(other.body.hwdata.url);
    expect((await request(`${origin}/`, { cookie: second.cookie })).status).toBe(403);
  });

  it("work under /visit/<id>.<key>/ where wildcard DNS is missing, sandboxed, cookies kept on the server", async () => {
    const v = (await visitUrl(owner)).body.hwdata;
    const first = await request(v.path_url);
    expect(first.status).toBe(302);
    // No cookie: the key of the visit moves into the path (a sandboxed page sends none).
    expect(first.headers["set-cookie"]).toBeUndefined();
    const location = first.headers.location ?? "";
    expect(location).toMatch(new RegExp(`^/visit/${v.visit_id}\\.[A-Za-z0-9_-]{43}/$`));
    const base = `http://127.0.0.1:${port}${location}`;
    const bare = await request(base.replace(/\/$/, ""));
    expect(bare.headers.location).toBe(location);
    // Keyway's own cookies (the login token) never reach the device.
    const home = await request(base, { cookie: "token=visitor-login; lang=en" });
    expect(home.body.toString()).toContain("HMI home");
    expect(web.lastHeaders.cookie).toBeUndefined();
    // The device's page runs in an opaque origin and leaks no key in a Referer.
    expect(home.headers["content-security-policy"]).toMatch(/^sandbox /);
    expect(home.headers["content-security-policy"]).not.toContain("allow-same-origin");
    expect(home.headers["referrer-policy"]).toBe("no-referrer");
    // Its session cookie stays in the visit's jar on the server and comes back to it.
    expect(home.headers["set-cookie"]).toBeUndefined();
    const moved = await request(`${base}redirect`);
    expect(web.lastHeaders.cookie).toBe("hmi_session=abc");
    expect(moved.headers.location).toBe(`http://127.0.0.1:${port}${location}landing`);
    // Without the key, or with another, the visit is refused.
    expect((await request(`http://127.0.0.1:${port}/visit/${v.visit_id}/`)).status).toBe(403);
    const forged = `http://127.0.0.1:${port}/visit/${v.visit_id}.${"A".repeat(43)}/`;
    expect((await request(forged)).status).toBe(403);
  });

  it("are issued to the enterprise team that maintains the device, and to nobody else there", async () => {
    const tech = await person("Tech");
    const clerk = await person("Clerk");
    const created = await h.call("POST", "/api/operator/v1/enterprises", {
      form: { name: "Service Co", platformName: "Service Cloud", enableProject: 0 },
      token: operator as string,
    });
    const eid = created.body.hwdata.eid;
    for (const [account, kind] of [
      [tech.email, "maintenance"],
      [clerk.email, "member"],
    ] as const) {
      const res = await h.call("POST", "/api/enterprises/v1/admin/members", {
        form: { eid, account, kind, isAdmin: 0 },
        token: operator as string,
      });
      expect(res.body.hwcode).toBe(0);
    }
    const held = await h.call("POST", "/api/enterprises/v1/admin/devices", {
      form: { eid, machineCode, type: 2 },
      token: operator as string,
    });
    expect(held.body.hwcode).toBe(0);
    const ask = (p: Person) =>
      h.call("POST", "/api/enterprises/validVisitUrl", {
        form: { eid, machineId: machineID },
        token: p.token,
      });
    const granted = await ask(tech);
    expect(granted.body.hwdata).toMatchObject({ role: "maintainer", online: true });
    const { origin, cookie } = await openVisit(granted.body.hwdata.url);
    expect((await request(`${origin}/`, { cookie })).body.toString()).toContain("HMI home");
    expect((await ask(clerk)).body.hwcode).not.toBe(0);
    expect((await ask(await person("Outsider"))).body.hwcode).toBe(HW.NO_PERMISSION.code);
  });

  it("answers 10010101 for a device whose agent has no tunnel", async () => {
    const device = await provision();
    const added = await h.call("POST", "/api/machine/add", {
      form: {
        machineName: "Spare",
        machineCode: device.machineCode,
        machinePwd: device.devicePassword,
      },
      token: owner.token,
    });
    const offline = await visitUrl(owner, added.body.hwdata.machine_id);
    expect(offline.body.hwcode).toBe(HW.DEVICE_OFFLINE.code);
    expect(offline.body.hwdata).toMatchObject({ online: false });
  });
});

describe("the relay", () => {
  let origin: string;
  let cookie: string;
  beforeAll(async () => {
    ({ origin, cookie } = await openVisit((await visitUrl(owner)).body.hwdata.url));
  });

  it("never gives a device's unasked answer to the next request on a kept-alive stream", async () => {
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const path of ["/twice", "/later", "/twice", "/later"]) {
        const first = await request(`${origin}${path}`, { cookie, agent: keepAlive });
        expect(first.body.toString()).toBe("first");
        // The late one has come and gone by now.
        await new Promise((r) => setTimeout(r, 300));
        for (let i = 0; i < 3; i++) {
          const next = await request(`${origin}/`, { cookie, agent: keepAlive });
          expect(next.status).toBe(200);
          expect(next.body.toString()).toContain("HMI home");
        }
      }
    } finally {
      keepAlive.destroy();
    }
  });

  it("carries a 5 MB upload", async () => {
    const body = Buffer.alloc(5 * MiB);
    for (let i = 0; i < body.length; i++) body[i] = (i * 7) % 256;
    const answer = await request(`${origin}/upload`, { method: "POST", cookie, body });
    expect(JSON.parse(answer.body.toString())).toEqual({
      bytes: body.length,
      sha256: createHash("sha256").update(body).digest("hex"),
    });
  });

  it("carries a 64 MB upload to a device that stops reading, without holding it in memory", async () => {
    const total = 64 * MiB;
    const chunk = Buffer.alloc(64 * 1024);
    for (let i = 0; i < chunk.length; i++) chunk[i] = i % 253;
    const hash = createHash("sha256");
    let pulled = 0;
    // The browser's body, made as it is taken: `pulled` is what left the browser so far.
    const body = new Readable({
      read() {
        if (pulled >= total) return void this.push(null);
        pulled += chunk.length;
        hash.update(chunk);
        this.push(chunk);
      },
    });
    const before = process.memoryUsage().arrayBuffers;
    let stalled = 0;
    let heldBytes = 0;
    const answer = new Promise<Answer>((done, fail) => {
      const req = http.request(
        `${origin}/upload?hold=1`,
        { method: "POST", lookup, headers: { cookie, "content-length": total } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            done({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
            }),
          );
        },
      );
      req.on("error", fail);
      body.pipe(req);
    });
    // The device reads nothing: the agent holds the stream back, the windows fill, the browser stops.
    await until(
      async () => {
        const was = pulled;
        await new Promise((r) => setTimeout(r, 300));
        return was > 0 && pulled === was;
      },
      20_000,
      "the upload to stall",
    );
    stalled = pulled;
    heldBytes = process.memoryUsage().arrayBuffers - before;
    web.releaseUpload();
    const done = await answer;
    expect(JSON.parse(done.body.toString())).toEqual({
      bytes: total,
      sha256: hash.digest("hex"),
    });
    // What left the browser while the device read nothing: the windows and the sockets' buffers.
    expect(stalled).toBeLessThan(32 * MiB);
    expect(heldBytes).toBeLessThan(24 * MiB);
  });

  it("carries a 100 MB download to a slow reader without holding it in memory", async () => {
    const before = process.memoryUsage().arrayBuffers;
    let peak = 0;
    let heldBytes = 0;
    const received = await new Promise<{ bytes: number; ok: boolean; stalled: number }>(
      (done, fail) => {
        const req = http.get(`${origin}/big?mb=100`, { lookup, headers: { cookie } }, (res) => {
          res.pause();
          let bytes = 0;
          let ok = true;
          let stalled = 0;
          // The reader stops; the device is held back once the windows are full.
          until(
            async () => {
              const sent = web.sent;
              await new Promise((r) => setTimeout(r, 300));
              return sent > 0 && web.sent === sent;
            },
            20_000,
            "the download to stall",
          ).then(() => {
            stalled = web.sent;
            // The relay holds at most one stream window (it grows only while the reader keeps up).
            peak = h.app.services.tunnels.stats().peakStreamBuffered;
            heldBytes = process.memoryUsage().arrayBuffers - before;
            res.on("data", (chunk: Buffer) => {
              for (let i = 0; i < chunk.length; i += 4099)
                if (chunk[i] !== ((bytes + i) % (64 * 1024)) % 251) ok = false;
              bytes += chunk.length;
            });
            res.on("end", () => done({ bytes, ok, stalled }));
            res.resume();
          }, fail);
        });
        req.on("error", fail);
      },
    );
    expect(received.bytes).toBe(100 * MiB);
    expect(received.ok).toBe(true);
    expect(peak).toBeLessThanOrEqual(TUNNEL_MAX_WINDOW);
    expect(heldBytes).toBeLessThan(24 * MiB);
    // What left the device while nobody read: the windows and the sockets' buffers, not 100 MB.
    expect(received.stalled).toBeLessThan(32 * MiB);
  });

  it("carries WebSockets both ways", async () => {
    const ws = await openWebSocket(origin, cookie);
    expect(await echoOnce(ws, "hello device")).toBe("hello device");
    const big = "x".repeat(300_000);
    expect(await echoOnce(ws, big)).toBe(big);
    // The device saw itself as the page's origin.
    expect(web.lastHeaders.origin).toBe(`http://127.0.0.1:${web.port}`);
    ws.close();
    await closed(ws);
  });

  it("holds 200 concurrent streams", async () => {
    web.maxWaiting = 0;
    const pool = new http.Agent({ maxSockets: 250 });
    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        request(`${origin}/barrier?n=200`, { cookie, agent: pool }),
      ),
    );
    pool.destroy();
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(200));
    expect(web.maxWaiting).toBe(200);
  });
});

describe("rights", () => {
  it("cut a visitor's open streams within seconds when the visit time is cleared", async () => {
    const guest = await visitor(60);
    const { origin, cookie } = await openVisit((await visitUrl(guest)).body.hwdata.url);
    const ws = await openWebSocket(origin, cookie);
    expect(await echoOnce(ws, "ping")).toBe("ping");

    const grants = await h.call("POST", "/api/admin/select", {
      form: { machineID, infoType: 3 },
      token: owner.token,
    });
    const grant = grants.body.hwdata.list.find(
      (g: { user_id: number }) => g.user_id === guest.userId,
    );
    const started = Date.now();
    const cleared = await h.call("DELETE", "/api/device/v1/visit/time", {
      json: { visitTimeId: grant.visitTimeId, machineID },
      token: owner.token,
    });
    expect(cleared.body.hwcode).toBe(0);
    await closed(ws);
    expect(Date.now() - started).toBeLessThan(5000);
    const after = await request(`${origin}/`, { cookie });
    expect(after.status).toBe(410);
    expect(after.headers["x-keyway-hwcode"]).toBe(HW.VISIT_ENDED.code);
    expect((await visitUrl(guest)).body.hwcode).toBe(HW.VISIT_TIMEOUT.code);

    const log = await visitLog(owner);
    const row = log.body.hwdata.list.find((r: { user_id: number }) => r.user_id === guest.userId);
    expect(row).toMatchObject({
      state: "ended",
      end_reason: "visit_time_expired",
      terminal_name: "Test phone",
      target: `127.0.0.1:${web.port}`,
    });
    expect(row.account).toMatch(/^vi\*\*\*@example\.com$/);
    expect(row.bytes_in).toBeGreaterThan(0);
    expect(row.bytes_out).toBeGreaterThan(0);
  });

  it("cut streams when the visit time runs out", async () => {
    const guest = await visitor(30);
    const { origin, cookie } = await openVisit((await visitUrl(guest)).body.hwdata.url);
    const ws = await openWebSocket(origin, cookie);
    expect(await echoOnce(ws, "ping")).toBe("ping");
    h.clock.advance(31 * 60_000);
    const started = Date.now();
    await closed(ws);
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it("let the owner see the log and end a running visit; others may not", async () => {
    const guest = await visitor(-1);
    const v = (await visitUrl(guest)).body.hwdata;
    const { origin, cookie } = await openVisit(v.url);
    const ws = await openWebSocket(origin, cookie);
    expect(await echoOnce(ws, "ping")).toBe("ping");

    const running = (await visitLog(owner)).body.hwdata.list.find(
      (r: { visit_id: string }) => r.visit_id === v.visit_id,
    );
    expect(running).toMatchObject({ state: "running", ended_at: null, end_reason: null });
    expect((await visitLog(guest)).body.hwcode).toBe(HW.DEVICE_NO_PERMISSION.code);
    const byGuest = await h.call("POST", "/api/device/v1/visits/end", {
      form: { visitId: v.visit_id },
      token: guest.token,
    });
    expect(byGuest.body.hwcode).toBe(HW.DEVICE_NO_PERMISSION.code);

    const ended = await h.call("POST", "/api/device/v1/visits/end", {
      form: { visitId: v.visit_id },
      token: owner.token,
    });
    expect(ended.body.hwdata).toMatchObject({ state: "ended", end_reason: "ended_by_owner" });
    await closed(ws);
    expect((await request(`${origin}/`, { cookie })).status).toBe(410);
  });

  it("cut every visit when the cloud service is closed", async () => {
    const { origin, cookie } = await openVisit((await visitUrl(owner)).body.hwdata.url);
    const ws = await openWebSocket(origin, cookie);
    expect(await echoOnce(ws, "ping")).toBe("ping");
    const switched = await h.call("POST", "/api/machine/machineCloudSwitchState", {
      form: { machineId: machineID, state: 0 },
      token: owner.token,
    });
    expect(switched.body.hwcode).toBe(0);
    await closed(ws);
    expect((await visitUrl(owner)).body.hwcode).toBe(HW.CLOUD_CLOSED.code);
    await h.call("POST", "/api/machine/machineCloudSwitchState", {
      form: { machineId: machineID, state: 1 },
      token: owner.token,
    });
  });
});

describe("keyway-agent forward", () => {
  it("gives a local TCP port that reaches an allowed target, and refuses others", async () => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "apps/agent/src/cli.ts",
        "forward",
        "--server",
        `http://127.0.0.1:${port}`,
        "--device",
        String(machineID),
        "--local",
        "0",
        "--target",
        `127.0.0.1:${echo.port}`,
      ],
      // The token as the usage says to give it: not on a command line (where a base64url
      // token starting with "-" would also read as an option).
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, KEYWAY_AGENT_TOKEN: owner.token },
      },
    );
    const output: string[] = [];
    child.stdout?.on("data", (d) => output.push(String(d)));
    child.stderr?.on("data", (d) => output.push(String(d)));
    try {
      // A stall says what the forward printed (it once said nothing for 60 s in a full run).
      await until(
        () => /forwarding 127\.0\.0\.1:\d+/.test(output.join("")),
        60_000,
        "forward",
      ).catch((error: Error) => {
        throw new Error(`${error.message}; forward said: ${output.join("") || "(nothing)"}`);
      });
      const localPort = Number(/forwarding 127\.0\.0\.1:(\d+)/.exec(output.join(""))?.[1]);
      const socket: Socket = connect(localPort, "127.0.0.1");
      const payload = Buffer.from(`modbus-ish ${"z".repeat(100_000)}`);
      // Bounded, and a closed socket fails at once: a stall says where it stalled and what
      // the forward printed (it once ran out the test's time under a full run's load).
      const back = await new Promise<Buffer>((done, fail) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const stop = (why: string) =>
          fail(
            new Error(
              `${why} after ${size} of ${payload.length} bytes; forward said: ${output.join("")}`,
            ),
          );
        const timer = setTimeout(() => stop("no echo in 30 s"), 30_000);
        socket.on("data", (c: Buffer) => {
          chunks.push(c);
          size += c.length;
          if (size >= payload.length) {
            clearTimeout(timer);
            done(Buffer.concat(chunks));
          }
        });
        socket.on("error", (error) => stop(`socket error ${error.message}`));
        socket.on("close", () => stop("socket closed"));
        socket.write(payload);
      });
      expect(back.equals(payload)).toBe(true);
      socket.destroy();

      const visitId = /through visit ([a-z2-7]{26})/.exec(output.join(""))?.[1];
      const log = (await visitLog(owner)).body.hwdata.list;
      expect(log.find((r: { visit_id: string }) => r.visit_id === visitId)).toMatchObject({
        target: `127.0.0.1:${echo.port}`,
        state: "running",
      });

      // A target the device does not allow: the server says no from the agent's list, and
      // the request never reaches the device.
      const unlisted = await freePort();
      const ws = new WebSocket(
        `ws://127.0.0.1:${port}/visit-tcp/${visitId}?target=127.0.0.1:${unlisted}`,
        { headers: { cloudtoken: owner.token } },
      );
      const code = await closed(ws);
      expect(code).toBe(4503);
      expect(agent.output.join("")).not.toContain(`refused 127.0.0.1:${unlisted}`);
      expect(agent.child.exitCode).toBe(null);
    } finally {
      child.kill("SIGTERM");
    }
  }, 120_000);
});
