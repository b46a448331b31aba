import { TWO_FACTOR, type TwoFactorChallenge } from "@keyway/shared";
import { and, eq, gt, isNull, lt, lte, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashToken, newToken } from "../../infra/crypto.ts";
import type { RequestContext, TerminalInfo } from "./requestContext.ts";
import { loginChallenges, twoFactorAuth, type User, users } from "./schema.ts";
import { minutes, type TwoFactorCodes } from "./twoFactorCodes.ts";

/** Two-factor login: the challenge between password and code, and the code step. */
export function createTwoFactorLogin(deps: {
  db: Db;
  clock: Clock;
  codes: TwoFactorCodes;
  openSession: (
    user: User,
    input: { keepLogin: boolean; terminal: TerminalInfo },
    context: RequestContext,
  ) => Promise<unknown>;
}) {
  const { db, clock, codes } = deps;

  /** After a right password: a challenge when two-factor is on (accounts.login asks this). */
  async function challengeFor(
    user: User,
    input: { keepLogin: boolean; terminal: TerminalInfo },
  ): Promise<TwoFactorChallenge | null> {
    const row = await codes.enabledRow(user.id);
    if (!row) return null;
    await codes.checkLock(row);
    const now = clock.now();
    const token = newToken();
    const expiresAt = new Date(now.getTime() + minutes(TWO_FACTOR.challengeMinutes));
    // Old challenges of this user go on the way.
    await db
      .delete(loginChallenges)
      .where(and(eq(loginChallenges.userId, user.id), lte(loginChallenges.expiresAt, now)));
    await db.insert(loginChallenges).values({
      tokenHash: hashToken(token),
      userId: user.id,
      keepLogin: input.keepLogin,
      terminalUuid: input.terminal.uuid ?? "",
      terminalType: input.terminal.type ?? "",
      terminalName: input.terminal.name ?? "",
      terminalOs: input.terminal.os ?? "",
      expiresAt,
    });
    return { challenge: token, expiredTime: expiresAt.toISOString() };
  }

  /** The code step: a right code (or unused recovery code) opens the session. */
  async function completeLogin(challenge: string, code: string, context: RequestContext) {
    const now = clock.now();
    // The try is counted before the code is judged, so parallel guesses share the budget.
    const [counted] = await db
      .update(loginChallenges)
      .set({ tries: sql`${loginChallenges.tries} + 1` })
      .where(
        and(
          eq(loginChallenges.tokenHash, hashToken(challenge)),
          gt(loginChallenges.expiresAt, now),
          isNull(loginChallenges.usedAt),
          lt(loginChallenges.tries, TWO_FACTOR.triesPerChallenge),
        ),
      )
      .returning();
    if (!counted) throw fail("TWO_FACTOR_CHALLENGE_EXPIRED");
    const row = await codes.enabledRow(counted.userId);
    // Two-factor turned off meanwhile: the password step must be done again.
    if (!row) throw fail("TWO_FACTOR_CHALLENGE_EXPIRED");
    await codes.checkLock(row);
    if (!(await codes.acceptSecondFactor(row, code))) {
      const locked = await codes.countFailure(row);
      if (locked) throw fail("TWO_FACTOR_LOCKED");
      throw fail("TWO_FACTOR_CODE_ERROR", {
        triesLeft: TWO_FACTOR.triesPerChallenge - counted.tries,
      });
    }
    const [used] = await db
      .update(loginChallenges)
      .set({ usedAt: now })
      .where(and(eq(loginChallenges.id, counted.id), isNull(loginChallenges.usedAt)))
      .returning();
    if (!used) throw fail("TWO_FACTOR_CHALLENGE_EXPIRED");
    await db
      .update(twoFactorAuth)
      .set({ failedCodes: 0, failedCodesSince: null })
      .where(eq(twoFactorAuth.userId, row.userId));
    const [user] = await db.select().from(users).where(eq(users.id, row.userId)).limit(1);
    if (!user) throw fail("TWO_FACTOR_CHALLENGE_EXPIRED");
    return deps.openSession(
      user,
      {
        keepLogin: used.keepLogin,
        terminal: {
          uuid: used.terminalUuid || undefined,
          type: used.terminalType || undefined,
          name: used.terminalName || undefined,
          os: used.terminalOs || undefined,
        },
      },
      context,
    );
  }

  return { challengeFor, completeLogin };
}
