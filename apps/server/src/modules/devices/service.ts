import { randomBytes, randomInt } from "node:crypto";
import type { CommandPayload } from "@keyway/protocol";
import {
  AUDIT_STATE,
  type DeviceGroup,
  type DeviceRoleInfo,
  GROUP_LIMIT,
  type LimitAuthority,
  type Machine,
  type MachineStateEntry,
  machineIconFor,
  machineIconUrl,
  type ProvisionedDevice,
} from "@keyway/shared";
import {
  and,
  count,
  desc,
  eq,
  getTableColumns,
  ilike,
  inArray,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashPassword, hashToken, verifyPassword } from "../../infra/crypto.ts";
import { accessRequests, blackList, visitGrants } from "../access/schema.ts";
import { ezvizAccountIdColumn } from "../cameras/binding.ts";
import { enterpriseDevices, enterpriseMembers } from "../enterprises/schema.ts";
import { type Device, type DeviceLink, deviceGroups, deviceLinks, devices } from "./schema.ts";

const CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; // Crockford base32: no I, L, O, U
const PASSWORD_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";

function randomFrom(alphabet: string, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** "KW-XXXXX-XXXXX": 50 random bits, easy to read aloud and type. */
export function newMachineCode(): string {
  return `KW-${randomFrom(CODE_ALPHABET, 5)}-${randomFrom(CODE_ALPHABET, 5)}`;
}

const AUTHORITY: Record<DeviceLink["role"], LimitAuthority> = {
  akey: 3,
  bkey: 2,
  user: 2,
  visitor: 2,
};

/** The device columns a Machine shows: lists select only these (never the hashes). */
export const machineColumns = {
  id: devices.id,
  code: devices.code,
  model: devices.model,
  checkType: devices.checkType,
  cloudService: devices.cloudService,
  online: devices.online,
  version: devices.version,
  ip: devices.ip,
  iccid: devices.iccid,
  locationWay: devices.locationWay,
  lat: devices.lat,
  lng: devices.lng,
  address: devices.address,
  createdAt: devices.createdAt,
  ezvizAccountId: ezvizAccountIdColumn,
};
export type MachineSource = Pick<Device, Exclude<keyof typeof machineColumns, "ezvizAccountId">> & {
  /** The bound camera account (SPEC ezviz_account_id); absent on a bare device row: 0. */
  ezvizAccountId?: number;
};

/** The SPEC's Machine as the wire shows it, from a device and the viewer's link to it. */
export function toMachine(
  device: MachineSource,
  view: {
    link?: Pick<DeviceLink, "role" | "name" | "alias" | "remark" | "groupId" | "createdAt"> | null;
    groupName?: string | null;
    eid?: number;
    name?: string;
    maintenanceRemark?: string;
    groupId?: number | null;
  } = {},
): Machine {
  const name = view.link?.name ?? view.name ?? device.code;
  return {
    machine_id: device.id,
    machine_code: device.code,
    machine_name: name,
    machine_remark: view.link?.remark ?? "",
    alias: view.link?.alias ?? "",
    maintenance_remark: view.maintenanceRemark ?? "",
    limit_authority: view.link ? AUTHORITY[view.link.role] : 0,
    role: view.link?.role ?? "none",
    check_type: device.checkType === 1 ? 1 : 0,
    cloud_service: device.cloudService ? 1 : 0,
    groups: (view.link ? view.link.groupId : view.groupId) ?? 0,
    group_name: view.groupName ?? "",
    state: device.online ? 1 : 0,
    online: device.online,
    model: device.model,
    version: device.version,
    ip: device.ip,
    iccid_num: device.iccid,
    eid: view.eid ?? 0,
    hasPasswd: 1,
    lat: device.lat,
    lng: device.lng,
    address: device.address,
    locationWay: device.locationWay,
    locationType: device.locationWay === "manual" ? "manual" : "auto",
    ezviz_account_id: device.ezvizAccountId ?? 0,
    icon: machineIconUrl(machineIconFor(device.model, name)),
    created_at: (view.link?.createdAt ?? device.createdAt).toISOString(),
  };
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code === "23505" || e?.cause?.code === "23505";
}

export type DeviceService = ReturnType<typeof createDeviceService>;

/** Devices in a user's personal context, their groups, and the operator's registry. */
export function createDeviceService(deps: {
  db: Db;
  clock: Clock;
  /** Delivers a command to a device (the gateway); absent in tools like the CLI. */
  sendCommand?: (machineCode: string, command: CommandPayload) => Promise<void>;
  /** Told when identities on a device end (remote access closes streams). */
  onRightsChanged?: (deviceId: number, userId?: number) => void;
  /** After a delete: projects whose owner no longer manages the device let it go. */
  releaseFromProjects?: (deviceId: number) => Promise<unknown>;
}) {
  const { db, clock } = deps;

  async function provision(count: number, model = ""): Promise<ProvisionedDevice[]> {
    const issued: ProvisionedDevice[] = [];
    const now = clock.now();
    // Hash in small parallel batches: argon2 runs on libuv's pool.
    for (let start = 0; start < count; start += 8) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(8, count - start) }, async () => {
          // Hex: 256 bits that no command line mistakes for an option (base64url may start with "-").
          const deviceSecret = randomBytes(32).toString("hex");
          const devicePassword = randomFrom(PASSWORD_ALPHABET, 10);
          return {
            machineCode: newMachineCode(),
            deviceSecret,
            devicePassword,
            model,
            passwordHash: await hashPassword(devicePassword),
          };
        }),
      );
      const rows = await db
        .insert(devices)
        .values(
          batch.map((b) => ({
            code: b.machineCode,
            model,
            secretHash: hashToken(b.deviceSecret),
            passwordHash: b.passwordHash,
            createdAt: now,
          })),
        )
        .onConflictDoNothing()
        .returning({ code: devices.code });
      const inserted = new Set(rows.map((r) => r.code));
      for (const b of batch) {
        if (inserted.has(b.machineCode)) {
          issued.push({
            machineCode: b.machineCode,
            deviceSecret: b.deviceSecret,
            devicePassword: b.devicePassword,
            model,
          });
        }
      }
    }
    // A code collision (1 in 2^50) just issues one fewer; top up.
    if (issued.length < count) issued.push(...(await provision(count - issued.length, model)));
    return issued;
  }

  async function findByCode(code: string): Promise<Device | undefined> {
    const [device] = await db.select().from(devices).where(eq(devices.code, code)).limit(1);
    return device;
  }

  async function requireGroup(userId: number, groupId: number | undefined): Promise<number | null> {
    if (!groupId) return null;
    const [group] = await db
      .select({ id: deviceGroups.id })
      .from(deviceGroups)
      .where(and(eq(deviceGroups.id, groupId), eq(deviceGroups.userId, userId)))
      .limit(1);
    if (!group) throw fail("GROUP_NOT_FOUND");
    return group.id;
  }

  async function add(
    userId: number,
    input: { name: string; code: string; password: string; groupId?: number },
  ): Promise<Machine> {
    const device = await findByCode(input.code);
    if (!device) throw fail("MACHINE_CODE_NOT_FOUND");
    const [taken] = await db
      .select({ id: deviceLinks.id })
      .from(deviceLinks)
      .where(and(eq(deviceLinks.deviceId, device.id), eq(deviceLinks.role, "akey")))
      .limit(1);
    const [held] = await db
      .select({ id: enterpriseDevices.deviceId })
      .from(enterpriseDevices)
      .where(and(eq(enterpriseDevices.deviceId, device.id), eq(enterpriseDevices.type, 1)))
      .limit(1);
    // Owned already: said before the password, so someone with only the code is led to a
    // visit or bind request (the code is what such a request names anyway).
    if (taken || held) throw fail("DEVICE_ALREADY_ADDED");
    if (!(await verifyPassword(device.passwordHash, input.password))) {
      throw fail("DEVICE_PASSWORD_ERROR");
    }
    const groupId = await requireGroup(userId, input.groupId);
    try {
      const [link] = await db
        .insert(deviceLinks)
        .values({
          deviceId: device.id,
          userId,
          role: "akey",
          name: input.name,
          groupId,
          createdAt: clock.now(),
        })
        .returning();
      return toMachine(device, { link });
    } catch (error) {
      // Two users adding the same device at once: the one-Akey index decides.
      if (isUniqueViolation(error)) throw fail("DEVICE_ALREADY_ADDED");
      throw error;
    }
  }

  const personalColumns = {
    device: { ...getTableColumns(devices), ezvizAccountId: ezvizAccountIdColumn },
    link: deviceLinks,
    groupName: deviceGroups.name,
  };

  async function list(
    userId: number,
    filter: { groupId?: number; search?: string; page?: number; pageSize?: number } = {},
  ) {
    const conditions: SQL[] = [eq(deviceLinks.userId, userId)];
    if (filter.groupId) conditions.push(eq(deviceLinks.groupId, filter.groupId));
    if (filter.search) {
      const pattern = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      conditions.push(
        or(
          ilike(deviceLinks.name, pattern),
          ilike(devices.code, pattern),
          ilike(deviceLinks.alias, pattern),
          ilike(deviceLinks.remark, pattern),
        ) as SQL,
      );
    }
    const query = db
      .select({ ...personalColumns, total: sql<number>`cast(count(*) over () as int)` })
      .from(deviceLinks)
      .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
      .leftJoin(deviceGroups, eq(deviceGroups.id, deviceLinks.groupId))
      .where(and(...conditions))
      .orderBy(desc(deviceLinks.createdAt), desc(deviceLinks.id))
      .$dynamic();
    const paged = filter.pageSize !== undefined;
    if (paged)
      query.limit(filter.pageSize ?? 0).offset(((filter.page ?? 1) - 1) * (filter.pageSize ?? 0));
    const rows = await query;
    const list = rows.map((r) => toMachine(r.device, { link: r.link, groupName: r.groupName }));
    // Past the last page the window count has no row: count separately then.
    let total = rows[0]?.total ?? 0;
    if (paged && rows.length === 0 && (filter.page ?? 1) > 1) {
      [{ total }] = await db
        .select({ total: count() })
        .from(deviceLinks)
        .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
        .where(and(...conditions));
    }
    return { list, total };
  }

  async function requireLink(userId: number, deviceId: number) {
    const [row] = await db
      .select(personalColumns)
      .from(deviceLinks)
      .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
      .leftJoin(deviceGroups, eq(deviceGroups.id, deviceLinks.groupId))
      .where(and(eq(deviceLinks.userId, userId), eq(deviceLinks.deviceId, deviceId)))
      .limit(1);
    // Another user's device and a missing device look the same.
    if (!row) throw fail("EDIT_MACHINE_NOT_FOUND");
    return row;
  }

  async function detail(userId: number, deviceId: number): Promise<Machine> {
    const row = await requireLink(userId, deviceId);
    return toMachine(row.device, { link: row.link, groupName: row.groupName });
  }

  async function roleInfo(userId: number, deviceId: number): Promise<DeviceRoleInfo> {
    const [link] = await db
      .select({ role: deviceLinks.role })
      .from(deviceLinks)
      .where(and(eq(deviceLinks.userId, userId), eq(deviceLinks.deviceId, deviceId)))
      .limit(1);
    return {
      limit_authority: link ? AUTHORITY[link.role] : 0,
      role: link?.role ?? "none",
    };
  }

  async function update(
    userId: number,
    input: {
      deviceId: number;
      name: string;
      remark?: string;
      alias?: string;
      groupId?: number;
      /** The code of the device the client is editing: a guard against a stale row. */
      code?: string;
    },
  ): Promise<Machine> {
    // SPEC §8 edit codes (docs/decisions.md 110): 04010412 the id is not in the caller's list;
    // 04010406 the code is another of the caller's devices; 040104011 it is none of them.
    const row = await requireLink(userId, input.deviceId);
    const code = input.code?.trim().toUpperCase();
    if (code && code !== row.device.code) {
      const [other] = await db
        .select({ id: devices.id })
        .from(deviceLinks)
        .innerJoin(devices, eq(devices.id, deviceLinks.deviceId))
        .where(and(eq(deviceLinks.userId, userId), eq(devices.code, code)))
        .limit(1);
      throw fail(other ? "EDIT_MACHINE_CODE_EXISTS" : "EDIT_MACHINE_FAILED");
    }
    const groupId =
      input.groupId === undefined ? undefined : await requireGroup(userId, input.groupId);
    await db
      .update(deviceLinks)
      .set({
        name: input.name,
        ...(input.remark !== undefined && { remark: input.remark }),
        ...(input.alias !== undefined && { alias: input.alias }),
        ...(groupId !== undefined && { groupId }),
      })
      .where(and(eq(deviceLinks.userId, userId), eq(deviceLinks.deviceId, input.deviceId)));
    return detail(userId, input.deviceId);
  }

  /**
   * Removes the device from the user's list. When the Akey deletes it the device is unbound:
   * every identity on it goes, and it can be added again.
   */
  async function remove(userId: number, deviceId: number): Promise<void> {
    const [link] = await db
      .select()
      .from(deviceLinks)
      .where(and(eq(deviceLinks.userId, userId), eq(deviceLinks.deviceId, deviceId)))
      .limit(1);
    // Missing, someone else's or already deleted: one answer, so ids cannot be probed
    // (decision 18); the client counts it as success.
    if (!link) throw fail("DELETE_MACHINE_GONE");
    await db.transaction(async (tx) => {
      const mine = await tx
        .delete(deviceLinks)
        .where(eq(deviceLinks.id, link.id))
        .returning({ id: deviceLinks.id });
      // The link went between the read and now (the Akey unbound the device meanwhile).
      if (mine.length === 0) throw fail("DELETE_MACHINE_NOT_BOUND");
      if (link.role === "akey") {
        // Unbound: no identity, visit time, black list or open request survives the owner.
        await tx.delete(deviceLinks).where(eq(deviceLinks.deviceId, deviceId));
        await tx.delete(visitGrants).where(eq(visitGrants.deviceId, deviceId));
        await tx.delete(blackList).where(eq(blackList.deviceId, deviceId));
        await tx
          .update(accessRequests)
          .set({ state: AUDIT_STATE.refusedByAkey, updatedAt: clock.now() })
          .where(
            and(
              eq(accessRequests.deviceId, deviceId),
              inArray(accessRequests.state, [
                AUDIT_STATE.pending,
                AUDIT_STATE.akeyPassedWaitingBkey,
                AUDIT_STATE.bkeyPassedWaitingAkey,
              ]),
            ),
          );
      } else {
        await tx
          .delete(visitGrants)
          .where(and(eq(visitGrants.deviceId, deviceId), eq(visitGrants.userId, userId)));
      }
    });
    deps.onRightsChanged?.(deviceId, link.role === "akey" ? undefined : userId);
    await deps.releaseFromProjects?.(deviceId);
  }

  /**
   * The devices a user may see anywhere: their personal list, and in each enterprise the
   * list of their membership's kind (enterprise devices for members, maintenance devices
   * for the maintenance team, both for admins). What the state calls answer for.
   */
  function visibleTo(userId: number): SQL {
    const personal = db
      .select({ id: deviceLinks.deviceId })
      .from(deviceLinks)
      .where(eq(deviceLinks.userId, userId));
    const held = db
      .select({ id: enterpriseDevices.deviceId })
      .from(enterpriseDevices)
      .innerJoin(
        enterpriseMembers,
        and(
          eq(enterpriseMembers.enterpriseId, enterpriseDevices.enterpriseId),
          eq(enterpriseMembers.userId, userId),
        ),
      )
      .where(
        or(
          eq(enterpriseMembers.isAdmin, true),
          and(eq(enterpriseMembers.kind, "member"), eq(enterpriseDevices.type, 1)),
          and(eq(enterpriseMembers.kind, "maintenance"), eq(enterpriseDevices.type, 2)),
        ),
      );
    return or(inArray(devices.id, personal), inArray(devices.id, held)) as SQL;
  }

  async function state(userId: number, code: string) {
    const [found] = await states(userId, { codes: [code] });
    // Unknown, or not one the caller may see: the same answer, so codes cannot be probed.
    if (!found) throw fail("EDIT_MACHINE_NOT_FOUND");
    return { state: found.state, online: found.online };
  }

  /** Online state of the devices the caller may see (`visibleTo`), all or by id / code. */
  async function states(
    userId: number,
    filter: { ids?: number[]; codes?: string[] } = {},
  ): Promise<MachineStateEntry[]> {
    const conditions: SQL[] = [visibleTo(userId)];
    if (filter.ids) conditions.push(inArray(devices.id, filter.ids.length ? filter.ids : [0]));
    if (filter.codes)
      conditions.push(inArray(devices.code, filter.codes.length ? filter.codes : [""]));
    const rows = await db
      .select({
        id: devices.id,
        code: devices.code,
        online: devices.online,
        lastSeenAt: devices.lastSeenAt,
      })
      .from(devices)
      .where(and(...conditions))
      .orderBy(desc(devices.id));
    return rows.map((r) => ({
      machine_id: r.id,
      machine_code: r.code,
      state: r.online ? 1 : 0,
      online: r.online,
      last_seen: r.lastSeenAt?.toISOString() ?? null,
    }));
  }

  /**
   * SPEC testMachineState {testUrl}: the state of the device a visit URL (or a bare machine
   * code) points at, for a device in the caller's list. The code may be the URL's
   * `machineCode`/`code` parameter, its host's first label or one of its path segments.
   */
  async function testState(userId: number, testUrl: string) {
    const candidates: string[] = [];
    try {
      const url = new URL(testUrl);
      candidates.push(
        url.searchParams.get("machineCode") ?? "",
        url.searchParams.get("code") ?? "",
        url.hostname.split(".")[0],
        ...url.pathname.split("/"),
      );
    } catch {
      candidates.push(testUrl);
    }
    const codes = [...new Set(candidates.map((c) => c.trim().toUpperCase()))].filter((c) =>
      /^[A-Z0-9-]{8,32}$/.test(c),
    );
    const [found] = codes.length ? await states(userId, { codes }) : [];
    if (!found) throw fail("EDIT_MACHINE_NOT_FOUND");
    return { state: found.state, online: found.online, machine_code: found.machine_code };
  }

  /**
   * The cloud switch (SPEC machineCloudSwitchState): only the Akey turns it; the device is
   * told at once when connected, and again by the gateway each time it (re)connects.
   */
  async function cloudSwitch(userId: number, deviceId: number, open?: boolean) {
    const row = await requireLink(userId, deviceId);
    if (open !== undefined) {
      if (row.link.role !== "akey") throw fail("DEVICE_NO_PERMISSION");
      await db.update(devices).set({ cloudService: open }).where(eq(devices.id, deviceId));
      if (!open) deps.onRightsChanged?.(deviceId);
      await deps.sendCommand?.(row.device.code, { type: "cloudSwitch", open });
    }
    const current = open ?? row.device.cloudService;
    return { machine_id: deviceId, cloud_service: current ? 1 : 0 };
  }

  // ---- Groups ----

  async function listGroups(userId: number): Promise<{ list: DeviceGroup[]; total: number }> {
    const rows = await db
      .select({
        id: deviceGroups.id,
        name: deviceGroups.name,
        deviceCount: sql<number>`cast(count(${deviceLinks.id}) as int)`,
      })
      .from(deviceGroups)
      .leftJoin(deviceLinks, eq(deviceLinks.groupId, deviceGroups.id))
      .where(eq(deviceGroups.userId, userId))
      .groupBy(deviceGroups.id)
      .orderBy(deviceGroups.id);
    return { list: rows, total: rows.length };
  }

  async function createGroup(userId: number, name: string): Promise<DeviceGroup> {
    const [{ n }] = await db
      .select({ n: count() })
      .from(deviceGroups)
      .where(eq(deviceGroups.userId, userId));
    if (n >= GROUP_LIMIT) throw fail("GROUP_LIMIT");
    try {
      const [group] = await db
        .insert(deviceGroups)
        .values({ userId, name, createdAt: clock.now() })
        .returning();
      return { id: group.id, name: group.name, deviceCount: 0 };
    } catch (error) {
      if (isUniqueViolation(error)) throw fail("GROUP_EXISTS");
      throw error;
    }
  }

  async function renameGroup(userId: number, id: number, name: string): Promise<void> {
    try {
      const updated = await db
        .update(deviceGroups)
        .set({ name })
        .where(and(eq(deviceGroups.id, id), eq(deviceGroups.userId, userId)))
        .returning({ id: deviceGroups.id });
      if (updated.length === 0) throw fail("GROUP_NOT_FOUND");
    } catch (error) {
      if (isUniqueViolation(error)) throw fail("GROUP_EXISTS");
      throw error;
    }
  }

  async function deleteGroup(userId: number, id: number): Promise<void> {
    await requireGroup(userId, id);
    const [{ n }] = await db
      .select({ n: count() })
      .from(deviceLinks)
      .where(eq(deviceLinks.groupId, id));
    if (n > 0) throw fail("GROUP_NOT_EMPTY");
    await db
      .delete(deviceGroups)
      .where(and(eq(deviceGroups.id, id), eq(deviceGroups.userId, userId)));
  }

  async function moveToGroup(userId: number, groupId: number, deviceIds: number[]): Promise<void> {
    const target = await requireGroup(userId, groupId);
    const unique = [...new Set(deviceIds)];
    const owned = await db
      .select({ deviceId: deviceLinks.deviceId })
      .from(deviceLinks)
      .where(and(eq(deviceLinks.userId, userId), inArray(deviceLinks.deviceId, unique)));
    if (owned.length !== unique.length) throw fail("EDIT_MACHINE_NOT_FOUND");
    await db
      .update(deviceLinks)
      .set({ groupId: target })
      .where(and(eq(deviceLinks.userId, userId), inArray(deviceLinks.deviceId, unique)));
  }

  /**
   * The devices of a user's personal list as a subquery other modules filter by (the alarm
   * centre): the device, the user's name for it, their identity and write level. The same
   * columns as an enterprise's scope (`enterprises.deviceScope`).
   */
  function personalScope(userId: number) {
    return db
      .select({
        deviceId: sql<number>`${deviceLinks.deviceId}`.as("scope_device_id"),
        name: sql<string>`${deviceLinks.name}`.as("scope_name"),
        role: sql<string>`${deviceLinks.role}`.as("scope_role"),
        canWrite: sql<boolean>`${deviceLinks.canWrite}`.as("scope_can_write"),
        maintained: sql<boolean>`false`.as("scope_maintained"),
      })
      .from(deviceLinks)
      .where(eq(deviceLinks.userId, userId))
      .as("scope");
  }

  return {
    personalScope,
    provision,
    findByCode,
    add,
    list,
    detail,
    roleInfo,
    update,
    remove,
    state,
    states,
    testState,
    cloudSwitch,
    listGroups,
    createGroup,
    renameGroup,
    deleteGroup,
    moveToGroup,
  };
}
