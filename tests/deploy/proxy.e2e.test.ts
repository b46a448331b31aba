import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import tls from "node:tls";
import { decodePush, PUSH_SCENES } from "@keyway/protocol";
import { formatUnreadBadge } from "@keyway/shared";
import { Redis } from "ioredis";
import pg from "pg";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../../apps/server/src/testing/redis.ts";
import { launchChromium, tid } from "../e2e/browser.ts";
import {
  type Broker,
  type Certificates,
  demoOwnerAdds,
  freePort,
  HOST,
  makeCertificates,
  makeLayout,
  type Nginx,
  type Postgres,
  provisionDevice,
  RESOLVE_TEST_HOSTS,
  type RequestOptions,
  requestThrough,
  setUpBroker,
  setUpNginx,
  startPostgres,
  until,
  VISIT_DOMAIN,
  writeAgentSettings,
  writeServerEnv,
} from "./stack.ts";
import { ensureBuilt, hostPath, RUN_FROM, type Started, startUnit, unitCommand } from "./units.ts";

/**
 * Issue 16, what an operator runs, each file of deploy/ used as it is: a real PostgreSQL,
 * redis-server and Mosquitto (deploy/mosquitto: TLS for devices, logins, ACL), TWO server
 * processes started by keyway-server@.service's own command line and environment (server.env
 * from deploy/server.env.example), nginx with deploy/nginx/keyway.conf rendered by the
 * commands docs/deploy.md shows, a wildcard certificate from a private CA, and a real agent
 * (keyway-agent.service, the simulated HMI) connected through nginx. Chromium logs in over
 * HTTPS and opens the HMI on its visit host; requests land on both nodes (nginx's log names
 * the upstream); ending the visit through the node that does not hold the tunnel cuts the
 * page's WebSocket within 3 s; killing the tunnel's node (SIGKILL) moves the agent to the
 * other, a new visit works, and the alarms sent meanwhile arrive, once each. Then a rolling
 * restart (each node stopped gracefully and started again, one after the other) while the
 * device raises an alarm a second and the user's page holds its push socket: no alarm lost
 * or doubled, the socket back, the unread count right.
 */

let layout: ReturnType<typeof makeLayout>;
let certs: Certificates;
let postgres: Postgres;
let redis: TestRedis;
let broker: Broker;
let nginx: Nginx;
let agent: Started;
let browser: Browser;
const ports = { https: 0, http: 0, mqtt: 0, mqtts: 0, hmi: 0 };
const mqttPassword = randomBytes(12).toString("hex");

interface Node {
  port: number;
  process: Started;
}
const nodes: Node[] = [];
const device = { code: "", secret: "", password: "", id: 0 };
let token = "";

const platform = (p = "/") => `https://${HOST}:${ports.https}${p}`;

/** An HTTPS (or HTTP) request through nginx, trusting the deployment's private CA. */
const request = (url: string, options: RequestOptions = {}) =>
  requestThrough(url, options, certs.ca);

