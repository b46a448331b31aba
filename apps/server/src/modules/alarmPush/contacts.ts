import {
  type AlarmContact,
  type ContactKind,
  normalizePhone,
  SMS_PUSH_DEFAULTS,
} from "@keyway/shared";
import { and, count, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { AppError, fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import type { PushAccess } from "./access.ts";
import { alarmContacts } from "./schema.ts";
import { epoch } from "./wire.ts";

const contactView = (c: typeof alarmContacts.$inferSelect): AlarmContact => ({
  id: c.id,
  kind: c.kind,
  name: c.name,
  phone: c.phone,
  countryCode: c.countryCode,
  email: c.email,
  eid: c.eid,
  createTime: epoch(c.createdAt),
});

/** Alarm contacts: extra phones and mail receivers of a person (eid 0) or an enterprise (admin). */
export function createContacts(deps: { db: Db; clock: Clock; access: PushAccess }) {
  const { db, clock, access } = deps;

  async function addContact(
    userId: number,
    input: {
      eid: number;
      kind: ContactKind;
      name: string;
      phone?: string;
      countryCode?: string;
      email?: string;
    },
  ): Promise<AlarmContact> {
    if (input.eid > 0) await access.requireAdmin(userId, input.eid);
    const ownerUser = input.eid > 0 ? 0 : userId;
    let phone = "";
    let countryCode = "";
    let email = "";
    if (input.kind === "phone") {
      countryCode = input.countryCode ?? "86";
      const normal = normalizePhone(input.phone ?? "", countryCode);
      if (normal === null) throw AppError.invalid("phone", "v.phone");
      phone = normal;
    } else {
      email = (input.email ?? "").trim().toLowerCase();
    }
    return db.transaction(async (tx) => {
      // One owner's contacts change one at a time: the limit holds under concurrent adds.
      await tx.execute(sql`select pg_advisory_xact_lock(${7_120_000 + input.eid}, ${ownerUser})`);
      const [{ n }] = await tx
        .select({ n: count() })
        .from(alarmContacts)
        .where(and(eq(alarmContacts.eid, input.eid), eq(alarmContacts.userId, ownerUser)));
      if (n >= SMS_PUSH_DEFAULTS.maxContacts) throw fail("ALARM_CONTACT_LIMIT");
      const [row] = await tx
        .insert(alarmContacts)
        .values({
          eid: input.eid,
          userId: ownerUser,
          kind: input.kind,
          name: input.name,
          phone,
          countryCode,
          email,
          createdAt: clock.now(),
        })
        .onConflictDoNothing()
        .returning();
      if (!row) throw fail("ALARM_CONTACT_EXISTS");
      return contactView(row);
    });
  }

  async function listContacts(
    userId: number,
    q: { eid: number; page: number; pageSize: number },
  ): Promise<{ list: AlarmContact[]; total: number }> {
    if (q.eid > 0) await access.requireMember(userId, q.eid);
    const where = and(
      eq(alarmContacts.eid, q.eid),
      eq(alarmContacts.userId, q.eid > 0 ? 0 : userId),
    );
    const [rows, [{ n }]] = await Promise.all([
      db
        .select()
        .from(alarmContacts)
        .where(where)
        .orderBy(desc(alarmContacts.id))
        .limit(q.pageSize)
        .offset((q.page - 1) * q.pageSize),
      db.select({ n: count() }).from(alarmContacts).where(where),
    ]);
    return { list: rows.map(contactView), total: n };
  }

  async function deleteContact(userId: number, input: { eid: number; id: number }) {
    if (input.eid > 0) await access.requireAdmin(userId, input.eid);
    const gone = await db
      .delete(alarmContacts)
      .where(
        and(
          eq(alarmContacts.id, input.id),
          eq(alarmContacts.eid, input.eid),
          eq(alarmContacts.userId, input.eid > 0 ? 0 : userId),
        ),
      )
      .returning({ id: alarmContacts.id });
    if (gone.length === 0) throw fail("ALARM_CONTACT_NOT_FOUND");
  }

  return { addContact, listContacts, deleteContact };
}
