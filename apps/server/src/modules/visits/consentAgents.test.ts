import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TUNNEL_CLOSE } from "@keyway/protocol";
import { HW, type ProvisionedDevice } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentProcess, kill9, spawnAgent } from "../../../../agent/src/testing.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { freePort } from "../../testing/ports.ts";
import { openVisit, request, ScriptedAgent, until } from "./consentTesting.ts";

/**
 * On-site consent answered by a script (`--consent-hook`, the real agent CLI), refused at
 * once for an agent with nobody to ask, and a hostile agent on the control channel: answers
 * for another device's visits, answers nobody asked for and `visit.end` of another device's
 * visit change nothing; a message only the server sends ends its link.
 */

const TIMEOUT_MS = 4000;

type Person = Awaited<ReturnType<Harness["person"]>>;

let h: Harness;
let port: number;
let dir: string;
let agent: AgentProcess;
let web: http.Server;
let owner: Person;
let hooked: number;
let devices: ProvisionedDevice[];
const ids: number[] = [];

/** The hook: accepts "Friend", sleeps through "Sleeper", refuses anyone else; notes its env. */
const HOOK = `#!/bin/sh
env | grep -E '^KEYWAY_' > "$HOOK_DIR/env-$KEYWAY_VISIT_ID"
[ "$KEYWAY_VISITOR" = "Sleeper" ] && { echo $$ > "$HOOK_DIR/pid-$KEYWAY_VISIT_ID"; exec sleep 60; }
[ "$KEYWAY_VISITOR" = "Friend" ]
`;

const visitUrl = (p: Person, machineID = hooked) =>
  h.call("POST", "/api/v1/audit/getValidVisitUrl", {
    form: { machineID, terminalID: "t" },
    token: p.token,
    lang: "en",
  });

/** A person who asked for a visit time on the hooked device and got it (a read-only visitor). */
async function visitor(name: string): Promise<Person> {
  const p = await h.person(name);
  const asked = await h.call("POST", "/api/v1/audit/addVisit", {
    form: { machineID: hooked, message: "please", terminalName: "Laptop" },
    token: p.token,
  });
  const agreed = await h.call("POST", "/api/v1/audit/visitReply", {
    form: { requestId: asked.body.hwdata.id, result: "agree", message: "ok", visitTime: 30 },
    token: owner.token,
  });
  expect(agreed.body.hwcode).toBe(0);
  return p;
}

const envOf = (visit: string) =>
  Object.fromEntries(
    readFileSync(join(dir, `env-${visit}`), "utf8")
      .trim()
      .split("\n")
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );

beforeAll(async () => {
  port = await freePort();
  h = await createHarness({
    config: { PUBLIC_URL: `http://localhost:${port}` },
    consentTimeoutMs: TIMEOUT_MS,
  });
  await h.app.listen({ port, host: "127.0.0.1" });
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
  devices = await h.provision(operator, 3);
  owner = await h.person("Friend");
  for (const [i, d] of devices.entries())
    ids.push((await h.addDevice(owner.token, d, `Device ${i}`)).id);
  hooked = ids[0];
  for (const id of ids) {
    const on = await h.call("POST", "/api/device/v1/remoteSettings", {
      json: { deviceId: id, onsite_consent: true },
      token: owner.token,
    });
    expect(on.body.hwcode).toBe(0);
  }
  web = http.createServer((_req, res) => res.end("device page"));
  await new Promise<void>((done) => web.listen(0, "127.0.0.1", () => done()));
  dir = mkdtempSync(join(tmpdir(), "kw-consent-hook-"));
  writeFileSync(join(dir, "hook.sh"), HOOK);
  chmodSync(join(dir, "hook.sh"), 0o755);
  const args = ["run", "--server", `ws://127.0.0.1:${port}/mqtt`, "--code", devices[0].machineCode];
  args.push("--data-dir", dir, "--location-every", "0", "--consent-hook", join(dir, "hook.sh"));
  args.push("--target", `127.0.0.1:${(web.address() as { port: number }).port}`);
  agent = await spawnAgent(args, {
    env: { ...process.env, KEYWAY_AGENT_SECRET: devices[0].deviceSecret, HOOK_DIR: dir },
  });
  await until(() => Boolean(h.app.services.tunnels.hello(hooked)), 60_000, "the tunnel");
}, 120_000);

