import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../../apps/server/src/testing/redis.ts";
import { launchChromium, tid } from "../e2e/browser.ts";
import {
  apiThrough,
  type Broker,
  type Certificates,
  type DeployPorts,
  demoOwnerAdds,
  deployPorts,
  freePort,
  HOST,
  makeCertificates,
  makeLayout,
  type Nginx,
  type Postgres,
  platformUrl,
  provisionDevice,
  RESOLVE_TEST_HOSTS,
  runDoc,
  setUpBroker,
  setUpNginx,
  startPostgres,
  until,
  writeAgentSettings,
  writeServerEnv,
} from "./stack.ts";
import { hostPath, ROOT, type Started, startUnit, unitCommand } from "./units.ts";

/**
 * Issue 16: "a fresh clone following only docs/deploy.md reaches a logged-in device list over
 * HTTPS". Every marked block of docs/deploy.md runs as written, in the doc's order, its paths
 * mapped to a folder standing for the operator's `/` (/opt too: the release is cloned from
 * this repository's HEAD, `npm ci` and `npm run build` run in the clone, and the units run
 * the clone's programs). Stand-ins, only where the doc reaches outside this machine or its
 * service manager: `git clone <url>` clones this repository; `apt-get install` checks the
 * packages are installed; `useradd` is not run (the services run as the test's user);
 * `systemctl` starts and stops the units' own command lines (units.ts); the doc's node ports
 * 8081/8082 are two free ports; DNS is Chromium's and the agent's host rules; the
 * certificate comes from a private CA instead of certbot. The operator's own edits between
 * blocks (choosing every CHANGE-ME) are the examples rendered with this machine's values.
 * Then the backup and restore blocks: a device renamed after the nightly dump is back to its
 * old name once the dump is restored and the nodes start again, and it comes back online.
 */

const layout = { ...makeLayout("fresh"), ownOpt: true };
let certs: Certificates;
let ports: DeployPorts;
let postgres: Postgres;
let redis: TestRedis;
let broker: Broker;
let nginx: Nginx;
let agent: Started | undefined;
let browser: Browser;
const mqttPassword = randomBytes(12).toString("hex");
const dbPassword = randomBytes(12).toString("hex");
/** docs/deploy.md's node ports → this machine's. */
const nodePorts = new Map<string, number>();
const nodes = new Map<number, Started>();
const device = { code: "", secret: "", password: "", id: 0 };
let token = "";
/** PostgreSQL's client settings for the doc's `runuser -u postgres -- createdb ...` lines. */
let pgEnv: Record<string, string> = {};

const nodeLogs = () =>
  [...nodes].map(([port, n]) => `--- node ${port}\n${n.output().slice(-3000)}`).join("\n");

