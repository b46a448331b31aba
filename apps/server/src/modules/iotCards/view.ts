import { DAY_MS, IOT_CARD_REFRESH, type IotCardView } from "@keyway/shared";
import type { Clock } from "../../infra/clock.ts";
import { expiringOf, figuresOf, lowTrafficOf } from "./figures.ts";
import type { IotCardRow } from "./schema.ts";

export const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A card as the API shows it (its figures, warnings and when it may be read again), now. */
export function createCardView(clock: Clock) {
  return function view(row: { card: IotCardRow; code: string; name: string }): IotCardView {
    const { card } = row;
    const now = clock.now();
    const f = figuresOf(card);
    const total = card.totalKb;
    const used = card.usedKb;
    const after = card.refreshRequestedAt
      ? new Date(card.refreshRequestedAt.getTime() + IOT_CARD_REFRESH.onDemandMinutes * 60_000)
      : null;
    return {
      iccid: card.iccid,
      msisdn: card.msisdn,
      imsi: card.imsi,
      carrier: card.carrier as IotCardView["carrier"],
      card_state: f.state,
      machine_id: card.deviceId,
      machine_code: row.code,
      machine_name: row.name || row.code,
      plan_name: card.planName,
      total_kb: total,
      used_kb: used,
      left_kb: total !== null && used !== null ? Math.max(0, total - used) : null,
      used_percent:
        total !== null && used !== null && total > 0
          ? Math.round(Math.min(100, (used / total) * 100) * 10) / 10
          : null,
      expire_time: iso(card.expiresAt),
      active_time: iso(card.activatedAt),
      days_left: card.expiresAt
        ? Math.ceil((card.expiresAt.getTime() - now.getTime()) / DAY_MS)
        : null,
      refreshed_at: iso(card.refreshedAt),
      last_error: card.lastError,
      refresh_after: after && after.getTime() > now.getTime() ? after.toISOString() : null,
      low_traffic: card.removedAt === null && lowTrafficOf(f) ? 1 : 0,
      expiring: card.removedAt === null && expiringOf(f, now) ? 1 : 0,
    };
  };
}
