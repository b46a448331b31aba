import { and, eq, inArray, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import { eachAtMost } from "../../infra/pool.ts";
import { type CarrierAdapter, type CarrierCardInfo, CarrierError } from "./carriers/carrier.ts";
import { effectiveState, type Figures } from "./figures.ts";
import { type IotCardRow, iotCardSnapshots, iotCards } from "./schema.ts";

/** A read that has not finished after this long is taken over (a crashed node, a hung call). */
const CLAIM_STALE_MS = 30 * 60_000;

/**
 * Reading cards from the carrier: a card is claimed first (one reader per card across
 * nodes), read, its figures and a snapshot stored, and its warnings judged.
 */
export function createCarrierReads(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  carrier: CarrierAdapter;
  judge: (card: IotCardRow, f: Figures) => Promise<void>;
}) {
  const { db, clock, carrier, judge } = deps;

  /** Claims cards for a read (one reader per card across nodes); returns those claimed. */
  async function claim(where: SQL | undefined, limit: number): Promise<IotCardRow[]> {
    const now = clock.now();
    const free = or(
      isNull(iotCards.refreshClaimedAt),
      lt(iotCards.refreshClaimedAt, new Date(now.getTime() - CLAIM_STALE_MS)),
    );
    const ids = db
      .select({ id: iotCards.id })
      .from(iotCards)
      .where(and(isNull(iotCards.removedAt), free, where))
      .orderBy(sql`${iotCards.refreshedAt} asc nulls first`)
      .limit(limit);
    return db
      .update(iotCards)
      .set({ refreshClaimedAt: now })
      .where(and(inArray(iotCards.id, ids), free))
      .returning();
  }

  /**
   * Reads one claimed card. A failed read keeps the last figures, notes the error and
   * leaves the claim in place, so the card is tried again once the claim goes stale.
   */
  async function read(card: IotCardRow): Promise<IotCardRow> {
    let info: CarrierCardInfo | null;
    try {
      info = await carrier.cardInfo(card.iccid);
    } catch (error) {
      const message = (error as Error).message.slice(0, 300);
      deps.log.warn({ iccid: card.iccid, err: message }, "IoT card read failed");
      // Users get a neutral code (shown in their language), the log the carrier's words.
      const lastError = error instanceof CarrierError ? error.readError : "failed";
      const [row] = await db
        .update(iotCards)
        .set({ lastError })
        .where(eq(iotCards.id, card.id))
        .returning();
      return row ?? card;
    }
    const now = clock.now();
    if (!info) {
      const [row] = await db
        .update(iotCards)
        .set({
          state: "unknown",
          carrier: carrier.name,
          refreshedAt: now,
          refreshClaimedAt: null,
          lastError: "",
        })
        .where(and(eq(iotCards.id, card.id), isNull(iotCards.removedAt)))
        .returning();
      await judge(row ?? card, { state: "unknown", totalKb: null, usedKb: null, expiresAt: null });
      return row ?? card;
    }
    const figures: Figures = {
      state: effectiveState(info, now),
      totalKb: info.totalKb,
      usedKb: info.usedKb,
      expiresAt: info.expiresAt,
    };
    const [row] = await db
      .update(iotCards)
      .set({
        carrier: carrier.name,
        msisdn: info.msisdn,
        imsi: info.imsi,
        planName: info.planName,
        activatedAt: info.activatedAt,
        ...figures,
        refreshedAt: now,
        refreshClaimedAt: null,
        lastError: "",
      })
      // A card removed meanwhile keeps its `deleted`.
      .where(and(eq(iotCards.id, card.id), isNull(iotCards.removedAt)))
      .returning();
    if (!row) return card;
    await db.insert(iotCardSnapshots).values({
      cardId: card.id,
      takenAt: now,
      state: figures.state,
      totalKb: figures.totalKb,
      usedKb: figures.usedKb,
    });
    await judge(row, figures);
    return row;
  }

  /** Runs reads with a little parallelism (carrier APIs throttle bursts). */
  async function readAll(cards: IotCardRow[], parallel = 4): Promise<void> {
    await eachAtMost(cards, parallel, async (card) => {
      await read(card);
    });
  }

  return { claim, read, readAll };
}
