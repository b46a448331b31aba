import { createHmac, randomBytes, randomInt } from "node:crypto";
import {
  type Brand,
  type Lang,
  TWO_FACTOR,
  type TwoFactorChallenge,
  type TwoFactorEnabled,
  type TwoFactorSetup,
  type TwoFactorStatus,
} from "@keyway/shared";
import { and, count, eq, gt, isNull, lt, lte, sql } from "drizzle-orm";
import QRCode from "qrcode";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import {
  decryptSecret,
  encryptSecret,
  hashToken,
  keyedHash,
  newToken,
  verifyPassword,
} from "../../infra/crypto.ts";
import {
  loginChallenges,
  type TwoFactorAuth,
  twoFactorAuth,
  twoFactorRecoveryCodes,
  type User,
  users,
} from "./schema.ts";
import type { RequestContext, TerminalInfo } from "./service.ts";

// ---- RFC 4648 base32 and RFC 6238 TOTP (HMAC-SHA1, dynamic truncation of RFC 4226) ----

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/[\s=-]/g, "");
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error("not base32");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The 30-second step a moment falls in (RFC 6238 T, with T0 = 0). */
export function totpStep(at: Date, periodSeconds: number = TWO_FACTOR.periodSeconds): number {
  return Math.floor(at.getTime() / 1000 / periodSeconds);
}

/** HOTP of RFC 4226 for one counter value: what an authenticator app shows for that step. */
export function totpCode(
  secret: Uint8Array,
  step: number,
  digits: number = TWO_FACTOR.digits,
): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", secret).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The otpauth:// URI authenticator apps read from the QR (Key Uri Format). */
export function otpauthUrl(issuer: string, account: string, secretBase32: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({
    secret: secretBase32,
    issuer,
    algorithm: "SHA1",
    digits: String(TWO_FACTOR.digits),
    period: String(TWO_FACTOR.periodSeconds),
  });
  return `otpauth://totp/${label}?${query.toString()}`;
}

// Recovery codes: 10 characters without look-alikes (0/o, 1/l/i), shown as xxxxx-xxxxx.
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
function newRecoveryCode(): string {
  let code = "";
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}
const normalizeRecovery = (code: string) => code.trim().toLowerCase().replace(/-/g, "");

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;

/**
 * Two-factor login: set-up (secret sealed at rest, confirmed by a first code), recovery
 * codes (keyed hashes, each used once), the login challenge between password and code, and
 * the per-challenge and per-account limits on wrong codes.
 */
export function createTwoFactorService(deps: {
  db: Db;
  clock: Clock;
  secretKey: string;
  openSession: (
    user: User,
    input: { keepLogin: boolean; terminal: TerminalInfo },
    context: RequestContext,
  ) => Promise<unknown>;
  /** Sessions opened before two-factor was on must log in again, with it. */
  endOtherSessions: (caller: { userId: number; terminalId: number }) => Promise<void>;
}) {
  const { db, clock, secretKey } = deps;
  const minutes = (n: number) => n * 60_000;

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

  async function status(userId: number): Promise<TwoFactorStatus> {
    const row = await enabledRow(userId);
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
    if (await enabledRow(user.id)) throw fail("TWO_FACTOR_ALREADY_ON");
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
    const row = await rowOf(userId);
    if (row?.enabledAt) throw fail("TWO_FACTOR_ALREADY_ON");
    if (!row || row.setupExpiresAt <= clock.now()) throw fail("TWO_FACTOR_SETUP_EXPIRED");
    await checkLock(row);
    if (!(await acceptTotp(row, code))) {
      await countFailure(row);
      throw fail("TWO_FACTOR_CODE_ERROR");
    }
    await db
      .update(twoFactorAuth)
      .set({ enabledAt: clock.now(), failedCodes: 0, failedCodesSince: null })
      .where(eq(twoFactorAuth.userId, userId));
    const recoveryCodes = await replaceRecoveryCodes(userId);
    await deps.endOtherSessions(caller);
    return { recoveryCodes };
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

  /** Ten new recovery codes against a current authenticator code. */
  async function regenerateRecoveryCodes(userId: number, code: string): Promise<TwoFactorEnabled> {
    const row = await enabledRow(userId);
    if (!row) throw fail("TWO_FACTOR_NOT_ON");
    await checkLock(row);
    if (!(await acceptTotp(row, code))) {
      await countFailure(row);
      throw fail("TWO_FACTOR_CODE_ERROR");
    }
    return { recoveryCodes: await replaceRecoveryCodes(userId) };
  }

  /** Off again, with the password or a current / recovery code. */
  async function disable(user: User, proof: { password?: string; code?: string }) {
    const row = await enabledRow(user.id);
    if (!row) throw fail("TWO_FACTOR_NOT_ON");
    if (proof.password) {
      if (!(await verifyPassword(user.passwordHash, proof.password))) throw fail("PASSWORD_ERROR");
    } else {
      await checkLock(row);
      if (!(await acceptSecondFactor(row, proof.code ?? ""))) {
        await countFailure(row);
        throw fail("TWO_FACTOR_CODE_ERROR");
      }
    }
    await db.transaction(async (tx) => {
      await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, user.id));
      await tx.delete(twoFactorAuth).where(eq(twoFactorAuth.userId, user.id));
      await tx.delete(loginChallenges).where(eq(loginChallenges.userId, user.id));
    });
  }

  // ---- Login ----

  /** After a right password: a challenge when two-factor is on (accounts.login asks this). */
  async function challengeFor(
    user: User,
    input: { keepLogin: boolean; terminal: TerminalInfo },
  ): Promise<TwoFactorChallenge | null> {
    const row = await enabledRow(user.id);
    if (!row) return null;
    await checkLock(row);
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
    const row = await enabledRow(counted.userId);
    // Two-factor turned off meanwhile: the password step must be done again.
    if (!row) throw fail("TWO_FACTOR_CHALLENGE_EXPIRED");
    await checkLock(row);
    if (!(await acceptSecondFactor(row, code))) {
      const locked = await countFailure(row);
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

  // ---- Codes ----

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

  return {
    status,
    beginSetup,
    confirmSetup,
    regenerateRecoveryCodes,
    disable,
    challengeFor,
    completeLogin,
  };
}
