import { and, eq, inArray, isNull, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { devices } from "../devices/schema.ts";
import type { DeviceService } from "../devices/service.ts";
import { iotCards } from "./schema.ts";

export interface IotCardViewer {
  userId: number;
  role: "user" | "operator";
}

type DeviceScope = ReturnType<DeviceService["personalScope"]>;

/**
 * Which cards a viewer sees: personally those of the devices it manages, in an enterprise
 * those of the devices the enterprise shows it (enterprises module's deviceScope).
 */
export function createCardContexts(deps: {
  db: Db;
  personalScope: (userId: number) => DeviceScope;
  enterpriseScope: (viewer: IotCardViewer, eid: number) => Promise<{ scope: DeviceScope }>;
}) {
  const { db } = deps;

  async function contextOf(viewer: IotCardViewer, eid: number) {
    if (eid === 0) {
      const scope = deps.personalScope(viewer.userId);
      // Personal: the device's managers only (Akey, Bkeys); visitors and ordinary users do not
      // see the operator's SIM plan.
      return { scope, where: inArray(scope.role, ["akey", "bkey"]) as SQL };
    }
    const { scope } = await deps.enterpriseScope(viewer, eid);
    return { scope, where: undefined };
  }

  type Context = Awaited<ReturnType<typeof contextOf>>;

  function visible(ctx: Context, extra: (SQL | undefined)[] = []) {
    return db
      .select({ card: iotCards, code: devices.code, name: ctx.scope.name })
      .from(iotCards)
      .innerJoin(ctx.scope, eq(ctx.scope.deviceId, iotCards.deviceId))
      .innerJoin(devices, eq(devices.id, iotCards.deviceId))
      .where(and(ctx.where, ...extra));
  }

  async function cardIn(ctx: Context, by: { iccid?: string; deviceId?: number }) {
    const [row] = await visible(ctx, [
      by.iccid !== undefined ? eq(iotCards.iccid, by.iccid) : undefined,
      by.deviceId !== undefined ? eq(iotCards.deviceId, by.deviceId) : undefined,
      // By device: the card it reports now (a replaced card stays findable by ICCID).
      by.iccid === undefined ? isNull(iotCards.removedAt) : undefined,
    ]).limit(1);
    // Someone else's card and a missing one look the same.
    if (!row) throw fail("IOT_CARD_NOT_FOUND");
    return row;
  }

  /** The devices of a context (whose reported cards are followed before a view). */
  async function deviceIdsIn(ctx: Context): Promise<number[]> {
    const ids = await db.select({ id: ctx.scope.deviceId }).from(ctx.scope).where(ctx.where);
    return ids.map((r) => r.id);
  }

  /** Whether the context shows the device. */
  async function seesDevice(ctx: Context, deviceId: number): Promise<boolean> {
    const [seen] = await db
      .select({ id: ctx.scope.deviceId })
      .from(ctx.scope)
      .where(and(ctx.where, eq(ctx.scope.deviceId, deviceId)))
      .limit(1);
    return Boolean(seen);
  }

  return { contextOf, visible, cardIn, deviceIdsIn, seesDevice };
}

export type CardContexts = ReturnType<typeof createCardContexts>;
export type Context = Awaited<ReturnType<CardContexts["contextOf"]>>;
/** A card as a viewer sees it: with its device's code and the name shown in the context. */
export type VisibleCard = Awaited<ReturnType<CardContexts["visible"]>>[number];
