import http, { type IncomingMessage } from "node:http";
import { WebSocket, WebSocketServer } from "ws";
import { TunnelClient } from "../../../../../agent/src/tunnel.ts";
import { seedDemo } from "../../../seed.ts";
import { createHarness, type Harness } from "../../../testing/harness.ts";
import { freePort } from "../../../testing/ports.ts";
import { until } from "../../../testing/until.ts";

/**
 * Remote access for the relay's tests (screen.test.ts, viewOnly.test.ts): the real server on
 * a port, the agent's own tunnel client in this process, and a device web UI that records
 * every request that reaches it (so a test can tell a refusal from a request that got through).
 */

export type Person = Awaited<ReturnType<Harness["person"]>>;

export { until };

/** The device's web UI: a home page, a form that saves, and a WebSocket echo. */
export class DeviceWeb {
  server: http.Server;
  port = 0;
  /** "METHOD /path" of every request and upgrade that reached the device. */
  seen: string[] = [];
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor() {
    this.server = http.createServer((req, res) => {
      this.seen.push(`${req.method} ${req.url}`);
      req.resume();
      req.on("end", () => {
        if (req.url === "/") res.end("<html><body><h1>HMI home</h1></body></html>");
        else res.end("saved");
      });
    });
    this.server.on("upgrade", (req: IncomingMessage, socket, head) => {
      this.seen.push(`UPGRADE ${req.url}`);
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

  async close() {
    this.server.closeAllConnections();
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((done) => this.server.close(() => done()));
  }
}

/** The server, an owner and one device whose agent offers `web` and, when given, `vnc`. */
export async function startRemote() {
  const port = await freePort();
  const h = await createHarness({ config: { PUBLIC_URL: `http://localhost:${port}` } });
  await h.app.listen({ port, host: "127.0.0.1" });
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
  const owner = await h.person("Owner");
  const agents: TunnelClient[] = [];

  /** A device of the owner's with its agent online: the web UI at `web`, the screen at `vnc`. */
  async function device(web: number, vnc?: number) {
    const [provisioned] = await h.provision(operator, 1);
    const { id } = await h.addDevice(owner.token, provisioned, "Press line");
    const agent = new TunnelClient({
      url: `ws://127.0.0.1:${port}/tunnel`,
      code: provisioned.machineCode,
      secret: provisioned.deviceSecret,
      target: { host: "127.0.0.1", port: web },
      ...(vnc && { vnc: { host: "127.0.0.1", port: vnc } }),
      log: () => {},
    });
    agent.start();
    agents.push(agent);
    await until(() => Boolean(h.app.services.tunnels.hello(id)), 30_000, "the agent's tunnel");
    return id;
  }

  /** A member of the device (bound, approved by the owner), read-only or read and write. */
  async function member(deviceId: number, write: boolean): Promise<Person> {
    const p = await h.person("Member");
    const asked = await h.call("POST", "/api/v1/audit/addBind", {
      form: { machineID: deviceId, message: "please" },
      token: p.token,
    });
    const agreed = await h.call("POST", "/api/v1/audit/bindReply", {
      form: { requestId: asked.body.hwdata.id, result: "agree", message: "ok" },
      token: owner.token,
    });
    if (agreed.body.hwcode !== 0) throw new Error(`bind failed: ${JSON.stringify(agreed.body)}`);
    await setWrite(deviceId, p, write);
    return p;
  }

  /** The owner sets a member's level (the relay hears it at once through rights.changed). */
  async function setWrite(deviceId: number, p: Person, write: boolean) {
    const set = await h.call("POST", "/api/machine/limitReadSet", {
      form: { machineID: deviceId, userId: p.userId, write: write ? 1 : 0 },
      token: owner.token,
    });
    if (set.body.hwcode !== 0) throw new Error(`level failed: ${JSON.stringify(set.body)}`);
    // Every open visit re-checked now: the level is in force when this returns.
    await h.app.services.visits.sweep();
  }

  const visitUrl = (p: Person, deviceId: number, kind?: "web" | "screen") =>
    h.call("POST", "/api/v1/audit/getValidVisitUrl", {
      form: { machineID: deviceId, terminalID: "t", ...(kind && { kind }) },
      token: p.token,
    });

  /** The URL as this machine reaches it (the server listens on 127.0.0.1 only). */
  const local = (url: string) => url.replace("//localhost:", "//127.0.0.1:");

  async function close() {
    for (const agent of agents) await agent.stop();
    await h.close();
  }

  return { h, port, owner, device, member, setWrite, visitUrl, local, close };
}

export type Remote = Awaited<ReturnType<typeof startRemote>>;

/** A WebSocket's close: its code and reason. */
export function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve({ code: -1, reason: "" });
  return new Promise((done) =>
    ws.once("close", (code, reason) => done({ code, reason: reason.toString() })),
  );
}

/** A refused upgrade: its HTTP status and hwcode. */
export interface Refused {
  status: number;
  hwcode: string | undefined;
}

/** Opens a WebSocket and waits for it to open (or to be refused). */
export function openWs(
  url: string,
  options: { origin?: string; headers?: Record<string, string> } = {},
): Promise<WebSocket | Refused> {
  const ws = new WebSocket(url, { ...options });
  return new Promise((done, fail) => {
    ws.once("open", () => done(ws));
    ws.once("unexpected-response", (_req, res) => {
      const hwcode = res.headers["x-keyway-hwcode"];
      done({
        status: res.statusCode ?? 0,
        hwcode: typeof hwcode === "string" ? hwcode : undefined,
      });
      res.resume();
      // Ours to end once we listen for it (ws leaves the refused connection open).
      ws.terminate();
    });
    ws.once("error", fail);
  });
}
