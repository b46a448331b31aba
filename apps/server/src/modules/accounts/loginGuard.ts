import { LOGIN_LOCK } from "@keyway/shared";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { loginSources, users } from "./schema.ts";

/**
 * Who may try a password, and what a wrong one costs (docs/architecture/accounts.md). A wrong
 * password locks only its source out of the account, so nobody can lock the owner out from
 * elsewhere; an account-wide soft limit bounds a guesser who spreads over many addresses, and
 * while it holds the addresses the owner logged in from still get in. Every count is one
 * UPDATE (no read-then-write), so parallel guesses each count.
 */
export type LoginGuard = ReturnType<typeof createLoginGuard>;

const minutes = (n: number) => n * 60_000;

export function createLoginGuard(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

  /** Refuses a source locked out of this account, or an unknown one under the soft limit. */
  async function admit(user: { id: number; lockedUntil: Date | null }, ip: string) {
    const now = clock.now();
    const [source] = await db
      .select()
      .from(loginSources)
      .where(and(eq(loginSources.userId, user.id), eq(loginSources.ip, ip)))
      .limit(1);
    if (source?.lockedUntil && source.lockedUntil > now) throw fail("ACCOUNT_LOCKED");
    const known =
      source?.lastSuccessAt &&
      now.getTime() - source.lastSuccessAt.getTime() < LOGIN_LOCK.knownSourceDays * 24 * 3600_000;
    if (user.lockedUntil && user.lockedUntil > now && !known) throw fail("ACCOUNT_LOCKED");
  }

  /** Counts a wrong password for the source and the account; true when the source is now locked. */
  async function wrongPassword(userId: number, ip: string): Promise<boolean> {
    const now = clock.now();
    const lockEnd = new Date(now.getTime() + minutes(LOGIN_LOCK.lockMinutes));
    const windowStart = new Date(now.getTime() - minutes(LOGIN_LOCK.windowMinutes));
    const inWindow = sql`(${loginSources.failuresSince} is not null and ${loginSources.failuresSince} > ${windowStart})`;
    const next = sql`(case when ${inWindow} then ${loginSources.failures} + 1 else 1 end)`;
    const reached = sql`(${next} >= ${LOGIN_LOCK.maxFailures})`;
    const [source] = await db
      .insert(loginSources)
      .values({ userId, ip, failures: 1, failuresSince: now })
      .onConflictDoUpdate({
        target: [loginSources.userId, loginSources.ip],
        set: {
          failures: sql`case when ${reached} then 0 else ${next} end`,
          failuresSince: sql`case when ${reached} then null when ${inWindow} then ${loginSources.failuresSince} else ${now} end`,
          lockedUntil: sql`case when ${reached} then ${lockEnd} else ${loginSources.lockedUntil} end`,
        },
      })
      .returning({ lockedUntil: loginSources.lockedUntil });

    const accountLockEnd = new Date(now.getTime() + minutes(LOGIN_LOCK.accountWindowMinutes));
    const accountWindowStart = new Date(now.getTime() - minutes(LOGIN_LOCK.accountWindowMinutes));
    const accountInWindow = sql`(${users.failedLoginsSince} is not null and ${users.failedLoginsSince} > ${accountWindowStart})`;
    const accountNext = sql`(case when ${accountInWindow} then ${users.failedLogins} + 1 else 1 end)`;
    const accountReached = sql`(${accountNext} >= ${LOGIN_LOCK.accountMaxFailures})`;
    await db
      .update(users)
      .set({
        failedLogins: sql`case when ${accountReached} then 0 else ${accountNext} end`,
        failedLoginsSince: sql`case when ${accountReached} then null when ${accountInWindow} then ${users.failedLoginsSince} else ${now} end`,
        lockedUntil: sql`case when ${accountReached} then ${accountLockEnd} else ${users.lockedUntil} end`,
      })
      .where(eq(users.id, userId));
    return source?.lockedUntil?.getTime() === lockEnd.getTime();
  }

  /** A right password: this source's failures are forgiven (a second factor may still follow). */
  async function rightPassword(userId: number, ip: string) {
    await db
      .update(loginSources)
      .set({ failures: 0, failuresSince: null, lockedUntil: null })
      .where(and(eq(loginSources.userId, userId), eq(loginSources.ip, ip)));
  }

  /** A session opened from `ip`: it becomes a known source of the owner. */
  async function loggedIn(userId: number, ip: string, tx: Db = db) {
    const now = clock.now();
    await tx
      .insert(loginSources)
      .values({ userId, ip, lastSuccessAt: now })
      .onConflictDoUpdate({
        target: [loginSources.userId, loginSources.ip],
        set: { failures: 0, failuresSince: null, lockedUntil: null, lastSuccessAt: now },
      });
  }

  /** The owner proved control another way (a reset code): every lock on the account ends. */
  async function release(userId: number, tx: Db = db) {
    await tx
      .update(loginSources)
      .set({ failures: 0, failuresSince: null, lockedUntil: null })
      .where(eq(loginSources.userId, userId));
    await tx
      .update(users)
      .set({ failedLogins: 0, failedLoginsSince: null, lockedUntil: null })
      .where(eq(users.id, userId));
  }

  return { admit, wrongPassword, rightPassword, loggedIn, release };
}
