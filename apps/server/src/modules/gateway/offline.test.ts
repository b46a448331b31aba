import { eq } from "drizzle-orm";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { alarms } from "../alarms/schema.ts";
import { devices } from "../devices/schema.ts";

/** Offline alarms: the configured time, server restarts, and one alarm per absence. */
const harnesses: Harness[] = [];
const clients: MqttClient[] = [];
// Booting an app is slow on a loaded machine: both before the tests (hook time limit).
beforeAll(async () => {
  await boot(3);
  await boot(undefined);
});
afterAll(async () => {
  for (const c of clients) c.end(true);
  for (const h of harnesses) await h.close();
});

/** One broker listener per running app (a restart brings a new app). */
const ports = new WeakMap<object, Promise<number>>();
const booted = new Map<number | undefined, Promise<{ h: Harness; operator: string }>>();
function boot(minutes: number | undefined) {
  if (!booted.has(minutes))
    booted.set(
      minutes,
      (async () => {
        const h = await createHarness(
          minutes === undefined ? {} : { config: { OFFLINE_ALARM_MINUTES: minutes } },
        );
        harnesses.push(h);
        await seedDemo(h.app.services.accounts);
        return { h, operator: await h.login("operator@keyway.local", "operator123") };
      })(),
    );
  return booted.get(minutes)!;
}

/** One harness per offline-alarm setting, a new device each call. */
async function setUp(minutes?: number) {
  const { h, operator } = await boot(minutes);
  const [d] = await h.provision(operator, 1);
  const [row] = await h.db.select().from(devices).where(eq(devices.code, d.machineCode));
  const offlineAlarms = () => h.db.select().from(alarms).where(eq(alarms.deviceId, row.id));
  const online = async () =>
    (await h.db.select().from(devices).where(eq(devices.id, row.id)))[0].online;
  /** Connects the device, waits for it to be online, then lets it go (a clean goodbye). */
  const visit = async () => {
    if (!ports.has(h.app)) ports.set(h.app, h.app.services.gateway.listenTcp(0, "127.0.0.1"));
    const port = await ports.get(h.app)!;
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
      username: d.machineCode,
      password: d.deviceSecret,
      reconnectPeriod: 0,
    });
    clients.push(client);
    await until(online);
    return client;
  };
  return { h, d, deviceId: row.id, offlineAlarms, online, visit };
}

const until = async (check: () => Promise<boolean>, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
};
const minutes = (n: number) => n * 60_000;

describe("offline alarms", { timeout: 120_000 }, () => {
  it("follow OFFLINE_ALARM_MINUTES when it is not the default", async () => {
    const { h, offlineAlarms, online, visit } = await setUp(3);
    const client = await visit();
    await client.endAsync();
    await until(async () => !(await online()));
    h.clock.advance(minutes(2));
    await h.app.services.gateway.sweepOffline();
    expect(await offlineAlarms()).toHaveLength(0);
    h.clock.advance(minutes(2));
    await h.app.services.gateway.sweepOffline();
    const raised = await offlineAlarms();
    expect(raised).toHaveLength(1);
    expect(raised[0].content).toContain("offline for more than 3 minutes");
  });

  it("raises no false alarm after a server restart, but does for a device that stays away", async () => {
    const { h, deviceId, offlineAlarms } = await setUp();
    // Online when the server went down (a crash: no goodbye), its last news an hour old.
    await h.db
      .update(devices)
      .set({ online: true, lastSeenAt: new Date(h.clock.now().getTime() - minutes(60)) })
      .where(eq(devices.id, deviceId));
    await h.restart();
    h.clock.advance(30_000);
    await h.app.services.gateway.sweepOffline();
    expect(await offlineAlarms()).toHaveLength(0);
    h.clock.advance(minutes(10));
    await h.app.services.gateway.sweepOffline();
    expect(await offlineAlarms()).toHaveLength(0);
    // Still away 15 minutes after the restart: now it is offline for real.
    h.clock.advance(minutes(5));
    await h.app.services.gateway.sweepOffline();
    expect(await offlineAlarms()).toHaveLength(1);
  });

  it("keeps last seen fresh while online, so a crash leaves no stale last-seen time", async () => {
    const { h, deviceId, visit } = await setUp();
    const client = await visit();
    h.clock.advance(minutes(20));
    await h.app.services.gateway.sweepOffline();
    const [row] = await h.db.select().from(devices).where(eq(devices.id, deviceId));
    expect(row.lastSeenAt?.getTime()).toBe(h.clock.now().getTime());
    await client.endAsync();
  });

  it("raises one alarm per absence however many sweeps pass, and a new one next time", async () => {
    const { h, offlineAlarms, online, visit } = await setUp();
    h.clock.advance(minutes(16)); // past the grace after the server's (re)start
    let client = await visit();
    await client.endAsync();
    await until(async () => !(await online()));
    for (let i = 0; i < 5; i++) {
      h.clock.advance(minutes(20));
      await h.app.services.gateway.sweepOffline();
      expect(await offlineAlarms()).toHaveLength(1);
    }
    expect(await offlineAlarms()).toHaveLength(1);
    client = await visit(); // back: the alarm clears
    expect((await offlineAlarms())[0].clearedAt).toBeInstanceOf(Date);
    await client.endAsync();
    await until(async () => !(await online()));
    h.clock.advance(minutes(16));
    await h.app.services.gateway.sweepOffline();
    expect(await offlineAlarms()).toHaveLength(2);
  });
});
