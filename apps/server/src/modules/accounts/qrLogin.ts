import {
  QR_LOGIN,
  type QrLoginCheckResult,
  type QrLoginRequestInfo,
  type QrTokenResult,
} from "@keyway/shared";
import { and, eq, gt, inArray, lte } from "drizzle-orm";
import QRCode from "qrcode";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashToken, newToken } from "../../infra/crypto.ts";
import type { RequestContext, TerminalInfo } from "./requestContext.ts";
import { type QrLogin, qrLogins, type User, users } from "./schema.ts";

/** Where the phone confirms: the mobile route's confirm page (apps/web pages/mobile/qrLogin). */
export const QR_CONFIRM_PATH = "/mobile/qrLogin";

export type QrLoginService = ReturnType<typeof createQrLoginService>;

/**
 * QR-code login. The desktop gets two random tokens: the QR token (in the QR, seen by anyone
 * near the screen) and the check token (kept by the desktop, the only way to collect the
 * session). A logged-in phone opens the QR's URL, sees who asks, confirms or cancels; the
 * desktop's next check opens its own session (a terminal of its own). Both tokens are only
 * stored hashed; a QR lives QR_LOGIN.ttlSeconds and is used once.
 */
export function createQrLoginService(deps: {
  db: Db;
  clock: Clock;
  openSession: (
    user: User,
    input: { keepLogin: boolean; terminal: TerminalInfo },
    context: RequestContext,
    options: { keepTerminalId?: number },
  ) => Promise<{ result: NonNullable<QrLoginCheckResult["result"]> }>;
}) {
  const { db, clock } = deps;
  const ttlMs = QR_LOGIN.ttlSeconds * 1000;
  /** A confirmed QR waits at least this long for the desktop's next check. */
  const pickUpMs = 30_000;

  async function issue(
    input: { keepLogin: boolean; terminal: TerminalInfo; oemId?: string },
    context: RequestContext,
    origin: string,
  ): Promise<QrTokenResult> {
    const now = clock.now();
    const qrToken = newToken();
    const checkToken = newToken();
    const expiresAt = new Date(now.getTime() + ttlMs);
    // Rows an hour past their end serve no refusal any more.
    await db.delete(qrLogins).where(lte(qrLogins.expiresAt, new Date(now.getTime() - 3600_000)));
    await db.insert(qrLogins).values({
      qrTokenHash: hashToken(qrToken),
      checkTokenHash: hashToken(checkToken),
      keepLogin: input.keepLogin,
      oemId: input.oemId ?? context.brand.id,
      terminalUuid: input.terminal.uuid ?? "",
      terminalType: input.terminal.type ?? "",
      terminalName: input.terminal.name ?? "",
      terminalOs: input.terminal.os ?? "",
      ip: context.ip,
      createdAt: now,
      expiresAt,
    });
    const url = `${origin}${QR_CONFIRM_PATH}?token=${qrToken}`;
    return {
      qrToken,
      checkToken,
      url,
      qrImage: await QRCode.toDataURL(url, { margin: 1, width: 220 }),
      expiredTime: expiresAt.toISOString(),
      ttlSeconds: QR_LOGIN.ttlSeconds,
    };
  }

  /** A refusal for a row that can no longer be scanned, confirmed or collected. */
  function refuseEnded(row: QrLogin | undefined, now: Date): asserts row is QrLogin {
    if (!row) throw fail("QR_INVALID");
    if (row.state === "used") throw fail("QR_USED");
    if (row.state === "cancelled") throw fail("QR_CANCELLED");
    if (row.expiresAt <= now) throw fail("QR_EXPIRED");
  }

  async function byQrToken(qrToken: string) {
    const [row] = await db
      .select()
      .from(qrLogins)
      .where(eq(qrLogins.qrTokenHash, hashToken(qrToken)))
      .limit(1);
    return row;
  }

  function describe(row: QrLogin): QrLoginRequestInfo {
    return {
      terminalType: row.terminalType || "web",
      terminalName: row.terminalName,
      terminalOS: row.terminalOs,
      ip: row.ip,
      requestTime: row.createdAt.toISOString(),
      expiredTime: row.expiresAt.toISOString(),
    };
  }

  /** The phone opened the QR: the desktop learns it was scanned, the phone learns who asks. */
  async function scan(qrToken: string): Promise<QrLoginRequestInfo> {
    const now = clock.now();
    const row = await byQrToken(qrToken);
    refuseEnded(row, now);
    if (row.state === "confirmed") throw fail("QR_USED");
    if (row.state === "waiting") {
      await db
        .update(qrLogins)
        .set({ state: "scanned" })
        .where(and(eq(qrLogins.id, row.id), eq(qrLogins.state, "waiting")));
    }
    return describe(row);
  }

  /** The phone's user lets the desktop in (confirm) or not (cancel). */
  async function answer(
    qrToken: string,
    caller: { userId: number; terminalId: number },
    confirm: boolean,
  ): Promise<void> {
    const now = clock.now();
    const row = await byQrToken(qrToken);
    refuseEnded(row, now);
    if (row.state === "confirmed") throw fail("QR_USED");
    const [changed] = await db
      .update(qrLogins)
      .set(
        confirm
          ? {
              state: "confirmed",
              userId: caller.userId,
              confirmedByTerminalId: caller.terminalId,
              expiresAt: new Date(Math.max(row.expiresAt.getTime(), now.getTime() + pickUpMs)),
            }
          : { state: "cancelled" },
      )
      .where(
        and(
          eq(qrLogins.id, row.id),
          inArray(qrLogins.state, ["waiting", "scanned"]),
          gt(qrLogins.expiresAt, now),
        ),
      )
      .returning({ id: qrLogins.id });
    // Someone else answered in between.
    if (!changed) throw fail("QR_USED");
  }

  /** The desktop's poll: the state, and once confirmed, its new session (given once). */
  async function check(checkToken: string, context: RequestContext): Promise<QrLoginCheckResult> {
    const now = clock.now();
    const [row] = await db
      .select()
      .from(qrLogins)
      .where(eq(qrLogins.checkTokenHash, hashToken(checkToken)))
      .limit(1);
    refuseEnded(row, now);
    if (row.state !== "confirmed" || row.userId === null)
      return { state: row.state === "scanned" ? "scanned" : "waiting" };
    const [taken] = await db
      .update(qrLogins)
      .set({ state: "used" })
      .where(and(eq(qrLogins.id, row.id), eq(qrLogins.state, "confirmed")))
      .returning();
    if (!taken) throw fail("QR_USED");
    const [user] = await db.select().from(users).where(eq(users.id, row.userId)).limit(1);
    if (!user?.activatedAt) throw fail("QR_INVALID");
    // The phone's own session already proved the account (and its second factor, if any).
    const session = await deps.openSession(
      user,
      {
        keepLogin: row.keepLogin,
        terminal: {
          uuid: row.terminalUuid || undefined,
          type: row.terminalType || undefined,
          name: row.terminalName || undefined,
          os: row.terminalOs || undefined,
        },
      },
      context,
      { keepTerminalId: row.confirmedByTerminalId ?? undefined },
    );
    return { state: "confirmed", result: session.result, keepLogin: row.keepLogin };
  }

  return { issue, scan, answer, check };
}
