import { fork } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { and, count, eq, isNotNull } from "drizzle-orm";
import { buildApp } from "../apps/server/src/app.ts";
import { testConfig } from "../apps/server/src/config.ts";
import { openDatabase } from "../apps/server/src/db/client.ts";
import { createMailBuilder } from "../apps/server/src/infra/mailMessage.ts";
import { createSenders, smtpTransport } from "../apps/server/src/infra/senders.ts";
import { users } from "../apps/server/src/modules/accounts/schema.ts";
import { alarmSends } from "../apps/server/src/modules/alarmPush/schema.ts";
import { alarmEmail } from "../apps/server/src/modules/alarmPush/texts.ts";
import { alarms } from "../apps/server/src/modules/alarms/schema.ts";
import { deviceLinks } from "../apps/server/src/modules/devices/schema.ts";
import { messages } from "../apps/server/src/modules/messages/schema.ts";
import { DEMO_ACCOUNTS, seedDemo } from "../apps/server/src/seed.ts";
import { startPostgres } from "../tests/deploy/stack.ts";
import { forkLoad, insertBenchDevices } from "./fixtures.ts";

const RATE = Number(process.env.BENCH_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const DEVICES = Number(process.env.BENCH_DEVICES ?? 200);
/** E-mails each SMTP peer sends (a sender alone, to a mail server of its own). */
const PEER_MAILS = Number(process.env.BENCH_PEER_MAILS ?? 20_000);
const PREFIX = "KW-ALARM-";
const SECRET = "bench-alarm-secret";

interface LoadFigures {
  published: number;
  publishSeconds: number;
  acked: number;
  ackedSeconds: number;
  ackP50: number;
  ackP99: number;
  pushed: number;
  duplicates: number;
  pushP50: number;
  pushP99: number;
  /** The close code, should the server have closed the listener's socket during the run. */
  listenerClosed: number | null;
}

interface MailFigures {
  /** Alarms with at least one e-mail accepted, e-mails accepted, repeats, SMTP connections. */
  alarms: number;
  accepted: number;
  duplicates: number;
  connections: number;
}

/** The bench's SMTP server (bench/alarms-smtp.ts) in its own process: its port and its counts. */
async function startMailServer() {
  const child = fork(path.join(import.meta.dirname, "alarms-smtp.ts"), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m) => resolve((m as { port: number }).port));
    child.once("exit", () => reject(new Error("the bench SMTP server ended before listening")));
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    figures: () =>
      new Promise<MailFigures>((resolve) => {
        child.once("message", (m) => resolve(m as MailFigures));
        child.send("figures");
      }),
  };
}

/**
 * The peers of the e-mail line: an e-mail sender alone, no queue or database, sending `count`
 * alarm e-mails (the pipeline's bilingual text, built as finished bytes) at once to a bench
 * mail server of its own. "keyway": Keyway's own sender (the pipelining pool, 4 connections):
 * the most this mail server takes over it, what the pipeline's e-mail rate is set against.
 * "nodemailer": nodemailer's pool with the same bytes, connections and Nagle off: the sender a
 * Node service would pick, and what Keyway sent through before decision 209.
 */
async function smtpPeer(count: number, via: "keyway" | "nodemailer") {
  const mail = await startMailServer();
  const from = "Keyway <alarms@keyway.local>";
  const senders = createSenders({ smtpUrl: mail.url, mailFrom: from });
  const transport = smtpTransport(mail.url);
  const builder = createMailBuilder(from);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const { subject, text } = alarmEmail(null, {
        device: "KW-ALARM-000001",
        level: 2,
        content: `Bench alarm ${i}`,
        time: new Date().toISOString(),
      });
      if (via === "keyway") return senders.email?.({ to: "owner@example.com", subject, text });
      return transport.sendMail(builder.build("owner@example.com", subject, text) ?? {});
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  senders.close();
  transport.close();
  const figures = await mail.figures();
  return { perSecond: figures.accepted / seconds, accepted: figures.accepted };
}

