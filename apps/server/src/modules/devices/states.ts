import type { MachineStateEntry } from "@keyway/shared";
import { and, desc, inArray, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Permissions } from "../permissions/service.ts";
import { devices } from "./schema.ts";

/** Online state of the devices a user may see, by id, by code or by a visit URL. */
export function createDeviceStates(deps: { db: Db; permissions: Pick<Permissions, "visibleTo"> }) {
  const { db, permissions } = deps;

  async function state(userId: number, code: string) {
    const [found] = await states(userId, { codes: [code] });
    // Unknown, or not one the caller may see: the same answer, so codes cannot be probed.
    if (!found) throw fail("EDIT_MACHINE_NOT_FOUND");
    return { state: found.state, online: found.online };
  }

  /** Online state of the devices the caller may see anywhere, all or by id / code. */
  async function states(
    userId: number,
    filter: { ids?: number[]; codes?: string[] } = {},
  ): Promise<MachineStateEntry[]> {
    const conditions: SQL[] = [permissions.visibleTo(userId)];
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

  return { state, states, testState };
}
