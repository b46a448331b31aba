import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../../apps/server/src/testing/redis.ts";
import {
  collectOutput,
  freePort,
  listening,
  makeLayout,
  type Postgres,
  startMosquittoService,
  startPostgres,
  until,
} from "./stack.ts";
import { ROOT } from "./units.ts";

/**
 * Issue 16, the container image: deploy/container/Containerfile built with podman as
 * docs/deploy.md "Container image" says, then run as an operator runs it (its own network
 * namespace, the port published, a read-only root, no capabilities, settings from an env
 * file) against a real PostgreSQL server, redis-server and a Mosquitto that wants the
 * server's login. What an operator notices: ready, the web app served, a login works, the
 * operator's command line works in it, it runs as an unprivileged user with no secret on any
 * command line, and `podman stop` ends it cleanly within its grace.
 *
 * The image's base is a local stand-in: this CI machine reaches no container registry (only
 * the npm registry and Debian's mirror), so the test makes a Debian bookworm (debootstrap,
 * minbase) with this machine's Node.js 20 and npm in /usr/local, as in the official
 * node:20-bookworm-slim, and gives it to the build as BASE. It is kept as a local image,
 * named after the Node.js version and the recipe, and reused by later runs.
 * KEYWAY_TEST_CONTAINER_BASE names another base (say the official image where a registry is
 * reachable).
 */

const IMAGE = "localhost/keyway-server:deploy-test";
/** Bump when the stand-in's recipe below changes, so that a stale one is not reused. */
const STAND_IN_RECIPE = 1;
const STAND_IN_LABEL = "io.keyway.test-stand-in";
const STAND_IN = `localhost/keyway-test-base:node${process.versions.node}-bookworm-r${STAND_IN_RECIPE}`;
/** The host's loopback as slirp4netns shows it inside the container (allow_host_loopback). */
const HOST_LOOPBACK = "10.0.2.2";
const NETWORK = "slirp4netns:allow_host_loopback=true";
/** The grace `podman stop` gives it, as the systemd units' TimeoutStopSec. */
const STOP_GRACE_S = 20;

const work = mkdtempSync(path.join(tmpdir(), "kw-container-"));
/**
 * podman's settings on this machine (a file of the test's own, /etc stays as it is): runc,
 * because crun fails here ("cgroups in hybrid mode not supported"); no default ulimits,
 * because setting them fails ("setrlimit: Operation not permitted").
 */
