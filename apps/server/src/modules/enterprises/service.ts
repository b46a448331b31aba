import {
  BRANDS,
  type BrandSettingsView,
  brandById,
  DEFAULT_BRAND,
  ENTERPRISES_PER_USER,
  type EnterpriseCreation,
  type EnterpriseLogo,
  type EnterpriseMember,
  type EnterpriseSummary,
  type Machine,
  type MemberKind,
  type RegistryEntry,
} from "@keyway/shared";
import { and, asc, count, desc, eq, ilike, inArray, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { users } from "../accounts/schema.ts";
import type { AccountRef } from "../accounts/service.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { machineColumns, toMachine } from "../devices/service.ts";
import {
  brandSettings,
  type Enterprise,
  enterpriseDevices,
  enterpriseGroups,
  enterpriseMembers,
  enterprises,
} from "./schema.ts";

/** Device list type of the SPEC: 1 enterprise devices, 2 maintenance devices. */
export type ListType = 1 | 2;
const KIND_FOR_TYPE: Record<ListType, MemberKind> = { 1: "member", 2: "maintenance" };

export interface Viewer {
  userId: number;
  role: "user" | "operator";
}

function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function accountOf(u: { email: string | null; phone: string | null; countryCode: string }) {
  return u.email ?? (u.phone ? `+${u.countryCode} ${u.phone}` : "");
}

/** Advisory lock namespace of one user's enterprise creations (unique in the app). */
const CREATE_LOCK = 7_310_002;

/** The row of an enterprise's hold on a device as one type of list. */
function heldBy(eid: number, deviceId: number, type: ListType) {
  return and(
    eq(enterpriseDevices.enterpriseId, eid),
    eq(enterpriseDevices.deviceId, deviceId),
    eq(enterpriseDevices.type, type),
  );
}

export type EnterpriseService = ReturnType<typeof createEnterpriseService>;

/**
 * Enterprises, their two kinds of members and their device lists. Access: members see the
 * list of their kind, admins both, the operator everything; everyone else is refused the
 * same way whether or not the enterprise exists.
 */
export function createEnterpriseService(deps: {
  db: Db;
  clock: Clock;
  findUser: (ref: AccountRef) => Promise<{ id: number; activatedAt: Date | null } | undefined>;
  /** A device left the enterprise's list: that list's project lets it go. */
  releaseFromProjects?: (eid: number, type: number, deviceId: number) => Promise<unknown>;
}) {
  const { db, clock } = deps;

  function summary(e: Enterprise, kinds: MemberKind[] = [], isAdmin = false): EnterpriseSummary {
    return {
      eid: e.id,
      name: e.name,
      enableProject: e.enableProject ? 1 : 0,
      platformName: e.platformName,
      applyLogoUrl: e.applyLogoUrl,
      kinds,
      isAdmin: isAdmin ? 1 : 0,
    };
  }

  async function memberships(userId: number, eid: number) {
    return db
      .select({ kind: enterpriseMembers.kind, isAdmin: enterpriseMembers.isAdmin })
      .from(enterpriseMembers)
      .where(and(eq(enterpriseMembers.userId, userId), eq(enterpriseMembers.enterpriseId, eid)));
  }

  async function requireEnterprise(eid: number): Promise<Enterprise> {
    const [e] = await db.select().from(enterprises).where(eq(enterprises.id, eid)).limit(1);
    if (!e) throw fail("ENTERPRISE_NOT_FOUND");
    return e;
  }

  /** What the viewer may do in an enterprise; refuses non-members with NO_PERMISSION. */
  async function access(viewer: Viewer, eid: number) {
    const rows = await memberships(viewer.userId, eid);
    const operator = viewer.role === "operator";
    if (rows.length === 0 && !operator) throw fail("NO_PERMISSION");
    const enterprise = await requireEnterprise(eid);
    const isAdmin = operator || rows.some((r) => r.isAdmin);
    const kinds = rows.map((r) => r.kind);
    return {
      enterprise,
      kinds,
      isAdmin,
      canSee: (type: ListType) => isAdmin || kinds.includes(KIND_FOR_TYPE[type]),
    };
  }

  async function requireList(viewer: Viewer, eid: number, type: ListType) {
    const a = await access(viewer, eid);
    if (!a.canSee(type)) throw fail("NO_PERMISSION");
    return a;
  }

  /** Enterprise administration: the operator or an admin of this enterprise. */
  async function requireAdmin(viewer: Viewer, eid: number) {
    if (viewer.role !== "operator") {
      const rows = await memberships(viewer.userId, eid);
      if (!rows.some((r) => r.isAdmin)) throw fail("NO_MANAGEMENT_ACCESS");
    }
    return requireEnterprise(eid);
  }

  function requireOperator(viewer: Viewer) {
    if (viewer.role !== "operator") throw fail("NO_MANAGEMENT_ACCESS");
  }

  async function listForUser(userId: number): Promise<EnterpriseSummary[]> {
    const rows = await db
      .select({
        enterprise: enterprises,
        kind: enterpriseMembers.kind,
        isAdmin: enterpriseMembers.isAdmin,
      })
      .from(enterpriseMembers)
      .innerJoin(enterprises, eq(enterprises.id, enterpriseMembers.enterpriseId))
      .where(eq(enterpriseMembers.userId, userId))
      .orderBy(asc(enterprises.id));
    const byId = new Map<number, EnterpriseSummary>();
    for (const row of rows) {
      const entry = byId.get(row.enterprise.id) ?? summary(row.enterprise);
      entry.kinds.push(row.kind);
      if (row.isAdmin) entry.isAdmin = 1;
      byId.set(row.enterprise.id, entry);
    }
    return [...byId.values()];
  }

  async function info(viewer: Viewer, eid: number): Promise<EnterpriseSummary> {
    const a = await access(viewer, eid);
    return summary(a.enterprise, a.kinds, a.isAdmin);
  }

  async function logo(eid: number): Promise<EnterpriseLogo> {
    const e = await requireEnterprise(eid);
    return { name: e.name, platformName: e.platformName, applyLogoUrl: e.applyLogoUrl };
  }

  async function deviceList(
    viewer: Viewer,
    q: {
      eid: number;
      type: ListType;
      groupId?: number;
      search?: string;
      page: number;
      pageSize: number;
    },
  ): Promise<{ list: Machine[]; total: number }> {
    await requireList(viewer, q.eid, q.type);
    const conditions: SQL[] = [
      eq(enterpriseDevices.enterpriseId, q.eid),
      eq(enterpriseDevices.type, q.type),
    ];
    if (q.groupId) conditions.push(eq(enterpriseDevices.groupId, q.groupId));
    if (q.search) {
      const pattern = likePattern(q.search);
      conditions.push(
        or(ilike(enterpriseDevices.name, pattern), ilike(devices.code, pattern)) as SQL,
      );
    }
    // One flat query with the total as a window count: no second round trip, no hashes.
    const rows = await db
      .select({
        ...machineColumns,
        heldName: enterpriseDevices.name,
        heldGroupId: enterpriseDevices.groupId,
        maintenanceRemark: enterpriseDevices.maintenanceRemark,
        groupName: enterpriseGroups.name,
        total: sql<number>`cast(count(*) over () as int)`,
      })
      .from(enterpriseDevices)
      .innerJoin(devices, eq(devices.id, enterpriseDevices.deviceId))
      .leftJoin(enterpriseGroups, eq(enterpriseGroups.id, enterpriseDevices.groupId))
      .where(and(...conditions))
      .orderBy(desc(enterpriseDevices.deviceId))
      .limit(q.pageSize)
      .offset((q.page - 1) * q.pageSize);
    const total = rows[0]?.total ?? (q.page > 1 ? await countHeld(and(...conditions)) : 0);
    return {
      list: rows.map((r) =>
        toMachine(r, {
          eid: q.eid,
          name: r.heldName,
          groupId: r.heldGroupId,
          groupName: r.groupName,
          maintenanceRemark: r.maintenanceRemark,
        }),
      ),
      total,
    };
  }

  /** The total when the requested page is past the end (the window count has no row then). */
  async function countHeld(where: SQL | undefined): Promise<number> {
    const [{ total }] = await db
      .select({ total: count() })
      .from(enterpriseDevices)
      .innerJoin(devices, eq(devices.id, enterpriseDevices.deviceId))
      .where(where);
    return total;
  }

  async function groups(viewer: Viewer, eid: number) {
    await access(viewer, eid);
    const list = await db
      .select({ id: enterpriseGroups.id, name: enterpriseGroups.name })
      .from(enterpriseGroups)
      .where(eq(enterpriseGroups.enterpriseId, eid))
      .orderBy(asc(enterpriseGroups.id));
    return { list, total: list.length };
  }

  async function members(eid: number, kind?: MemberKind): Promise<EnterpriseMember[]> {
    const rows = await db
      .select({ member: enterpriseMembers, user: users })
      .from(enterpriseMembers)
      .innerJoin(users, eq(users.id, enterpriseMembers.userId))
      .where(
        and(
          eq(enterpriseMembers.enterpriseId, eid),
          kind ? eq(enterpriseMembers.kind, kind) : undefined,
        ),
      )
      .orderBy(asc(enterpriseMembers.createdAt), asc(users.id));
    return rows.map((r) => ({
      userId: r.user.id,
      name: r.user.name,
      account: accountOf(r.user),
      kind: r.member.kind,
      isAdmin: r.member.isAdmin ? 1 : 0,
    }));
  }

  /** The enterprise's hold on one device, visible to the viewer. */
  async function heldDevice(viewer: Viewer, eid: number, deviceId: number) {
    const a = await access(viewer, eid);
    const rows = await db
      .select({ device: devices, held: enterpriseDevices, groupName: enterpriseGroups.name })
      .from(enterpriseDevices)
      .innerJoin(devices, eq(devices.id, enterpriseDevices.deviceId))
      .leftJoin(enterpriseGroups, eq(enterpriseGroups.id, enterpriseDevices.groupId))
      .where(
        and(eq(enterpriseDevices.enterpriseId, eid), eq(enterpriseDevices.deviceId, deviceId)),
      );
    const visible = rows.filter((r) => a.canSee(r.held.type as ListType));
    if (visible.length === 0) throw fail("EDIT_MACHINE_NOT_FOUND");
    return { access: a, row: visible[0], types: visible.map((r) => r.held.type as ListType) };
  }

  /**
   * The devices the viewer sees in an enterprise (the lists of their kinds; admins both), as
   * a subquery other modules filter by (the alarm centre), with the columns of a personal
   * scope (`devices.personalScope`); `maintained`: held as a maintenance device. Refuses
   * non-members like the lists do.
   */
  async function deviceScope(viewer: Viewer, eid: number) {
    const a = await access(viewer, eid);
    const types = ([1, 2] as const).filter((type) => a.canSee(type));
    const scope = db
      .select({
        deviceId: sql<number>`${enterpriseDevices.deviceId}`.as("scope_device_id"),
        name: sql<string>`min(${enterpriseDevices.name})`.as("scope_name"),
        role: sql<string>`'enterprise'`.as("scope_role"),
        canWrite: sql<boolean>`true`.as("scope_can_write"),
        maintained: sql<boolean>`bool_or(${enterpriseDevices.type} = 2)`.as("scope_maintained"),
      })
      .from(enterpriseDevices)
      .where(and(eq(enterpriseDevices.enterpriseId, eid), inArray(enterpriseDevices.type, types)))
      .groupBy(enterpriseDevices.deviceId)
      .as("scope");
    return {
      scope,
      isAdmin: a.isAdmin,
      isMaintenanceMember: a.kinds.includes("maintenance"),
    };
  }

  async function machineInfo(viewer: Viewer, eid: number, deviceId: number): Promise<Machine> {
    const { row } = await heldDevice(viewer, eid, deviceId);
    return toMachine(row.device, {
      eid,
      name: row.held.name,
      groupId: row.held.groupId,
      groupName: row.groupName,
      maintenanceRemark: row.held.maintenanceRemark,
    });
  }

  async function machinePersonnel(viewer: Viewer, eid: number, deviceId: number, kind: MemberKind) {
    await heldDevice(viewer, eid, deviceId);
    return { list: await members(eid, kind) };
  }

  async function updateMaintenanceRemark(
    viewer: Viewer,
    eid: number,
    deviceId: number,
    remark: string,
  ) {
    const { access: a, types } = await heldDevice(viewer, eid, deviceId);
    if (!types.includes(2) || !(a.isAdmin || a.kinds.includes("maintenance"))) {
      throw fail("NO_PERMISSION");
    }
    await db
      .update(enterpriseDevices)
      .set({ maintenanceRemark: remark })
      .where(heldBy(eid, deviceId, 2));
  }

  async function permission(viewer: Viewer, eid: number) {
    const a = await access(viewer, eid);
    return {
      eid,
      kinds: a.kinds,
      isAdmin: a.isAdmin ? 1 : 0,
      enableProject: a.enterprise.enableProject ? 1 : 0,
      canSeeEnterpriseDevices: a.canSee(1),
      canSeeMaintenanceDevices: a.canSee(2),
      canSetProject: mayToggleProject(viewer, a.enterprise, a.isAdmin),
    };
  }

  /**
   * Projects of an operator-created enterprise are the operator's to switch (a feature they
   * sell); a user-created enterprise's admins switch their own.
   */
  function mayToggleProject(viewer: Viewer, e: Enterprise, isAdmin: boolean): boolean {
    return viewer.role === "operator" || (isAdmin && e.createdBy !== null);
  }

  async function setProject(viewer: Viewer, eid: number, enableProject: boolean) {
    const current = await requireAdmin(viewer, eid);
    if (!mayToggleProject(viewer, current, true)) throw fail("NO_MANAGEMENT_ACCESS");
    const [e] = await db
      .update(enterprises)
      .set({ enableProject })
      .where(eq(enterprises.id, eid))
      .returning();
    return summary(e);
  }

  // ---- Enterprises users create (docs/decisions.md "Users create enterprises") ----

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

  // ---- Administration ----

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

  async function listMembers(viewer: Viewer, eid: number) {
    await requireAdmin(viewer, eid);
    const list = await members(eid);
    return { list, total: list.length };
  }

  async function addMember(
    viewer: Viewer,
    input: { eid: number; account: AccountRef; kind: MemberKind; isAdmin: boolean },
  ) {
    await requireAdmin(viewer, input.eid);
    const user = await deps.findUser(input.account);
    if (!user?.activatedAt) throw fail("ACCOUNT_NOT_FOUND");
    const inserted = await db
      .insert(enterpriseMembers)
      .values({
        enterpriseId: input.eid,
        userId: user.id,
        kind: input.kind,
        isAdmin: input.isAdmin,
        createdAt: clock.now(),
      })
      .onConflictDoNothing()
      .returning({ userId: enterpriseMembers.userId });
    if (inserted.length === 0) throw fail("MEMBER_EXISTS");
  }

  async function removeMember(
    viewer: Viewer,
    input: { eid: number; userId: number; kind: MemberKind },
  ) {
    await requireAdmin(viewer, input.eid);
    const removed = await db
      .delete(enterpriseMembers)
      .where(
        and(
          eq(enterpriseMembers.enterpriseId, input.eid),
          eq(enterpriseMembers.userId, input.userId),
          eq(enterpriseMembers.kind, input.kind),
        ),
      )
      .returning({ userId: enterpriseMembers.userId });
    if (removed.length === 0) throw fail("MEMBER_NOT_FOUND");
  }

  async function adminDevices(viewer: Viewer, eid: number, type: ListType) {
    await requireAdmin(viewer, eid);
    return deviceList(
      { userId: viewer.userId, role: "operator" },
      { eid, type, page: 1, pageSize: 5000 },
    );
  }

  async function assignDevice(
    viewer: Viewer,
    input: { eid: number; code: string; type: ListType },
  ) {
    requireOperator(viewer);
    await requireEnterprise(input.eid);
    const [device] = await db.select().from(devices).where(eq(devices.code, input.code)).limit(1);
    if (!device) throw fail("MACHINE_CODE_NOT_FOUND");
    const [held] = await db
      .select({ enterpriseId: enterpriseDevices.enterpriseId })
      .from(enterpriseDevices)
      .where(and(eq(enterpriseDevices.deviceId, device.id), eq(enterpriseDevices.type, input.type)))
      .limit(1);
    if (held) {
      throw fail(
        held.enterpriseId === input.eid ? "DEVICE_ALREADY_ADDED" : "DEVICE_IN_OTHER_ENTERPRISE",
      );
    }
    if (input.type === 1) {
      // An enterprise device has no personal owner (SPEC 04010112: personal OR enterprise).
      const [akey] = await db
        .select({ id: deviceLinks.id })
        .from(deviceLinks)
        .where(and(eq(deviceLinks.deviceId, device.id), eq(deviceLinks.role, "akey")))
        .limit(1);
      if (akey) throw fail("DEVICE_ALREADY_ADDED");
    }
    await db.insert(enterpriseDevices).values({
      enterpriseId: input.eid,
      deviceId: device.id,
      type: input.type,
      name: device.code,
      createdAt: clock.now(),
    });
    return toMachine(device, { eid: input.eid });
  }

  async function removeDevice(
    viewer: Viewer,
    input: { eid: number; deviceId: number; type: ListType },
  ) {
    requireOperator(viewer);
    const removed = await db
      .delete(enterpriseDevices)
      .where(heldBy(input.eid, input.deviceId, input.type))
      .returning({ deviceId: enterpriseDevices.deviceId });
    if (removed.length === 0) throw fail("EDIT_MACHINE_NOT_FOUND");
    await deps.releaseFromProjects?.(input.eid, input.type, input.deviceId);
  }

  async function createGroup(viewer: Viewer, eid: number, name: string) {
    await requireAdmin(viewer, eid);
    const inserted = await db
      .insert(enterpriseGroups)
      .values({ enterpriseId: eid, name, createdAt: clock.now() })
      .onConflictDoNothing()
      .returning();
    if (inserted.length === 0) throw fail("GROUP_EXISTS");
    return { id: inserted[0].id, name: inserted[0].name };
  }

  async function deleteGroup(viewer: Viewer, eid: number, groupId: number) {
    await requireAdmin(viewer, eid);
    const [{ n }] = await db
      .select({ n: count() })
      .from(enterpriseDevices)
      .where(and(eq(enterpriseDevices.enterpriseId, eid), eq(enterpriseDevices.groupId, groupId)));
    if (n > 0) throw fail("GROUP_NOT_EMPTY");
    const removed = await db
      .delete(enterpriseGroups)
      .where(and(eq(enterpriseGroups.enterpriseId, eid), eq(enterpriseGroups.id, groupId)))
      .returning({ id: enterpriseGroups.id });
    if (removed.length === 0) throw fail("GROUP_NOT_FOUND");
  }

  /** Puts an enterprise device into one of the enterprise's groups (0: none). */
  async function setDeviceGroup(
    viewer: Viewer,
    input: { eid: number; deviceId: number; type: ListType; groupId: number },
  ) {
    await requireAdmin(viewer, input.eid);
    if (input.groupId) {
      const [group] = await db
        .select({ id: enterpriseGroups.id })
        .from(enterpriseGroups)
        .where(
          and(eq(enterpriseGroups.enterpriseId, input.eid), eq(enterpriseGroups.id, input.groupId)),
        );
      if (!group) throw fail("GROUP_NOT_FOUND");
    }
    const updated = await db
      .update(enterpriseDevices)
      .set({ groupId: input.groupId || null })
      .where(heldBy(input.eid, input.deviceId, input.type))
      .returning({ deviceId: enterpriseDevices.deviceId });
    if (updated.length === 0) throw fail("EDIT_MACHINE_NOT_FOUND");
  }

  async function registry(
    viewer: Viewer,
    q: { page: number; pageSize: number; search?: string },
  ): Promise<{ list: RegistryEntry[]; total: number }> {
    requireOperator(viewer);
    const where = q.search ? ilike(devices.code, likePattern(q.search)) : undefined;
    const [rows, [{ total }]] = await Promise.all([
      db
        .select()
        .from(devices)
        .where(where)
        .orderBy(desc(devices.id))
        .limit(q.pageSize)
        .offset((q.page - 1) * q.pageSize),
      db.select({ total: count() }).from(devices).where(where),
    ]);
    const ids = rows.map((d) => d.id);
    const [akeys, held] = ids.length
      ? await Promise.all([
          db
            .select({ deviceId: deviceLinks.deviceId, user: users })
            .from(deviceLinks)
            .innerJoin(users, eq(users.id, deviceLinks.userId))
            .where(and(inArray(deviceLinks.deviceId, ids), eq(deviceLinks.role, "akey"))),
          db
            .select({
              deviceId: enterpriseDevices.deviceId,
              eid: enterprises.id,
              name: enterprises.name,
            })
            .from(enterpriseDevices)
            .innerJoin(enterprises, eq(enterprises.id, enterpriseDevices.enterpriseId))
            .where(and(inArray(enterpriseDevices.deviceId, ids), eq(enterpriseDevices.type, 1))),
        ])
      : [[], []];
    return {
      list: rows.map((d) => {
        const owner = akeys.find((a) => a.deviceId === d.id);
        const ent = held.find((h) => h.deviceId === d.id);
        return {
          machine_id: d.id,
          machine_code: d.code,
          model: d.model,
          akey: owner ? accountOf(owner.user) : null,
          eid: ent?.eid ?? null,
          enterprise_name: ent?.name ?? null,
          created_at: d.createdAt.toISOString(),
        };
      }),
      total,
    };
  }

  return {
    listForUser,
    info,
    logo,
    permission,
    deviceList,
    groups,
    requireList,
    maintenanceTeam: async (viewer: Viewer, eid: number) => {
      await access(viewer, eid);
      return { list: await members(eid, "maintenance") };
    },
    machineInfo,
    deviceScope,
    machinePersonnel,
    updateMaintenanceRemark,
    create,
    creation,
    createOwn,
    setProject,
    brandSettingsList,
    setBrandSettings,
    listAll,
    listMembers,
    addMember,
    removeMember,
    adminDevices,
    assignDevice,
    removeDevice,
    createGroup,
    deleteGroup,
    setDeviceGroup,
    registry,
  };
}
