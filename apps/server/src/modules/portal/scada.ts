import {
  type Brand,
  brandWording,
  DAY_MS,
  type Lang,
  SCADA_LIMITS,
  SCADA_REPLY_HOURS,
  type ScadaRegistered,
  type ScadaRegistration,
  type ScadaRegistrationView,
} from "@keyway/shared";
import { and, count, desc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import type { Notifier } from "../notify/service.ts";
import { type ScadaRegistrationRow, scadaRegistrations } from "./schema.ts";

/** Advisory lock namespace of the per-address SCADA cap (any constant unique in the app). */
const SCADA_LOCK = 7_310_001;

/**
 * The public SCADA registration: stored, then e-mailed to support through the durable
 * notification queue; operators list them.
 */
export function createScadaRegistrations(deps: {
  db: Db;
  clock: Clock;
  notifier: Pick<Notifier, "enqueue">;
  supportEmail: string;
}) {
  const { db, clock, notifier } = deps;

  /**
   * Stores a SCADA registration and queues its e-mail to support in one transaction, so a
   * stored registration is always mailed (the queue retries) and a failed one is neither.
   * The form is public: besides the per-address rate limit of the route, one e-mail address
   * may register SCADA_LIMITS.perEmailDaily times a day (TOO_FREQUENT).
   */
  async function registerScada(
    input: ScadaRegistration,
    meta: { brand: Brand; lang: Lang; ip: string },
  ): Promise<ScadaRegistered> {
    const now = clock.now();
    const email = input.email.toLowerCase();

    const row = await db.transaction(async (tx) => {
      // One address's registrations are counted and stored one at a time, so parallel
      // submissions cannot pass the daily cap together (held until the commit).
      await tx.execute(sql`select pg_advisory_xact_lock(${SCADA_LOCK}, hashtext(${email}))`);
      const [{ recent }] = await tx
        .select({ recent: count() })
        .from(scadaRegistrations)
        .where(
          and(
            eq(scadaRegistrations.email, email),
            gt(scadaRegistrations.createdAt, new Date(now.getTime() - DAY_MS)),
          ),
        );
      if (recent >= SCADA_LIMITS.perEmailDaily) throw fail("TOO_FREQUENT");
      const notification = await notifier.enqueue(
        {
          channel: "email",
          recipient: deps.supportEmail,
          subject: scadaSubject(input, meta.brand),
          body: scadaBody(input, meta),
        },
        tx,
      );
      const [stored] = await tx
        .insert(scadaRegistrations)
        .values({
          company: input.company,
          contactName: input.contactName,
          countryCode: input.countryCode,
          phone: input.phone,
          email,
          projectName: input.projectName,
          deviceCount: input.deviceCount,
          description: input.description,
          oemId: meta.brand.id,
          language: meta.lang,
          ip: meta.ip,
          notificationId: notification.id,
          createdAt: now,
        })
        .returning({ id: scadaRegistrations.id });
      return stored;
    });
    return { id: row.id, replyWithinHours: SCADA_REPLY_HOURS };
  }

  async function scadaRegistrationList(page: number, pageSize: number) {
    const [list, [{ total }]] = await Promise.all([
      db
        .select()
        .from(scadaRegistrations)
        .orderBy(desc(scadaRegistrations.id))
        .limit(pageSize)
        .offset((page - 1) * pageSize),
      db.select({ total: count() }).from(scadaRegistrations),
    ]);
    return { list: list.map(toRegistrationView), total };
  }

  return { registerScada, scadaRegistrationList };
}

function toRegistrationView(row: ScadaRegistrationRow): ScadaRegistrationView {
  return {
    id: row.id,
    company: row.company,
    contactName: row.contactName,
    countryCode: row.countryCode,
    phone: row.phone,
    email: row.email,
    projectName: row.projectName,
    deviceCount: row.deviceCount,
    description: row.description,
    oemid: row.oemId,
    language: row.language,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Support reads both languages; the subject names the brand and the company. */
function scadaSubject(input: ScadaRegistration, brand: Brand): string {
  return `[${brand.en.name}] SCADA registration / SCADA 注册申请: ${input.company}`;
}

function scadaBody(input: ScadaRegistration, meta: { brand: Brand; lang: Lang }): string {
  const language = meta.lang === "en" ? "English" : "中文";
  return [
    `A SCADA project was registered on ${brandWording(meta.brand, "en").name}. Please reply to the applicant by e-mail within ${SCADA_REPLY_HOURS} hours.`,
    `${brandWording(meta.brand, "cn").name} 收到一份 SCADA 项目注册申请，请在 ${SCADA_REPLY_HOURS} 小时内通过邮件回复申请人。`,
    "",
    `Company / 公司: ${input.company}`,
    `Contact / 联系人: ${input.contactName}`,
    `Phone / 电话: +${input.countryCode} ${input.phone}`,
    `E-mail / 邮箱: ${input.email}`,
    `Project / 项目: ${input.projectName}`,
    `Devices / 设备数量: ${input.deviceCount}`,
    `Language / 语言: ${language}`,
    "",
    "Description / 项目描述:",
    input.description,
  ].join("\n");
}
