import { type AlarmPayload, deviceTopic } from "@keyway/protocol";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import { seedDemo } from "../seed.ts";
import { createHarness, type Harness } from "../testing/harness.ts";
import { startMosquitto } from "../testing/mosquitto.ts";
import { startRedis, type TestRedis } from "../testing/redis.ts";

const TOKEN = "metrics-token-0123456789";
/** Every JSON line the first app logged (pino at info). */
const lines: string[] = [];
let h: Harness;
let clients: MqttClient[] = [];

beforeAll(async () => {
  h = await createHarness({
    logger: { level: "info", stream: { write: (line: string) => void lines.push(line) } },
  });
});
afterAll(async () => {
  for (const client of clients) client.end(true);
  await h?.close();
});

const until = async (check: () => Promise<boolean>, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** One sample of the Prometheus text (`name` or `name{labels}`), NaN when absent. */
function sample(text: string, series: string): number {
  for (const line of text.split("\n")) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return Number.NaN;
}

/** /metrics as Prometheus scrapes it from this machine. */
async function scrape(target: Harness = h) {
  const res = await target.app.inject({ method: "GET", url: "/metrics" });
  expect(res.statusCode).toBe(200);
  return res.body;
}

describe("probes", () => {
  it("/healthz answers without a session and without the database", async () => {
    const res = await h.app.inject({
      method: "GET",
      url: "/healthz",
      remoteAddress: "203.0.113.9",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok" });
  });

  it("/readyz is 200 with the database and the embedded broker up, and names each check", async () => {
    const res = await h.app.inject({ method: "GET", url: "/readyz", remoteAddress: "203.0.113.9" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: "ok",
      checks: { database: { status: "ok" }, mqtt: { status: "ok" } },
    });
    // No Redis configured: nothing to check.
    expect(res.json().checks.redis).toBeUndefined();
  });
});

describe("/metrics", () => {
  it("answers loopback clients only when no token is set, and never through a proxy", async () => {
    const far = await h.app.inject({
      method: "GET",
      url: "/metrics",
      remoteAddress: "203.0.113.9",
    });
    expect(far.statusCode).toBe(403);
    expect(far.json()).toMatchObject({ hwcode: 403 });
    // A proxy on this machine would make every client look local.
    const proxied = await h.app.inject({
      method: "GET",
      url: "/metrics",
      headers: { "x-forwarded-for": "203.0.113.9" },
    });
    expect(proxied.statusCode).toBe(403);
    const local = await h.app.inject({ method: "GET", url: "/metrics", remoteAddress: "::1" });
    expect(local.statusCode).toBe(200);
    expect(local.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      "keyway_devices_online",
      "keyway_tunnels_held",
      "keyway_visits_active",
      "keyway_visit_streams_open",
      "keyway_push_sockets",
      "keyway_alarms_stored_total",
      'keyway_notification_queue_depth{queue="notifications"}',
      'keyway_notification_queue_depth{queue="alarm_sends"}',
      "keyway_report_backlog_points",
      'keyway_relay_bytes_total{direction="from_device"}',
      'keyway_relay_bytes_total{direction="to_device"}',
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_seconds",
    ])
      expect(sample(local.body, name), name).toBeGreaterThanOrEqual(0);
  });

  it("counts a device going online through the gateway and the alarm it sends", async () => {
    await seedDemo(h.app.services.accounts);
    const operator = await h.login("operator@keyway.local", "operator123");
    const [device] = await h.provision(operator, 1, "MT8071iE");
    const port = await h.app.services.gateway.listenTcp(0, "127.0.0.1");
    const before = await scrape();
    expect(sample(before, "keyway_devices_online")).toBe(0);

    const client = mqtt.connect(`mqtt://127.0.0.1:${port}`, {
      username: device.machineCode,
      password: device.deviceSecret,
      clientId: `${device.machineCode}-metrics`,
      reconnectPeriod: 0,
    });
    clients.push(client);
    await new Promise((resolve, reject) => {
      client.once("connect", resolve);
      client.once("error", reject);
    });
    await until(async () => sample(await scrape(), "keyway_devices_online") === 1);

    const alarm: AlarmPayload = {
      id: "m-1",
      type: "high",
      variable: "Tank1.Level",
      level: 3,
      content: "Tank 1 level above 95%",
      time: Date.parse("2026-11-21T07:59:00Z"),
      timeZone: "Asia/Shanghai",
    };
    // Resolves on PUBACK, sent once the alarm is stored.
    await client.publishAsync(deviceTopic(device.machineCode, "alarm"), JSON.stringify(alarm), {
      qos: 1,
    });
    const after = await scrape();
    expect(sample(after, "keyway_alarms_stored_total")).toBe(
      sample(before, "keyway_alarms_stored_total") + 1,
    );

    await client.endAsync();
    clients = clients.filter((c) => c !== client);
    await until(async () => sample(await scrape(), "keyway_devices_online") === 0);
  });
});

describe("request ids", () => {
  it("echoes a well-formed X-Request-Id and logs it with the request", async () => {
    const id = "3f2b8c1e-5d4a-4c39-9e0f-1a2b3c4d5e6f";
    const res = await h.app.inject({
      method: "GET",
      url: "/api/no-such-call",
      headers: { "x-request-id": id },
    });
    expect(res.headers["x-request-id"]).toBe(id);
    const logged = lines.map((line) => JSON.parse(line)).filter((entry) => entry.reqId === id);
    expect(logged.some((entry) => entry.res?.statusCode === 404)).toBe(true);
    // One line per request, written when the answer is out, naming the call and its time.
    const requestLines = logged.filter((entry) => entry.req || entry.res);
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({
      req: { method: "GET", url: "/api/no-such-call" },
      res: { statusCode: 404 },
    });
    expect(requestLines[0].responseTime).toBeGreaterThanOrEqual(0);
  });

  it("keeps the probes' own requests out of the info log", async () => {
    const id = "probe-1";
    const res = await h.app.inject({
      method: "GET",
      url: "/healthz",
      headers: { "x-request-id": id },
    });
    expect(res.headers["x-request-id"]).toBe(id);
    expect(lines.some((line) => JSON.parse(line).reqId === id)).toBe(false);
  });

  it("replaces a malformed one with its own, also on refusals", async () => {
    const res = await h.app.inject({
      method: "GET",
      url: "/api/no-such-call",
      headers: { "x-request-id": 'forged" level=60 {' },
    });
    expect(res.statusCode).toBe(404);
    const id = res.headers["x-request-id"];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.some((line) => JSON.parse(line).reqId === id)).toBe(true);
    expect(lines.join("\n")).not.toContain("forged");
  });
});

describe("with Redis and METRICS_TOKEN", () => {
  let redis: TestRedis;
  let node: Harness;
  beforeAll(async () => {
    redis = await startRedis();
    node = await createHarness({ config: { REDIS_URL: redis.url, METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await node?.close();
    await redis?.stop();
  });

  it("serves /metrics only to the bearer of the token, from anywhere", async () => {
    const get = (headers: Record<string, string>, remoteAddress = "203.0.113.9") =>
      node.app.inject({ method: "GET", url: "/metrics", headers, remoteAddress });
    const none = await get({}, "127.0.0.1");
    expect(none.statusCode).toBe(401);
    expect(none.headers["www-authenticate"]).toMatch(/^Bearer/);
    expect(none.json()).toMatchObject({ hwcode: 403 });
    expect((await get({ authorization: `Bearer ${TOKEN}x` })).statusCode).toBe(401);
    expect((await get({ authorization: TOKEN })).statusCode).toBe(401);
    const ok = await get({ authorization: `Bearer ${TOKEN}` });
    expect(ok.statusCode).toBe(200);
    expect(sample(ok.body, "keyway_push_sockets")).toBe(0);
  });

  it("/readyz checks Redis, and is 503 naming it once Redis is gone", async () => {
    const up = await node.app.inject({ method: "GET", url: "/readyz" });
    expect(up.statusCode).toBe(200);
    expect(up.json().checks.redis).toMatchObject({ status: "ok" });

    await redis.stop();
    let down = up;
    await until(async () => {
      down = await node.app.inject({ method: "GET", url: "/readyz" });
      return down.statusCode === 503;
    });
    expect(down.json()).toMatchObject({
      status: "fail",
      checks: {
        database: { status: "ok" },
        mqtt: { status: "ok" },
        redis: { status: "fail" },
      },
    });
    // A ping sent just as Redis went away ends with the check's time-out (the probe never
    // hangs); once the connection is known to be down, the answer comes at once.
    const again = await node.app.inject({ method: "GET", url: "/readyz" });
    expect(again.statusCode).toBe(503);
    expect(again.json().checks.redis).toMatchObject({ status: "fail", error: "unreachable" });
    expect(again.json().checks.redis.ms).toBeLessThan(500);
  });
});

describe("with an external broker", () => {
  it("/readyz follows the link to the broker", async () => {
    const broker = await startMosquitto();
    const node = await createHarness({ config: { MQTT_URL: broker.url } });
    try {
      const up = await node.app.inject({ method: "GET", url: "/readyz" });
      expect(up.statusCode).toBe(200);
      expect(up.json().checks.mqtt).toMatchObject({ status: "ok" });
      broker.stop();
      let down = up;
      await until(async () => {
        down = await node.app.inject({ method: "GET", url: "/readyz" });
        return down.statusCode === 503;
      });
      expect(down.json().checks).toMatchObject({
        database: { status: "ok" },
        mqtt: { status: "fail", error: "broker not connected" },
      });
    } finally {
      broker.stop();
      await node.close();
    }
  });
});

describe("METRICS_TOKEN", () => {
  it("is checked at boot", () => {
    const env = { SECRET_KEY: "0".repeat(64) };
    expect(loadConfig({ ...env, METRICS_TOKEN: TOKEN }).METRICS_TOKEN).toBe(TOKEN);
    expect(loadConfig(env).METRICS_TOKEN).toBeUndefined();
    expect(() => loadConfig({ ...env, METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ ...env, METRICS_TOKEN: "has a space in it, too long" })).toThrow(
      /METRICS_TOKEN/,
    );
  });
});
