import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { createServer, type LookupFunction, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TUNNEL_RESET } from "@keyway/protocol";
import { TunnelError } from "@keyway/protocol/mux";
import { HW } from "@keyway/shared";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { devices } from "../../server/src/modules/devices/schema.ts";
import { seedDemo } from "../../server/src/seed.ts";
import { createHarness, type Harness } from "../../server/src/testing/harness.ts";
import { type AgentProcess, freePort, kill9, spawnSimulatedDevice, until } from "./testing.ts";

/**
 * Regression: a visitor asking `/visit-tcp` for a target off the device's allow-list got 4503,
 * and then the agent process died on the refused stream's unhandled error. Real server on a
 * port, real `keyway-agent run --simulate` as a child process, a real TCP echo on its "LAN".
 */

let h: Harness;
let port: number;
let agent: AgentProcess;
let dataDir: string;
let echo: Server;
let echoPort: number;
let owner: string;
let machineID: number;
let machineCode: string;

/** Every `*.localhost` name is this machine, as in a browser. */
const lookup = ((_host, options, callback) => {
  if ((options as { all?: boolean }).all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
  else (callback as (e: null, a: string, f: number) => void)(null, "127.0.0.1", 4);
}) as LookupFunction;

function get(url: string, cookie?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (done, fail) => {
      const req = http.get(url, { lookup, headers: cookie ? { cookie } : {} }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on("error", fail);
    },
  );
}

/** A `/visit-tcp` WebSocket; resolves with its close code and reason. */
function tcpVisit(visitId: string, target: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/visit-tcp/${visitId}?target=${target}`, {
    headers: { cloudtoken: owner },
  });
  ws.on("error", () => {});
  const closed = new Promise<{ code: number; reason: string }>((done) =>
    ws.once("close", (code, reason) => done({ code, reason: String(reason) })),
  );
  return { ws, closed };
}

async function visit() {
  const res = await h.call("POST", "/api/v1/audit/getValidVisitUrl", {
    form: { machineID, terminalID: "t" },
    token: owner,
  });
  expect(res.body.hwcode).toBe(0);
  return res.body.hwdata as { visit_id: string; url: string };
}

const alive = () => agent.child.exitCode === null && agent.child.signalCode === null;
const mqttOnline = async () =>
  (await h.db.select().from(devices).where(eq(devices.code, machineCode)))[0].online;

beforeAll(async () => {
  port = await freePort();
  h = await createHarness({ config: { PUBLIC_URL: `http://localhost:${port}` } });
  await h.app.listen({ port, host: "127.0.0.1" });
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((done) => echo.listen(0, "127.0.0.1", () => done()));
  echoPort = (echo.address() as { port: number }).port;

  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
  const [device] = await h.provision(operator);
  owner = await h.signUp("owner@example.com");
  ({ id: machineID, code: machineCode } = await h.addDevice(owner, device, "Press"));

  dataDir = mkdtempSync(join(tmpdir(), "kw-refused-"));
  agent = await spawnSimulatedDevice({
    server: `ws://127.0.0.1:${port}/mqtt`,
    device,
    dataDir,
    extra: ["--allow", `127.0.0.1:${echoPort}`, "--location-every", "0", "--backoff-max", "2"],
  });
  await until(() => Boolean(h.app.services.tunnels.hello(machineID)), { log: agent.text });
  await until(mqttOnline, { log: agent.text });
});

afterAll(async () => {
  if (agent) await kill9(agent);
  echo?.close();
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("a target off the allow-list", () => {
  it("is refused by the server on /visit-tcp (4503) before the agent is asked", async () => {
    const v = await visit();
    const unlisted = await freePort();
    const { closed } = tcpVisit(v.visit_id, `127.0.0.1:${unlisted}`);
    const { code, reason } = await closed;
    expect(code).toBe(4503);
    expect(reason).toContain(HW.TARGET_NOT_ALLOWED.code);
    // No stream was opened: the agent never saw the request.
    expect(agent.text()).not.toContain(`refused 127.0.0.1:${unlisted}`);
    expect(alive()).toBe(true);
  });

  it("refused by the agent itself leaves the agent running, online and serving visits", async () => {
    // The server's own check is skipped here (the hub opens the stream directly), so the
    // agent's refusal is what answers: before the fix this killed the agent process.
    const unlisted = await freePort();
    for (let i = 0; i < 3; i++) {
      const refused = await h.app.services.tunnels
        .open(machineID, { host: "127.0.0.1", port: unlisted })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(refused).toBeInstanceOf(TunnelError);
      expect((refused as TunnelError).code).toBe(TUNNEL_RESET.refused);
    }
    await until(() => agent.text().includes(`refused 127.0.0.1:${unlisted}`), {
      log: agent.text,
    });

    // A round trip over the same link after the refusals: whatever the agent would have died
    // of (an error emitted on the next tick) has run by now.
    const stream = await h.app.services.tunnels.open(machineID, {
      host: "127.0.0.1",
      port: echoPort,
    });
    const back = await new Promise<string>((done) => {
      stream.once("data", (d: Buffer) => done(String(d)));
      stream.write("still here");
    });
    expect(back).toBe("still here");
    stream.destroy();

    expect(alive()).toBe(true);
    expect(agent.text()).not.toContain("TunnelError");
    expect(h.app.services.tunnels.isOnline(machineID)).toBe(true);
    expect(await mqttOnline()).toBe(true);

    // A normal visit after all that: the device's UI through the visit URL, and a TCP forward.
    const v = await visit();
    const first = await get(v.url);
    expect(first.status).toBe(302);
    const cookie = first.headers["set-cookie"]?.[0].split(";")[0] ?? "";
    const home = await get(`${new URL(v.url).origin}/`, cookie);
    expect(home.status).toBe(200);
    expect(home.body).toContain("<html");

    const { ws, closed } = tcpVisit(v.visit_id, `127.0.0.1:${echoPort}`);
    await new Promise<void>((done, fail) => {
      ws.once("open", () => done());
      ws.once("close", () => fail(new Error("the forward closed")));
    });
    const echoed = await new Promise<string>((done) => {
      ws.once("message", (d) => done(String(d)));
      ws.send(Buffer.from("modbus"));
    });
    expect(echoed).toBe("modbus");
    ws.close();
    await closed;
    expect(alive()).toBe(true);
  });
});
