/**
 * The deployed stack for `npm run bench -- <tunnel|gateway> --deploy`, built from the deploy
 * tests' own helpers (tests/deploy/stack.ts, units.ts) as tests/deploy/proxy.e2e.test.ts
 * builds it: a PostgreSQL server, redis-server, Mosquitto configured by docs/deploy.md's
 * broker block, two server processes from keyway-server@.service's own command line (the
 * production build, `npm run build` first when it is stale) and, when asked for, nginx with
 * deploy/nginx/keyway.conf rendered by the doc's nginx block and a private-CA wildcard
 * certificate. Everything started here is stopped and its folders removed by `close()`, also
 * when starting fails half-way or the bench is interrupted (Ctrl-C, SIGTERM).
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { Redis } from "ioredis";
import { startRedis, type TestRedis } from "../apps/server/src/testing/redis.ts";
import {
  apiThrough,
  type Broker,
  type Certificates,
  type DeployPorts,
  deployPorts,
  freePort,
  makeCertificates,
  makeLayout,
  type Nginx,
  type Postgres,
  setUpBroker,
  setUpNginx,
  startPostgres,
  until,
  writeServerEnv,
} from "../tests/deploy/stack.ts";
import {
  ensureBuilt,
  hostPath,
  type Layout,
  type Started,
  startUnit,
  unitCommand,
} from "../tests/deploy/units.ts";

export interface DeployNode {
  port: number;
  process: Started;
}

export interface DeployStack {
  layout: Layout;
  certs: Certificates;
  ports: DeployPorts;
  postgres: Postgres;
  redis: TestRedis;
  broker: Broker;
  nodes: DeployNode[];
  /** nginx in front of both nodes (when asked for), on ports.https. */
  nginx?: Nginx;
  /** A path of the operator's machine (/etc/keyway/...) as it is in this stack. */
  etc(unitPath: string): string;
  /** One more thing to stop in `close()`, before what was started earlier. */
  onClose(stop: () => unknown): void;
  /** The last lines each node printed, for an error message. */
  nodeLogs(): string;
  close(): Promise<void>;
}

/**
 * Processes whose command line names `root` (a layout of ours): the last resort for a
 * Mosquitto or nginx that a helper started but never handed back (it failed to come up).
 */
function stopLeftovers(root: string) {
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    if (Number(pid) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`${root}/`))
        process.kill(Number(pid), "SIGTERM");
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
}

/** Stops what was started, newest first; each step on its own, so one failure skips none. */
function cleanups() {
  const steps: Array<() => unknown> = [];
  let done: Promise<void> | undefined;
  const run = () => {
    done ??= (async () => {
      for (const step of steps.splice(0).reverse()) {
        try {
          await step();
        } catch (error) {
          console.error(`cleanup: ${error}`);
        }
      }
    })();
    return done;
  };
  // Ctrl-C or a kill: nginx, Mosquitto, Redis and PostgreSQL (pg_ctl runs it detached) would
  // outlive the bench otherwise.
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`${signal}: stopping the deploy stack`);
    run().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  steps.push(() => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  });
  return { add: (step: () => unknown) => steps.push(step), run };
}

/** The node's own /readyz answers 200: database, broker and Redis reachable. */
async function ready(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

/** A layout of our own, removed (and anything left running in it stopped) by `close()`. */
function ownLayout(stack: Pick<DeployStack, "onClose">, label: string): Layout {
  const layout = makeLayout(label);
  stack.onClose(() => layout.close());
  stack.onClose(() => stopLeftovers(layout.root));
  return layout;
}

/**
 * Starts the stack: `nginx` puts nginx in front of the two nodes; `demo` has the first node
 * seed the demo accounts (the tunnel bench logs in as the demo user).
 */
export async function startDeployStack(options: {
  label: string;
  nginx: boolean;
  demo: boolean;
}): Promise<DeployStack> {
  const cleanup = cleanups();
  try {
    // The units run the production build: built here, before anything is timed.
    ensureBuilt();
    const layout = ownLayout({ onClose: cleanup.add }, options.label);
    const etc = (p: string) => hostPath(layout, p);
    const certs = makeCertificates(etc("/etc/keyway/tls"));
    const ports = await deployPorts();
    const nodePorts = [await freePort(), await freePort()];
    const postgres = await startPostgres();
    cleanup.add(() => postgres.close());
    const redis = await startRedis();
    cleanup.add(() => redis.stop());
    const mqttPassword = randomBytes(12).toString("hex");
    const broker = await setUpBroker(layout, certs, ports, mqttPassword);
    cleanup.add(() => broker.stop());

    writeServerEnv(layout, ports, {
      database: postgres.url,
      redis: redis.url,
      mqttPassword,
    });
    if (options.demo)
      writeFileSync(etc(`/etc/keyway/server-${nodePorts[0]}.env`), "DEMO=1\n", { mode: 0o600 });
    // Both at once on the empty database, as a host's boot starts them.
    const nodes: DeployNode[] = nodePorts.map((port) => ({
      port,
      process: startUnit(unitCommand("keyway-server@.service", layout, String(port))),
    }));
    cleanup.add(() => Promise.all(nodes.map((n) => n.process.stop())));
    const nodeLogs = () =>
      nodes.map((n) => `--- node ${n.port}\n${n.process.output().slice(-4000)}`).join("\n");
    await until(
      async () => (await ready(nodePorts[0])) && (await ready(nodePorts[1])),
      () => `both nodes ready\n${nodeLogs()}`,
      180_000,
    );

    const stack: DeployStack = {
      layout,
      certs,
      ports,
      postgres,
      redis,
      broker,
      nodes,
      etc,
      onClose: (stop) => cleanup.add(stop),
      nodeLogs,
      close: () => cleanup.run(),
    };
    if (options.nginx) {
      const nginx = await setUpNginx(layout, certs, ports, nodePorts);
      cleanup.add(() => nginx.stop());
      stack.nginx = nginx;
    }
    return stack;
  } catch (error) {
    await cleanup.run();
    throw error;
  }
}

/**
 * nginx once more from the same template and doc block, in a layout of its own, with only
 * `nodePort` upstream: every request through it lands on that node (the stack's nginx spreads
 * them round robin). Stopped with the stack; resolves with its HTTPS port and its pid.
 */
export async function startNginxOn(
  stack: DeployStack,
  nodePort: number,
): Promise<{ port: number; pid: number | undefined }> {
  const layout = ownLayout(stack, `bench-nginx-${nodePort}`);
  const ports = { ...stack.ports, https: await freePort(), http: await freePort() };
  const nginx = await setUpNginx(layout, stack.certs, ports, [nodePort]);
  stack.onClose(() => nginx.stop());
  return { port: ports.https, pid: nginx.child.pid };
}

/** A Keyway API call through the stack's nginx, form-encoded as the web app sends them. */
export const apiCall = (
  stack: DeployStack,
  path: string,
  form: Record<string, string | number>,
  token = "",
) => apiThrough(stack.ports, stack.certs.ca, path, form, token);

/** The port of the node holding device `deviceId`'s tunnel (the relay registry in Redis). */
export async function tunnelHolder(stack: DeployStack, deviceId: number): Promise<number | null> {
  const client = new Redis(stack.redis.url, { lazyConnect: true });
  try {
    await client.connect();
    const value = await client.get(`keyway:tunnel:${deviceId}`);
    return value ? Number(new URL(JSON.parse(value).node).port) : null;
  } finally {
    client.disconnect();
  }
}
