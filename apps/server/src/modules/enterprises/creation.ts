import {
  BRANDS,
  type BrandSettingsView,
  brandById,
  DEFAULT_BRAND,
  ENTERPRISES_PER_USER,
  type EnterpriseCreation,
  type EnterpriseSummary,
} from "@keyway/shared";
import { and, count, desc, eq, ilike, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { users } from "../accounts/schema.ts";
import { likePattern } from "../devices/sql.ts";
import { type EnterpriseRoles, mayToggleProject, requireOperator, type Viewer } from "./roles.ts";
import { brandSettings, enterpriseMembers, enterprises } from "./schema.ts";
import { summary } from "./views.ts";

/** Advisory lock namespace of one user's enterprise creations (unique in the app). */
const CREATE_LOCK = 7_310_004;

/**
 * Enterprises coming to be: the operator's registry of them, those users create themselves
 * (docs/architecture/enterprises.md), each brand's switch for that, and the projects switch.
 */
export function createEnterpriseCreation(deps: { db: Db; clock: Clock; roles: EnterpriseRoles }) {
  const { db, clock } = deps;

  /** The brand a user belongs to: where they signed up (users.oem_id), else the default. */
  async function brandOf(userId: number): Promise<string> {
    const [u] = await db
      .select({ oemId: users.oemId })
      .from(users)
      .where(eq(users.id, userId))
      .limit(1);
    return brandById(u?.oemId)?.id ?? DEFAULT_BRAND.id;
  }

  async function userEnterprisesAllowed(oemId: string): Promise<boolean> {
    const [row] = await db
      .select({ on: brandSettings.userEnterprises })
      .from(brandSettings)
      .where(eq(brandSettings.oemId, oemId))
      .limit(1);
    return row?.on ?? true;
  }

  async function createdCount(userId: number, tx: Pick<Db, "select"> = db): Promise<number> {
    const [{ n }] = await tx
      .select({ n: count() })
      .from(enterprises)
      .where(eq(enterprises.createdBy, userId));
    return n;
  }

  async function creation(userId: number): Promise<EnterpriseCreation> {
    const [allowed, created] = await Promise.all([
      brandOf(userId).then(userEnterprisesAllowed),
      createdCount(userId),
    ]);
    return { allowed, created, limit: ENTERPRISES_PER_USER };
  }

  /**
   * A user creates an enterprise and becomes its admin, as an enterprise member (so they see
   * both lists as admin) — unless their brand's operator turned this off, or they reached
   * ENTERPRISES_PER_USER.
   */
  async function createOwn(
    viewer: Viewer,
    input: { name: string; enableProject: number },
  ): Promise<EnterpriseSummary> {
    if (!(await userEnterprisesAllowed(await brandOf(viewer.userId)))) {
      throw fail("ENTERPRISE_CREATE_DISABLED");
    }
    return db.transaction(async (tx) => {
      // One user's creations are counted and stored one at a time: parallel requests cannot
      // pass the limit together (held until the commit).
      await tx.execute(sql`select pg_advisory_xact_lock(${CREATE_LOCK}, ${viewer.userId})`);
      if ((await createdCount(viewer.userId, tx)) >= ENTERPRISES_PER_USER) {
        throw fail("ENTERPRISE_CREATE_LIMIT");
      }
      const [same] = await tx
        .select({ id: enterprises.id })
        .from(enterprises)
        .where(
          and(
            eq(enterprises.createdBy, viewer.userId),
            sql`lower(${enterprises.name}) = lower(${input.name})`,
          ),
        )
        .limit(1);
      if (same) throw fail("ENTERPRISE_NAME_TAKEN");
      const now = clock.now();
      const [e] = await tx
        .insert(enterprises)
        .values({
          name: input.name,
          platformName: input.name,
          enableProject: input.enableProject === 1,
          createdBy: viewer.userId,
          createdAt: now,
        })
        .returning();
      await tx.insert(enterpriseMembers).values({
        enterpriseId: e.id,
        userId: viewer.userId,
        kind: "member",
        isAdmin: true,
        createdAt: now,
      });
      return summary(e, ["member"], true);
    });
  }

  async function brandSettingsList(viewer: Viewer): Promise<{ list: BrandSettingsView[] }> {
    requireOperator(viewer);
    const rows = await db.select().from(brandSettings);
    return {
      list: BRANDS.map((b) => ({
        oemid: b.id,
        name: { zh: b.zh.name, en: b.en.name },
        userEnterprises: (rows.find((r) => r.oemId === b.id)?.userEnterprises ?? true) ? 1 : 0,
      })),
    };
  }

  async function setBrandSettings(
    viewer: Viewer,
    input: { oemid: string; userEnterprises: number },
  ) {
    requireOperator(viewer);
    if (!brandById(input.oemid)) throw fail("BAD_REQUEST");
    const userEnterprises = input.userEnterprises === 1;
    await db
      .insert(brandSettings)
      .values({ oemId: input.oemid, userEnterprises, updatedAt: clock.now() })
      .onConflictDoUpdate({
        target: brandSettings.oemId,
        set: { userEnterprises, updatedAt: clock.now() },
      });
  }

  /** The operator creates an enterprise (no owner: its projects switch stays theirs). */
  async function create(
    viewer: Viewer,
    input: { name: string; platformName?: string; applyLogoUrl?: string; enableProject: number },
  ): Promise<EnterpriseSummary> {
    requireOperator(viewer);
    const [e] = await db
      .insert(enterprises)
      .values({
        name: input.name,
        platformName: input.platformName ?? input.name,
        applyLogoUrl: input.applyLogoUrl ?? "",
        enableProject: input.enableProject === 1,
        createdAt: clock.now(),
      })
      .returning();
    return summary(e);
  }

  async function listAll(viewer: Viewer, q: { page: number; pageSize: number; search?: string }) {
    requireOperator(viewer);
    const where = q.search ? ilike(enterprises.name, likePattern(q.search)) : undefined;
    const [rows, [{ total }]] = await Promise.all([
      db
        .select()
        .from(enterprises)
        .where(where)
        .orderBy(desc(enterprises.id))
        .limit(q.pageSize)
        .offset((q.page - 1) * q.pageSize),
      db.select({ total: count() }).from(enterprises).where(where),
    ]);
    return { list: rows.map((e) => summary(e)), total };
  }

  async function setProject(viewer: Viewer, eid: number, enableProject: boolean) {
    const current = await deps.roles.requireAdmin(viewer, eid);
    if (!mayToggleProject(viewer, current, true)) throw fail("NO_MANAGEMENT_ACCESS");
    const [e] = await db
      .update(enterprises)
      .set({ enableProject })
      .where(eq(enterprises.id, eid))
      .returning();
    return summary(e);
  }

  return {
    creation,
    createOwn,
    brandSettingsList,
    setBrandSettings,
    create,
    listAll,
    setProject,
  };
}
