import { randomInt } from "node:crypto";
import { TWO_FACTOR } from "@keyway/shared";
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { decryptSecret, keyedHash } from "../../infra/crypto.ts";
import {
  loginChallenges,
  type TwoFactorAuth,
  twoFactorAuth,
  twoFactorRecoveryCodes,
} from "./schema.ts";
import { base32Decode, totpCode, totpStep } from "./totp.ts";

export const minutes = (n: number) => n * 60_000;

// Recovery codes: 10 characters without look-alikes (0/o, 1/l/i), shown as xxxxx-xxxxx.
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
function newRecoveryCode(): string {
  let code = "";
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}
const normalizeRecovery = (code: string) => code.trim().toLowerCase().replace(/-/g, "");

export type TwoFactorCodes = ReturnType<typeof createTwoFactorCodes>;

/**
 * A user's second factor: the sealed secret's row, its TOTP codes (each step used once),
 * the recovery codes (keyed hashes, each used once) and the per-account limit on wrong codes.
 */
export function createTwoFactorCodes(deps: { db: Db; clock: Clock; secretKey: string }) {
  const { db, clock, secretKey } = deps;

  async function rowOf(userId: number): Promise<TwoFactorAuth | undefined> {
    const [row] = await db
      .select()
      .from(twoFactorAuth)
      .where(eq(twoFactorAuth.userId, userId))
      .limit(1);
    return row;
  }

  async function enabledRow(userId: number): Promise<TwoFactorAuth | null> {
    const row = await rowOf(userId);
    return row?.enabledAt ? row : null;
  }

  async function replaceRecoveryCodes(userId: number): Promise<string[]> {
    const codes = Array.from({ length: TWO_FACTOR.recoveryCodes }, newRecoveryCode);
    await db.transaction(async (tx) => {
      await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
      await tx.insert(twoFactorRecoveryCodes).values(
        codes.map((code) => ({
          userId,
          codeHash: keyedHash(secretKey, normalizeRecovery(code)),
        })),
      );
    });
    return codes;
  }

  /** A TOTP code of a step not used before (within the allowed drift); the step is taken. */
  async function acceptTotp(row: TwoFactorAuth, code: string): Promise<boolean> {
    if (!/^\d{6}$/.test(code.trim())) return false;
    const secret = base32Decode(decryptSecret(secretKey, row.secretSealed));
    const current = totpStep(clock.now());
    for (let drift = -TWO_FACTOR.driftSteps; drift <= TWO_FACTOR.driftSteps; drift++) {
      const step = current + drift;
      if (step <= row.lastStep || totpCode(secret, step) !== code.trim()) continue;
      // Taken atomically: the same code twice (a replay, or two tabs) is accepted once.
      const taken = await db
        .update(twoFactorAuth)
        .set({ lastStep: step })
        .where(and(eq(twoFactorAuth.userId, row.userId), lt(twoFactorAuth.lastStep, step)))
        .returning({ userId: twoFactorAuth.userId });
      return taken.length > 0;
    }
    return false;
  }

  async function acceptRecoveryCode(userId: number, code: string): Promise<boolean> {
    const used = await db
      .update(twoFactorRecoveryCodes)
      .set({ usedAt: clock.now() })
      .where(
        and(
          eq(twoFactorRecoveryCodes.userId, userId),
          eq(twoFactorRecoveryCodes.codeHash, keyedHash(secretKey, normalizeRecovery(code))),
          isNull(twoFactorRecoveryCodes.usedAt),
        ),
      )
      .returning({ id: twoFactorRecoveryCodes.id });
    return used.length > 0;
  }

  /** A current TOTP code (six digits) or, anything else, an unused recovery code. */
  function acceptSecondFactor(row: TwoFactorAuth, code: string): Promise<boolean> {
    return /^\d{6}$/.test(code.trim())
      ? acceptTotp(row, code)
      : acceptRecoveryCode(row.userId, code);
  }

  async function checkLock(row: TwoFactorAuth) {
    if (row.lockedUntil && row.lockedUntil > clock.now()) throw fail("TWO_FACTOR_LOCKED");
  }

  /**
   * One more wrong code for the account; true when it is now locked. One UPDATE reads and
   * writes the count, so wrong codes sent together are each counted (no read-then-write).
   */
  async function countFailure(row: TwoFactorAuth): Promise<boolean> {
    const now = clock.now();
    const windowStart = new Date(now.getTime() - minutes(TWO_FACTOR.windowMinutes));
    const lockEnd = new Date(now.getTime() + minutes(TWO_FACTOR.lockMinutes));
    const inWindow = sql`(${twoFactorAuth.failedCodesSince} is not null and ${twoFactorAuth.failedCodesSince} > ${windowStart})`;
    const next = sql`(case when ${inWindow} then ${twoFactorAuth.failedCodes} + 1 else 1 end)`;
    const reached = sql`(${next} >= ${TWO_FACTOR.maxFailures})`;
    const [updated] = await db
      .update(twoFactorAuth)
      .set({
        failedCodes: sql`case when ${reached} then 0 else ${next} end`,
        failedCodesSince: sql`case when ${reached} then null when ${inWindow} then ${twoFactorAuth.failedCodesSince} else ${now} end`,
        // A wrong code counted after a lock leaves the lock as it is.
        lockedUntil: sql`case when ${reached} then ${lockEnd} else ${twoFactorAuth.lockedUntil} end`,
      })
      .where(eq(twoFactorAuth.userId, row.userId))
      .returning({ lockedUntil: twoFactorAuth.lockedUntil });
    if (!updated) return false;
    const locked = updated.lockedUntil?.getTime() === lockEnd.getTime();
    if (locked) {
      // A lock ends the open challenges too: the password step has to be done again.
      await db.delete(loginChallenges).where(eq(loginChallenges.userId, row.userId));
    }
    return locked;
  }

  /** Refused while locked; a wrong code is counted and answered TWO_FACTOR_CODE_ERROR. */
  async function requireCode(
    row: TwoFactorAuth,
    code: string,
    accept: (row: TwoFactorAuth, code: string) => Promise<boolean>,
  ) {
    await checkLock(row);
    if (!(await accept(row, code))) {
      await countFailure(row);
      throw fail("TWO_FACTOR_CODE_ERROR");
    }
  }

  return {
    rowOf,
    enabledRow,
    replaceRecoveryCodes,
    acceptSecondFactor,
    checkLock,
    countFailure,
    /** A current authenticator code. */
    requireTotp: (row: TwoFactorAuth, code: string) => requireCode(row, code, acceptTotp),
    /** A current authenticator code or an unused recovery code. */
    requireSecondFactor: (row: TwoFactorAuth, code: string) =>
      requireCode(row, code, acceptSecondFactor),
  };
}
