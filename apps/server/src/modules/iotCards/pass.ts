import { IOT_CARD_REFRESH } from "@keyway/shared";
import { isNull, lt, or, type SQL } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../../infra/clock.ts";
import { type IotCardRow, iotCards } from "./schema.ts";

const HOUR_MS = 3_600_000;

/**
 * The periodic pass (every IOT_CARD_REFRESH.everyHours), and the background reads kept
 * awaited until stop() / idle().
 */
export function createCardPass(deps: {
  clock: Clock;
  log: FastifyBaseLogger;
  sync: () => Promise<void>;
  claim: (where: SQL | undefined, limit: number) => Promise<IotCardRow[]>;
  readAll: (cards: IotCardRow[]) => Promise<void>;
}) {
  const { clock, sync, claim, readAll } = deps;
  const inFlight = new Set<Promise<unknown>>();
  let timer: NodeJS.Timeout | null = null;
  let passRunning: Promise<number> | null = null;

  /** Keeps a background read awaited by stop() / idle(). */
  function track<T>(work: Promise<T>): void {
    const p = work.catch((error) => deps.log.error({ err: error }, "IoT card reads failed"));
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }

  /**
   * One periodic pass: follow the devices' reports, then read every card whose figures are
   * older than IOT_CARD_REFRESH.everyHours (reading more often than the carriers' 6-12 hour
   * lag shows nothing new). Returns how many cards were read.
   */
  async function refreshDue(batch = 200): Promise<number> {
    if (passRunning) return passRunning;
    passRunning = (async () => {
      await sync();
      const cutoff = new Date(clock.now().getTime() - IOT_CARD_REFRESH.everyHours * HOUR_MS);
      let read = 0;
      // Batch by batch until nothing is due (a large fleet does not wait for the next pass).
      for (;;) {
        const due = await claim(
          or(isNull(iotCards.refreshedAt), lt(iotCards.refreshedAt, cutoff)),
          batch,
        );
        await readAll(due);
        read += due.length;
        if (due.length < batch) return read;
      }
    })().finally(() => {
      passRunning = null;
    });
    return passRunning;
  }

  return {
    refreshDue,
    track,
    /** Periodic passes every `everyMs` (0: none; tests run refreshDue by hand). */
    start(everyMs: number) {
      if (everyMs <= 0 || timer) return;
      timer = setInterval(() => track(refreshDue()), everyMs);
      timer.unref();
    },
    /** Resolves once background reads have finished. */
    async idle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
