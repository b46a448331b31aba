import type { DeviceRole, Machine, MachineTypeIcon } from "@keyway/shared";

/** Online when the server says so (`online`, or `state` 1 on older payloads). */
export function isOnline(machine: Pick<Machine, "online" | "state">): boolean {
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
