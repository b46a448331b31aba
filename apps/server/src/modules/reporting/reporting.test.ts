import { connect, createServer, type Socket } from "node:net";
import { CONNACK, startHugePacketServer } from "@keyway/protocol/mqtt-testing";
import { eq } from "drizzle-orm";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedText } from "../../infra/crypto.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { startMosquitto } from "../../testing/mosquitto.ts";
import {
  selfSignedCertificate,
  startBroker,
  startReportReceiver,
} from "../../testing/reportReceiver.ts";
import { users } from "../accounts/schema.ts";
import { projects } from "../projects/schema.ts";
import { REPORT_BATCH, SimulatedCrash } from "./delivery.ts";
import { QUOTA_ERROR } from "./reportable.ts";
import { reportPoints } from "./schema.ts";
import { BATCH_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "./transports.ts";

/**
 * Issue 8's data reporting: device `data` messages of a reporting project's machines are
 * queued before the device's PUBACK and delivered, signed, in order, to a real HTTPS
 * receiver that checks the signature and to a real Mosquitto; outages, restarts and the
 * data count. Deliveries run when a test calls deliverDue (a manual clock drives backoff).
 */
let h: Harness;
let operator: string;
let owner: string;
let broker: Awaited<ReturnType<typeof startMosquitto>>;
const machines: Array<{ id: number; code: string }> = [];
const closers: Array<() => Promise<unknown> | unknown> = [];
/** The receivers' certificate: the platform trusts it as a customer's private CA. */
const certificate = selfSignedCertificate();
const ca = certificate.cert;
/** A customer's HTTPS receiver checking signatures on the platform's (manual) clock. */
async function tlsReceiver(keyOf: () => string) {
  const receiver = await startReportReceiver({
    key: keyOf,
    now: () => h.clock.now().getTime(),
    tls: true,
    certificate,
  });
  closers.push(receiver.close);
  return receiver;
}

const provision = (count: number) => h.provision(operator, count);

/** A project of the owner with the given machines, reporting to `server`; its key. */
async function project(
  server: string,
  machineIds: number[],
  form: Record<string, string | number> = {},
) {
  const res = await h.call("POST", "/api/project/add", {
    form: {
      name: `Line ${Math.random().toString(36).slice(2, 7)}`,
      report_state: 1,
      server,
      ...form,
    },
    token: owner,
  });
  expect(res.body.hwcode).toBe(0);
  for (const machineId of machineIds) {
    const added = await h.call("POST", "/api/project/addMachine", {
      form: { id: res.body.hwdata.id, machineId },
      token: owner,
    });
    expect(added.body.hwcode).toBe(0);
  }
  return { id: res.body.hwdata.id as number, key: res.body.hwdata.secret_key as string };
}

const tick = { n: 0 };
/** A data message from a machine, through the gateway's real rules (as a PUBACK would wait). */
async function publish(
  machine: { id: number; code: string },
  values: Record<string, unknown>,
  id?: string,
) {
  tick.n += 1;
  const payload = { id, time: Date.parse("2026-11-21T08:00:00Z") + tick.n, values };
  await h.app.services.gateway.ingest.handleUplink(
    machine,
    "data",
    Buffer.from(JSON.stringify(payload)),
  );
}

async function delivery(id: number) {
  const res = await h.call("POST", "/api/project/getServer", { form: { id }, token: owner });
  return res.body.hwdata.delivery;
}

const deliverAll = async () => {
  let total = 0;
  for (
    let n = await h.app.services.reporting.deliverDue();
    n > 0;
    n = await h.app.services.reporting.deliverDue()
  )
    total += n;
  return total;
};

beforeAll(async () => {
  broker = await startMosquitto();
  closers.push(() => broker.stop());
  h = await createHarness({ reporting: { ca } });
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  owner = await h.signUp("owner@plant.com");
  // The project feature is a per-user switch (SPEC §6), on for this owner.
  await h.db.update(users).set({ enableProject: true }).where(eq(users.email, "owner@plant.com"));
  for (const d of await provision(8))
    machines.push(await h.addDevice(owner, d, `HMI ${d.machineCode.slice(-3)}`));
}, 300_000);
afterAll(async () => {
  await h?.close();
  for (const close of closers.reverse()) await close();
});

describe("data reporting over HTTPS", () => {
  it("delivers points in order, signed with the project key, and counts them", async () => {
    let key = "";
    const receiver = await tlsReceiver(() => key);
    const [a, b] = machines;
    const p = await project(receiver.url, [a.id, b.id]);
    key = p.key;
    for (let i = 0; i < 30; i++)
      await publish(i % 2 ? b : a, { "Tank1.Level": i, running: i % 3 === 0 });
    expect((await delivery(p.id)).backlog).toBe(30);

    expect(await deliverAll()).toBe(30);
    expect(receiver.state.refused).toBe(0);
    expect(receiver.points.map((pt) => pt.values["Tank1.Level"])).toEqual([...Array(30).keys()]);
    // Per device, the receiver sees the device's own order.
    const ofA = receiver.points.filter((pt) => pt.machineCode === a.code);
    expect(ofA.map((pt) => pt.time)).toEqual([...ofA.map((pt) => pt.time)].sort());
    expect(new Set(receiver.points.map((pt) => pt.seq)).size).toBe(30);
    // Each batch names itself by its first and last seq (the receiver's idempotency key).
    const seqs = receiver.points.map((pt) => pt.seq);
    expect(receiver.batchIds).toEqual([`${seqs[0]}-${seqs.at(-1)}`]);

    const state = await delivery(p.id);
    expect(state).toMatchObject({ backlog: 0, delivered: 30, last_error: "" });
    expect(state.last_success_at).toBe(h.clock.now().toISOString());
    const info = await h.call("POST", "/eapi/web/c/project/info", {
      form: { id: p.id },
      token: owner,
    });
    expect(info.body.hwdata.available_count).toBe(2 * 100_000 - 30);

    // A reset key signs the next batch; the receiver with the old key refuses it.
    const reset = await h.call("POST", "/api/project/resetKey", {
      form: { id: p.id },
      token: owner,
    });
    await publish(a, { "Tank1.Level": 99 });
    expect(await h.app.services.reporting.deliverDue()).toBe(0);
    expect(receiver.state.refused).toBe(1);
    expect((await delivery(p.id)).last_error).toMatch(/HTTP 401 bad signature/);
    key = reset.body.hwdata.secret_key;
    h.clock.advance(2_000);
    expect(await deliverAll()).toBe(1);
    expect(receiver.points.at(-1)?.values).toEqual({ "Tank1.Level": 99 });
  });

  it("loses nothing while the receiver is down for a minute, retrying with backoff", async () => {
    let key = "";
    const receiver = await tlsReceiver(() => key);
    const machine = machines[2];
    const p = await project(receiver.url, [machine.id]);
    key = p.key;
    for (let i = 0; i < 4; i++) await publish(machine, { count: i });
    expect(await deliverAll()).toBe(4);
    // Down for real: the port refuses connections.
    await receiver.stop();
    for (let i = 4; i < 10; i++) await publish(machine, { count: i });
    expect(await h.app.services.reporting.deliverDue()).toBe(0);
    const failed = await delivery(p.id);
    expect(failed).toMatchObject({ backlog: 6, delivered: 4 });
    expect(failed.last_error).toMatch(/ECONNREFUSED/);
    expect(failed.last_failure_at).toBe(h.clock.now().toISOString());
    // Backoff: nothing is tried again before its time.
    expect(await h.app.services.reporting.deliverDue()).toBe(0);
    const attemptsBefore = failed.next_attempt_at;
    expect(Date.parse(attemptsBefore) - h.clock.now().getTime()).toBeGreaterThanOrEqual(1_000);

    // A minute of outage: points keep arriving, tries keep failing, further apart.
    const gaps: number[] = [];
    for (let second = 0; second < 60; second += 5) {
      h.clock.advance(5_000);
      await publish(machine, { count: 10 + second / 5 });
      await h.app.services.reporting.deliverDue();
      const state = await delivery(p.id);
      gaps.push(Date.parse(state.next_attempt_at) - Date.parse(state.last_failure_at));
    }
    expect(gaps.at(-1)).toBeGreaterThan(gaps[0]);
    expect((await delivery(p.id)).backlog).toBe(18);

    // Back on the same port.
    await receiver.start();
    h.clock.advance(61_000);
    expect(await deliverAll()).toBe(18);
    expect(receiver.points.map((pt) => pt.values.count)).toEqual([...Array(22).keys()]);
    expect(receiver.state.duplicates).toBe(0);
    const state = await delivery(p.id);
    expect(state).toMatchObject({ backlog: 0, delivered: 22 });
    // The last failure stays visible beside the success that ended it.
    expect(state.last_error).toMatch(/ECONNREFUSED/);
    expect(Date.parse(state.last_success_at)).toBeGreaterThan(Date.parse(state.last_failure_at));
  });
});

describe("restarts", () => {
  it("a graceful restart mid-backlog loses nothing and sends nothing twice", async () => {
    let key = "";
    const receiver = await tlsReceiver(() => key);
    const machine = machines[3];
    const p = await project(receiver.url, [machine.id]);
    key = p.key;
    const total = REPORT_BATCH * 2 + 37;
    for (let i = 0; i < total; i++) await publish(machine, { n: i });

    // The first node stops while its first batch is at the (slow) receiver.
    receiver.state.delayMs = 300;
    const running = h.app.services.reporting.deliverDue();
    const arrived = receiver.state.arrived;
    while (receiver.state.arrived === arrived) await new Promise((r) => setTimeout(r, 5));
    const stopping = h.stopApp();
    await running;
    await stopping;
    expect(receiver.points.length).toBe(REPORT_BATCH);

    receiver.state.delayMs = 0;
    await h.restart();
    expect((await delivery(p.id)).backlog).toBe(total - REPORT_BATCH);
    expect(await deliverAll()).toBe(total - REPORT_BATCH);
    expect(receiver.points.map((pt) => pt.values.n)).toEqual([...Array(total).keys()]);
    expect(receiver.state.duplicates).toBe(0);
    expect((await delivery(p.id)).delivered).toBe(total);
  });

  it("after a crash between the receiver's answer and the commit, resends with the same seq", async () => {
    let key = "";
    const receiver = await tlsReceiver(() => key);
    const machine = machines[4];
    const p = await project(receiver.url, [machine.id]);
    key = p.key;
    for (let i = 0; i < 5; i++) await publish(machine, { n: i });
    await h.restart({
      ca,
      afterAcknowledged: () => {
        throw new SimulatedCrash("after acknowledgement");
      },
    });
    await expect(h.app.services.reporting.deliverDue()).rejects.toThrow(SimulatedCrash);
    const firstSeqs = receiver.points.map((pt) => pt.seq);
    expect(firstSeqs).toHaveLength(5);
    await h.restart({ ca });
    // The crashed node's lease runs out before another node takes the project.
    expect(await h.app.services.reporting.deliverDue()).toBe(0);
    h.clock.advance(61_000);
    expect(await deliverAll()).toBe(5);
    // Sent again under the same sequence numbers and batch id: the receiver recognises it.
    expect(receiver.state.duplicates).toBe(5);
    expect(receiver.points.map((pt) => pt.seq)).toEqual(firstSeqs);
    expect(receiver.batchIds).toEqual([
      `${firstSeqs[0]}-${firstSeqs[4]}`,
      `${firstSeqs[0]}-${firstSeqs[4]}`,
    ]);
    expect(await delivery(p.id)).toMatchObject({ backlog: 0, delivered: 5 });
  });
});

describe("what is queued", () => {
  it("stores a retried message once, and nothing for projects not reporting", async () => {
    const machine = machines[5];
    const p = await project("https://mes.example.com/ingest", [machine.id], { report_state: 0 });
    await publish(machine, { a: 1 }, "m-1");
    expect((await delivery(p.id)).backlog).toBe(0);
    await h.call("POST", "/api/project/edit", {
      form: { id: p.id, report_state: 1 },
      token: owner,
    });
    await publish(machine, { a: 1 }, "m-2");
    await publish(machine, { a: 1 }, "m-2");
    // Without an id, the same message read twice (a retry, or a second node behind an
    // external broker) is stored once; another reading is another point.
    const bare = Buffer.from(
      JSON.stringify({ time: Date.parse("2026-11-21T09:00:00Z"), values: { b: 2 } }),
    );
    await h.app.services.gateway.ingest.handleUplink(machine, "data", bare);
    await h.app.services.gateway.ingest.handleUplink(machine, "data", bare);
    await publish(machine, { b: 2 });
    const rows = await h.db.select().from(reportPoints).where(eq(reportPoints.projectId, p.id));
    expect(rows.map((r) => r.uid?.startsWith("~") ?? null)).toEqual([false, true, true]);
    expect(rows[0].uid).toBe("m-2");
    expect((await delivery(p.id)).backlog).toBe(3);
    // A device outside any project reports nowhere; a malformed message is dropped.
    const before = (await h.db.select().from(reportPoints)).length;
    await publish(machines[7], { a: 2 });
    await h.app.services.gateway.ingest.handleUplink(machine, "data", Buffer.from('{"values":1}'));
    expect((await h.db.select().from(reportPoints)).length).toBe(before);
  });

  it("stops at the available data count and says so", async () => {
    let key = "";
    const receiver = await startReportReceiver({
      key: () => key,
      now: () => h.clock.now().getTime(),
    });
    closers.push(receiver.close);
    const machine = machines[6];
    const p = await project(receiver.url, [machine.id]);
    key = p.key;
    await h.db.update(projects).set({ reportCount: 4 }).where(eq(projects.id, p.id));
    for (let i = 0; i < 6; i++) await publish(machine, { n: i });
    expect(await deliverAll()).toBe(4);
    const state = await delivery(p.id);
    expect(state).toMatchObject({ backlog: 0, delivered: 4, dropped: 2, last_error: QUOTA_ERROR });
    const info = await h.call("POST", "/eapi/web/c/project/info", {
      form: { id: p.id },
      token: owner,
    });
    expect(info.body.hwdata.available_count).toBe(0);
    expect(receiver.points.map((pt) => pt.values.n)).toEqual([0, 1, 2, 3]);
  });

  it("interval reporting holds points until the interval has passed, then sends them together", async () => {
    let key = "";
    const receiver = await startReportReceiver({
      key: () => key,
      now: () => h.clock.now().getTime(),
    });
    closers.push(receiver.close);
    const machine = machines[7];
    const p = await project(receiver.url, [machine.id], { interval: 1 });
    key = p.key;
    for (let i = 0; i < 3; i++) {
      await publish(machine, { n: i });
      h.clock.advance(10 * 60_000);
    }
    expect(await h.app.services.reporting.deliverDue()).toBe(0);
    expect(receiver.state.batches).toBe(0);
    h.clock.advance(31 * 60_000);
    expect(await deliverAll()).toBe(3);
    expect(receiver.state.batches).toBe(1);
    expect(receiver.points.map((pt) => pt.values.n)).toEqual([0, 1, 2]);
  });
});

describe("data reporting over MQTT (Mosquitto)", () => {
  it("publishes each batch on the project's topic with the signature as MQTT 5 properties", async () => {
    const machine = machines[0];
    // machines[0] is in the first project; a device reports to one project, so use a new one.
    const [d] = await provision(1);
    const filler = await h.addDevice(owner, d, "Filler");
    expect(filler.id).not.toBe(machine.id);

    const subscriber = await mqtt.connectAsync(broker.url, { protocolVersion: 5 });
    closers.push(() => subscriber.endAsync(true));
    const got: Array<{ topic: string; body: string; props: Record<string, unknown> }> = [];
    subscriber.on("message", (topic, payload, packet) => {
      got.push({ topic, body: payload.toString(), props: packet.properties?.userProperties ?? {} });
    });
    await subscriber.subscribeAsync("#", { qos: 1 });

    const named = await project(`${broker.url}/factory/line3`, [filler.id]);
    for (let i = 0; i < 3; i++) await publish(filler, { speed: 100 + i });
    expect(await deliverAll()).toBe(3);
    for (let i = 0; i < 50 && got.length < 1; i++) await new Promise((r) => setTimeout(r, 20));
    expect(got).toHaveLength(1);
    expect(got[0].topic).toBe("factory/line3");
    const ts = String(got[0].props[TIMESTAMP_HEADER]);
    expect(got[0].props[SIGNATURE_HEADER]).toBe(`sha256=${signedText(named.key, ts, got[0].body)}`);
    const batch = JSON.parse(got[0].body);
    expect(batch.project.id).toBe(named.id);
    expect(batch.points.map((pt: { values: { speed: number } }) => pt.values.speed)).toEqual([
      100, 101, 102,
    ]);
    expect(got[0].props[BATCH_HEADER]).toBe(`${batch.points[0].seq}-${batch.points[2].seq}`);

    // Without a path: keyway/projects/<id>/data. With the broker gone: a failure, kept.
    await h.call("POST", "/api/project/edit", {
      form: { id: named.id, server: broker.url },
      token: owner,
    });
    await publish(filler, { speed: 103 });
    expect(await deliverAll()).toBe(1);
    for (let i = 0; i < 50 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(got[1]?.topic).toBe(`keyway/projects/${named.id}/data`);

    await h.call("POST", "/api/project/edit", {
      form: { id: named.id, server: "mqtt://127.0.0.1:1" },
      token: owner,
    });
    await publish(filler, { speed: 104 });
    expect(await h.app.services.reporting.deliverDue()).toBe(0);
    const state = await delivery(named.id);
    expect(state).toMatchObject({ backlog: 1, delivered: 4 });
    expect(state.last_error).toMatch(/broker not reachable/);

    // The owner fixes the address: the point goes at once, not after the backoff.
    await h.call("POST", "/api/project/edit", {
      form: { id: named.id, server: broker.url },
      token: owner,
    });
    expect(await h.app.services.reporting.deliverDue()).toBe(1);
    for (let i = 0; i < 50 && got.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    expect(JSON.parse(got[2].body).points[0].values).toEqual({ speed: 104 });
  });
});

describe("an MQTT report server that goes away and comes back", () => {
  let b: Awaited<ReturnType<typeof startBroker>>;
  const until = async (check: () => boolean, what: string, ms = 20_000) => {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  beforeAll(async () => {
    b = await startBroker();
    closers.push(() => b.close());
  });

  it("Mosquitto stopped for a minute and started on the same port: nothing lost, nothing twice", async () => {
    // The customer's SCADA keeps a session on its broker (QoS 1, not clean), as it should.
    const subscriber = await mqtt.connectAsync(b.url, {
      protocolVersion: 5,
      clientId: "customer-scada",
      clean: false,
      properties: { sessionExpiryInterval: 3600 },
      reconnectPeriod: 200,
    });
    closers.push(() => subscriber.endAsync(true));
    const batches: Array<{ seqs: number[]; values: number[] }> = [];
    subscriber.on("message", (_topic, payload) => {
      const batch = JSON.parse(payload.toString()) as {
        points: Array<{ seq: number; values: { n: number } }>;
      };
      batches.push({
        seqs: batch.points.map((p) => p.seq),
        values: batch.points.map((p) => p.values.n),
      });
    });
    await subscriber.subscribeAsync("plant/#", { qos: 1 });
    const [d] = await provision(1);
    const machine = await h.addDevice(owner, d, "Extruder");
    const p = await project(`${b.url}/plant/line4`, [machine.id]);
    for (let i = 0; i < 3; i++) await publish(machine, { n: i });
    expect(await deliverAll()).toBe(3);
    await until(() => batches.length === 1, "the first batch");

    await b.stop();
    // A minute without the broker while the machine keeps sending.
    for (let i = 3; i < 9; i++) {
      await publish(machine, { n: i });
      await h.app.services.reporting.deliverDue();
      h.clock.advance(10_000);
    }
    const down = await delivery(p.id);
    expect(down).toMatchObject({ backlog: 6, delivered: 3 });
    expect(down.last_error).toMatch(/broker|ECONNREFUSED|connection/i);

    await b.start();
    await until(() => subscriber.connected, "the subscriber's reconnect");
    h.clock.advance(61_000);
    expect(await deliverAll()).toBe(6);
    await until(() => batches.flatMap((x) => x.values).length >= 9, "the rest");
    // Anything sent twice would arrive by now.
    await new Promise((r) => setTimeout(r, 1_000));
    const values = batches.flatMap((x) => x.values);
    expect(values).toEqual([...Array(9).keys()]);
    const seqs = batches.flatMap((x) => x.seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(await delivery(p.id)).toMatchObject({ backlog: 0, delivered: 9 });
  });

  it("a project switched off or deleted lets go of its broker connection", async () => {
    const [d] = await provision(1);
    const machine = await h.addDevice(owner, d, "Labeller");
    const p = await project(`${b.url}/plant/labels`, [machine.id]);
    const clientAfter = async (from: number) => {
      await until(
        () => b.log.slice(from).some((l) => /New client connected .* as keyway-report-/.test(l)),
        "the report client's connect",
      );
      const line = b.log.slice(from).find((l) => /as keyway-report-/.test(l)) as string;
      return /as (keyway-report-\w+)/.exec(line)?.[1] as string;
    };
    const gone = (id: string) =>
      until(
        () => b.log.some((l) => l.includes(`Client ${id}`) && /disconnect|closed/i.test(l)),
        `${id} to disconnect`,
      );

    let from = b.log.length;
    await publish(machine, { n: 1 });
    expect(await deliverAll()).toBe(1);
    const first = await clientAfter(from);
    await h.call("POST", "/api/project/edit", {
      form: { id: p.id, report_state: 0 },
      token: owner,
    });
    await gone(first);

    await h.call("POST", "/api/project/edit", {
      form: { id: p.id, report_state: 1 },
      token: owner,
    });
    from = b.log.length;
    await publish(machine, { n: 2 });
    expect(await deliverAll()).toBe(1);
    const second = await clientAfter(from);
    expect(second).not.toBe(first);
    const del = await h.call("POST", "/api/project/del", { form: { id: p.id }, token: owner });
    expect(del.body.hwcode).toBe(0);
    await gone(second);
  });
});

describe("an MQTT batch whose PUBACK is lost", () => {
  it("is sent again once by the queue, never republished by the old client", async () => {
    const b = await startBroker();
    closers.push(() => b.close());
    // Between the platform and the broker: a link that can lose the broker's answers, then break.
    const sockets = new Set<Socket>();
    let swallow = false;
    const relay = createServer((client) => {
      const upstream = connect(b.port, "127.0.0.1");
      sockets.add(client).add(upstream);
      client.on("data", (d) => upstream.write(d));
      upstream.on("data", (d) => {
        if (!swallow) client.write(d);
      });
      const cut = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on("close", cut).on("error", cut);
      upstream.on("close", cut).on("error", cut);
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => relay.close(resolve)));
    const relayPort = (relay.address() as { port: number }).port;

    const subscriber = await mqtt.connectAsync(b.url, { protocolVersion: 5 });
    closers.push(() => subscriber.endAsync(true));
    const copies: Array<{ seqs: number[]; batch: unknown }> = [];
    subscriber.on("message", (_topic, payload, packet) => {
      const body = JSON.parse(payload.toString()) as { points: Array<{ seq: number }> };
      copies.push({
        seqs: body.points.map((p) => p.seq),
        batch: packet.properties?.userProperties?.[BATCH_HEADER],
      });
    });
    await subscriber.subscribeAsync("plant/#", { qos: 1 });
    const [d] = await provision(1);
    const machine = await h.addDevice(owner, d, "Capper");
    const p = await project(`mqtt://127.0.0.1:${relayPort}/plant/inflight`, [machine.id]);
    await publish(machine, { n: 0 });
    expect(await deliverAll()).toBe(1);
    const wait = async (check: () => boolean) => {
      for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
    };
    await wait(() => copies.length === 1);

    // The broker takes the next batch and hands it on, but its PUBACK never comes back;
    // then the link breaks.
    swallow = true;
    await publish(machine, { n: 1 });
    const attempt = h.app.services.reporting.deliverDue();
    await wait(() => copies.length === 2);
    expect(copies).toHaveLength(2);
    for (const s of sockets) s.destroy();
    swallow = false;
    expect(await attempt).toBe(0);
    expect((await delivery(p.id)).last_error).toMatch(/connection lost before the PUBACK/);

    // The queue sends it again (same seq, same batch id): the one resend that delivery at
    // least once allows (docs/architecture/reporting.md).
    h.clock.advance(2_000);
    expect(await deliverAll()).toBe(1);
    await wait(() => copies.length === 3);
    // Longer than mqtt.js's reconnect period: an old client would republish its copy now.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(copies).toHaveLength(3);
    expect(copies[2].seqs).toEqual(copies[1].seqs);
    expect(copies[2].batch).toBe(copies[1].batch);
    expect(await delivery(p.id)).toMatchObject({ backlog: 0, delivered: 2 });
  });
});

describe("a hostile MQTT report server", () => {
  it("is cut off the moment it announces a packet above 256 KiB; the batch waits for the next try", async () => {
    // A customer's "broker": MQTT 5 CONNACK, then a PUBLISH announcing 128 MiB, trickled.
    // Without the limit this node would hold what came until its PUBACK wait ran out.
    const hostile = await startHugePacketServer(CONNACK.v5);
    closers.push(hostile.close);
    const [d] = await provision(1);
    const machine = await h.addDevice(owner, d, "Labeller");
    const p = await project(`mqtt://127.0.0.1:${hostile.port}/plant/hostile`, [machine.id]);
    await publish(machine, { n: 1 });

    expect(await h.app.services.reporting.deliverDue()).toBe(0);
    const closedAfter = await hostile.cut(1);
    expect(closedAfter).toHaveLength(1);
    expect(closedAfter[0]).toBeLessThan(3000);
    expect(await delivery(p.id)).toMatchObject({
      backlog: 1,
      delivered: 0,
      last_error: expect.stringMatching(/announced a packet of \d+ bytes \(at most 262144\)/),
    });
  });
});

describe("a hostile HTTP report server", () => {
  it("that trickles its answer holds neither its own project nor the others' past the time allowed", async () => {
    // One batch may take 2 s here (15 s by default), the server's whole answer included.
    await h.restart({ ca, timeoutMs: 2000 });
    // A customer's receiver that answers 200 and then one byte of its body every 200 ms: an
    // idle timeout never fires on it.
    const trickles: Socket[] = [];
    const hostile = createServer((socket) => {
      trickles.push(socket);
      socket.on("error", () => {});
      socket.once("data", () => {
        socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
        const trickle = setInterval(() => socket.write("."), 200);
        socket.once("close", () => clearInterval(trickle));
      });
    });
    await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
    closers.push(() => {
      for (const socket of trickles) socket.destroy();
      return new Promise((resolve) => hostile.close(resolve));
    });
    const port = (hostile.address() as { port: number }).port;
    const [d1, d2] = await provision(2);
    const slow = await h.addDevice(owner, d1, "Filler");
    const sound = await h.addDevice(owner, d2, "Sealer");
    const bad = await project(`http://127.0.0.1:${port}/in`, [slow.id]);
    let key = "";
    const receiver = await tlsReceiver(() => key);
    const good = await project(receiver.url, [sound.id]);
    key = good.key;
    await publish(slow, { n: 1 });
    await publish(sound, { n: 1 });

    // One pass over both: it ends, the sound project's batch delivered, the other's kept.
    expect(await h.app.services.reporting.deliverDue()).toBe(1);
    expect(receiver.points).toHaveLength(1);
    expect(receiver.state.refused).toBe(0);
    expect(await delivery(good.id)).toMatchObject({ backlog: 0, delivered: 1 });
    expect(await delivery(bad.id)).toMatchObject({
      backlog: 1,
      delivered: 0,
      last_error: "no whole answer in 2 s",
    });
  });
});
