import {
  ALARM_LEVEL_RANGES,
  type AlarmLevelKey,
  type AlarmRights,
  type AlarmStateFilter,
} from "@keyway/shared";
import { eq, gte, isNotNull, isNull, lte, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { devices } from "../devices/schema.ts";
import type { Permissions } from "../permissions/service.ts";
import { alarms } from "./schema.ts";

export interface AlarmViewer {
  userId: number;
  role: "user" | "operator";
}

/** The devices a viewer sees in one context, with their identity on each (see the scopes). */
export type DeviceScope = ReturnType<Permissions["personalScope"]>;
export interface Context {
  scope: DeviceScope;
  isAdmin: boolean;
  isMaintenanceMember: boolean;
}

export interface AlarmFilter {
  eid: number;
  deviceCode?: string;
  level?: AlarmLevelKey;
  state?: AlarmStateFilter;
  startTime?: Date;
  endTime?: Date;
}

export interface ContextDeps {
  db: Db;
  personalScope: (userId: number) => DeviceScope;
  enterpriseScope: (viewer: AlarmViewer, eid: number) => Promise<Context>;
  mayConfirmAll: (userId: number, deviceId: number) => Promise<boolean>;
}

export type AlarmContexts = ReturnType<typeof createAlarmContexts>;

/** A viewer's context (personal, or an enterprise) and what they may do with its alarms. */
export function createAlarmContexts(deps: ContextDeps) {
  const { db } = deps;

  async function contextOf(viewer: AlarmViewer, eid: number): Promise<Context> {
    if (eid === 0) {
      return {
        scope: deps.personalScope(viewer.userId),
        isAdmin: false,
        isMaintenanceMember: false,
      };
    }
    return deps.enterpriseScope(viewer, eid);
  }

  /**
   * Who may do what with a device's alarms. Personal: the Akey and Bkeys confirm and reset,
   * an ordinary user with write level confirms, a visitor or read-only user only reads.
   * Enterprise: whoever sees the device confirms; its admins, and the maintenance members
   * for a maintained device, reset. Confirm-all: the access module's rule (SPEC §6).
   */
  async function rightsOf(
    ctx: Context,
    viewer: AlarmViewer,
    row: { deviceId: number; role: string; canWrite: boolean; maintained: boolean },
  ): Promise<AlarmRights> {
    const manager = row.role === "akey" || row.role === "bkey";
    const enterprise = row.role === "enterprise";
    return {
      confirm: manager || enterprise || (row.role === "user" && row.canWrite),
      reset:
        manager || (enterprise && (ctx.isAdmin || (row.maintained && ctx.isMaintenanceMember))),
      confirmAll: await deps.mayConfirmAll(viewer.userId, row.deviceId),
    };
  }

  /** A device of the context by its code; others (and unknown codes) look the same. */
  async function deviceIn(ctx: Context, code: string) {
    const { scope } = ctx;
    const [row] = await db
      .select({
        deviceId: devices.id,
        code: devices.code,
        role: scope.role,
        canWrite: scope.canWrite,
        maintained: scope.maintained,
      })
      .from(scope)
      .innerJoin(devices, eq(devices.id, scope.deviceId))
      .where(eq(devices.code, code))
      .limit(1);
    if (!row) throw fail("EDIT_MACHINE_NOT_FOUND");
    return row;
  }

  return { contextOf, rightsOf, deviceIn };
}

/** The filters of a list or the statistics as SQL conditions on `alarms`. */
export function conditions(f: Omit<AlarmFilter, "eid" | "deviceCode"> & { deviceId?: number }) {
  const where: SQL[] = [];
  if (f.deviceId !== undefined) where.push(eq(alarms.deviceId, f.deviceId));
  if (f.level) {
    const [min, max] = ALARM_LEVEL_RANGES[f.level];
    where.push(lte(alarms.level, max));
    if (f.level !== "info") where.push(gte(alarms.level, min));
  }
  if (f.state === "unconfirmed") where.push(isNull(alarms.confirmedAt));
  if (f.state === "confirmed") where.push(isNotNull(alarms.confirmedAt));
  if (f.state === "cleared") where.push(isNotNull(alarms.clearedAt));
  if (f.state === "active") where.push(isNull(alarms.clearedAt));
  if (f.startTime) where.push(gte(alarms.time, f.startTime));
  if (f.endTime) where.push(lte(alarms.time, f.endTime));
  return where;
}
