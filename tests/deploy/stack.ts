import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes, X509Certificate } from "node:crypto";
import { once } from "node:events";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import https from "node:https";
import { connect } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import mqtt from "mqtt";
import pg from "pg";
import { freePort } from "../../apps/server/src/testing/ports.ts";
import { hostCommand, hostPath, type Layout, ROOT, renderExample } from "./units.ts";

export { freePort };

/** The platform's name in the deploy tests, and the domain its visit hosts are under. */
export const HOST = "keyway.test";
export const VISIT_DOMAIN = `visit.${HOST}`;

/** Loads a module before the agent's own, resolving HOST and its sub-domains to loopback. */
export const RESOLVE_TEST_HOSTS = path.join(import.meta.dirname, "resolve-test-hosts.mjs");

export async function until<T>(
  check: () => T | Promise<T>,
  what: string | (() => string),
  ms = 60_000,
  every = 200,
): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      last = error;
    }
    if (Date.now() > end)
      throw new Error(
        `timed out waiting for ${typeof what === "string" ? what : what()}${last ? ` (last error: ${last})` : ""}`,
      );
    await new Promise((r) => setTimeout(r, every));
  }
}

/**
 * A folder standing for `/` of the operator's machine (etc/keyway, etc/nginx, var/lib...);
 * readable by the users the services drop to (nginx's workers, mosquitto).
 */
export function makeLayout(label: string): Layout & { close(): void } {
  const root = mkdtempSync(path.join(tmpdir(), `kw-${label}-`));
  chmodSync(root, 0o755);
  for (const dir of [
    "etc/keyway",
    "etc/nginx/conf.d",
    "etc/mosquitto/conf.d",
    "etc/mosquitto/certs",
    "etc/systemd/system",
    "var/lib/keyway",
    "var/lib/keyway-agent",
    "var/log/nginx",
    "var/lib/mosquitto",
    "var/backups",
    "run/nginx",
    "work",
  ])
    mkdirSync(path.join(root, dir), { recursive: true, mode: 0o755 });
  return { root, close: () => rmSync(root, { recursive: true, force: true }) };
}

export interface Certificates {
  ca: string;
  cert: string;
  key: string;
  /** base64 SHA-256 of the certificate's public key, for Chromium's SPKI allow-list. */
  spki: string;
}

/**
 * A private CA and one certificate from it for HOST and *.VISIT_DOMAIN (what an operator's
 * wildcard certificate names), made with openssl in `dir`.
 */