/** A Keyway API call (form-encoded, as the web app sends them) through nginx or to `base`. */
async function call(
  path: string,
  form: Record<string, string | number> = {},
  base?: string,
  // biome-ignore lint/suspicious/noExplicitAny: envelopes of several calls
): Promise<any> {
  const body = new URLSearchParams(
    Object.entries(form).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  const headers = {
    "content-type": "application/x-www-form-urlencoded",
    ...(token ? { cloudtoken: token } : {}),
  };
  if (base) {
    const res = await fetch(`${base}${path}`, { method: "POST", headers, body });
    return res.json();
  }
  // Through nginx a node being restarted may cut a request: the caller asks again.
  const res = await request(platform(path), { method: "POST", headers, body });
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${res.body}`);
  return JSON.parse(res.body);
}

/** The user's unread message count (GET, through nginx). */
async function totalUnread(): Promise<number> {
  const res = await request(platform("/api/msg/v1/totalUnread"), {
    headers: { cloudtoken: token },
  });
  if (res.status !== 200) throw new Error(`totalUnread: HTTP ${res.status} ${res.body}`);
  return JSON.parse(res.body).hwdata.totalUnreadMsg;
}

/** keyway_push_sockets of node `port` (its /metrics, asked directly on loopback). */
async function pushSockets(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(/^keyway_push_sockets (\d+)/m.exec(text)?.[1] ?? 0);
}

/** The node's own /readyz answers 200: database, broker and Redis reachable. */
async function ready(port: number) {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

/** Starts node `port` as systemd starts keyway-server@<port>.service. */
function startNode(port: number): Node {
  const node = {
    port,
    process: startUnit(unitCommand("keyway-server@.service", layout, String(port))),
  };
  const index = nodes.findIndex((n) => n.port === port);
  if (index >= 0) nodes[index] = node;
  else nodes.push(node);
  return node;
}

const nodeLogs = () =>
  nodes.map((n) => `--- node ${n.port}\n${n.process.output().slice(-4000)}`).join("\n");

/** The node holding the device's tunnel now (the relay registry in Redis), and the other. */
async function tunnelNodes(): Promise<{ holder: Node; other: Node } | null> {
  const client = new Redis(redis.url, { lazyConnect: true });
  try {
    await client.connect();
    const value = await client.get(`keyway:tunnel:${device.id}`);
    if (!value) return null;
    const port = Number(new URL(JSON.parse(value).node).port);
    const holder = nodes.find((n) => n.port === port);
    const other = nodes.find((n) => n.port !== port);
    return holder && other ? { holder, other } : null;
  } finally {
    client.disconnect();
  }
}

/** The device's alarms as its owner sees them (the API through nginx): content → how many. */
async function alarmContents(prefix: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let page = 1; ; page++) {
    const res = await request(
      platform(`/api/v1/devices/alarms?deviceCode=${device.code}&page=${page}&pageSize=100`),
      { headers: { cloudtoken: token } },
    );
    if (res.status !== 200) throw new Error(`alarms: HTTP ${res.status} ${res.body}`);
    const list: Array<{ content: string }> = JSON.parse(res.body).hwdata.list ?? [];
    for (const alarm of list)
      if (alarm.content.startsWith(prefix))
        counts.set(alarm.content, (counts.get(alarm.content) ?? 0) + 1);
    if (list.length < 100) return counts;
  }
}

/** The rows of the alarms table (each stored once is the database's own rule; read anyway). */
async function storedAlarms(prefix: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "select a.content from alarms a join devices d on d.id = a.device_id where d.code = $1 and a.content like $2",
      [device.code, `${prefix}%`],
    );
    return rows.map((r) => r.content as string);
  } finally {
    await client.end();
  }
}

/** Raises an alarm on the simulated HMI, as its operator presses the button (loopback). */
async function raiseOnHmi(content: string) {
  const res = await fetch(`http://127.0.0.1:${ports.hmi}/api/alarms`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ content, level: 2 }),
  });
  expect(res.status).toBe(201);
}

/** Upstreams nginx sent requests for `host` to ("127.0.0.1:<port>" → count). */
function upstreamsOf(hostPattern: RegExp): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of nginx.accessLog().split("\n")) {
    const host = /"([^"]+)" "/.exec(line)?.[1];
    const upstream = / upstream=(\S+)/.exec(line)?.[1];
    if (!host || !upstream || !hostPattern.test(host)) continue;
    // A retried request lists every upstream it tried: the last one answered.
    const answered = upstream.split(", ").at(-1) ?? upstream;
    counts.set(answered, (counts.get(answered) ?? 0) + 1);
  }
  return counts;
}

beforeAll(async () => {
  if (RUN_FROM === "built") ensureBuilt();
  layout = makeLayout("deploy");
  const etc = (p: string) => hostPath(layout, p);
  certs = makeCertificates(etc("/etc/keyway/tls"));
  for (const key of Object.keys(ports) as Array<keyof typeof ports>) ports[key] = await freePort();
  const nodePorts = [await freePort(), await freePort()];
  [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);

  // The broker (docs/deploy.md "MQTT broker").
  broker = await setUpBroker(layout, certs, ports, mqttPassword);

  // The server's environment: deploy/server.env.example with this machine's values; the
  // first node also seeds the demo accounts (the operator's first login, docs "First start").
  writeServerEnv(layout, ports, {
    database: postgres.url,
    redis: redis.url,
    mqttPassword,
  });
  writeFileSync(etc(`/etc/keyway/server-${nodePorts[0]}.env`), "DEMO=1\n", { mode: 0o600 });
  // Both at once on the empty database, as a host's boot starts them: one migrates, the
  // other waits for it.
  for (const port of nodePorts) startNode(port);
  await until(
    async () => (await ready(nodePorts[0])) && (await ready(nodePorts[1])),
    () => `both nodes ready\n${nodeLogs()}`,
    120_000,
  );

  // nginx (docs/deploy.md "Reverse proxy"), rendered by the doc's own commands.
  nginx = await setUpNginx(layout, certs, ports, nodePorts);

  // A device provisioned as the docs say: its codes from the CLI, its broker login added.
  Object.assign(device, await provisionDevice(layout, broker));

  // Its owner adds it, through nginx.
  ({ token, deviceId: device.id } = await demoOwnerAdds(ports, certs.ca, device, "deploy test"));

  // The agent, as keyway-agent.service runs it: MQTT over TLS to the broker, the tunnel
  // through nginx (wss), the platform's private CA trusted through NODE_EXTRA_CA_CERTS.
  writeAgentSettings(layout, certs, ports, device);
  agent = startUnit(unitCommand("keyway-agent.service", layout), {
    NODE_OPTIONS: `--import=${RESOLVE_TEST_HOSTS}`,
  });
  await until(
    async () => {
      const list = await call("/api/machine/select", {});
      const row = (list.hwdata?.list ?? []).find(
        (m: { machineCode?: string; machine_code?: string }) =>
          (m.machineCode ?? m.machine_code) === device.code,
      );
      return row?.online === true && (await tunnelNodes()) !== null;
    },
    () => `the device online with its tunnel\n${agent.output()}\n${nodeLogs()}`,
    90_000,
  );

  browser = await launchChromium([
    `--host-resolver-rules=MAP ${HOST} 127.0.0.1, MAP *.${HOST} 127.0.0.1`,
    `--ignore-certificate-errors-spki-list=${certs.spki}`,
  ]);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await agent?.stop(10_000);
  await Promise.all(nodes.map((n) => n.process.stop()));
  await nginx?.stop();
  await broker?.stop();
  await redis?.stop();
  await postgres?.close();
  layout?.close();
}, 120_000);

