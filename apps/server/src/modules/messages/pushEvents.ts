import {
  type DeviceAudit,
  type DeviceInform,
  PUSH_SCENES,
  type PushMessage,
} from "@keyway/protocol";

/** What a message centre change tells the user's open sockets (mapped to push scenes). */
export type PushEvent =
  | {
      kind: "audit";
      of: "visit" | "bind";
      deviceCode: string;
      deviceId: number;
      isResult: 0 | 1;
      auditState: number;
      totalUnreadMsg: number;
    }
  | {
      kind: "inform";
      of: "alarm" | "voice" | "projectAlarm";
      deviceCode: string;
      deviceId: number;
      totalUnreadMsg: number;
      /** The alarm itself, for the live pop-up (optional fields of DeviceInformResp). */
      alarmId?: number;
      level?: number;
      content?: string;
      deviceName?: string;
    };

const INFORM_SCENES = {
  alarm: PUSH_SCENES.deviceAlarm,
  voice: PUSH_SCENES.deviceVoice,
  projectAlarm: PUSH_SCENES.projectAlarm,
} as const;

/** The push channel frame (SPEC §4 scenes) of a message centre event. */
export function toPushMessage(event: PushEvent): PushMessage {
  const { kind: _kind, of, ...body } = event;
  if (event.kind === "audit") {
    const scene = of === "visit" ? PUSH_SCENES.deviceVisit : PUSH_SCENES.deviceBind;
    return { scene, body: body as DeviceAudit };
  }
  return { scene: INFORM_SCENES[event.of], body: body as DeviceInform };
}
