import { randomInt } from "node:crypto";
import type { IotCardState } from "@keyway/shared";
import type { Clock } from "../../../infra/clock.ts";
import { BEIJING_MS } from "../beijingTime.ts";
import { type CarrierAdapter, type CarrierCardInfo, CarrierError } from "./carrier.ts";

/** The card is not in the group customer's account: OneLink does not know it. */
class CardNotInGroup extends Error {}

/** OneLink's answer envelope: status "0" is success; `result` is a list. */
interface OneLinkEnvelope<T> {
  status: string;
  message: string;
  result?: T[];
}

/** OneLink's token errors: the token expired or is not valid (fetch a new one and retry once). */
const TOKEN_ERRORS = new Set(["12021", "12022"]);
/** OneLink: "the card does not belong to this group" — a card the carrier does not know. */
const NOT_IN_GROUP = "12009";

/**
 * OneLink cardStatus (CMIOT_API25S04 sim-status): 1 waiting for activation, 2 activated,
 * 4 stopped, 6 testable, 7 in stock, 8 pre-cancelled.
 */
export function oneLinkState(cardStatus: string | undefined): IotCardState {
  switch (cardStatus) {
    case "1":
      return "activationPending";
    case "2":
      return "working";
    case "4":
      return "outOfService";
    case "6":
    case "7":
      return "unactivated";
    case "8":
      return "cancelled";
    default:
      return "unknown";
  }
}

/** OneLink dates: "2024-03-14 10:13:44" or "20240314101344", Beijing time; blank for none. */
export function oneLinkDate(value: string | undefined): Date | null {
  const v = (value ?? "").trim();
  const m = /^(\d{4})-?(\d{2})-?(\d{2})(?:[ T]?(\d{2}):?(\d{2}):?(\d{2}))?/.exec(v);
  if (!m) return null;
  const [, y, mo, d, hh = "00", mi = "00", ss = "00"] = m;
  const t = Date.UTC(+y, +mo - 1, +d, +hh, +mi, +ss) - BEIJING_MS;
  return Number.isFinite(t) ? new Date(t) : null;
}