/** Logs the demo user in on the web app over HTTPS and waits for the side navigation. */
async function logIn(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(platform("/login?language=en"));
  await page.click(tid("login-tab-email"));
  await page.fill(tid("login-email"), "demo@keyway.local");
  await page.fill(tid("login-password"), "demo1234");
  await page.click(tid("login-submit"));
  await page.waitForSelector(tid("side-nav"));
  return page;
}

/** Connect on the device list: the HMI's tab on its visit host, once its link and live socket are up. */
async function connect(context: BrowserContext, page: Page): Promise<Page> {
  await page.goto(platform("/index?listType=list&language=en"));
  const button = page.locator(tid(`device-connect-${device.id}`));
  await expect.poll(() => button.getAttribute("data-online"), { timeout: 60_000 }).toBe("1");
  const opened = context.waitForEvent("page");
  await button.click();
  const tab = await opened;
  tab.setDefaultTimeout(30_000);
  await tab.waitForURL(
    new RegExp(`^https://[a-z2-7]{26}\\.${VISIT_DOMAIN.replace(/\./g, "\\.")}:${ports.https}/`),
    {
      timeout: 60_000,
    },
  );
  await expect.poll(() => tab.textContent(tid("hmi-link")), { timeout: 30_000 }).toBe("connected");
  await expect.poll(() => tab.textContent(tid("hmi-live")), { timeout: 30_000 }).toBe("open");
  return tab;
}

const visitIdOf = (tab: Page) => new URL(tab.url()).host.split(".")[0];