export function makeCertificates(dir: string): Certificates {
  mkdirSync(dir, { recursive: true });
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  openssl(
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.pem"),
    "-days",
    "2",
    "-subj",
    "/CN=Keyway deploy test CA",
  );
  openssl(
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    file("privkey.pem"),
    "-out",
    file("cert.csr"),
    "-subj",
    `/CN=${HOST}`,
  );
  writeFileSync(
    file("ext.cnf"),
    `subjectAltName=DNS:${HOST},DNS:*.${VISIT_DOMAIN},DNS:mqtt.${HOST}\n` +
      "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n",
  );
  openssl(
    "x509",
    "-req",
    "-in",
    file("cert.csr"),
    "-CA",
    file("ca.pem"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-out",
    file("cert.pem"),
    "-days",
    "2",
    "-extfile",
    file("ext.cnf"),
  );
  writeFileSync(
    file("fullchain.pem"),
    readFileSync(file("cert.pem"), "utf8") + readFileSync(file("ca.pem"), "utf8"),
  );
  for (const name of readdirSync(dir)) chmodSync(file(name), 0o644);
  const der = new X509Certificate(readFileSync(file("cert.pem"))).publicKey.export({
    type: "spki",
    format: "der",
  });
  return {
    ca: file("ca.pem"),
    cert: file("fullchain.pem"),
    key: file("privkey.pem"),
    spki: createHash("sha256").update(der).digest("base64"),
  };
}

export interface Postgres {
  /** A fresh, empty database for this test. */
  url: string;
  /** The server's admin URL (for a restore into another database). */
  adminUrl: string;
  close(): Promise<void>;
}

const isRoot = () => process.getuid?.() === 0;

/**
 * A real PostgreSQL server: DATABASE_URL's when it is set (CI), with a fresh database made
 * in it; otherwise, or with `own`, one of our own (initdb + pg_ctl from
 * /usr/lib/postgresql/<newest>/bin, as the `postgres` user when we are root, as .ci/run does).
 */
export async function startPostgres(options: { own?: boolean } = {}): Promise<Postgres> {
  const given = options.own ? undefined : process.env.DATABASE_URL;
  const name = `kw_deploy_${randomBytes(5).toString("hex")}`;
  const withDatabase = (url: string, database: string) => {
    const u = new URL(url);
    u.pathname = `/${database}`;
    return u.toString();
  };
  const admin = async (url: string, sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  if (given) {
    await admin(given, `create database ${name}`);
    return {
      url: withDatabase(given, name),
      adminUrl: given,
      close: () => admin(given, `drop database if exists ${name} with (force)`),
    };
  }
  const versions = existsSync("/usr/lib/postgresql")
    ? readdirSync("/usr/lib/postgresql")
        .filter((v) => existsSync(`/usr/lib/postgresql/${v}/bin/initdb`))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  if (versions.length === 0)
    throw new Error("no PostgreSQL server: apt-get install postgresql, or set DATABASE_URL");
  const bin = `/usr/lib/postgresql/${versions.at(-1)}/bin`;
  const dir = mkdtempSync(path.join(tmpdir(), "kw-deploy-pg-"));
  const as = (program: string, args: string[]) => {
    const [command, argv] = isRoot()
      ? ["runuser", ["-u", "postgres", "--", `${bin}/${program}`, ...args]]
      : [`${bin}/${program}`, args];
    const result = spawnSync(command, argv, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${program} failed: ${result.stdout}${result.stderr}`);
  };
  if (isRoot()) {
    const pgUser = userInfo({ encoding: "utf8" }).username === "postgres" ? null : "postgres";
    if (pgUser) {
      const uid = Number(execFileSync("id", ["-u", pgUser], { encoding: "utf8" }));
      const gid = Number(execFileSync("id", ["-g", pgUser], { encoding: "utf8" }));
      chownSync(dir, uid, gid);
    }
  }
  const port = await freePort();
  as("initdb", ["-D", `${dir}/data`, "-A", "trust", "-U", "postgres", "--no-sync"]);
  as("pg_ctl", [
    "-D",
    `${dir}/data`,
    "-l",
    `${dir}/server.log`,
    "-w",
    "-t",
    "120",
    "start",
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`,
  ]);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await admin(adminUrl, `create database ${name}`);
  return {
    url: withDatabase(adminUrl, name),
    adminUrl,
    async close() {
      spawnSync(
        isRoot() ? "runuser" : `${bin}/pg_ctl`,
        isRoot()
          ? [
              "-u",
              "postgres",
              "--",
              `${bin}/pg_ctl`,
              "-D",
              `${dir}/data`,
              "-m",
              "immediate",
              "stop",
            ]
          : ["-D", `${dir}/data`, "-m", "immediate", "stop"],
        { stdio: "ignore" },
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The shell commands of one block of docs/deploy.md: the ```sh block right after the line
 * `<!-- deploy-test: <name> -->`, continuation lines joined, comments dropped.
 */
export function docCommands(name: string): string[] {
  const doc = readFileSync(path.join(ROOT, "docs/deploy.md"), "utf8");
  const marker = `<!-- deploy-test: ${name} -->`;
  const at = doc.indexOf(marker);
  if (at < 0) throw new Error(`docs/deploy.md has no ${marker}`);
  const block = /```sh\n([\s\S]*?)```/.exec(doc.slice(at));
  if (!block) throw new Error(`no sh block after ${marker}`);
  return block[1]
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

/** What a child process writes, as it comes (read the fields once it has closed). */
export function collectOutput(child: ChildProcess): { stdout: string; stderr: string } {
  const output = { stdout: "", stderr: "" };
  child.stdout?.on("data", (d) => {
    output.stdout += d;
  });
  child.stderr?.on("data", (d) => {
    output.stderr += d;
  });
  return output;
}

/**
 * Runs one block of docs/deploy.md as the operator would, its paths mapped to `layout`:
 * `systemctl`, `nginx`, `apt-get`, `useradd`, `git clone` and `certbot` lines go to `services`
 * (the test's stand-ins for the machine's services, packages and the outside world), every
 * other line to bash, one shell per run of lines (variables carry over), `input` on its stdin.
 */
export async function runDoc(
  layout: Layout,
  name: string,
  options: {
    env?: Record<string, string>;
    input?: string;
    services?: (line: string) => void | Promise<void>;
  } = {},
): Promise<string> {
  const shell: string[] = [];
  const flush = async () => {
    if (shell.length === 0) return "";
    const script = ["set -euo pipefail", ...shell.splice(0)].join("\n");
    // Not spawnSync: a block may build for minutes, and the test's own servers (and vitest's
    // messages to its workers) must go on meanwhile.
    const child = spawn("bash", ["-c", script], {
      cwd: path.join(layout.root, "work"),
      // An operator's shell, not the test's environment (its DATABASE_URL, say).
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: layout.root, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
      // A session of its own, without a terminal: a password prompt reads `input`.
      detached: true,
    });
    const output = collectOutput(child);
    // The shell may end before it reads its input (EPIPE): its exit code below is what counts.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
    const [code] = await once(child, "close");
    if (code !== 0)
      throw new Error(
        `docs/deploy.md ${name} failed:\n${script}\n${output.stdout}${output.stderr}`,
      );
    return output.stdout;
  };
  let out = "";
  for (const line of docCommands(name)) {
    if (/^(sudo )?(systemctl|nginx|apt-get|useradd|git clone|certbot) /.test(line)) {
      out += await flush();
      if (!options.services) throw new Error(`no stand-in for "${line}"`);
      await options.services(line.replace(/^sudo /, ""));
    } else shell.push(hostCommand(layout, line.replace(/^sudo /, "")));
  }
  return out + (await flush());
}

/** Resolves once something accepts TCP connections on `port`. */
export function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });
}

export interface Service {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

function started(child: ChildProcess): Service {
  let text = "";
  child.stdout?.on("data", (d) => {
    text += d;
  });
  child.stderr?.on("data", (d) => {
    text += d;
  });
  return {
    child,
    output: () => text,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const readLog = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "");

/**
 * nginx as Debian runs it, but on our own main file: it includes the rendered
 * etc/nginx/conf.d/*.conf exactly as /etc/nginx/nginx.conf includes conf.d/*.conf.
 * `test()` is `nginx -t`; `start()` starts it and waits for its ports.
 */
export function prepareNginx(layout: Layout) {
  const dir = path.join(layout.root, "run/nginx");
  const main = path.join(layout.root, "etc/nginx/nginx.conf");
  writeFileSync(
    main,
    [
      "worker_processes 1;",
      "daemon off;",
      `pid ${dir}/nginx.pid;`,
      `error_log ${layout.root}/var/log/nginx/error.log info;`,
      "events { worker_connections 1024; }",
      "http {",
      "  include /etc/nginx/mime.types;",
      `  client_body_temp_path ${dir}/body;`,
      `  proxy_temp_path ${dir}/proxy;`,
      `  fastcgi_temp_path ${dir}/fastcgi;`,
      `  uwsgi_temp_path ${dir}/uwsgi;`,
      `  scgi_temp_path ${dir}/scgi;`,
      `  include ${layout.root}/etc/nginx/conf.d/*.conf;`,
      "}",
      "",
    ].join("\n"),
  );
  const nginx = existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx";
  return {
    test() {
      const check = spawnSync(nginx, ["-t", "-c", main, "-p", dir], { encoding: "utf8" });
      if (check.error) throw new Error(`nginx is missing: apt-get install nginx (${check.error})`);
      if (check.status !== 0) throw new Error(`nginx -t: ${check.stderr}`);
    },
    async start(ports: number[]) {
      const service = started(
        spawn(nginx, ["-c", main, "-p", dir], { stdio: ["ignore", "pipe", "pipe"] }),
      );
      await until(
        async () => (await Promise.all(ports.map(listening))).every(Boolean),
        () => `nginx on ${ports.join(", ")}: ${service.output()}`,
        30_000,
      );
      return {
        ...service,
        /** `systemctl reload nginx`. */
        reload: () => service.child.kill("SIGHUP"),
        accessLog: () => readLog(path.join(layout.root, "var/log/nginx/keyway.access.log")),
        errorLog: () => readLog(path.join(layout.root, "var/log/nginx/error.log")),
      };
    },
  };
}

/**
 * Mosquitto as Debian runs it (/etc/mosquitto/mosquitto.conf: persistence on, conf.d
 * included), on our own main file, with the rendered etc/mosquitto/conf.d/keyway.conf.
 */
export function startMosquittoService(layout: Layout): Service & { reload(): void } {
  const main = path.join(layout.root, "etc/mosquitto/mosquitto.conf");
  writeFileSync(
    main,
    [
      "persistence true",
      `persistence_location ${layout.root}/var/lib/mosquitto/`,
      "log_dest stderr",
      "log_type error",
      "log_type warning",
      `include_dir ${layout.root}/etc/mosquitto/conf.d`,
      "",
    ].join("\n"),
  );
  if (isRoot()) {
    // Debian's mosquitto drops to the mosquitto user: its folder must be its own.
    const uid = Number(execFileSync("id", ["-u", "mosquitto"], { encoding: "utf8" }));
    chownSync(path.join(layout.root, "var/lib/mosquitto"), uid, -1);
  }
  const service = started(
    spawn("/usr/sbin/mosquitto", ["-c", main], { stdio: ["ignore", "pipe", "pipe"] }),
  );
  return {
    ...service,
    /** `systemctl reload mosquitto`: the password file is read again. */
    reload: () => service.child.kill("SIGHUP"),
  };
}

export type Broker = ReturnType<typeof startMosquittoService>;
export type Nginx = Awaited<ReturnType<ReturnType<typeof prepareNginx>["start"]>>;

/** The ports of a deployment under test (each a free port of this machine). */
export interface DeployPorts {
  https: number;
  http: number;
  mqtt: number;
  mqtts: number;
  /** The simulated HMI's web UI, beside its agent. */
  hmi: number;
}

export async function deployPorts(): Promise<DeployPorts> {
  return {
    https: await freePort(),
    http: await freePort(),
    mqtt: await freePort(),
    mqtts: await freePort(),
    hmi: await freePort(),
  };
}

/** The platform's URL through nginx. */
export const platformUrl = (ports: DeployPorts, p = "/") => `https://${HOST}:${ports.https}${p}`;

/**
 * docs/deploy.md "MQTT broker" as an operator does it: the broker's certificate and
 * mosquitto.env, then the doc's block (the server's broker login typed in), `systemctl restart
 * mosquitto` standing for the broker started. Resolves once the server's login works.
 */
export async function setUpBroker(
  layout: Layout,
  certs: Certificates,
  ports: DeployPorts,
  password: string,
): Promise<Broker> {
  const etc = (p: string) => hostPath(layout, p);
  copyFileSync(certs.cert, etc("/etc/mosquitto/certs/fullchain.pem"));
  copyFileSync(certs.key, etc("/etc/mosquitto/certs/privkey.pem"));
  writeFileSync(
    etc("/etc/keyway/mosquitto.env"),
    renderExample("deploy/mosquitto.env.example", {
      KEYWAY_MQTT_PASSWORDS: etc("/etc/mosquitto/keyway.passwd"),
      KEYWAY_MQTT_ACL: etc("/etc/mosquitto/keyway.acl"),
      KEYWAY_MQTT_PORT: String(ports.mqtt),
      KEYWAY_MQTTS_PORT: String(ports.mqtts),
      KEYWAY_MQTTS_BIND: "127.0.0.1",
      KEYWAY_MQTT_TLS_CERT: etc("/etc/mosquitto/certs/fullchain.pem"),
      KEYWAY_MQTT_TLS_KEY: etc("/etc/mosquitto/certs/privkey.pem"),
    }),
  );
  let broker: Broker | undefined;
  await runDoc(layout, "broker", {
    input: `${password}\n`,
    services: (line) => {
      if (line !== "systemctl restart mosquitto") throw new Error(`no stand-in for ${line}`);
      broker = startMosquittoService(layout);
    },
  });
  const started = broker;
  if (!started) throw new Error("the broker block did not start mosquitto");
  await until(
    () =>
      new Promise<boolean>((done) => {
        const probe = mqtt.connect(`mqtt://127.0.0.1:${ports.mqtt}`, {
          username: "keyway-server",
          password,
          reconnectPeriod: 0,
          connectTimeout: 2000,
        });
        probe.once("connect", () => {
          done(true);
          probe.end(true);
        });
        probe.once("error", () => done(false));
        probe.once("close", () => done(false));
      }),
    () => `mosquitto with the server's login: ${started.output()}`,
  );
  return started;
}

/**
 * The server's environment (docs "Environment"): deploy/server.env.example with this
 * machine's values, every CHANGE-ME chosen.
 */
export function writeServerEnv(
  layout: Layout,
  ports: DeployPorts,
  values: { database: string; redis: string; mqttPassword: string },
): void {
  writeFileSync(
    hostPath(layout, "/etc/keyway/server.env"),
    renderExample("deploy/server.env.example", {
      PUBLIC_URL: platformUrl(ports, ""),
      DATA_DIR: hostPath(layout, "/var/lib/keyway"),
      DATABASE_URL: values.database,
      REDIS_URL: values.redis,
      MQTT_URL: `mqtt://keyway-server:${values.mqttPassword}@127.0.0.1:${ports.mqtt}`,
      SECRET_KEY: randomBytes(32).toString("hex"),
      SMTP_URL: null,
    }),
    { mode: 0o600 },
  );
}

/**
 * docs/deploy.md "Reverse proxy": nginx.env for these nodes and certificates, then the doc's
 * block (`nginx -t` run for real, one `systemctl reload nginx`), and nginx started on it.
 */
export async function setUpNginx(
  layout: Layout,
  certs: Certificates,
  ports: DeployPorts,
  nodePorts: number[],
): Promise<Nginx> {
  writeFileSync(
    hostPath(layout, "/etc/keyway/nginx.env"),
    renderExample("deploy/nginx.env.example", {
      KEYWAY_HOST: HOST,
      KEYWAY_VISIT_DOMAIN: VISIT_DOMAIN,
      KEYWAY_NODES: nodePorts.map((p) => `127.0.0.1:${p}`).join(" "),
      KEYWAY_HTTPS_PORT: String(ports.https),
      KEYWAY_HTTP_PORT: String(ports.http),
      KEYWAY_TLS_CERT: certs.cert,
      KEYWAY_TLS_KEY: certs.key,
      KEYWAY_VISIT_TLS_CERT: certs.cert,
      KEYWAY_VISIT_TLS_KEY: certs.key,
      KEYWAY_LOG_DIR: hostPath(layout, "/var/log/nginx"),
    }),
  );
  const proxy = prepareNginx(layout);
  let reloads = 0;
  await runDoc(layout, "nginx", {
    services: (line) => {
      if (line === "nginx -t") proxy.test();
      else if (line === "systemctl reload nginx") reloads++;
      else throw new Error(`no stand-in for ${line}`);
    },
  });
  if (reloads !== 1) throw new Error(`the nginx block reloaded nginx ${reloads} times`);
  return proxy.start([ports.https, ports.http]);
}

/**
 * docs/deploy.md "First start", the devices: the doc's block (`systemctl reload mosquitto`
 * standing for the broker's reload); the first device of devices.csv.
 */
export async function provisionDevice(
  layout: Layout,
  broker: { reload(): void },
): Promise<{ code: string; secret: string; password: string }> {
  await runDoc(layout, "provision", {
    services: (line) => {
      if (line !== "systemctl reload mosquitto") throw new Error(`no stand-in for ${line}`);
      broker.reload();
    },
  });
  const [, first] = readFileSync(path.join(layout.root, "work/devices.csv"), "utf8")
    .trim()
    .split("\n");
  const [code, secret, password] = first.split(",");
  return { code, secret, password };
}

/**
 * The agent's settings (docs "Agents"): agent.env from the example (MQTT over TLS to the
 * broker, the tunnel through nginx, the private CA trusted) and the device secret's file.
 */
export function writeAgentSettings(
  layout: Layout,
  certs: Certificates,
  ports: DeployPorts,
  device: { code: string; secret: string },
): void {
  const etc = (p: string) => hostPath(layout, p);
  writeFileSync(
    etc("/etc/keyway/agent.env"),
    renderExample("deploy/agent.env.example", {
      KEYWAY_SERVER: `mqtts://mqtt.${HOST}:${ports.mqtts}`,
      KEYWAY_TUNNEL: `wss://${HOST}:${ports.https}/tunnel`,
      KEYWAY_CODE: device.code,
      KEYWAY_TARGET: `127.0.0.1:${ports.hmi}`,
      KEYWAY_AGENT_OPTIONS: `--simulate --http-port ${ports.hmi} --location-every 0 --data-every 0 --backoff-max 1`,
      NODE_EXTRA_CA_CERTS: certs.ca,
    }),
  );
  writeFileSync(etc("/etc/keyway/agent.secret"), `${device.secret}\n`, { mode: 0o600 });
  chmodSync(etc("/etc/keyway/agent.secret"), 0o600);
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * An HTTPS (or HTTP) request through nginx, as a client on the internet makes it: to loopback,
 * with the platform's name (no DNS here) and the deployment's CA (`ca`, a PEM file).
 */
export function requestThrough(
  url: string,
  options: RequestOptions,
  ca: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const target = new URL(url);
  const secure = target.protocol === "https:";
  return new Promise((done, fail) => {
    const req = (secure ? https : http).request(
      {
        host: "127.0.0.1",
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? "GET",
        headers: { host: target.host, ...options.headers },
        ...(secure && { servername: target.hostname, ca: readFileSync(ca) }),
        agent: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => {
          body += d;
        });
        res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", fail);
    req.end(options.body);
  });
}

/**
 * A Keyway API call through nginx, form-encoded as the web app sends them, with `token` as
 * the login (`cloudtoken`); the envelope, or an error naming a non-200 answer.
 */
export async function apiThrough(
  ports: DeployPorts,
  ca: string,
  path: string,
  form: Record<string, string | number> = {},
  token = "",
  // biome-ignore lint/suspicious/noExplicitAny: envelopes of several calls
): Promise<any> {
  const res = await requestThrough(
    platformUrl(ports, path),
    {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(token ? { cloudtoken: token } : {}),
      },
      body: new URLSearchParams(
        Object.entries(form).map(([k, v]): [string, string] => [k, String(v)]),
      ).toString(),
    },
    ca,
  );
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${res.body}`);
  return JSON.parse(res.body);
}

/**
 * The demo owner logs in through nginx and adds `device` as "Press 1" (its machine code and
 * device password, as from devices.csv): the owner's token and the device's id.
 */
export async function demoOwnerAdds(
  ports: DeployPorts,
  ca: string,
  device: { code: string; password: string },
  terminal: string,
): Promise<{ token: string; deviceId: number }> {
  const login = await apiThrough(ports, ca, "/api/user/login", {
    loginName: "demo@keyway.local",
    loginPwd: "demo1234",
    terminalUUID: `${terminal}-${Date.now()}`,
    terminalName: terminal,
    terminalType: "ops",
  });
  if (login.hwcode !== 0) throw new Error(`demo login: ${JSON.stringify(login)}`);
  const token: string = login.hwdata.result.token;
  const added = await apiThrough(
    ports,
    ca,
    "/api/machine/add",
    { machineName: "Press 1", machineCode: device.code, machinePwd: device.password },
    token,
  );
  if (added.hwcode !== 0) throw new Error(`machine/add: ${JSON.stringify(added)}`);
  return { token, deviceId: added.hwdata.machine_id };
}