const kb = (value: string | number | undefined): number | null => {
  if (value === undefined || String(value).trim() === "") return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

/**
 * China Mobile OneLink's card API (v5, https://api.iot.10086.cn/v5). A token comes from
 * `GET /ec/get/token` with the group customer's appid and password and lives `ttl` seconds
 * (3600); every call carries a `transid` of appid + yyyyMMddHHmmss + an 8-digit sequence,
 * unique per call. A card is read with four queries by ICCID: sim-basic-info (MSISDN, IMSI,
 * first activation), sim-status (cardStatus), sim-data-margin (the plan's traffic this
 * month: totalAmount / useAmount in KB) and ordered-offerings (queryType 3: the plan's
 * expiry, `expiriedDate`).
 */
export function createOneLinkCarrier(deps: {
  appid: string;
  password: string;
  endpoint: string;
  clock: Clock;
  /** Per-call timeout (ms). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}): CarrierAdapter {
  const base = deps.endpoint.replace(/\/$/, "");
  const doFetch = deps.fetch ?? fetch;
  let token: { value: string; until: number } | null = null;
  let pendingToken: Promise<string> | null = null;
  // transids must never repeat, also across restarts and nodes in the same second.
  let sequence = randomInt(100_000_000);

  function transid(): string {
    const local = new Date(deps.clock.now().getTime() + BEIJING_MS).toISOString();
    const stamp = local.slice(0, 19).replace(/\D/g, "");
    sequence = (sequence + 1) % 100_000_000;
    return `${deps.appid}${stamp}${String(sequence).padStart(8, "0")}`;
  }

  async function get<T>(path: string, params: Record<string, string>): Promise<OneLinkEnvelope<T>> {
    const url = new URL(`${base}${path}`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    let response: Response;
    try {
      response = await doFetch(url, { signal: AbortSignal.timeout(deps.timeoutMs ?? 10_000) });
    } catch (error) {
      throw new CarrierError(`OneLink ${path}: ${(error as Error).message}`);
    }
    if (!response.ok) throw new CarrierError(`OneLink ${path}: HTTP ${response.status}`);
    const body = (await response.json().catch(() => null)) as OneLinkEnvelope<T> | null;
    if (!body || typeof body.status !== "string")
      throw new CarrierError(`OneLink ${path}: not a OneLink answer`, undefined, "invalid");
    return body;
  }

  async function fetchToken(): Promise<string> {
    const answer = await get<{ token: string; ttl: string }>("/ec/get/token", {
      appid: deps.appid,
      password: deps.password,
      transid: transid(),
    });
    const first = answer.result?.[0];
    if (answer.status !== "0" || !first?.token)
      throw new CarrierError(`OneLink token: ${answer.message}`, answer.status);
    // Renewed a minute early so that a call never goes out with a token about to lapse.
    const ttl = Math.max(60, Number(first.ttl) || 3600);
    token = { value: first.token, until: deps.clock.now().getTime() + (ttl - 60) * 1000 };
    return first.token;
  }

  async function currentToken(): Promise<string> {
    if (token && token.until > deps.clock.now().getTime()) return token.value;
    // Cards read side by side share one token request.
    pendingToken ??= fetchToken().finally(() => {
      pendingToken = null;
    });
    return pendingToken;
  }

  /** A query by ICCID; a token the carrier refuses is replaced once. */
  async function query<T>(path: string, iccid: string, extra: Record<string, string> = {}) {
    for (let attempt = 0; ; attempt++) {
      const value = await currentToken();
      const answer = await get<T>(path, { transid: transid(), token: value, iccid, ...extra });
      if (answer.status === "0") return answer.result ?? [];
      if (answer.status === NOT_IN_GROUP) throw new CardNotInGroup();
      if (TOKEN_ERRORS.has(answer.status) && attempt === 0) {
        if (token?.value === value) token = null;
        continue;
      }
      throw new CarrierError(`OneLink ${path}: ${answer.message}`, answer.status);
    }
  }

  return {
    name: "onelink",
    async cardInfo(iccid) {
      try {
        return await readCard(iccid);
      } catch (error) {
        // Unknown to the carrier is an answer (state unknown, docs/architecture/devices.md#4g-cards), not a failure.
        if (error instanceof CardNotInGroup) return null;
        throw error;
      }
    },
  };

  async function readCard(iccid: string): Promise<CarrierCardInfo | null> {
    const basic = await query<{
      msisdn?: string;
      iccid?: string;
      imsi?: string;
      activeDate?: string;
      openDate?: string;
    }>("/ec/query/sim-basic-info", iccid);
    if (basic.length === 0) return null;
    const [status, margin, offerings] = await Promise.all([
      query<{ cardStatus?: string }>("/ec/query/sim-status", iccid),
      query<{
        accmMarginList?: {
          offeringId?: string;
          offeringName?: string;
          totalAmount?: string;
          useAmount?: string;
          remainAmount?: string;
        }[];
      }>("/ec/query/sim-data-margin", iccid),
      query<{
        offeringInfoList?: {
          offeringId?: string;
          offeringName?: string;
          effectiveDate?: string;
          expiriedDate?: string;
        }[];
      }>("/ec/query/ordered-offerings", iccid, { queryType: "3" }),
    ]);
    const plans = margin.flatMap((m) => m.accmMarginList ?? []);
    const sum = (pick: (p: (typeof plans)[number]) => number | null) =>
      plans.length === 0
        ? null
        : plans.reduce<number | null>((acc, p) => {
            const v = pick(p);
            return v === null || acc === null ? null : acc + v;
          }, 0);
    const totalKb = sum((p) => kb(p.totalAmount));
    const usedKb =
      sum((p) => kb(p.useAmount)) ??
      (totalKb !== null ? totalKb - (sum((p) => kb(p.remainAmount)) ?? totalKb) : null);
    const offeringIds = new Set(plans.map((p) => p.offeringId).filter(Boolean));
    const ordered = offerings.flatMap((o) => o.offeringInfoList ?? []);
    // The traffic plan's own expiry when it is listed; otherwise the first to end.
    const dated = ordered
      .filter((o) => offeringIds.size === 0 || offeringIds.has(o.offeringId))
      .map((o) => oneLinkDate(o.expiriedDate))
      .filter((d): d is Date => d !== null)
      .sort((a, b) => a.getTime() - b.getTime());
    const info = basic[0];
    return {
      iccid: (info.iccid ?? iccid).toUpperCase(),
      msisdn: info.msisdn ?? "",
      imsi: info.imsi ?? "",
      state: oneLinkState(status[0]?.cardStatus),
      planName: plans
        .map((p) => p.offeringName)
        .filter(Boolean)
        .join(", "),
      totalKb,
      usedKb,
      expiresAt: dated[0] ?? null,
      activatedAt: oneLinkDate(info.activeDate),
    };
  }
}