/**
 * The alarm pipeline under load: D simulated devices publish alarms over MQTT at a steady
 * total rate (default 1,000/s for 60 s) into the whole server — stored before PUBACK,
 * written to the owner's message centre, pushed live, turned into notification jobs — while
 * the owner listens on the push channel. Prints alarms stored/s, publish → push p50 / p99,
 * e-mails accepted by a real SMTP server/s, and the counts at every end — PUBACKs, rows,
 * pushes the listener got, e-mails the SMTP server took (nothing lost, nothing twice). Each
 * rate is also shown against the rate offered, measured in the same run. PostgreSQL:
 * DATABASE_URL's server, else one of our own.
 */
export async function run() {
  const postgres = await startPostgres();
  const database = await openDatabase({ url: postgres.url });
  const mail = await startMailServer();
  const app = await buildApp({
    config: testConfig({ WEB_DIST: "/nonexistent", SMTP_URL: mail.url }),
    db: database.db,
    logger: false,
    sweepEveryMs: 0,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const httpPort = (app.server.address() as { port: number }).port;
  const mqttPort = (await app.services.gateway.listenTcp?.(0, "127.0.0.1")) ?? 0;
  await seedDemo(app.services.accounts);
  const [owner] = await database.db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, DEMO_ACCOUNTS.user.email));
  const now = new Date();
  const created = await insertBenchDevices(database.db, PREFIX, DEVICES, SECRET);
  await database.db.insert(deviceLinks).values(
    created.map((d) => ({
      deviceId: d.id,
      userId: owner.id,
      role: "akey" as const,
      name: d.code,
      createdAt: now,
    })),
  );
  const login = await app.inject({
    method: "POST",
    url: "/api/user/login",
    payload: {
      loginName: DEMO_ACCOUNTS.user.email,
      loginPwd: DEMO_ACCOUNTS.user.password,
      terminalUUID: "bench-alarms",
      terminalName: "bench",
    },
  });
  const token = login.json().hwdata.result.token as string;
  // The owner takes alarms by e-mail too: each alarm is also a notification job, sent to the
  // bench's SMTP server.
  const emailOn = await app.inject({
    method: "POST",
    url: "/api/v1/alarm/setUserMsgConfig",
    headers: { cloudtoken: token },
    payload: { userEmailFlag: 1 },
  });
  if (emailOn.json().hwcode !== 0) throw new Error(`e-mail switch: ${emailOn.body}`);

  const started = Date.now();
  const load = await forkLoad<LoadFigures>("alarms-load.ts", {
    port: mqttPort,
    push: `ws://127.0.0.1:${httpPort}/ws?token=${token}`,
    devices: DEVICES,
    secret: SECRET,
    prefix: PREFIX,
    rate: RATE,
    seconds: SECONDS,
  }).figures;

  // The message centre (and the notification jobs) may still be catching up: wait until
  // every stored alarm is told, or nothing moves for 30 s (a batch of e-mails is marked sent
  // when its last one is accepted).
  const countOf = async () => {
    const [[{ stored }], [{ told }], [{ written }], [{ jobs }], [{ done }]] = await Promise.all([
      database.db.select({ stored: count() }).from(alarms),
      database.db.select({ told: count() }).from(alarms).where(isNotNull(alarms.messagedAt)),
      database.db
        .select({ written: count() })
        .from(messages)
        .where(and(eq(messages.userId, owner.id), isNotNull(messages.alarmId))),
      database.db.select({ jobs: count() }).from(alarmSends),
      database.db.select({ done: count() }).from(alarmSends).where(eq(alarmSends.status, "sent")),
    ]);
    return { stored, told, written, jobs, done };
  };
  let counts = await countOf();
  let toldAt = Date.now();
  for (let last = -1, quiet = 0; counts.done < counts.stored && quiet < 30; ) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    counts = await countOf();
    if (counts.told < counts.stored) toldAt = Date.now();
    quiet = counts.told + counts.done === last ? quiet + 1 : 0;
    last = counts.told + counts.done;
  }
  const drainedSeconds = (Date.now() - started) / 1000;
  await app.close();
  await database.close();
  await postgres.close();
  const mailed = await mail.figures();
  const peer = await smtpPeer(PEER_MAILS, "keyway");
  const nodemailerPeer = await smtpPeer(PEER_MAILS, "nodemailer");

  const line = (name: string, value: string, note = "") =>
    console.log(`  ${name.padEnd(34)} ${value.padStart(12)}  ${note}`);
  console.log(
    `alarms: ${DEVICES} devices publish ${RATE}/s for ${SECONDS} s (QoS 1) into the whole pipeline, ${database.kind}; load generator, push listener and SMTP server in their own processes; load average ${loadavg()[0].toFixed(1)}`,
  );
  const storedRate = load.acked / load.ackedSeconds;
  line(
    "alarms stored (PUBACK after the row)",
    `${storedRate.toFixed(0)}/s`,
    `${(storedRate / RATE).toFixed(2)}x the offered ${RATE}/s`,
  );
  line("publish -> PUBACK p50 / p99", `${load.ackP50.toFixed(1)} / ${load.ackP99.toFixed(1)} ms`);
  line(
    "publish -> push delivered p50 / p99",
    `${load.pushP50.toFixed(1)} / ${load.pushP99.toFixed(1)} ms`,
  );
  const toldSeconds = (toldAt - started) / 1000;
  line(
    "messages written / s",
    `${(counts.written / toldSeconds).toFixed(0)}/s`,
    `all told after ${toldSeconds.toFixed(1)} s`,
  );
  line(
    "e-mails accepted by SMTP / s",
    `${(mailed.alarms / drainedSeconds).toFixed(0)}/s`,
    `${(mailed.alarms / drainedSeconds / RATE).toFixed(2)}x the offered rate; all sent after ${drainedSeconds.toFixed(1)} s`,
  );
  const mailRate = mailed.alarms / drainedSeconds;
  line(
    "peer: the transport alone / s",
    `${peer.perSecond.toFixed(0)}/s`,
    `${(mailRate / peer.perSecond).toFixed(2)}x: the pipeline's e-mails against ${peer.accepted} sent straight to a mail server of its own`,
  );
  line(
    "peer: nodemailer's pool alone / s",
    `${nodemailerPeer.perSecond.toFixed(0)}/s`,
    `${(mailRate / nodemailerPeer.perSecond).toFixed(2)}x; Keyway's sender alone ${(peer.perSecond / nodemailerPeer.perSecond).toFixed(2)}x it (the same bytes, 4 connections each)`,
  );
  line(
    "SMTP connections (e-mails each)",
    `${mailed.connections}`,
    `${(mailed.accepted / Math.max(1, mailed.connections)).toFixed(0)} e-mails per connection`,
  );
  line("published / acked / stored", `${load.published} / ${load.acked} / ${counts.stored}`);
  line(
    "told / messages / pushed (dup)",
    `${counts.told} / ${counts.written} / ${load.pushed} (${load.duplicates})${
      load.listenerClosed === null
        ? ""
        : `; the listener's socket was closed (${load.listenerClosed})`
    }`,
  );
  line(
    "e-mail jobs / sent / at SMTP (dup)",
    `${counts.jobs} / ${counts.done} / ${mailed.alarms} (${mailed.duplicates})`,
  );
  // Counted where the user would notice: the listener's pushes and the SMTP server's mails.
  const lost =
    load.published -
    Math.min(
      load.acked,
      counts.stored,
      counts.told,
      counts.written,
      load.pushed,
      counts.done,
      mailed.alarms,
    );
  const twice = load.duplicates + mailed.duplicates + Math.max(0, counts.jobs - counts.stored);
  console.log(
    lost === 0 && twice === 0 ? "  nothing lost, nothing twice" : `  LOST ${lost}, TWICE ${twice}`,
  );
}
