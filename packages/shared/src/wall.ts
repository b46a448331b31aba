import { z } from "zod";
import { idOrZeroField } from "./fields.ts";

/**
 * The TV-box device wall (SPEC §2 "TV-box mode"; not a SPEC call, docs/architecture/web.md):
 * one compact answer per refresh instead of the list, the states and an alarm list per
 * device.
 *   POST /api/v1/devices/wall   wallBody   WallResult
 */

/** How many tiles the wall shows at most (a TV screen holds a few dozen readable ones). */
export const WALL_MAX_TILES = 200;

/** 0 (or absent): the personal context; otherwise the enterprise's eid. */
export const wallBody = z.object({
  eid: idOrZeroField.default(0),
});

/** The newest alarm of a device, whatever its state. */
export interface WallAlarm {
  id: number;
  level: number;
  content: string;
  /** When the device raised it (ISO). */
  time: string;
  confirmed: 0 | 1;
  cleared: 0 | 1;
}

/** One device of the wall: name, online state, alarms not yet confirmed, the newest alarm. */
export interface WallTile {
  machine_id: number;
  machine_code: string;
  machine_name: string;
  state: 0 | 1;
  online: boolean;
  unconfirmed: number;
  latest_alarm: WallAlarm | null;
}

export interface WallResult {
  list: WallTile[];
  /** Devices in the context (more than the list when above WALL_MAX_TILES). */
  total: number;
}
