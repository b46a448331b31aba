import {
  type Brand,
  brandWording,
  type CodePurpose,
  type Lang,
  VERIFICATION,
} from "@keyway/shared";
import { and, count, desc, eq, gte, isNull } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { keyedHash, randomDigits } from "../../infra/crypto.ts";
import type { Notifier } from "../notify/service.ts";
import { verificationCodes } from "./schema.ts";

/** Where a code goes: a phone (country code + national number) or an e-mail address. */
export type CodeTarget =
  | { channel: "sms"; countryCode: string; phone: string }
  | { channel: "email"; email: string };

export function targetKey(target: CodeTarget): string {
  return target.channel === "sms"
    ? `${target.countryCode}:${target.phone}`
    : target.email.toLowerCase();
}

export type VerificationService = ReturnType<typeof createVerificationService>;

const TEXTS = {
  register: { zh: "注册验证码", en: "registration code" },
  reset: { zh: "找回密码验证码", en: "password reset code" },
  change: { zh: "更换账号验证码", en: "account change code" },
} as const;

/**
 * Verification codes: issue (throttled per target, SMS capped per phone per day), check
 * (wrong tries counted; too many close the code) and consume.
 */
export function createVerificationService(deps: {
  db: Db;
  clock: Clock;
  notifier: Notifier;
  secretKey: string;
}) {
  const { db, clock, notifier, secretKey } = deps;
  const hashCode = (key: string, purpose: CodePurpose, code: string) =>
    keyedHash(secretKey, `${key}|${purpose}|${code}`);

  async function send(
    target: CodeTarget,
    purpose: CodePurpose,
    context: { lang: Lang; brand: Brand },
    tx: Db = db,
  ): Promise<void> {
    const key = targetKey(target);
    const now = clock.now();
    const [latest] = await tx
      .select({ createdAt: verificationCodes.createdAt })
      .from(verificationCodes)
      .where(and(eq(verificationCodes.target, key), eq(verificationCodes.purpose, purpose)))
      .orderBy(desc(verificationCodes.createdAt))
      .limit(1);
    if (latest && now.getTime() - latest.createdAt.getTime() < VERIFICATION.resendSeconds * 1000) {
      throw fail("CODE_TOO_FREQUENT");
    }
    if (target.channel === "sms") {
      const dayAgo = new Date(now.getTime() - 24 * 3600_000);
      const [{ sent }] = await tx
        .select({ sent: count() })
        .from(verificationCodes)
        .where(and(eq(verificationCodes.target, key), gte(verificationCodes.createdAt, dayAgo)));
      if (sent >= VERIFICATION.smsDailyLimitPerPhone) throw fail("SMS_DAILY_LIMIT");
    }

    const code = randomDigits(VERIFICATION.digits);
    await tx
      .update(verificationCodes)
      .set({ closedAt: now })
      .where(
        and(
          eq(verificationCodes.target, key),
          eq(verificationCodes.purpose, purpose),
          isNull(verificationCodes.closedAt),
        ),
      );
    await tx.insert(verificationCodes).values({
      channel: target.channel,
      target: key,
      purpose,
      codeHash: hashCode(key, purpose, code),
      createdAt: now,
      expiresAt: new Date(now.getTime() + VERIFICATION.ttlMinutes * 60_000),
    });

    const words = brandWording(context.brand, context.lang);
    const what = TEXTS[purpose][context.lang === "en" ? "en" : "zh"];
    const body =
      context.lang === "en"
        ? `[${words.name}] Your ${what} is ${code}. It is valid for ${VERIFICATION.ttlMinutes} minutes. If you did not ask for it, ignore this message.`
        : `【${words.name}】您的${what}为 ${code}，${VERIFICATION.ttlMinutes} 分钟内有效。如非本人操作，请忽略本消息。`;
    await notifier.enqueue(
      target.channel === "sms"
        ? {
            channel: "sms",
            recipient: `${target.countryCode}${target.phone}`,
            body,
            // The provider's verification-code template has the variable `code`.
            sms: { countryCode: target.countryCode, phone: target.phone, params: { code } },
          }
        : { channel: "email", recipient: target.email, subject: words.emailSubject, body },
      tx,
    );
  }

  /**
   * Checks a code; with `consume` it is used up on success. Throws CODE_ERROR on a wrong
   * code and CODE_EXPIRED when there is no live code (never sent, expired, used, or closed
   * after too many wrong tries). Never run it inside a transaction that a failure rolls
   * back: the wrong-try count must stick.
   */
  async function check(
    target: CodeTarget,
    purpose: CodePurpose,
    code: string,
    opts: { consume: boolean },
  ): Promise<void> {
    const key = targetKey(target);
    const now = clock.now();
    const [live] = await db
      .select()
      .from(verificationCodes)
      .where(
        and(
          eq(verificationCodes.target, key),
          eq(verificationCodes.purpose, purpose),
          isNull(verificationCodes.closedAt),
        ),
      )
      .orderBy(desc(verificationCodes.createdAt))
      .limit(1);
    if (!live || live.expiresAt <= now) throw fail("CODE_EXPIRED");
    if (live.codeHash !== hashCode(key, purpose, code)) {
      const wrongTries = live.wrongTries + 1;
      await db
        .update(verificationCodes)
        .set({ wrongTries, closedAt: wrongTries >= VERIFICATION.maxWrongTries ? now : null })
        .where(eq(verificationCodes.id, live.id));
      throw fail("CODE_ERROR");
    }
    if (opts.consume) {
      // Conditional close: of two concurrent uses of one code, only one succeeds.
      const used = await db
        .update(verificationCodes)
        .set({ closedAt: now })
        .where(and(eq(verificationCodes.id, live.id), isNull(verificationCodes.closedAt)))
        .returning({ id: verificationCodes.id });
      if (used.length === 0) throw fail("CODE_EXPIRED");
    }
  }

  return { send, check };
}
