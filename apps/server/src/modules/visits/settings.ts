import { AGENT_FEATURE_CONTROL, type AgentHello } from "@keyway/protocol";
import type { RemoteSettings } from "@keyway/shared";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import type { Actor } from "../access/service.ts";
import { deviceLinks } from "../devices/schema.ts";
import { remoteSettings } from "./schema.ts";

/** What a device's remote access asks for beyond the right (docs/architecture/remote-access.md). */
export interface RemoteRules {
  onsiteConsent: boolean;
  readonlyWebsocket: boolean;
}

const DEFAULTS: RemoteRules = { onsiteConsent: false, readonlyWebsocket: false };

/**
 * A device's remote-access settings: on-site consent and WebSockets for read-only visitors.
 * The Akey sets them; the Akey and Bkeys read them. `rules` is what the relay and the issuer
 * ask (no cache: a setting turned on applies to the next visit).
 */
export function createRemoteSettings(deps: {
  db: Db;
  clock: Clock;
  /** The agent's hello when its tunnel is up on any node. */
  helloOf: (deviceId: number) => Promise<AgentHello | null>;
}) {
  const { db, clock } = deps;

  async function rules(deviceId: number): Promise<RemoteRules> {
    const [row] = await db
      .select()
      .from(remoteSettings)
      .where(eq(remoteSettings.deviceId, deviceId))
      .limit(1);
    return row
      ? { onsiteConsent: row.onsiteConsent, readonlyWebsocket: row.readonlyWebsocket }
      : DEFAULTS;
  }

  /** The caller's role on the device when it is the Akey or a Bkey; refused otherwise. */
  async function approverRole(userId: number, deviceId: number): Promise<"akey" | "bkey"> {
    const [link] = await db
      .select({ role: deviceLinks.role })
      .from(deviceLinks)
      .where(
        and(
          eq(deviceLinks.userId, userId),
          eq(deviceLinks.deviceId, deviceId),
          inArray(deviceLinks.role, ["akey", "bkey"]),
        ),
      )
      .limit(1);
    if (!link) throw fail("DEVICE_NO_PERMISSION");
    return link.role as "akey" | "bkey";
  }

  async function view(deviceId: number, role: "akey" | "bkey"): Promise<RemoteSettings> {
    const [r, hello] = await Promise.all([rules(deviceId), deps.helloOf(deviceId)]);
    return {
      machine_id: deviceId,
      onsite_consent: r.onsiteConsent,
      readonly_websocket: r.readonlyWebsocket,
      screen: Boolean(hello?.vnc),
      consent_supported: Boolean(hello?.features?.includes(AGENT_FEATURE_CONTROL)),
      can_edit: role === "akey",
    };
  }

  async function get(actor: Actor, deviceId: number): Promise<RemoteSettings> {
    return view(deviceId, await approverRole(actor.userId, deviceId));
  }

  /** The Akey turns a setting on or off; Bkeys and others are refused. */
  async function set(
    actor: Actor,
    input: { deviceId: number; onsite_consent?: boolean; readonly_websocket?: boolean },
  ): Promise<RemoteSettings> {
    const role = await approverRole(actor.userId, input.deviceId);
    if (role !== "akey") throw fail("DEVICE_NO_PERMISSION");
    const current = await rules(input.deviceId);
    const next = {
      onsiteConsent: input.onsite_consent ?? current.onsiteConsent,
      readonlyWebsocket: input.readonly_websocket ?? current.readonlyWebsocket,
    };
    await db
      .insert(remoteSettings)
      .values({ deviceId: input.deviceId, ...next, updatedAt: clock.now() })
      .onConflictDoUpdate({
        target: remoteSettings.deviceId,
        set: { ...next, updatedAt: clock.now() },
      });
    return view(input.deviceId, role);
  }

  return { rules, approverRole, get, set };
}

export type RemoteSettingsService = ReturnType<typeof createRemoteSettings>;
