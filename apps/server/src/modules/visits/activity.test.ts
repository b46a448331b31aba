import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { LookupFunction } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { API, HW, type ProvisionedDevice, type VisitActivityItem } from "@keyway/shared";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentProcess, kill9, spawnSimulatedDevice } from "../../../../agent/src/testing.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { freePort } from "../../testing/ports.ts";
import { untilValue } from "../../testing/until.ts";
import { visitActivity } from "./schema.ts";

/**
 * Visit activity (issue 20) end to end: the real server on a port, a real agent process
 * with its simulated HMI behind its tunnel; the owner's visit loads the HMI page and presses
 * its "raise alarm" button, and the device's visit log shows those requests, in the JSON
 * page and in the CSV, with nothing of query strings or bodies kept.
 */

let h: Harness;
let port: number;
let dataDir: string;
let agent: AgentProcess;
let owner: Person;
let device: ProvisionedDevice;
let machineID: number;
let visitId: string;
/** The owner's visit: its origin and its cookie. */
let visit: { origin: string; cookie: string };

type Person = Awaited<ReturnType<Harness["person"]>>;
const SECRET_QUERY = "hunter2-in-the-query";
const SECRET_BODY = "hunter2-in-the-body";

/** Every `*.localhost` name is this machine, as in Chromium. */
const lookup = ((_host, options, callback) => {
  if ((options as { all?: boolean }).all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
  else (callback as (e: null, a: string, f: number) => void)(null, "127.0.0.1", 4);
}) as LookupFunction;

/** One HTTP request the way a browser on this machine makes it. */
function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((done, fail) => {
    const req = http.request(
      url,
      { method: options.method ?? "GET", lookup, headers: options.headers ?? {} },
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

const activity = (p: Person, input: Record<string, string | number>) =>
  h.call("GET", `${API.visits.activity.path}?${new URLSearchParams(toStrings(input))}`, {
    token: p.token,
  });

const toStrings = (o: Record<string, string | number>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, String(v)]));

/** The CSV download as the web app makes it (fetch with the cloudtoken header). */
async function csv(p: Person, query: Record<string, string | number>, lang?: string) {
  const res = await fetch(
    `http://127.0.0.1:${port}/api/device/v1/visits/activity.csv?${new URLSearchParams(toStrings(query))}`,
    { headers: { cloudtoken: p.token, ...(lang ? { "accept-language": lang } : {}) } },
  );
  const bytes = Buffer.from(await res.arrayBuffer());
  return { res, bytes, text: bytes.toString("utf8") };
}

/** RFC 4180 as a spreadsheet reads it: quoted cells, doubled quotes, CRLF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += c;
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

beforeAll(async () => {
  port = await freePort();
  h = await createHarness({ config: { PUBLIC_URL: `http://localhost:${port}` } });
  await h.app.listen({ port, host: "127.0.0.1" });
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
  [device] = await h.provision(operator, 1);
  owner = await h.person("Owner");
  machineID = (await h.addDevice(owner.token, device, "Press line")).id;
  dataDir = mkdtempSync(join(tmpdir(), "kw-activity-"));
  agent = await spawnSimulatedDevice({
    server: `ws://127.0.0.1:${port}/mqtt`,
    device,
    dataDir,
    extra: ["--data-every", "0"],
  });
  await untilValue(async () => h.app.services.tunnels.hello(machineID) ?? undefined, 60_000);

  // The owner's visit: the HMI page, its status, and its "raise alarm" button.
  const issued = await h.request(API.visits.getValidVisitUrl, {
    input: { machineID, terminalID: "t" },
    token: owner.token,
  });
  expect(issued.body.hwcode).toBe(0);
  visitId = issued.body.hwdata.visit_id;
  const opened = await request(issued.body.hwdata.url);
  expect(opened.status).toBe(302);
  const cookie = (opened.headers["set-cookie"]?.[0] ?? "").split(";")[0];
  const origin = new URL(issued.body.hwdata.url).origin;
  visit = { origin, cookie };
  const page = await request(`${origin}/`, { headers: { cookie } });
  expect(page.status).toBe(200);
  const status = await request(`${origin}/api/status?password=${SECRET_QUERY}`, {
    headers: { cookie },
  });
  expect(status.status).toBe(200);
  const pressed = await request(`${origin}/api/alarms?token=${SECRET_QUERY}`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify({ content: `password=${SECRET_BODY}` }),
  });
  expect(pressed.status).toBe(201);
}, 180_000);

afterAll(async () => {
  if (agent) await kill9(agent);
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("visit activity", () => {
  it("lists the visit's requests, newest first: method, path without its query, status, bytes", async () => {
    const list = await untilValue(async () => {
      const res = await activity(owner, { deviceId: machineID, visitId });
      expect(res.body.hwcode).toBe(0);
      return res.body.hwdata.total >= 3 ? (res.body.hwdata.list as VisitActivityItem[]) : undefined;
    });
    const [alarm, status, page] = list;
    expect(alarm).toMatchObject({
      visit_id: visitId,
      kind: "http",
      method: "POST",
      path: "/api/alarms",
      status: 201,
      view_only: false,
    });
    expect(alarm.bytes_out).toBeGreaterThan(`password=${SECRET_BODY}`.length);
    expect(alarm.bytes_in).toBeGreaterThan(0);
    expect(status).toMatchObject({ method: "GET", path: "/api/status", status: 200 });
    expect(page).toMatchObject({ method: "GET", path: "/", status: 200 });
    expect(page.bytes_in).toBeGreaterThan(1000);
    expect(Date.parse(alarm.at)).toBeGreaterThanOrEqual(Date.parse(page.at));
  });

  it("keeps nothing of query strings or bodies", async () => {
    const rows = await h.db
      .select()
      .from(visitActivity)
      .where(eq(visitActivity.deviceId, machineID));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain("hunter2");
    expect(stored).not.toContain("password");
    expect(stored).not.toContain("?");
  });

  it("counts a page polling its status once per request, in fewer rows than requests", async () => {
    const polled = async () => {
      const res = await activity(owner, { deviceId: machineID, visitId, pageSize: 500 });
      return (res.body.hwdata.list as VisitActivityItem[]).filter((i) => i.path === "/api/status");
    };
    const before = await polled();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        request(`${visit.origin}/api/status?n=${i}`, { headers: { cookie: visit.cookie } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    const after = await polled();
    const sum = (items: VisitActivityItem[]) => items.reduce((n, i) => n + i.requests, 0);
    expect(sum(after)).toBe(sum(before) + 40);
    expect(after.length - before.length).toBeLessThan(40);
    const joined = after.find((i) => i.requests > 1);
    expect(joined).toMatchObject({ method: "GET", status: 200, view_only: false });
    expect(Date.parse(joined?.ended_at ?? "")).toBeGreaterThanOrEqual(Date.parse(joined?.at ?? ""));
  });

  it("pages", async () => {
    const all = (await activity(owner, { deviceId: machineID, pageSize: 50 })).body.hwdata;
    const first = (await activity(owner, { deviceId: machineID, page: 1, pageSize: 1 })).body
      .hwdata;
    const second = (await activity(owner, { deviceId: machineID, page: 2, pageSize: 1 })).body
      .hwdata;
    expect(first.total).toBe(all.total);
    expect(first.list.map((i: VisitActivityItem) => i.id)).toEqual([all.list[0].id]);
    expect(second.list.map((i: VisitActivityItem) => i.id)).toEqual([all.list[1].id]);
    const beyond = await activity(owner, { deviceId: machineID, page: 99, pageSize: 50 });
    expect(beyond.body.hwdata).toEqual({ list: [], total: all.total });
    const bad = await activity(owner, { deviceId: machineID, visitId: "not-a-visit" });
    expect(bad.body.hwcode).toBe(HW.BAD_REQUEST.code);
  });

  it("exports the same rows as CSV: BOM, attachment name, header in the caller's language", async () => {
    const en = await csv(owner, { deviceId: machineID, lang: "en" });
    expect(en.res.status).toBe(200);
    expect(en.res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(en.res.headers.get("content-disposition")).toBe(
      `attachment; filename="visits-${device.machineCode}-2026-11-21.csv"`,
    );
    expect([...en.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(en.text).not.toContain("hunter2");
    const [header, ...rows] = parseCsv(en.text.slice(1));
    expect(header).toEqual([
      "Visit ID",
      "Visitor",
      "Account",
      "Terminal",
      "Kind",
      "Time",
      "End time",
      "Method",
      "Path",
      "Status",
      "Bytes in (from device)",
      "Bytes out (to device)",
      "View only / control",
      "Input events",
      "Dropped events",
      "Requests",
    ]);
    const alarm = rows.find((r) => r[7] === "POST");
    expect(alarm?.slice(0, 5)).toEqual([
      visitId,
      "Owner",
      expect.stringMatching(/^ow\*\*\*@example\.com$/),
      "Test phone",
      "HTTP",
    ]);
    expect(alarm?.slice(7, 10)).toEqual(["POST", "/api/alarms", "201"]);
    expect(Number(alarm?.[11])).toBeGreaterThan(0);
    expect(alarm?.[12]).toBe("control");
    expect(rows.map((r) => r[8])).toEqual(expect.arrayContaining(["/", "/api/status"]));
    // The account is masked: never the whole e-mail.
    expect(en.text).not.toContain(owner.email);

    const zh = await csv(owner, { deviceId: machineID, visitId, lang: "zh" });
    const [zhHeader, ...zhRows] = parseCsv(zh.text.slice(1));
    expect(zhHeader[0]).toBe("访问编号");
    expect(zhHeader).toContain("只读 / 控制");
    expect(zhRows.find((r) => r[7] === "POST")?.[12]).toBe("控制");
    expect(zh.res.headers.get("content-disposition")).toContain(`-${visitId}-`);
    // Without `lang`, the request's language as for the rest of the API.
    const asked = await csv(owner, { deviceId: machineID }, "en-US,en;q=0.9");
    expect(parseCsv(asked.text.slice(1))[0][0]).toBe("Visit ID");
    const plain = await csv(owner, { deviceId: machineID });
    expect(parseCsv(plain.text.slice(1))[0][0]).toBe("访问编号");
  });

  it("records screen sessions: open until closed, then with their counters", async () => {
    const screen = h.app.services.visits.activity.screenOpen({
      visitId,
      deviceId: machineID,
      viewOnly: true,
    });
    const open = (await activity(owner, { deviceId: machineID, visitId })).body.hwdata.list.find(
      (i: VisitActivityItem) => i.kind === "screen",
    );
    expect(open).toMatchObject({ kind: "screen", ended_at: null, view_only: true, method: "" });
    screen.close({ bytesIn: 250_000, bytesOut: 900, inputEvents: 0, droppedEvents: 12 });
    const closed = await untilValue(async () => {
      const list = (await activity(owner, { deviceId: machineID, visitId })).body.hwdata.list;
      const row = list.find((i: VisitActivityItem) => i.id === open.id);
      return row?.ended_at ? row : undefined;
    });
    expect(closed).toMatchObject({ bytes_in: 250_000, dropped_events: 12, input_events: 0 });
    const file = parseCsv((await csv(owner, { deviceId: machineID, lang: "en" })).text.slice(1));
    const row = file.find((r) => r[4] === "Screen");
    expect(row?.[12]).toBe("view only");
    expect(row?.[14]).toBe("12");
  });

  it("refuses a Bkey of another device, an ordinary user and another tenant, and lets a Bkey read", async () => {
    const operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
    const [other] = await h.provision(operator, 1);
    const tenant = await h.person("Tenant");
    const otherId = (await h.addDevice(tenant.token, other, "Their line")).id;
    const theirBkey = await h.person("TheirBkey");
    const added = await h.call("POST", "/api/admin/push", {
      form: { machineID: otherId, account: theirBkey.email },
      token: tenant.token,
    });
    expect(added.body.hwcode).toBe(0);
    // An ordinary user of this device (bound, agreed by the owner).
    const member = await h.person("Member");
    const bind = await h.call("POST", "/api/v1/audit/addBind", {
      form: { machineID, message: "please" },
      token: member.token,
    });
    await h.call("POST", "/api/v1/audit/bindReply", {
      form: { requestId: bind.body.hwdata.id, result: "agree", message: "ok" },
      token: owner.token,
    });
    const role = await h.call("GET", `/api/device/v1/user/role/info?deviceId=${machineID}`, {
      token: member.token,
    });
    expect(role.body.hwdata.role).toBe("user");

    for (const p of [theirBkey, member, tenant]) {
      const list = await activity(p, { deviceId: machineID });
      expect(list.body.hwcode).toBe(HW.DEVICE_NO_PERMISSION.code);
      const file = await csv(p, { deviceId: machineID });
      expect(file.res.status).toBe(403);
      expect(JSON.parse(file.text).hwcode).toBe(HW.DEVICE_NO_PERMISSION.code);
      // The visit log itself: the same one rule.
      const log = await h.call("GET", `/api/device/v1/visits?deviceId=${machineID}`, {
        token: p.token,
      });
      expect(log.body.hwcode).toBe(HW.DEVICE_NO_PERMISSION.code);
    }
    const anonymous = await fetch(
      `http://127.0.0.1:${port}/api/device/v1/visits/activity.csv?deviceId=${machineID}`,
    );
    expect(anonymous.status).toBe(401);

    const ourBkey = await h.person("OurBkey");
    await h.call("POST", "/api/admin/push", {
      form: { machineID, account: ourBkey.email },
      token: owner.token,
    });
    const read = await activity(ourBkey, { deviceId: machineID });
    expect(read.body.hwcode).toBe(0);
    expect(read.body.hwdata.total).toBeGreaterThan(0);
    expect((await csv(ourBkey, { deviceId: machineID })).res.status).toBe(200);
  });

  it("keeps rows acknowledged before a restart", async () => {
    const before = (await activity(owner, { deviceId: machineID })).body.hwdata.total;
    h.app.services.visits.activity.http({
      visitId,
      deviceId: machineID,
      method: "get",
      path: "/just-before-the-restart?x=1",
      status: 200,
      bytesIn: 10,
      bytesOut: 5,
      viewOnly: false,
    });
    await h.restart();
    const after = (await activity(owner, { deviceId: machineID })).body.hwdata;
    expect(after.total).toBe(before + 1);
    expect(after.list[0]).toMatchObject({ method: "GET", path: "/just-before-the-restart" });
  });

  it(`deletes activity older than 90 days (by the clock)`, async () => {
    // Tokens run out by the same clock: log in again after each jump.
    const now = async () => ({ ...owner, token: await h.login(owner.email, "secret123") });
    const total = async () =>
      (await activity(await now(), { deviceId: machineID })).body.hwdata.total;
    const old = await total();
    expect(old).toBeGreaterThan(0);
    const sweep = h.app.services.visits.sweepActivity;
    h.clock.advance(89 * 86_400_000);
    expect(await sweep()).toBe(0);
    h.app.services.visits.activity.http({
      visitId,
      deviceId: machineID,
      method: "GET",
      path: "/recent",
      status: 200,
      bytesIn: 1,
      bytesOut: 1,
      viewOnly: false,
    });
    expect(await total()).toBe(old + 1);
    h.clock.advance(2 * 86_400_000);
    expect(await sweep()).toBe(old);
    const left = (await activity(await now(), { deviceId: machineID })).body.hwdata;
    expect(left.total).toBe(1);
    expect(left.list[0].path).toBe("/recent");
  });
});
