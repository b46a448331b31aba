import { type IotCardState, isExpiring, isLowTraffic } from "@keyway/shared";
import type { CarrierCardInfo } from "./carriers/carrier.ts";
import type { IotCardRow } from "./schema.ts";

/** The figures a card's state and warnings are judged on. */
export interface Figures {
  state: IotCardState;
  totalKb: number | null;
  usedKb: number | null;
  expiresAt: Date | null;
}

/** Warnings are for cards that carry traffic; a cancelled or parked card has none. */
const WARNED_STATES: ReadonlySet<IotCardState> = new Set(["working", "disconnected", "expired"]);

export function lowTrafficOf(f: Figures): boolean {
  return (f.state === "working" || f.state === "disconnected") && isLowTraffic(f.totalKb, f.usedKb);
}

export function expiringOf(f: Figures, now: Date): boolean {
  return WARNED_STATES.has(f.state) && isExpiring(f.expiresAt, now);
}

/**
 * What the carrier says, with what the platform knows on top: a working card past its plan's
 * end is expired, and one that has used its whole plan is cut off (disconnected).
 */
export function effectiveState(info: CarrierCardInfo, now: Date): IotCardState {
  if (info.state !== "working") return info.state;
  if (info.expiresAt && info.expiresAt.getTime() < now.getTime()) return "expired";
  if (info.totalKb !== null && info.totalKb > 0 && info.usedKb !== null)
    if (info.usedKb >= info.totalKb) return "disconnected";
  return "working";
}

export function figuresOf(card: IotCardRow): Figures {
  return {
    state: card.state as IotCardState,
    totalKb: card.totalKb,
    usedKb: card.usedKb,
    expiresAt: card.expiresAt,
  };
}