describe("Keyway behind nginx on two server processes", { timeout: 300_000 }, () => {
  it("terminates TLS, redirects HTTP, refuses unknown names and lets only nginx name the client", async () => {
    const redirect = await request(`http://${HOST}:${ports.http}/login?x=1`);
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe(`https://${HOST}:${ports.https}/login?x=1`);
    // A TLS handshake for a name that is not ours is refused before any certificate.
    const refused = await new Promise<string>((done) => {
      const socket = tls.connect({
        host: "127.0.0.1",
        port: ports.https,
        servername: "other.test",
        ca: readFileSync(certs.ca),
      });
      socket.once("secureConnect", () => {
        socket.destroy();
        done("accepted");
      });
      socket.once("error", (error) => done(error.message));
    });
    expect(refused).toMatch(/alert|unrecognized name|handshake/i);
    // Prometheus' page is not served through the proxy.
    expect((await request(platform("/metrics"))).status).toBe(404);

    // A client's own X-Forwarded-For is replaced by nginx: the node records its real address.
    const forged = await request(platform("/api/user/login"), {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-forwarded-for": "203.0.113.7",
      },
      body: new URLSearchParams({
        loginName: "demo@keyway.local",
        loginPwd: "demo1234",
        terminalUUID: "deploy-forged",
        terminalName: "Forged",
        terminalType: "web",
      }).toString(),
    });
    expect(JSON.parse(forged.body).hwcode).toBe(0);
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    const { rows } = await client.query("select ip from terminals where uuid = 'deploy-forged'");
    await client.end();
    expect(rows.map((r) => r.ip)).toEqual(["127.0.0.1"]);
  });

  it("serves the HMI over HTTPS from both nodes; ending the visit on the other node cuts its WebSocket within 3 s", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const page = await logIn(context);
      const tab = await connect(context, page);
      const visitId = visitIdOf(tab);
      const visitHost = new RegExp(`^${visitId}\\.`);
      // The page works: its live values arrive and a button round-trips to the device.
      const live = tab.locator(tid("hmi-live"));
      const messages = Number((await live.getAttribute("data-messages")) ?? 0);
      await expect
        .poll(async () => Number(await live.getAttribute("data-messages")), { timeout: 30_000 })
        .toBeGreaterThan(messages + 2);
      await tab.fill(tid("hmi-alarm-text"), "deploy: raised on the HMI page");
      await tab.click(tid("hmi-raise"));
      await expect
        .poll(() => tab.textContent(tid("hmi-alarms")), { timeout: 30_000 })
        .toContain("deploy: raised on the HMI page ✓");
      // Its requests (a status poll a second) landed on both nodes.
      await until(
        () => {
          const counts = upstreamsOf(visitHost);
          return counts.size === 2 && [...counts.values()].every((n) => n >= 2) ? counts : null;
        },
        `visit requests on both nodes: ${JSON.stringify([...upstreamsOf(visitHost)])}`,
      );
      expect([...upstreamsOf(visitHost).keys()].sort()).toEqual(
        nodes.map((n) => `127.0.0.1:${n.port}`).sort(),
      );

      // The owner ends it through the node that does not hold the device's tunnel.
      const place = await tunnelNodes();
      if (!place) throw new Error("no tunnel");
      const sent = Date.now();
      const ended = await call(
        "/api/device/v1/visits/end",
        { visitId },
        `http://127.0.0.1:${place.other.port}`,
      );
      expect(ended.hwcode).toBe(0);
      const lostAt = Number(
        await until(() => live.getAttribute("data-lost-at"), "the live socket lost", 10_000, 50),
      );
      expect(lostAt - sent).toBeLessThanOrEqual(3000);
      await expect.poll(() => tab.textContent(tid("hmi-link")), { timeout: 15_000 }).toBe("lost");
      // Loading it again shows Keyway's refusal, not the device.
      await tab.reload();
      expect(await tab.textContent("body")).toContain("This visit has ended");
    } finally {
      await context.close();
    }
  });

  it("survives the tunnel's node killed: the agent moves to the other, a new visit works, the alarms meanwhile arrive once", async () => {
    const place = await tunnelNodes();
    if (!place) throw new Error("no tunnel");
    const { holder, other } = place;
    expect(await holder.process.kill9()).toBe("SIGKILL");
    // Alarms the device raises while its node is dead.
    const prefix = `deploy kill ${Date.now()}:`;
    const sent = Array.from({ length: 6 }, (_, i) => `${prefix} ${i}`);
    for (const content of sent) await raiseOnHmi(content);
    await until(
      async () => (await tunnelNodes())?.holder === other,
      () => `the agent's tunnel on the other node\n${agent.output().slice(-2000)}`,
      90_000,
    );
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const page = await logIn(context);
      await connect(context, page);
    } finally {
      await context.close();
    }
    await until(
      async () => (await alarmContents(prefix)).size === sent.length,
      () => `the alarms sent meanwhile\n${nodeLogs()}`,
      60_000,
    );
    // Once each, also a while later (nothing arriving late from the dead node's session).
    await new Promise((r) => setTimeout(r, 2000));
    const seen = await alarmContents(prefix);
    expect([...seen.keys()].sort()).toEqual([...sent].sort());
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect((await storedAlarms(prefix)).sort()).toEqual([...sent].sort());

    // systemd starts the killed node again (Restart=always); its backlog adds nothing.
    startNode(holder.port);
    await until(
      () => ready(holder.port),
      () => `node ${holder.port} back\n${nodeLogs()}`,
      120_000,
    );
    await new Promise((r) => setTimeout(r, 3000));
    expect((await storedAlarms(prefix)).sort()).toEqual([...sent].sort());
  });

  it("restarts both nodes one after the other with no alarm lost or doubled; the push socket comes back, the unread count is right", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const page = await logIn(context);
      // The page's push sockets (/ws) as the browser saw them, and the alarms pushed on them.
      const sockets: Array<{ closed: boolean }> = [];
      const pushed = new Map<string, number>();
      const events: string[] = [];
      const t0 = Date.now();
      const note = (what: string) => events.push(`${what} @${Date.now() - t0}ms`);
      page.on("websocket", (socket) => {
        if (new URL(socket.url()).pathname !== "/ws") return;
        const entry = { closed: false };
        sockets.push(entry);
        note("push socket open");
        socket.on("close", () => {
          note("push socket closed");
          entry.closed = true;
        });
        socket.on("framereceived", ({ payload }) => {
          if (typeof payload === "string") return;
          try {
            const frame = decodePush(new Uint8Array(payload));
            if (frame.scene !== PUSH_SCENES.deviceAlarm) return;
            const content = (frame.body as { content?: string }).content ?? "";
            pushed.set(content, (pushed.get(content) ?? 0) + 1);
          } catch {
            // a scene this test does not read
          }
        });
      });
      await page.goto(platform("/index?listType=list&language=en"));
      const open = () => sockets.filter((s) => !s.closed).length === 1;
      await until(open, "the page's push socket");
      // The node holding it (each node's own /metrics, asked directly on loopback) is
      // restarted last, so that the last alarms are raised while the page has no socket.
      const holder = await until(async () => {
        for (const node of nodes) if ((await pushSockets(node.port)) > 0) return node;
        return null;
      }, "the node holding the page's push socket");
      const order = [...nodes.filter((n) => n !== holder), holder];
      const unreadBefore = await totalUnread();

      // The device raises an alarm a second all along.
      const prefix = `deploy rolling ${Date.now()}:`;
      const sent: string[] = [];
      const raise = async () => {
        const content = `${prefix} ${sent.length}`;
        sent.push(content);
        await raiseOnHmi(content);
      };
      let raising = true;
      const raiser = (async () => {
        while (raising) {
          await raise();
          await new Promise((r) => setTimeout(r, 1000));
        }
      })();
      // Its failure is reported where it is awaited, not as an unhandled rejection.
      raiser.catch(() => {});

      // The rolling restart of docs/deploy.md "Upgrades": one node at a time (SIGTERM, as
      // systemctl restart does), the next once the restarted one is ready.
      const logFrom = nginx.accessLog().length;
      try {
        for (const node of order) {
          await new Promise((r) => setTimeout(r, 3000));
          const last = node === holder;
          if (last) {
            raising = false;
            await raiser;
          }
          const held = sockets.filter((s) => !s.closed);
          note(`stop ${node.port}`);
          expect(await node.process.stop()).toBe("0");
          if (last) {
            // The page's socket went with its node; it comes back 5 s later (its reconnect
            // delay), through nginx to the other node. Two alarms meanwhile.
            await until(() => held.every((s) => s.closed), "the page's socket closed");
            await raise();
            await raise();
            note("raised 2 more");
          }
          await new Promise((r) => setTimeout(r, 1000));
          startNode(node.port);
          await until(
            () => ready(node.port),
            () => `node ${node.port} back\n${nodeLogs()}`,
            120_000,
          );
          note(`ready ${node.port}`);
        }
      } finally {
        raising = false;
        await raiser.catch(() => {});
      }

      // Meanwhile nginx answered no request with an error of its own: a refused connection
      // went to the other node (no keepalive to the nodes, docs/deploy.md).
      const failed = nginx
        .accessLog()
        .slice(logFrom)
        .split("\n")
        .filter((line) => /" 5\d\d \d+ upstream=/.test(line));
      expect(
        failed,
        `${events.join(", ")}\n${nginx
          .errorLog()
          .split("\n")
          .filter((line) => /upstream/.test(line))
          .slice(-30)
          .join("\n")}`,
      ).toEqual([]);

      await until(
        async () => (await alarmContents(prefix)).size === sent.length,
        () => `all ${sent.length} alarms: ${events.join(", ")}`,
        60_000,
      );
      await new Promise((r) => setTimeout(r, 2000));
      const seen = await alarmContents(prefix);
      expect([...seen.keys()].sort()).toEqual([...sent].sort());
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      expect((await storedAlarms(prefix)).sort()).toEqual([...sent].sort());
      // None pushed twice to the page, and its socket came back.
      expect([...pushed].filter(([content, n]) => content.startsWith(prefix) && n > 1)).toEqual([]);
      await until(open, () => `the push socket back: ${events.join(", ")}`);
      // The unread count: one message per alarm, on the server and on the page's badge,
      // which read it again when its socket came back (no push told it the last two).
      const unread = await totalUnread();
      expect(unread - unreadBefore).toBe(sent.length);
      await expect
        .poll(() => page.locator(tid("nav-unread")).textContent(), { timeout: 30_000 })
        .toBe(formatUnreadBadge(unread));
    } finally {
      await context.close();
    }
  });
});
