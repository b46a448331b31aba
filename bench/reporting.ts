import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { count, eq } from "drizzle-orm";
import { buildApp } from "../apps/server/src/app.ts";
import { testConfig } from "../apps/server/src/config.ts";
import { createTestDatabase } from "../apps/server/src/db/testing.ts";
import { encryptSecret } from "../apps/server/src/infra/crypto.ts";
import { users } from "../apps/server/src/modules/accounts/schema.ts";
import { projectMachines, projects } from "../apps/server/src/modules/projects/schema.ts";
import { reportPoints } from "../apps/server/src/modules/reporting/schema.ts";
import { DEMO_ACCOUNTS, seedDemo } from "../apps/server/src/seed.ts";
import { forkLoad, insertBenchDevices } from "./fixtures.ts";

const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000);
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const OUTAGE = Number(process.env.BENCH_OUTAGE ?? 15);
const PREFIX = "KW-DATA-";
const SECRET = "bench-data-secret";

interface LoadFigures {
  published: number;
  acked: number;
  steadyReceived: number;
  steadySeconds: number;
  ackP50: number;
  ackP99: number;
  delayP50: number;
  delayP99: number;
  backlogAtRecovery: number;
  resumeSeconds: number;
  drainSeconds: number;
  received: number;
  duplicates: number;
  refused: number;
  outOfOrder: number;
  batches: number;
}

/**
 * Data reporting end to end: D devices (default 1,000 in 10 projects) publish data points
 * over MQTT at a steady total rate (default 1,000/s for 30 s) into the whole server, which
 * queues them before PUBACK and delivers them, signed, to a local HTTP receiver in the load
 * process. Then the receiver is down (port closed) for 15 s while devices keep publishing, and comes
 * back. Prints points delivered/s against the rate offered (the baseline of the same run),
 * publish → received p50 / p99, the backlog's drain rate against the steady rate, and the
 * counts (nothing lost, nothing twice, per-device order kept).
 */
export async function run() {
  const database = await createTestDatabase();
  const config = testConfig({ WEB_DIST: "/nonexistent" });
  const app = await buildApp({
    config,
    db: database.db,
    logger: false,
    sweepEveryMs: 0,
    reporting: { pollMs: 500 },
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const mqttPort = (await app.services.gateway.listenTcp?.(0, "127.0.0.1")) ?? 0;
  await seedDemo(app.services.accounts);
  // The demo user with the project feature on (a per-user switch, SPEC §6).
  const [owner] = await database.db
    .update(users)
    .set({ enableProject: true })
    .where(eq(users.email, DEMO_ACCOUNTS.user.email))
    .returning({ id: users.id });
  const now = new Date();
  const created = await insertBenchDevices(database.db, PREFIX, DEVICES, SECRET);

  const { child, figures } = forkLoad<LoadFigures>("reporting-load.ts", {
    port: mqttPort,
    devices: DEVICES,
    secret: SECRET,
    prefix: PREFIX,
    rate: RATE,
    seconds: SECONDS,
    outage: OUTAGE,
  });
  const receiverPort = await new Promise<number>((resolve) =>
    child.once("message", (m: { port: number }) => resolve(m.port)),
  );

  // Projects of the demo user, reporting to the receiver; devices spread over them.
  const keys: Record<number, string> = {};
  const perProject = Math.ceil(DEVICES / PROJECTS);
  for (let p = 0; p < PROJECTS; p++) {
    const key = randomBytes(24).toString("base64url");
    const [project] = await database.db
      .insert(projects)
      .values({
        name: `Bench line ${p + 1}`,
        ownerId: owner.id,
        reportState: true,
        server: `http://127.0.0.1:${receiverPort}/ingest`,
        secretKeySealed: encryptSecret(config.SECRET_KEY, key),
        reportCount: perProject * 100_000,
        createdAt: now,
      })
      .returning({ id: projects.id });
    keys[project.id] = key;
    const members = created.slice(p * perProject, (p + 1) * perProject);
    if (members.length)
      await database.db
        .insert(projectMachines)
        .values(members.map((d) => ({ projectId: project.id, deviceId: d.id, createdAt: now })));
  }
  child.send({ keys });
  const load = await figures;
  const [{ left }] = await database.db.select({ left: count() }).from(reportPoints);
  await app.close();
  await database.close();

  const line = (name: string, value: string, note = "") =>
    console.log(`  ${name.padEnd(36)} ${value.padStart(14)}  ${note}`);
  console.log(
    `reporting: ${DEVICES} devices in ${PROJECTS} projects publish ${RATE} points/s for ${SECONDS} s (QoS 1), then the receiver is down ${OUTAGE} s; whole server on ${database.kind}; devices and receiver in their own process; load average ${loadavg()[0].toFixed(1)}`,
  );
  const steadyRate = load.steadyReceived / load.steadySeconds;
  line(
    "points delivered / s (steady)",
    `${steadyRate.toFixed(0)}/s`,
    `${(steadyRate / RATE).toFixed(2)}x the offered ${RATE}/s`,
  );
  line(
    "publish -> PUBACK (queued) p50 / p99",
    `${load.ackP50.toFixed(0)} / ${load.ackP99.toFixed(0)} ms`,
  );
  line(
    "publish -> received p50 / p99",
    `${load.delayP50.toFixed(0)} / ${load.delayP99.toFixed(0)} ms`,
  );
  const drainRate = load.backlogAtRecovery / load.drainSeconds;
  line(
    "backlog drain after the outage",
    `${drainRate.toFixed(0)}/s`,
    `${(drainRate / steadyRate).toFixed(2)}x the steady rate; ${load.backlogAtRecovery} points in ${load.drainSeconds.toFixed(1)} s, first batch ${load.resumeSeconds.toFixed(1)} s after the receiver came back (backoff)`,
  );
  line(
    "batches / points per batch",
    `${load.batches}`,
    `${(load.received / load.batches).toFixed(0)} points a batch`,
  );
  line("published / acked / received", `${load.published} / ${load.acked} / ${load.received}`);
  line(
    "duplicates / out of order / refused",
    `${load.duplicates} / ${load.outOfOrder} / ${load.refused}`,
    `${left} left queued`,
  );
  const lost = load.published - Math.min(load.acked, load.received);
  console.log(
    lost === 0 && load.duplicates === 0 && load.outOfOrder === 0
      ? "  nothing lost, nothing twice, each device's points in order"
      : `  LOST ${lost}, TWICE ${load.duplicates}, OUT OF ORDER ${load.outOfOrder}`,
  );
}