async function ready(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

/** `systemctl start|enable --now|stop|restart` of the units the doc names. */
async function systemctl(line: string): Promise<void> {
  const words = line.split(/\s+/).slice(1);
  const action = words[0];
  const units = words.slice(action === "enable" ? 2 : 1).map((u) => u.replace(/'/g, ""));
  if (action === "daemon-reload") return;
  for (const unit of units) {
    if (unit === "keyway-server@*") {
      if (action !== "stop") throw new Error(`no stand-in for ${line}`);
      await Promise.all([...nodes.values()].map((n) => n.stop()));
      continue;
    }
    const instance = /^keyway-server@(\d+)$/.exec(unit)?.[1];
    if (!instance || !(action === "start" || (action === "enable" && words[1] === "--now")))
      throw new Error(`no stand-in for ${line}`);
    const port = nodePorts.get(instance);
    if (!port) throw new Error(`no port for ${unit}`);
    nodes.set(port, startUnit(unitCommand("keyway-server@.service", layout, String(port))));
  }
  if (action !== "stop")
    await until(
      async () => (await Promise.all([...nodes.keys()].map(ready))).every(Boolean),
      () => `the nodes ready\n${nodeLogs()}`,
      120_000,
    );
}

/** An API call through nginx (form-encoded, as the web app sends them), as the owner. */
const call = (p: string, form: Record<string, string | number> = {}) =>
  apiThrough(ports, certs.ca, p, form, token);

/** The device's row on the owner's list (through nginx): its name and whether it is online. */
async function deviceRow(): Promise<{ name: string; online: boolean } | undefined> {
  const list = await call("/api/machine/select", {});
  const row = (list.hwdata?.list ?? []).find(
    (m: { machine_id?: number }) => m.machine_id === device.id,
  );
  return row && { name: row.machine_name, online: row.online === true };
}

/** Logs the demo user in on the web app over HTTPS; the device list shows the device. */
async function deviceListInBrowser(context: BrowserContext, name: string) {
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(platformUrl(ports, "/login?language=en"));
  await page.click(tid("login-tab-email"));
  await page.fill(tid("login-email"), "demo@keyway.local");
  await page.fill(tid("login-password"), "demo1234");
  await page.click(tid("login-submit"));
  await page.waitForSelector(tid("side-nav"));
  await page.goto(platformUrl(ports, "/index?listType=list&language=en"));
  const button = page.locator(tid(`device-connect-${device.id}`));
  await expect.poll(() => button.getAttribute("data-online"), { timeout: 60_000 }).toBe("1");
  await expect(page.locator(tid("side-nav")).isVisible()).resolves.toBe(true);
  await expect(page.getByText(name, { exact: true }).first().isVisible()).resolves.toBe(true);
  expect(new URL(page.url()).protocol).toBe("https:");
  return page;
}

beforeAll(async () => {
  // Node.js and npm are the operator's (docs "Packages and the code"); TLS and names are ours.
  certs = makeCertificates(hostPath(layout, "/etc/keyway/tls"));
  ports = await deployPorts();
  for (const docPort of ["8081", "8082"]) nodePorts.set(docPort, await freePort());
  [postgres, redis] = await Promise.all([startPostgres({ own: true }), startRedis()]);
  const server = new URL(postgres.adminUrl);
  pgEnv = { PGHOST: server.hostname, PGPORT: server.port, PGUSER: "postgres" };

  await runDoc(layout, "packages", {
    services: (line) => {
      const [program, verb, ...packages] = line.split(/\s+/);
      if (program === "useradd") return; // the services run as the test's own user
      if (program !== "apt-get" || verb !== "install") throw new Error(`no stand-in for ${line}`);
      for (const name of packages) {
        // dpkg-query's own format: its ${Status} field.
        const format = ["-f=$", "{Status}"].join("");
        const status = spawnSync("dpkg-query", ["-W", format, name], { encoding: "utf8" });
        if (status.stdout !== "install ok installed") throw new Error(`${name} is not installed`);
      }
    },
  });

  // The release: cloned, installed and built as the doc says, npm's cache as this machine has it.
  const cache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();
  await runDoc(layout, "code", {
    env: { npm_config_cache: cache, npm_config_prefer_offline: "true" },
    services: (line) => {
      const target = hostPath(layout, line.replace(/#.*/, "").trim().split(/\s+/).at(-1) ?? "");
      if (!line.startsWith("git clone ") || !target.startsWith(layout.root))
        throw new Error(`no stand-in for ${line}`);
      // This repository's HEAD stands for the operator's remote (a copy where it is no clone).
      if (existsSync(path.join(ROOT, ".git"))) execFileSync("git", ["clone", "-q", ROOT, target]);
      else
        execFileSync("sh", [
          "-c",
          `mkdir -p '${target}' && tar -C '${ROOT}' --exclude=node_modules --exclude=dist --exclude=.git -c . | tar -C '${target}' -x`,
        ]);
    },
  });
  expect(lstatSync(hostPath(layout, "/opt/keyway")).isSymbolicLink()).toBe(true);

  await runDoc(layout, "database", { env: pgEnv, input: `${dbPassword}\n${dbPassword}\n` });

  await runDoc(layout, "environment");
  const serverEnv = hostPath(layout, "/etc/keyway/server.env");
  expect(statSync(serverEnv).mode & 0o777).toBe(0o600);
  expect(readFileSync(serverEnv, "utf8")).toBe(
    readFileSync(path.join(ROOT, "deploy/server.env.example"), "utf8"),
  );
  broker = await setUpBroker(layout, certs, ports, mqttPassword);
  writeServerEnv(layout, ports, {
    database: `postgres://keyway:${dbPassword}@${server.hostname}:${server.port}/keyway`,
    redis: redis.url,
    mqttPassword,
  });
  nginx = await setUpNginx(layout, certs, ports, [...nodePorts.values()]);

  // docs "First start": the first node once with DEMO=1 in its own file, for the first login.
  writeFileSync(hostPath(layout, `/etc/keyway/server-${nodePorts.get("8081")}.env`), "DEMO=1\n", {
    mode: 0o600,
  });
  await runDoc(layout, "units", { services: systemctl });
  expect(existsSync(hostPath(layout, "/etc/systemd/system/keyway-server@.service"))).toBe(true);
  Object.assign(device, await provisionDevice(layout, broker));

  // The owner adds the device; then its agent, as the doc installs it.
  ({ token, deviceId: device.id } = await demoOwnerAdds(
    ports,
    certs.ca,
    device,
    "fresh clone test",
  ));
  await runDoc(layout, "agent", {
    services: (line) => {
      if (line !== "systemctl daemon-reload && systemctl enable --now keyway-agent")
        throw new Error(`no stand-in for ${line}`);
      // The operator's edits the block's comments ask for: agent.env filled in, the secret.
      writeAgentSettings(layout, certs, ports, device);
      agent = startUnit(unitCommand("keyway-agent.service", layout), {
        NODE_OPTIONS: `--import=${RESOLVE_TEST_HOSTS}`,
      });
    },
  });
  await until(
    async () => (await deviceRow())?.online,
    () => `the device online\n${agent?.output()}\n${nodeLogs()}`,
    90_000,
  );

  browser = await launchChromium([
    `--host-resolver-rules=MAP ${HOST} 127.0.0.1, MAP *.${HOST} 127.0.0.1`,
    `--ignore-certificate-errors-spki-list=${certs.spki}`,
  ]);
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await agent?.stop(10_000);
  await Promise.all([...nodes.values()].map((n) => n.stop()));
  await nginx?.stop();
  await broker?.stop();
  await redis?.stop();
  await postgres?.close();
  layout.close();
}, 120_000);

describe("a fresh clone deployed by following docs/deploy.md", { timeout: 300_000 }, () => {
  it("runs the clone's own build and reaches a logged-in device list over HTTPS", async () => {
    // The nodes run the clone's programs, not this checkout's.
    for (const node of nodes.values())
      expect(node.child.spawnargs.join(" ")).toContain(
        hostPath(layout, "/opt/keyway/apps/server/dist/main.js"),
      );
    expect(existsSync(hostPath(layout, "/opt/keyway-1.4.0/apps/web/dist/index.html"))).toBe(true);
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const page = await deviceListInBrowser(context, "Press 1");
      await page.screenshot({ path: "/tmp/kw-fresh-device-list.png" });
    } finally {
      await context.close();
    }
  });

  it("restores the nightly backup: a change made after it is undone, the device comes back online", async () => {
    await runDoc(layout, "backup", { env: pgEnv });
    const dumps = execFileSync("ls", [hostPath(layout, "/var/backups/keyway")], {
      encoding: "utf8",
    }).trim();
    expect(dumps).toMatch(/^keyway-\d{4}-\d{2}-\d{2}\.dump$/);

    // After the backup the owner renames the device.
    const renamed = await call("/api/machine/update", {
      updateMachineID: device.id,
      updateMachineName: "Press 2",
    });
    expect(renamed.hwcode).toBe(0);
    expect((await deviceRow())?.name).toBe("Press 2");

    await runDoc(layout, "restore", { env: pgEnv, services: systemctl });
    // The session of before the backup is in it: the same token still works.
    await until(async () => (await deviceRow())?.online, "the device online after the restore");
    expect((await deviceRow())?.name).toBe("Press 1");
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      await deviceListInBrowser(context, "Press 1");
    } finally {
      await context.close();
    }
  });
});
