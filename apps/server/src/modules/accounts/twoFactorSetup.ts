import { randomBytes } from "node:crypto";
import {
  type Brand,
  type Lang,
  TWO_FACTOR,
  type TwoFactorEnabled,
  type TwoFactorSetup,
  type TwoFactorStatus,
} from "@keyway/shared";
import { and, count, eq, isNull } from "drizzle-orm";
import QRCode from "qrcode";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { encryptSecret, verifyPassword } from "../../infra/crypto.ts";
import { loginChallenges, twoFactorAuth, twoFactorRecoveryCodes, type User } from "./schema.ts";
import { base32Encode, otpauthUrl } from "./totp.ts";
import { minutes, type TwoFactorCodes } from "./twoFactorCodes.ts";

/**
 * Two-factor set-up: a secret sealed at rest and turned on by a first code, its status,
 * new recovery codes, and off again.
 */
export function createTwoFactorSetup(deps: {
  db: Db;
  clock: Clock;
  secretKey: string;
  codes: TwoFactorCodes;
  /** Sessions opened before two-factor was on must log in again, with it. */
  endOtherSessions: (caller: { userId: number; terminalId: number }) => Promise<void>;
}) {
  const { db, clock, secretKey, codes } = deps;

  async function status(userId: number): Promise<TwoFactorStatus> {
    const row = await codes.enabledRow(userId);
    if (!row) return { enabled: false, enabledTime: null, recoveryCodesLeft: 0 };
    const [{ left }] = await db
      .select({ left: count() })
      .from(twoFactorRecoveryCodes)
      .where(and(eq(twoFactorRecoveryCodes.userId, userId), isNull(twoFactorRecoveryCodes.usedAt)));
    return {
      enabled: true,
      enabledTime: row.enabledAt?.toISOString() ?? null,
      recoveryCodesLeft: left,
    };
  }

  /** A new secret, not yet on: the app scans its QR and the user answers with a code. */
  async function beginSetup(user: User, brand: Brand, lang: Lang): Promise<TwoFactorSetup> {
    if (await codes.enabledRow(user.id)) throw fail("TWO_FACTOR_ALREADY_ON");
    const secret = base32Encode(randomBytes(20));
    const now = clock.now();
    const setupExpiresAt = new Date(now.getTime() + minutes(TWO_FACTOR.setupMinutes));
    const sealed = encryptSecret(secretKey, secret);
    await db
      .insert(twoFactorAuth)
      .values({ userId: user.id, secretSealed: sealed, setupExpiresAt })
      .onConflictDoUpdate({
        target: twoFactorAuth.userId,
        set: {
          secretSealed: sealed,
          setupExpiresAt,
          enabledAt: null,
          lastStep: 0,
          failedCodes: 0,
          failedCodesSince: null,
          lockedUntil: null,
        },
      });
    const account =
      user.email ?? (user.phone ? `+${user.countryCode} ${user.phone}` : String(user.id));
    const url = otpauthUrl(brand[lang === "en" ? "en" : "zh"].name, account, secret);
    return {
      secret,
      otpauthUrl: url,
      qrImage: await QRCode.toDataURL(url, { margin: 1, width: 220 }),
      expiredTime: setupExpiresAt.toISOString(),
    };
  }

  /**
   * The first right code turns two-factor on; the recovery codes are answered once. Every
   * other session of the user ends: it was opened with the password alone.
   */
  async function confirmSetup(
    caller: { userId: number; terminalId: number },
    code: string,
  ): Promise<TwoFactorEnabled> {
    const { userId } = caller;
    const row = await codes.rowOf(userId);
    if (row?.enabledAt) throw fail("TWO_FACTOR_ALREADY_ON");
    if (!row || row.setupExpiresAt <= clock.now()) throw fail("TWO_FACTOR_SETUP_EXPIRED");
    await codes.requireTotp(row, code);
    await db
      .update(twoFactorAuth)
      .set({ enabledAt: clock.now(), failedCodes: 0, failedCodesSince: null })
      .where(eq(twoFactorAuth.userId, userId));
    const recoveryCodes = await codes.replaceRecoveryCodes(userId);
    await deps.endOtherSessions(caller);
    return { recoveryCodes };
  }

  /** Ten new recovery codes against a current authenticator code. */
  async function regenerateRecoveryCodes(userId: number, code: string): Promise<TwoFactorEnabled> {
    const row = await codes.enabledRow(userId);
    if (!row) throw fail("TWO_FACTOR_NOT_ON");
    await codes.requireTotp(row, code);
    return { recoveryCodes: await codes.replaceRecoveryCodes(userId) };
  }

  /** Off again, with the password or a current / recovery code. */
  async function disable(user: User, proof: { password?: string; code?: string }) {
    const row = await codes.enabledRow(user.id);
    if (!row) throw fail("TWO_FACTOR_NOT_ON");
    if (proof.password) {
      if (!(await verifyPassword(user.passwordHash, proof.password))) throw fail("PASSWORD_ERROR");
    } else {
      await codes.requireSecondFactor(row, proof.code ?? "");
    }
    await db.transaction(async (tx) => {
      await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, user.id));
      await tx.delete(twoFactorAuth).where(eq(twoFactorAuth.userId, user.id));
      await tx.delete(loginChallenges).where(eq(loginChallenges.userId, user.id));
    });
  }

  return { status, beginSetup, confirmSetup, regenerateRecoveryCodes, disable };
}