const containersConf = path.join(work, "containers.conf");
writeFileSync(containersConf, '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A command, without blocking the worker (a build takes minutes), under `nice`: the test files
 * running beside this one (browsers, timings) keep the CPU first.
 */
function run(command: string, args: string[], options: { check?: boolean; log?: string } = {}) {
  return new Promise<Run>((done, fail) => {
    const child = spawn("nice", ["-n", "10", command, ...args], {
      env: { ...process.env, CONTAINERS_CONF: containersConf },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = collectOutput(child);
    child.once("error", fail);
    child.once("close", (code) => {
      const { stdout, stderr } = output;
      if (options.log) writeFileSync(options.log, stdout + stderr);
      const result = { code: code ?? -1, stdout, stderr };
      if (options.check !== false && result.code !== 0)
        fail(
          new Error(
            `${command} ${args.join(" ")} exited ${code}:\n${(stdout + stderr).slice(-6000)}`,
          ),
        );
      else done(result);
    });
  });
}

const podman = (args: string[], options?: { check?: boolean; log?: string }) =>
  run("podman", args, options);

/** The Debian mirror apt uses here (deb822 or one-line sources), for debootstrap. */
function debianMirror(): string {
  const files = ["/etc/apt/sources.list", "/etc/apt/sources.list.d"].flatMap((p) =>
    !existsSync(p)
      ? []
      : p.endsWith(".d")
        ? readdirSync(p)
            .filter((f) => /\.(list|sources)$/.test(f))
            .map((f) => path.join(p, f))
        : [p],
  );
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const uri = /^(?:URIs:|deb)\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?(?:\s|$)/m.exec(text)?.[1];
    if (uri) return uri;
  }
  return "http://deb.debian.org/debian";
}

/**
 * The stand-in for node:20-bookworm-slim, made once: Debian bookworm (minbase, apt's lists
 * and downloads dropped) with this machine's node and npm under /usr/local.
 */
async function standIn(): Promise<string> {
  if ((await podman(["image", "exists", STAND_IN], { check: false })).code === 0) return STAND_IN;
  if (process.getuid?.() !== 0)
    throw new Error(
      "making the stand-in base image needs root (debootstrap); or set KEYWAY_TEST_CONTAINER_BASE",
    );
  const rootfs = path.join(work, "rootfs");
  try {
    await run("debootstrap", ["--variant=minbase", "bookworm", rootfs, debianMirror()], {
      log: path.join(work, "debootstrap.log"),
    });
    // As in Debian's slim images: no package downloads nor lists (apt-get update fetches them).
    for (const dir of ["var/cache/apt/archives", "var/lib/apt/lists"])
      for (const entry of readdirSync(path.join(rootfs, dir)))
        if (entry !== "lock" && entry !== "partial")
          rmSync(path.join(rootfs, dir, entry), { recursive: true, force: true });
    const npmRoot = execFileSync("npm", ["root", "-g"], { encoding: "utf8" }).trim();
    mkdirSync(path.join(rootfs, "usr/local/lib/node_modules"), { recursive: true });
    cpSync(realpathSync(process.execPath), path.join(rootfs, "usr/local/bin/node"));
    cpSync(path.join(npmRoot, "npm"), path.join(rootfs, "usr/local/lib/node_modules/npm"), {
      recursive: true,
      verbatimSymlinks: true,
    });
    symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", path.join(rootfs, "usr/local/bin/npm"));
    symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", path.join(rootfs, "usr/local/bin/npx"));
    const changes = [
      `LABEL ${STAND_IN_LABEL}="node ${process.versions.node} on Debian bookworm, for tests/deploy/container.test.ts"`,
      "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      'CMD ["node"]',
    ].flatMap((c) => ["--change", c]);
    await run("bash", [
      "-c",
      'set -euo pipefail; dir=$1 name=$2; shift 2; tar -C "$dir" -c . | podman import "$@" - "$name" >/dev/null',
      "bash",
      rootfs,
      STAND_IN,
      ...changes,
    ]);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
  // Stand-ins of another Node.js or recipe are no longer used: dropped (not if still in use).
  const others = await podman([
    "images",
    "--filter",
    `label=${STAND_IN_LABEL}`,
    "--format",
    "{{.Repository}}:{{.Tag}}",
  ]);
  for (const name of others.stdout.split("\n"))
    if (name.startsWith("localhost/keyway-test-base:") && name !== STAND_IN)
      await podman(["rmi", name], { check: false });
  return STAND_IN;
}

/** The CA this machine's npm trusts beyond Node's own (a TLS-inspecting proxy), if any. */
function npmExtraCa(): string | null {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  return file && existsSync(file) ? file : null;
}

const timings: Record<string, number> = {};
const seconds = (since: number) => Math.round((performance.now() - since) / 100) / 10;

/** The image, built as docs/deploy.md says, on BASE. */
async function buildImage(): Promise<void> {
  let started = performance.now();
  const base = process.env.KEYWAY_TEST_CONTAINER_BASE || (await standIn());
  timings.base = seconds(started);
  const previous = (
    await podman(["image", "inspect", "--format", "{{.Id}}", IMAGE], { check: false })
  ).stdout.trim();
  started = performance.now();
  const ca = npmExtraCa();
  await podman(
    [
      "build",
      "--format",
      "docker",
      "--pull=never",
      // The build's RUN steps in the host's network namespace: podman's default for them is its
      // bridge, which it adds to the host for each step (podman0, 10.88.0.1, a veth). The browser
      // tests running beside this file see that as a network change, and Chromium aborts their
      // pages' requests with ERR_NETWORK_CHANGED (seen in CI). An operator may build either way.
      "--network",
      "host",
      "--build-arg",
      `BASE=${base}`,
      ...(ca ? ["--secret", `id=npm_ca,src=${ca}`] : []),
      "-f",
      path.join(ROOT, "deploy/container/Containerfile"),
      "-t",
      IMAGE,
      ROOT,
    ],
    { log: path.join(work, "build.log") },
  );
  timings.build = seconds(started);
  const now = (await podman(["image", "inspect", "--format", "{{.Id}}", IMAGE])).stdout.trim();
  // The image this one replaces, and build layers of earlier sources a few days old: the
  // layers of this build stay, they are the next run's cache.
  if (previous && previous !== now) await podman(["rmi", previous], { check: false });
  if (!process.env.KEYWAY_TEST_CONTAINER_BASE)
    await podman(
      ["image", "prune", "--force", "--filter", `label=${STAND_IN_LABEL}`, "--filter", "until=72h"],
      { check: false },
    );
}

let layout: ReturnType<typeof makeLayout>;
let postgres: Postgres;
let redis: TestRedis;
let broker: ReturnType<typeof startMosquittoService>;
const container = `kw-deploy-test-${randomBytes(4).toString("hex")}`;
const volume = `${container}-data`;
const envFile = path.join(work, "server.env");
let port = 0;
const secrets = {
  key: randomBytes(32).toString("hex"),
  mqtt: randomBytes(16).toString("hex"),
  metrics: randomBytes(24).toString("hex"),
};
const base = () => `http://127.0.0.1:${port}`;

/** A broker that wants logins, the server's among them (the password file hashed as in docs/deploy.md). */
async function startBroker(): Promise<number> {
  const mqttPort = await freePort();
  const passwd = path.join(layout.root, "etc/mosquitto/keyway.passwd");
  writeFileSync(passwd, `keyway-server:${secrets.mqtt}\n`, { mode: 0o640 });
  execFileSync("mosquitto_passwd", ["-U", passwd]);
  if (process.getuid?.() === 0) {
    // Read by mosquitto after it drops to its user.
    chownSync(passwd, 0, Number(execFileSync("id", ["-g", "mosquitto"], { encoding: "utf8" })));
    chmodSync(passwd, 0o640);
  }
  writeFileSync(
    path.join(layout.root, "etc/mosquitto/conf.d/keyway.conf"),
    `listener ${mqttPort} 127.0.0.1\nallow_anonymous false\npassword_file ${passwd}\n`,
  );
  broker = startMosquittoService(layout);
  await until(
    () => listening(mqttPort),
    () => `mosquitto: ${broker.output()}`,
    30_000,
  );
  return mqttPort;
}

/** A service's URL as the container reaches it: this machine's loopback is HOST_LOOPBACK there. */
function fromContainer(url: string): string {
  const u = new URL(url);
  if (["127.0.0.1", "localhost", "[::1]"].includes(u.hostname)) u.hostname = HOST_LOOPBACK;
  return u.toString();
}

/** What the operator's `podman run` says (docs/deploy.md "Container image"). */
const runOptions = () => [
  "--network",
  NETWORK,
  "--env-file",
  envFile,
  "--read-only",
  "--cap-drop=all",
  "--security-opt=no-new-privileges",
  "-v",
  `${volume}:/var/lib/keyway`,
];

/** `podman inspect` of a container or an image, the whole record. */
// biome-ignore lint/suspicious/noExplicitAny: podman's record, read field by field
async function inspect(what: "container" | "image", name: string): Promise<any> {
  return JSON.parse((await podman([what, "inspect", name])).stdout)[0];
}

async function containerPids(): Promise<number[]> {
  const pid: number = (await inspect("container", container)).State.Pid;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  return [pid, ...children];
}

const cmdline = (pid: number) =>
  readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);

beforeAll(async () => {
  layout = makeLayout("container");
  const started = performance.now();
  let mqttPort = 0;
  // The build takes minutes; the services start meanwhile.
  await Promise.all([
    buildImage(),
    (async () => {
      [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
      mqttPort = await startBroker();
      port = await freePort();
    })(),
  ]);
  // Settings from a file (root's, mode 600), never on podman's command line.
  writeFileSync(
    envFile,
    [
      `PUBLIC_URL=http://localhost:${port}`,
      `DATABASE_URL=${fromContainer(postgres.url)}`,
      `REDIS_URL=${fromContainer(redis.url)}`,
      `MQTT_URL=mqtt://keyway-server:${secrets.mqtt}@${HOST_LOOPBACK}:${mqttPort}`,
      `SECRET_KEY=${secrets.key}`,
      `METRICS_TOKEN=${secrets.metrics}`,
      // The first start's demo accounts (docs/deploy.md "First start"), to log in with.
      "DEMO=1",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  const runStarted = performance.now();
  await podman([
    "run",
    "--detach",
    "--name",
    container,
    ...runOptions(),
    "--stop-timeout",
    String(STOP_GRACE_S),
    "-p",
    `127.0.0.1:${port}:8080`,
    IMAGE,
  ]);
  try {
    await until(
      async () => (await fetch(`${base()}/readyz`)).status === 200,
      "the container ready",
      180_000,
      500,
    );
  } catch (error) {
    const logs = await podman(["logs", container], { check: false });
    throw new Error(`${(error as Error).message}\n${(logs.stdout + logs.stderr).slice(-4000)}`);
  }
  timings.start = seconds(runStarted);
  timings.beforeAll = seconds(started);
  console.log(`container test timings (s): ${JSON.stringify(timings)}`);
}, 1_800_000);

afterAll(async () => {
  await podman(["rm", "--force", "--time", "0", container], { check: false });
  await podman(["volume", "rm", "--force", volume], { check: false });
  broker?.child.kill("SIGTERM");
  await redis?.stop();
  await postgres?.close();
  layout?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("the container image (deploy/container/Containerfile)", { timeout: 120_000 }, () => {
  it("holds the built server and web app with production dependencies only, and no secret", async () => {
    const image = await inspect("image", IMAGE);
    const config = image.Config;
    expect(config.User).toBe("keyway");
    expect(Object.keys(config.ExposedPorts)).toContain("8080/tcp");
    // Kept by the docker format only (--format docker); podman shows it beside Config.
    expect(image.Healthcheck?.Test.join(" ")).toContain("/readyz");
    expect(config.StopSignal).toBe("SIGTERM");
    // Defaults only in its environment: none of the settings that hold a secret.
    const names = (config.Env as string[]).map((e) => e.split("=")[0]);
    expect(names).toEqual(expect.arrayContaining(["NODE_ENV", "PORT", "DATA_DIR", "DEMO"]));
    expect(
      names.filter((n) =>
        /^(SECRET_KEY|DATABASE_URL|REDIS_URL|MQTT_URL|SMTP_URL|METRICS_TOKEN|ALIYUN_|ONELINK_)/.test(
          n,
        ),
      ),
    ).toEqual([]);
    const listing = await podman([
      "run",
      "--rm",
      "--entrypoint",
      "sh",
      IMAGE,
      "-c",
      "ls node_modules node_modules/.bin apps/server apps/web/dist; ls -a . /run/secrets 2>&1; id -u",
    ]);
    const files = listing.stdout.split("\n").filter(Boolean);
    // The server's own dependencies are there, and no build tool nor the web app's packages.
    expect(files).toEqual(expect.arrayContaining(["fastify", "pg", "dist", "drizzle"]));
    expect(files).toContain("index.html");
    expect(
      files.filter((f) => ["vite", "vitest", "esbuild", "react", "antd", "tsx"].includes(f)),
    ).toEqual([]);
    // Sources, the checkout's files and npm's CA stayed out.
    expect(files.filter((f) => ["src", ".git", "tests", "npm_ca"].includes(f))).toEqual([]);
    expect(files.at(-1)).toBe("10001");
  });

  it("answers ready on its published port with PostgreSQL, Redis and the broker; serves the web app; a login works", async () => {
    const ready = await (await fetch(`${base()}/readyz`)).json();
    expect(ready.status).toBe("ok");
    expect(Object.keys(ready.checks).sort()).toEqual(["database", "mqtt", "redis"]);

    const page = await fetch(`${base()}/login`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html.slice(0, 1000)).toBeTruthy();
    const asset = await fetch(`${base()}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toMatch(/javascript/);

    const form = (fields: Record<string, string>) => ({
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    const login = await (
      await fetch(
        `${base()}/api/user/login`,
        form({
          loginName: "demo@keyway.local",
          loginPwd: "demo1234",
          terminalUUID: `container-${Date.now()}`,
          terminalName: "Container test",
          terminalType: "web",
        }),
      )
    ).json();
    expect(login.hwcode).toBe(0);
    const token: string = login.hwdata.result.token;
    const devices = await (
      await fetch(`${base()}/api/machine/select`, {
        method: "POST",
        headers: { cloudtoken: token },
      })
    ).json();
    expect(devices.hwcode).toBe(0);
  });

  it("runs as an unprivileged user with no secret on any command line, and reports healthy", async () => {
    const pids = await containerPids();
    // tini, then the server under it.
    expect(cmdline(pids[0])).toEqual(["/usr/bin/tini", "--", "node", "apps/server/dist/main.js"]);
    expect(pids.slice(1).map(cmdline)).toEqual([["node", "apps/server/dist/main.js"]]);
    for (const pid of pids) {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      expect(/^Uid:\s+(.*)$/m.exec(status)?.[1].split(/\s+/)).toEqual(Array(4).fill("10001"));
      expect(/^CapEff:\s+(\S+)/m.exec(status)?.[1]).toMatch(/^0+$/);
      expect(/^NoNewPrivs:\s+(\d)/m.exec(status)?.[1]).toBe("1");
    }
    // No process of this machine shows a secret in its command line (podman's, conmon's, the
    // container's); nor does the container's configuration, except its environment.
    const leaks: string[] = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let line = "";
      try {
        line = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      } catch {
        continue; // gone meanwhile
      }
      for (const secret of Object.values(secrets))
        if (line.includes(secret)) leaks.push(`${entry}: ${line.replaceAll("\0", " ")}`);
    }
    expect(leaks).toEqual([]);
    const inspected = await inspect("container", container);
    const shown = JSON.stringify([
      inspected.Path,
      inspected.Args,
      inspected.Config.Cmd,
      inspected.Config.Entrypoint,
      // podman's own record of the `podman run` line.
      inspected.Config.CreateCommand,
    ]);
    expect(shown).toContain("apps/server/dist/main.js");
    for (const secret of Object.values(secrets)) expect(shown).not.toContain(secret);
    // The image's HEALTHCHECK (/readyz from inside) passes.
    expect((await podman(["healthcheck", "run", container], { check: false })).code).toBe(0);
  });

  it("runs the operator's command line: devices provisioned into the same database", async () => {
    const out = await podman([
      "run",
      "--rm",
      ...runOptions(),
      IMAGE,
      "node",
      "apps/server/dist/cli.js",
      "devices",
      "provision",
      "--count",
      "2",
    ]);
    const [header, ...rows] = out.stdout.trim().split("\n");
    expect(header).toBe("machine_code,device_secret,device_password,model");
    expect(rows).toHaveLength(2);
    const codes = rows.map((row) => row.split(",")[0]);
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const { rows: stored } = await client.query("select code from devices where code = any($1)", [
        codes,
      ]);
      expect(stored.map((r) => r.code).sort()).toEqual([...codes].sort());
    } finally {
      await client.end();
    }
  });

  it("stops on SIGTERM (podman stop) within its grace, cleanly", async () => {
    const started = performance.now();
    await podman(["stop", "--time", String(STOP_GRACE_S), container]);
    const took = performance.now() - started;
    const { State: state } = await inspect("container", container);
    const logs = (await podman(["logs", container])).stdout;
    expect({ exit: state.ExitCode, status: state.Status }, logs.slice(-3000)).toEqual({
      exit: 0,
      status: "exited",
    });
    // The server's own shutdown (it exits within 10 s), not podman's SIGKILL at the grace.
    expect(took).toBeLessThan(12_000);
    expect(logs).toContain('"signal":"SIGTERM"');
  });
});
