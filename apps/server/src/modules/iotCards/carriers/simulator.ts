import { DAY_MS, formatTrafficKb, type IotCardState } from "@keyway/shared";
import type { Clock } from "../../../infra/clock.ts";
import { BEIJING_MS, beijingMonthStart } from "../beijingTime.ts";
import type { CarrierAdapter } from "./carrier.ts";

const MB = 1024;
const GB = 1024 * 1024;

/** A stable number from the ICCID (FNV-1a), so each simulated card keeps its own profile. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (const ch of text) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * How much of a month's traffic a simulated card has used by `now` (0-1): each day of the
 * month weighs differently (weekends light, some days busier), so daily traffic varies
 * while the month's total stays that of the card's profile.
 */
function usedShareOfMonth(iccid: string, start: Date, end: Date, now: Date): number {
  const days = Math.round((end.getTime() - start.getTime()) / DAY_MS);
  const weights = Array.from({ length: days }, (_, d) => {
    const day = new Date(start.getTime() + d * DAY_MS + BEIJING_MS).getUTCDay();
    const weekend = day === 0 || day === 6 ? 0.45 : 1;
    return weekend * (0.6 + (hashOf(`${iccid}:${start.getTime()}:${d}`) % 1000) / 1000);
  });
  const total = weights.reduce((a, b) => a + b, 0);
  const position = Math.min(days, Math.max(0, (now.getTime() - start.getTime()) / DAY_MS));
  const whole = Math.floor(position);
  let used = 0;
  for (let d = 0; d < whole; d++) used += weights[d];
  if (whole < days) used += weights[whole] * (position - whole);
  return used / total;
}

const SPECIAL_STATES: Record<string, IotCardState> = {
  "90": "unactivated",
  "91": "activationPending",
  "92": "suspended",
  "93": "outOfService",
  "94": "cancelled",
  "95": "expired",
};

/**
 * The demo's carrier: plausible, repeatable figures computed from the ICCID and the clock
 * (no network). Profiles by the ICCID's last two digits (docs/architecture/devices.md#4g-cards):
 * 90-95 the non-working states, 99 unknown to the carrier; otherwise working, with a plan of
 * 512 MB / 1 / 2 / 5 GB by the last digit mod 4. A last digit 9 is a heavy user (90 % of
 * the plan or more used: the low-traffic warning), 8 a weekly plan (always within a week of
 * its expiry); the others use their plan in step with the month and renew yearly.
 */
export function createSimulatorCarrier(deps: { clock: Clock }): CarrierAdapter {
  return {
    name: "simulator",
    async cardInfo(iccid) {
      const tail = iccid.slice(-2);
      if (tail === "99") return null;
      const now = deps.clock.now();
      const h = hashOf(iccid);
      const last = Number(iccid.slice(-1)) || 0;
      const totalKb = [512 * MB, 1 * GB, 2 * GB, 5 * GB][last % 4];
      const activatedAt = new Date(Date.UTC(2025, 0, 1) + (h % 300) * DAY_MS);
      const monthStart = beijingMonthStart(now);
      const elapsed = usedShareOfMonth(iccid, monthStart, beijingMonthStart(now, 1), now);
      const state: IotCardState = SPECIAL_STATES[tail] ?? "working";
      let usedKb: number;
      if (last === 9) usedKb = totalKb * Math.min(0.99, 0.9 + 0.09 * elapsed);
      else usedKb = totalKb * (0.2 + ((h >>> 8) % 60) / 100) * elapsed;
      if (state !== "working" && state !== "expired") usedKb = 0;
      let expiresAt: Date;
      if (last === 8) {
        // A weekly plan renewed on a fixed weekday: always less than a week to go.
        const week = 7 * DAY_MS;
        const base = activatedAt.getTime();
        expiresAt = new Date(base + (Math.floor((now.getTime() - base) / week) + 1) * week);
      } else {
        const years = Math.max(
          1,
          Math.ceil((now.getTime() - activatedAt.getTime()) / (365 * DAY_MS)),
        );
        expiresAt = new Date(activatedAt.getTime() + years * 365 * DAY_MS);
      }
      if (state === "expired") expiresAt = new Date(monthStart.getTime() - DAY_MS);
      return {
        iccid,
        msisdn: `1440${String(h % 1_000_000_000).padStart(9, "0")}`,
        imsi: `46004${String(h % 10_000_000_000).padStart(10, "0")}`,
        state,
        planName: `${formatTrafficKb(totalKb).replace(".00", "")} ${last === 8 ? "周包 weekly" : "月包 monthly"}`,
        totalKb,
        usedKb: Math.round(usedKb),
        expiresAt,
        activatedAt: state === "unactivated" || state === "activationPending" ? null : activatedAt,
      };
    },
  };
}
