import type { FastifyBaseLogger } from "fastify";
import PgBoss from "pg-boss";
import type { Db } from "../../db/client.ts";

const QUEUE = "alarm-send";
/**
 * Jobs fetched at once: a burst's e-mails then go out together over the pooled SMTP
 * connections (delivery.ts).
 */
const JOB_BATCH = 200;
/**
 * Workers fetching side by side: while one batch waits on the database (fetch, claim, mark,
 * complete), another's e-mails are on the SMTP pool (decision 204).
 */
const WORKERS = 2;
/** Tries of one send before it is marked failed. */
export const MAX_ATTEMPTS = 6;

/**
 * PostgreSQL (pg.Pool) or PGlite behind drizzle, as pg-boss's `db`: both take
 * `(text, values)`; PGlite runs multi-statement texts with exec.
 */
function bossDb(db: Db) {
  const client = (db as unknown as { $client: unknown }).$client as {
    query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; affectedRows?: number }>;
    exec?(text: string): Promise<{ rows: unknown[]; affectedRows?: number }[]>;
    waitReady?: Promise<void>;
  };
  const isPglite = typeof client.exec === "function" && "waitReady" in client;
  let detached = false;
  return {
    /**
     * After pg-boss was stopped: a job still finishing (past the stop's timeout) must not
     * reach a pool the app is closing, which would fail outside any handler and end the
     * process. Its job stays active in the table and comes back on expiry; the send row
     * keeps a second delivery from sending twice. pg-boss does not await its complete/fail
     * calls, so those late calls are left unanswered rather than given rows they would
     * misread.
     */
    detach() {
      detached = true;
    },
    async executeSql(text: string, values?: unknown[]) {
      if (detached) return new Promise<never>(() => {});
      if (isPglite && (!values || values.length === 0)) {
        const results = await client.exec!(text);
        const last = results.at(-1) ?? { rows: [] };
        return { rows: last.rows, rowCount: last.affectedRows ?? last.rows.length };
      }
      const result = await client.query(text, values);
      return {
        ...result,
        rowCount: (result as { rowCount?: number }).rowCount ?? result.affectedRows,
      };
    },
  };
}

export type AlarmJobs = ReturnType<typeof createAlarmJobs>;

/**
 * The pg-boss queue of alarm sends on the app's own database: one job per send, a worker
 * delivering each fetched batch together (delivery.ts), and a sweep every minute. Work in
 * flight is tracked so a stop waits for it.
 */
export function createAlarmJobs(deps: {
  db: Db;
  log: FastifyBaseLogger;
  /** pg-boss polling (seconds); tests use the minimum. */
  pollSeconds?: number;
}) {
  const { db, log } = deps;
  let boss: PgBoss | null = null;
  let workerIds: string[] = [];
  let bossConnection: ReturnType<typeof bossDb> | null = null;
  let sweepTimer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<unknown>>();

  function track<T>(p: Promise<T>): Promise<T> {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  }

  async function enqueue(sendIds: number[]) {
    if (sendIds.length === 0) return;
    if (!boss) return; // Not started (a test driving deliver() by hand, or stopping).
    await boss.insert(sendIds.map((id) => ({ name: QUEUE, data: { sendId: id } })));
    // A worker waits out its polling interval after each fetch unless told there is work.
    for (const id of workerIds) boss.notifyWorker(id);
  }

  return {
    track,
    enqueue,
    /** Alarm sends queued in pg-boss and not yet taken by a worker; null before start. */
    async queueSize(): Promise<number | null> {
      return boss ? boss.getQueueSize(QUEUE) : null;
    },
    /**
     * Starts pg-boss and the worker (`deliverAll` a batch of sends: answers those to try
     * again later), runs `sweep` once, then every minute.
     */
    async start(deliverAll: (sendIds: number[]) => Promise<number[]>, sweep: () => Promise<void>) {
      bossConnection = bossDb(db);
      const instance = new PgBoss({
        db: bossConnection,
        schema: "pgboss",
        schedule: false,
        supervise: true,
      });
      instance.on("error", (error) => log.error({ err: error }, "pg-boss"));
      await instance.start();
      await instance.createQueue(QUEUE, {
        name: QUEUE,
        retryLimit: MAX_ATTEMPTS * 2,
        retryDelay: 2,
        retryBackoff: true,
        expireInSeconds: 300,
      });
      const work = () =>
        instance.work<{ sendId: number }>(
          QUEUE,
          { pollingIntervalSeconds: deps.pollSeconds ?? 2, batchSize: JOB_BATCH },
          async (jobs) => {
            const retries = await track(deliverAll(jobs.map((job) => job.data.sendId)));
            // A full batch: more are probably waiting; fetch again without the polling pause.
            if (jobs.length === JOB_BATCH) for (const id of workerIds) instance.notifyWorker(id);
            // pg-boss retries the batch with back-off; done sends are no-ops the next time.
            if (retries.length) throw new Error(`alarm sends to retry: ${retries.join(",")}`);
          },
        );
      workerIds = [];
      for (let i = 0; i < WORKERS; i++) workerIds.push(await work());
      boss = instance;
      await track(sweep());
      sweepTimer = setInterval(() => {
        track(sweep()).catch((error) => log.error({ err: error }, "alarm notification sweep"));
      }, 60_000);
      sweepTimer.unref();
    },
    async stop() {
      if (sweepTimer) clearInterval(sweepTimer);
      const instance = boss;
      boss = null;
      await Promise.allSettled([...inFlight]);
      await instance?.stop({ graceful: true, timeout: 5_000, wait: true, close: false } as never);
      bossConnection?.detach();
    },
  };
}
