import type {
  AlarmLevelKey,
  DeviceRole,
  Machine,
  MachineStateEntry,
  MachineTypeIcon,
} from "@keyway/shared";

/** Online when the server says so (`online`, or `state` 1 on older payloads). */
export function isOnline(machine: { online?: boolean; state?: 0 | 1 }): boolean {
  return machine.online === true || machine.state === 1;
}

/**
 * The caller's identity from limit_authority (SPEC §3: 3 Akey, 2 Bkey or ordinary user,
 * 0 none). The list cannot tell Bkey from an ordinary user; the detail's role/info can.
 */
export type IdentityKey = DeviceRole;

/**
 * The icon of a machine: its own `icon` URL, else the first icon-map entry whose pattern
 * matches the model or the name, else the map's default. Bad patterns are skipped.
 */
export function machineIconUrl(
  machine: Pick<Machine, "icon" | "model" | "machine_name">,
  map?: { list: MachineTypeIcon[]; default?: { image: string } } | null,
): string | undefined {
  if (machine.icon) return machine.icon;
  if (!map) return undefined;
  for (const entry of map.list ?? []) {
    try {
      const pattern = new RegExp(entry.pattern, "i");
      if (pattern.test(machine.model ?? "") || pattern.test(machine.machine_name ?? "")) {
        return entry.image;
      }
    } catch {
      // an invalid pattern in the map: ignore the entry
    }
  }
  return map.default?.image || undefined;
}

/** Comma-free numbers of selected rows (antd gives React.Key[]). */
export function toIds(keys: readonly React.Key[]): number[] {
  return keys.map(Number).filter((n) => Number.isInteger(n) && n > 0);
}

// ---- Live state (POST /machine/machineStates, polled) ----

export type StateMap = ReadonlyMap<number, MachineStateEntry>;

/** The polled states by machine id. */
export function toStateMap(result: { list?: MachineStateEntry[] | null }): StateMap {
  return new Map((result.list ?? []).map((entry) => [entry.machine_id, entry]));
}

type Stateful = Pick<Machine, "machine_id" | "online" | "state">;

/** The machine with its polled state; the same object when nothing changed (no re-render). */
export function withLiveState<M extends Stateful>(machine: M, states: StateMap | undefined): M {
  const entry = states?.get(machine.machine_id);
  if (!entry) return machine;
  const online = isOnline(entry);
  if (isOnline(machine) === online && machine.online === online) return machine;
  return { ...machine, online, state: online ? 1 : 0 };
}

/** withLiveState over a list; the same array when no row changed. */
export function withLiveStates<M extends Stateful>(
  list: readonly M[],
  states: StateMap | undefined,
): readonly M[] {
  if (!states || states.size === 0) return list;
  let changed = false;
  const next = list.map((machine) => {
    const live = withLiveState(machine, states);
    if (live !== machine) changed = true;
    return live;
  });
  return changed ? next : list;
}

// ---- Alarms ----

/** Device alarm levels 0-9 in four bands, the same on the server (packages/shared). */
export { type AlarmLevelKey, alarmLevelKey } from "@keyway/shared";

export const ALARM_LEVEL_COLORS: Record<AlarmLevelKey, string> = {
  info: "default",
  minor: "gold",
  major: "orange",
  critical: "red",
};

// ---- Location ----

export const LOCATION_WAY_OPTIONS = ["gps", "base", "ip", "manual"] as const;
export type LocationWayOption = (typeof LOCATION_WAY_OPTIONS)[number];

export function parseLocationWay(way: string | null | undefined): LocationWayOption | undefined {
  return LOCATION_WAY_OPTIONS.find((option) => option === way);
}

export function hasPosition(
  location: { lat: number | null; lng: number | null } | null | undefined,
): location is { lat: number; lng: number } {
  return (
    location !== null &&
    location !== undefined &&
    typeof location.lat === "number" &&
    typeof location.lng === "number" &&
    Number.isFinite(location.lat) &&
    Number.isFinite(location.lng)
  );
}

/** The point on OpenStreetMap (opened in a new tab; nothing is loaded from tile servers here). */
export function openStreetMapUrl(lat: number, lng: number, zoom = 14): string {
  const la = lat.toFixed(6);
  const ln = lng.toFixed(6);
  return `https://www.openstreetmap.org/?mlat=${la}&mlon=${ln}#map=${zoom}/${la}/${ln}`;
}

/** Equirectangular projection of lat/lng onto a width × height box (clamped to it). */
export function projectLatLng(
  lat: number,
  lng: number,
  width: number,
  height: number,
): { x: number; y: number } {
  const clampedLat = Math.max(-90, Math.min(90, lat));
  const clampedLng = Math.max(-180, Math.min(180, lng));
  return {
    x: ((clampedLng + 180) / 360) * width,
    y: ((90 - clampedLat) / 180) * height,
  };
}

/** Coordinates as "31.230400, 121.473700" (6 decimals, about 10 cm). */
export function formatLatLng(lat: number, lng: number): string {
  return `${lat.toFixed(6)}, ${lng.toFixed(6)}`;
}
