import { maskPhone } from "@keyway/shared";
import { and, eq, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { terminals, users } from "../accounts/schema.ts";
import type { AccountRef } from "../accounts/service.ts";
import { type Device, type DeviceLink, deviceLinks, devices } from "../devices/schema.ts";
import type { MessageService } from "../messages/service.ts";
import type { Permissions } from "../permissions/service.ts";
import { type VisitGrant, visitGrants } from "./schema.ts";

export const MINUTE_MS = 60_000;

/** Who is acting: the user and the terminal (its terminalUUID binds visit grants). */
export interface Actor {
  userId: number;
  terminalId: number;
}

/** What the access service is built on (wired in app.ts). */
export interface AccessDeps {
  db: Db;
  clock: Clock;
  messages: MessageService;
  /** Who may act on a device (the permissions module). */
  permissions: Permissions;
  findUser: (ref: AccountRef) => Promise<{ id: number } | undefined>;
  /** Told when a user's right on a device may have ended (remote access closes streams). */
  /** Where changed rights and links are told (domain events). */
  events?: Pick<Events, "publish">;
}

export function accountOf(u: { email: string | null; phone: string | null }) {
  return { phone: u.phone ? maskPhone(u.phone) : "", email: u.email ?? "" };
}

/** Whether a visit grant lets its terminal in at `now`. */
export const grantValid = (g: VisitGrant, now: Date) =>
  !g.clearedAt && (g.expiresAt === null || g.expiresAt > now);

/** The reads every part of the access service shares, on its deps. */
export function createLookups(deps: AccessDeps) {
  const { db, permissions } = deps;

  // Built once: every open visit's rights check runs these each second, and on PGlite
  // building a statement cost as much as running it (decision 205, 231).
  const deviceById = db
    .select()
    .from(devices)
    .where(eq(devices.id, sql.placeholder("deviceId")))
    .limit(1)
    .prepare("access_device_by_id");
  const linkByUser = db
    .select()
    .from(deviceLinks)
    .where(
      and(
        eq(deviceLinks.userId, sql.placeholder("userId")),
        eq(deviceLinks.deviceId, sql.placeholder("deviceId")),
      ),
    )
    .limit(1)
    .prepare("access_link_of_user");

  async function requireDevice(deviceId: number): Promise<Device> {
    const [device] = await deviceById.execute({ deviceId });
    if (!device) throw fail("EDIT_MACHINE_NOT_FOUND");
    return device;
  }

  async function linkOf(userId: number, deviceId: number, tx: Db = db) {
    if (tx === db) {
      const [link] = await linkByUser.execute({ userId, deviceId });
      return link as DeviceLink | undefined;
    }
    const [link] = await tx
      .select()
      .from(deviceLinks)
      .where(and(eq(deviceLinks.userId, userId), eq(deviceLinks.deviceId, deviceId)))
      .limit(1);
    return link as DeviceLink | undefined;
  }

  /** The caller's link on a device where the permissions allow `act`; others are refused. */
  async function requireLink(userId: number, deviceId: number, act: "approve" | "own") {
    await permissions.require(userId, deviceId, act);
    const link = await linkOf(userId, deviceId);
    if (!link) throw fail("DEVICE_NO_PERMISSION");
    return link;
  }

  /** The caller's approver side on a device: its Akey or a Bkey; anyone else is refused. */
  const requireApprover = (userId: number, deviceId: number) =>
    requireLink(userId, deviceId, "approve");
  const requireAkey = (userId: number, deviceId: number) => requireLink(userId, deviceId, "own");

  async function approversOf(deviceId: number, tx: Db = db) {
    return tx
      .select({ userId: deviceLinks.userId, role: deviceLinks.role, name: deviceLinks.name })
      .from(deviceLinks)
      .where(
        and(
          eq(deviceLinks.deviceId, deviceId),
          or(eq(deviceLinks.role, "akey"), eq(deviceLinks.role, "bkey")),
        ),
      );
  }

  async function isBlacklisted(deviceId: number, userId: number): Promise<boolean> {
    return (await permissions.blacklisted(userId, [deviceId])).has(deviceId);
  }

  async function terminalOf(terminalId: number) {
    const [t] = await db
      .select({ uuid: terminals.uuid, name: terminals.name })
      .from(terminals)
      .where(eq(terminals.id, terminalId))
      .limit(1);
    return t ?? { uuid: "", name: "" };
  }

  async function grantFor(deviceId: number, userId: number, terminalUuid: string) {
    const [grant] = await db
      .select()
      .from(visitGrants)
      .where(
        and(
          eq(visitGrants.deviceId, deviceId),
          eq(visitGrants.userId, userId),
          eq(visitGrants.terminalUuid, terminalUuid),
        ),
      )
      .limit(1);
    return grant as VisitGrant | undefined;
  }

  async function userName(userId: number): Promise<string> {
    const [u] = await db
      .select({ name: users.name })
      .from(users)
      .where(eq(users.id, userId))
      .limit(1);
    return u?.name ?? "";
  }

  const rightsChanged = (deviceId: number, userId?: number) =>
    deps.events?.publish("rights.changed", { deviceId, userId });

  return {
    requireDevice,
    linkOf,
    requireApprover,
    requireAkey,
    approversOf,
    isBlacklisted,
    terminalOf,
    grantFor,
    userName,
    rightsChanged,
  };
}

/** The deps with the shared reads: what each part of the access service is made from. */
export type AccessContext = AccessDeps & ReturnType<typeof createLookups>;
