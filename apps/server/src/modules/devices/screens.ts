import type { AgentHello } from "@keyway/protocol";
import type { Machine } from "@keyway/shared";

/**
 * Which of these devices' agents offer their screen (VNC) now: one lookup for a whole page
 * (this node's links in memory, other nodes' in one registry round trip).
 */
export type ScreenLookup = (deviceIds: readonly number[]) => Promise<ReadonlySet<number>>;

/** A ScreenLookup from the agents' hellos (`vnc` set: the agent offers its screen). */
export function screensFromHellos(
  hellos: (deviceIds: readonly number[]) => Promise<Map<number, AgentHello>>,
): ScreenLookup {
  return async (deviceIds) => {
    const found = await hellos(deviceIds);
    const screens = new Set<number>();
    for (const [id, hello] of found) if (hello.vnc) screens.add(id);
    return screens;
  };
}

/**
 * Sets Machine.screen on a page of devices (the lists show "Screen"). Without a lookup (tools
 * like the CLI) the flag stays absent; a lookup that fails leaves it absent too, since a list
 * must not fail for want of a badge.
 */
export async function withScreens<T extends Machine>(
  list: T[],
  lookup: ScreenLookup | undefined,
): Promise<T[]> {
  if (!lookup || list.length === 0) return list;
  let screens: ReadonlySet<number>;
  try {
    screens = await lookup(list.map((m) => m.machine_id));
  } catch {
    return list;
  }
  for (const machine of list) machine.screen = screens.has(machine.machine_id);
  return list;
}
