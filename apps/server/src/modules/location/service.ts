import type { CommandPayload } from "@keyway/protocol";
import { LOCATION_REFRESH_PER_DAY, type MachineLocation } from "@keyway/shared";
import { and, count, eq, gte } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { devices } from "../devices/schema.ts";
import type { DeviceService } from "../devices/service.ts";
import { locationFixes } from "./schema.ts";

type Way = "gps" | "base" | "ip";

/**
 * Device location: automatic (the device reports gps / base station / ip) or manual.
 * Fresh fixes are asked of the device and limited per device per day.
 */
export function createLocationService(deps: {
  db: Db;
  clock: Clock;
  devices: DeviceService;
  sendCommand: (machineCode: string, command: CommandPayload) => Promise<void>;
}) {
  const { db, clock } = deps;

  /** The caller's device, with a role that may change it (Akey or Bkey) when `write`. */
  async function requireDevice(userId: number, deviceId: number, write: boolean) {
    const { role } = await deps.devices.roleInfo(userId, deviceId);
    if (role === "none") throw fail("EDIT_MACHINE_NOT_FOUND");
    if (write && role !== "akey" && role !== "bkey") throw fail("DEVICE_NO_PERMISSION");
    const [device] = await db.select().from(devices).where(eq(devices.id, deviceId)).limit(1);
    return device;
  }

  function dayStart(): Date {
    const now = clock.now();
    return new Date(now.getTime() - 24 * 3600_000);
  }

  async function remaining(deviceId: number, tx: Pick<Db, "select"> = db): Promise<number> {
    const [{ used }] = await tx
      .select({ used: count() })
      .from(locationFixes)
      .where(and(eq(locationFixes.deviceId, deviceId), gte(locationFixes.createdAt, dayStart())));
    return Math.max(0, LOCATION_REFRESH_PER_DAY - used);
  }

  async function get(userId: number, deviceId: number): Promise<MachineLocation> {
    const device = await requireDevice(userId, deviceId, false);
    return {
      machine_id: device.id,
      lat: device.lat,
      lng: device.lng,
      address: device.address,
      locationWay: device.locationWay,
      remaining: await remaining(device.id),
    };
  }

  /** The device follows its way (`cmd` locationWay; sent again whenever it reconnects). */
  async function tellWay(code: string, way: Way | "manual") {
    await deps.sendCommand(code, { type: "locationWay", way });
  }

  async function setAutomatic(userId: number, deviceId: number, way: Way) {
    const device = await requireDevice(userId, deviceId, true);
    await db.update(devices).set({ locationWay: way }).where(eq(devices.id, device.id));
    await tellWay(device.code, way);
    return get(userId, deviceId);
  }

  async function setManual(
    userId: number,
    input: { deviceId: number; lat: number; lng: number; address?: string },
  ) {
    const device = await requireDevice(userId, input.deviceId, true);
    await db
      .update(devices)
      .set({ lat: input.lat, lng: input.lng, address: input.address ?? "", locationWay: "manual" })
      .where(eq(devices.id, device.id));
    if (device.locationWay !== "manual") await tellWay(device.code, "manual");
    return get(userId, input.deviceId);
  }

  /**
   * Asks the device for a fresh fix; the 6th in a day is refused. Count and insert happen
   * under a lock on the device's row, so concurrent refreshes cannot pass the limit together.
   */
  async function refresh(userId: number, deviceId: number) {
    const device = await requireDevice(userId, deviceId, true);
    const granted = await db.transaction(async (tx) => {
      await tx
        .select({ id: devices.id })
        .from(devices)
        .where(eq(devices.id, device.id))
        .for("update");
      if ((await remaining(device.id, tx)) <= 0) return false;
      await tx
        .insert(locationFixes)
        .values({ deviceId: device.id, userId, createdAt: clock.now() });
      return true;
    });
    if (!granted) throw fail("LOCATION_DAILY_LIMIT");
    await deps.sendCommand(device.code, { type: "locationRefresh" });
    return get(userId, deviceId);
  }

  return { get, setAutomatic, setManual, refresh };
}

export type LocationService = ReturnType<typeof createLocationService>;
