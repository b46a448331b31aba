import type { RegistryEntry } from "@keyway/shared";
import { and, count, desc, eq, ilike, inArray } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { users } from "../accounts/schema.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { likePattern } from "../devices/sql.ts";
import { requireOperator, type Viewer } from "./roles.ts";
import { enterpriseDevices, enterprises } from "./schema.ts";
import { accountOf } from "./views.ts";

/** The operator's device registry: every issued device with its Akey and its enterprise. */
export function createOperatorRegistry(deps: { db: Db }) {
  const { db } = deps;

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

  return { registry };
}
