import { create, fromBinary, type Message, toBinary } from "@bufbuild/protobuf";
import type { GenMessage } from "@bufbuild/protobuf/codegenv2";
import {
  type DeviceAuditResp,
  DeviceAuditRespSchema,
  type DeviceInformResp,
  DeviceInformRespSchema,
  type MassTextingResp,
  MassTextingRespSchema,
  PushWrapperSchema,
  type UserLogoutResp,
  UserLogoutRespSchema,
} from "./gen/push_pb.ts";

/**
 * The push channel `/ws` (SPEC §3 "Push messages", §4 "Push channel"): every binary frame
 * is a `PushWrapper {scene, body}` whose body is the message its scene names.
 */
export const PUSH_SCENES = {
  /** A device raised an alarm (DeviceInformResp). */
  deviceAlarm: "ws.device.alarm.resp",
  /** A voice alarm of a device (DeviceInformResp). */
  deviceVoice: "ws.device.voice.resp",
  /** A bind request or its audit outcome (DeviceAuditResp). */
  deviceBind: "ws.device.bind.resp",
  /** A visit request or its audit outcome (DeviceAuditResp). */
  deviceVisit: "ws.device.visit.resp",
  /** An alarm of a project's device (DeviceInformResp). */
  projectAlarm: "ws.project.alarm.resp",
  /** This terminal is logged out (UserLogoutResp); the server closes the socket after it. */
  userLogout: "ws.user.logout.resp",
  /** A broadcast text (MassTextingResp). */
  massTexting: "ws.mass.texting.resp",
  /** Client heartbeat, every PUSH_HEARTBEAT_MS; empty body. */
  ping: "ws.ping",
  /** The server's answer to a heartbeat; empty body. */
  pong: "ws.pong",
} as const;

export type PushScene = (typeof PUSH_SCENES)[keyof typeof PUSH_SCENES];

/** `UserLogoutResp.reason` (SPEC: "not shown"; our numbering, docs/architecture/push.md). */
export const LOGOUT_REASON = {
  /** The same terminal logged in again elsewhere, or another login replaced this one. */
  loginElsewhere: 1,
  /** The terminal was removed from the account's terminal list. */
  terminalRemoved: 2,
  /** The password was changed or reset. */
  passwordChanged: 3,
  /** The account was deleted. */
  accountDeleted: 4,
  /** Two-factor login was turned on: sessions opened with the password alone end. */
  twoFactorEnabled: 5,
} as const;
export type LogoutReason = (typeof LOGOUT_REASON)[keyof typeof LOGOUT_REASON];

/** A message's fields without protobuf-es's bookkeeping (`$typeName`, `$unknown`). */
type Fields<M extends Message> = Omit<M, "$typeName" | "$unknown">;
export type DeviceInform = Fields<DeviceInformResp>;
export type DeviceAudit = Fields<DeviceAuditResp>;
export type MassTexting = Fields<MassTextingResp>;
export type UserLogout = Fields<UserLogoutResp>;

/** The body each scene carries; heartbeats carry none. */
export interface PushBodies {
  "ws.device.alarm.resp": DeviceInform;
  "ws.device.voice.resp": DeviceInform;
  "ws.device.bind.resp": DeviceAudit;
  "ws.device.visit.resp": DeviceAudit;
  "ws.project.alarm.resp": DeviceInform;
  "ws.user.logout.resp": UserLogout;
  "ws.mass.texting.resp": MassTexting;
  "ws.ping": null;
  "ws.pong": null;
}

export type PushBody<S extends PushScene> = PushBodies[S];

/** Any frame of the channel, discriminated by `scene`. */
export type PushFrame = { [S in PushScene]: { scene: S; body: PushBodies[S] } }[PushScene];
/** What the server pushes to users (every frame but the heartbeats). */
export type PushMessage = Exclude<PushFrame, { scene: "ws.ping" | "ws.pong" }>;

const SCHEMAS: Record<PushScene, GenMessage<Message> | null> = {
  "ws.device.alarm.resp": DeviceInformRespSchema,
  "ws.device.voice.resp": DeviceInformRespSchema,
  "ws.device.bind.resp": DeviceAuditRespSchema,
  "ws.device.visit.resp": DeviceAuditRespSchema,
  "ws.project.alarm.resp": DeviceInformRespSchema,
  "ws.user.logout.resp": UserLogoutRespSchema,
  "ws.mass.texting.resp": MassTextingRespSchema,
  "ws.ping": null,
  "ws.pong": null,
};

export function isPushScene(scene: string): scene is PushScene {
  return Object.hasOwn(SCHEMAS, scene);
}

/** The binary frame (PushWrapper) of `scene` with `body`. */
export function encodePush<S extends PushScene>(scene: S, body: PushBodies[S]): Uint8Array {
  const schema = SCHEMAS[scene];
  if (schema === undefined) throw new PushDecodeError(`unknown push scene ${scene}`);
  // The scene picks the schema and the body type together (PushBodies), so the cast holds.
  const bytes =
    schema && body ? toBinary(schema, create(schema, body as never)) : new Uint8Array(0);
  return toBinary(PushWrapperSchema, create(PushWrapperSchema, { scene, body: bytes }));
}

export class PushDecodeError extends Error {}

/**
 * Reads a binary frame. Throws PushDecodeError for bytes that are not a PushWrapper, a
 * body that does not parse, or a scene this version does not know (a client ignores those).
 */
export function decodePush(bytes: Uint8Array): PushFrame {
  let scene: string;
  let body: Uint8Array;
  try {
    ({ scene, body } = fromBinary(PushWrapperSchema, bytes));
  } catch (error) {
    throw new PushDecodeError(`not a push frame: ${(error as Error).message}`);
  }
  if (!isPushScene(scene)) throw new PushDecodeError(`unknown push scene ${scene}`);
  const schema = SCHEMAS[scene];
  if (!schema) return { scene, body: null } as PushFrame;
  try {
    return { scene, body: fromBinary(schema, body) } as unknown as PushFrame;
  } catch (error) {
    throw new PushDecodeError(`bad ${scene} body: ${(error as Error).message}`);
  }
}

/** The heartbeat frames, encoded once. */
export const PING_FRAME: Uint8Array = encodePush(PUSH_SCENES.ping, null);
export const PONG_FRAME: Uint8Array = encodePush(PUSH_SCENES.pong, null);

export {
  DeviceAuditRespSchema,
  DeviceInformRespSchema,
  MassTextingRespSchema,
  PushWrapperSchema,
  UserLogoutRespSchema,
} from "./gen/push_pb.ts";
export type { DeviceAuditResp, DeviceInformResp, MassTextingResp, UserLogoutResp };