afterAll(async () => {
  if (agent) await kill9(agent);
  web?.close();
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("on-site consent by a script hook", { timeout: 60_000 }, () => {
  it("exit 0 accepts: the visit opens; the hook had the visit in its environment only", async () => {
    const issued = await visitUrl(owner);
    expect(issued.body.hwcode).toBe(0);
    const visit = issued.body.hwdata.visit_id as string;
    expect(issued.body.hwdata.consent).toBe("accepted");
    const { origin, cookie } = await openVisit(issued.body.hwdata.url);
    expect((await request(`${origin}/`, { cookie })).body).toBe("device page");
    expect(envOf(visit)).toEqual({
      KEYWAY_VISIT_ID: visit,
      KEYWAY_VISITOR: "Friend",
      KEYWAY_ACCOUNT: expect.stringContaining("***@example.com"),
      KEYWAY_VISIT_KIND: "web",
      KEYWAY_VIEW_ONLY: "0",
    });
    // Exactly these: KEYWAY_AGENT_SECRET, in the agent's own environment, is not passed on.
  });

  it("any other exit refuses", async () => {
    const stranger = await visitor("Stranger");
    const refused = await visitUrl(stranger);
    expect(refused.body.hwcode).toBe(HW.CONSENT_REFUSED.code);
    expect(envOf(readVisitOf("Stranger"))).toMatchObject({
      KEYWAY_VISITOR: "Stranger",
      KEYWAY_VIEW_ONLY: "1",
    });
  });

  it("a hook that does not answer in time is killed; the visit times out", async () => {
    const sleeper = await visitor("Sleeper");
    const hostile = await new ScriptedAgent(port, devices[1]).connect();
    const asked = visitUrl(sleeper);
    let visit = "";
    await until(
      () => {
        visit = readVisitOf("Sleeper");
        return visit !== "";
      },
      20_000,
      "the hook",
    );
    // Another device's agent accepting this visit is not heard.
    hostile.send({ t: "consent.answer", visit, accept: true });
    const timedOut = await asked;
    expect(timedOut.body.hwcode).toBe(HW.CONSENT_TIMEOUT.code);
    const pid = Number(readFileSync(join(dir, `pid-${visit}`), "utf8"));
    await until(() => !alive(pid), 10_000, "the hook killed");
    expect(hostile.open).toBe(true);
    hostile.close();
  });
});

describe("agents on the control channel", { timeout: 60_000 }, () => {
  it("an agent with nobody to ask is refused at once (CONSENT_UNSUPPORTED)", async () => {
    const silent = await new ScriptedAgent(port, devices[2], []).connect();
    await until(() => Boolean(h.app.services.tunnels.hello(ids[2])), 10_000, "its hello");
    const refused = await visitUrl(owner, ids[2]);
    expect(refused.body).toMatchObject({
      hwcode: HW.CONSENT_UNSUPPORTED.code,
      msg: HW.CONSENT_UNSUPPORTED.en,
    });
    silent.close();
  });

  it("a hostile agent's answers and ends for others' visits are ignored", async () => {
    const hostile = await new ScriptedAgent(port, devices[1]).connect();
    await until(() => Boolean(h.app.services.tunnels.hello(ids[1])), 10_000, "its hello");
    // A running visit of the hooked device.
    const issued = await visitUrl(owner);
    const visit = issued.body.hwdata.visit_id as string;
    const { origin, cookie } = await openVisit(issued.body.hwdata.url);
    hostile.send({ t: "visit.end", visit });
    hostile.send({ t: "consent.answer", visit, accept: false });
    // An answer nobody asked for, and the end of a visit that does not exist.
    hostile.send({ t: "consent.answer", visit: "a".repeat(26), accept: true });
    hostile.send({ t: "visit.end", visit: "b".repeat(26) });
    await new Promise((r) => setTimeout(r, 500));
    expect((await request(`${origin}/`, { cookie })).status).toBe(200);
    expect(hostile.open).toBe(true);
    expect(hostile.heard).toEqual([]);
    // The server's own message, sent by an agent: not a peer that speaks the protocol.
    hostile.send({
      t: "consent.ask",
      visit,
      visitor: "x",
      account: "",
      kind: "web",
      viewOnly: false,
      timeoutMs: 1000,
    });
    expect(await hostile.closed).toBe(TUNNEL_CLOSE.protocol);
    expect((await request(`${origin}/`, { cookie })).status).toBe(200);
  });
});

/** The visit the hook was last run for with that visitor (its env file names it). */
function readVisitOf(visitor: string): string {
  for (const name of readdirSync(dir)) {
    if (!name.startsWith("env-")) continue;
    if (readFileSync(join(dir, name), "utf8").includes(`KEYWAY_VISITOR=${visitor}\n`))
      return name.slice(4);
  }
  return "";
}

function alive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  // A killed child not yet reaped is a zombie: gone for our purpose.
  return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
}
