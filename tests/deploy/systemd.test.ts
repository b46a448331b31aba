import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMosquitto } from "../../apps/server/src/testing/mosquitto.ts";
import { startRedis, type TestRedis } from "../../apps/server/src/testing/redis.ts";
import { freePort, makeLayout, type Postgres, startPostgres, until } from "./stack.ts";
import {
  ensureBuilt,
  hostPath,
  parseEnvironmentFile,
  ROOT,
  RUN_FROM,
  readUnit,
  renderExample,
  type Started,
  startUnit,
  unitCommand,
} from "./units.ts";

/**
 * deploy/systemd: what systemd itself says of each unit (systemd-analyze verify), the rules
 * every unit keeps (an unprivileged user, confinement, settings and secrets from files, never
 * on the command line, restarted always), and keyway-server.service started as written: its
 * ExecStart with its EnvironmentFile made from deploy/server.env.example, up and ready, then
 * stopped the way systemctl stops it.
 */
const UNITS = ["keyway-server.service", "keyway-server@.service", "keyway-agent.service"];

describe("deploy/systemd units", () => {
  const analyze = "/usr/bin/systemd-analyze";
  it("pass systemd-analyze verify without a remark", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "kw-units-"));
    try {
      for (const unit of UNITS) {
        copyFileSync(path.join(ROOT, "deploy/systemd", unit), path.join(dir, unit));
        // A template is verified as one of its instances.
        const name = unit.replace("@.", "@8081.");
        const result = spawnSync(analyze, ["verify", "--man=no", path.join(dir, name)], {
          encoding: "utf8",
        });
        expect({ unit, status: result.status, stderr: result.stderr }).toEqual({
          unit,
          status: 0,
          stderr: "",
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("run confined as an unprivileged user, restarted always, settings from files", () => {
    for (const name of UNITS) {
      const s = readUnit(name).Service;
      const one = (key: string) => s[key]?.at(-1);
      expect({
        name,
        unprivileged: one("DynamicUser") === "yes" || one("User") === "keyway",
      }).toEqual({ name, unprivileged: true });
      for (const [key, value] of Object.entries({
        NoNewPrivileges: "yes",
        ProtectSystem: "strict",
        ProtectHome: "yes",
        PrivateTmp: "yes",
        PrivateDevices: "yes",
        CapabilityBoundingSet: "",
        RestrictSUIDSGID: "yes",
        Restart: "always",
      }))
        expect({ name, key, value: one(key) }).toEqual({ name, key, value });
      expect(s.MemoryDenyWriteExecute).toBeUndefined();
      expect(s.EnvironmentFile?.[0]).toMatch(/^\/etc\/keyway\/(server|agent)\.env$/);
      // The agent: its one bundled file, V8's young generation kept small (decision 195).
      expect(one("ExecStart")).toMatch(
        /^\/usr\/bin\/node (\/opt\/keyway\/apps\/server\/dist\/main\.js|--max-semi-space-size=8 \/opt\/keyway\/apps\/agent\/dist\/keyway-agent\.mjs)( |$)/,
      );
    }
    // The server's one writable place is DATA_DIR of the example settings.
    const dataDir = parseEnvironmentFile(
      readFileSync(path.join(ROOT, "deploy/server.env.example"), "utf8"),
    ).DATA_DIR;
    for (const name of ["keyway-server.service", "keyway-server@.service"]) {
      const s = readUnit(name).Service;
      expect(s.StateDirectory?.map((d) => `/var/lib/${d}`)).toContain(dataDir);
      expect(s.ReadWritePaths).toContain(dataDir);
    }
    // Each node of the template has its port and address from the instance name.
    expect(readUnit("keyway-server@.service").Service.Environment).toEqual([
      "PORT=%i",
      "NODE_URL=http://127.0.0.1:%i",
    ]);
  });

  it("keep secrets off the command line", () => {
    for (const name of UNITS) {
      const execStart = readUnit(name).Service.ExecStart.join(" ");
      // No secret option with a value, no variable of a secret expanded into the arguments.
      expect(execStart).not.toMatch(/--(secret|token)[ =]/);
      expect(execStart).not.toMatch(/\$\{?[A-Z_]*(SECRET|PASSWORD|TOKEN|KEY)\b/);
    }
    const agent = readUnit("keyway-agent.service").Service;
    expect(agent.LoadCredential).toEqual(["device-secret:/etc/keyway/agent.secret"]);
    expect(agent.ExecStart[0]).toContain("--secret-file %d/device-secret");
    expect(agent.ExecStart[0]).toContain("--data-dir %S/keyway-agent");
    expect(agent.StateDirectory).toEqual(["keyway-agent"]);
    // The example settings hold no secret of the agent.
    const example = readFileSync(path.join(ROOT, "deploy/agent.env.example"), "utf8");
    expect(example).not.toMatch(/^KEYWAY_AGENT_SECRET=/m);
  });
});

describe("keyway-server.service started as written", { timeout: 180_000 }, () => {
  let layout: ReturnType<typeof makeLayout>;
  let postgres: Postgres;
  let redis: TestRedis;
  let broker: Awaited<ReturnType<typeof startMosquitto>>;
  let server: Started;
  let port = 0;
  const secrets = {
    SECRET_KEY: randomBytes(32).toString("hex"),
    mqtt: randomBytes(8).toString("hex"),
  };

  beforeAll(async () => {
    if (RUN_FROM === "built") ensureBuilt();
    layout = makeLayout("units");
    [postgres, redis, broker] = await Promise.all([
      startPostgres(),
      startRedis(),
      startMosquitto(),
    ]);
    port = await freePort();
    writeFileSync(
      hostPath(layout, "/etc/keyway/server.env"),
      renderExample("deploy/server.env.example", {
        PUBLIC_URL: "https://keyway.test",
        PORT: String(port),
        DATA_DIR: hostPath(layout, "/var/lib/keyway"),
        DATABASE_URL: postgres.url,
        REDIS_URL: redis.url,
        MQTT_URL: `mqtt://keyway-server:${secrets.mqtt}@127.0.0.1:${broker.port}`,
        SECRET_KEY: secrets.SECRET_KEY,
        SMTP_URL: null,
      }),
      { mode: 0o600 },
    );
  }, 600_000);

  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
    broker?.stop();
    await postgres?.close();
    layout?.close();
  });

  it("comes up ready with its settings from server.env, none on its command line, and stops on SIGTERM", async () => {
    const command = unitCommand("keyway-server.service", layout);
    expect(command.unitArgv).toEqual(["/usr/bin/node", "/opt/keyway/apps/server/dist/main.js"]);
    expect(command.cwd).toBe(ROOT);
    server = startUnit(command);
    await until(
      async () =>
        (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200,
      () => `the node ready: ${server.output()}`,
      120_000,
    );
    // It listens where server.env says (HOST=127.0.0.1), and serves the API.
    const login = await fetch(`http://127.0.0.1:${port}/api/user/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "loginName=nobody%40example.com&loginPwd=wrong-pass&terminalUUID=t",
    });
    expect(login.status).toBe(200);
    const cmdline = readFileSync(`/proc/${server.child.pid}/cmdline`, "utf8");
    for (const secret of [secrets.SECRET_KEY, secrets.mqtt, postgres.url])
      expect(cmdline).not.toContain(secret);
    // systemctl stop: SIGTERM, and a clean exit well within TimeoutStopSec.
    const timeout = Number(readUnit("keyway-server.service").Service.TimeoutStopSec[0]);
    const started = Date.now();
    expect(await server.stop(timeout * 1000)).toBe("0");
    expect(Date.now() - started).toBeLessThan(timeout * 1000);
  });
});
