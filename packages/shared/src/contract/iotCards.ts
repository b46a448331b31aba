import type { ListResult } from "../accounts.ts";
import {
  type IotCardDetail,
  type IotCardQr,
  type IotCardTraffic,
  type IotCardView,
  type IotCardWarningView,
  iotCardInfoQuery,
  iotCardListBody,
  iotCardLogBody,
  iotCardQuery,
  iotCardScanBody,
  iotCardTrafficBody,
} from "../iotCards.ts";
import { group, route } from "./route.ts";

/**
 * SPEC §7 "IoT card" (payloads not shown there; ours are in packages/shared/src/iotCards.ts),
 * plus the on-demand refresh and the data centre's traffic figures. A card the context does
 * not see answers 15010101. SPEC §8 counts the warning log as an alarm call.
 */
export const iotCards = group(
  { auth: "user", tags: ["iotCards"] },
  {
    list: route<ListResult<IotCardView>>()({
      method: "POST",
      path: "/api/iotcard/iotCard/getIotCard",
      summary: "The 4G cards of the devices the caller sees in a context (eid 0 personal)",
      input: iotCardListBody,
    }),
    info: route<IotCardDetail>()({
      method: "GET",
      path: "/api/v1/iotcard/info",
      summary: "One card (by iccid, or by the device machineId): figures, history, warnings",
      input: iotCardInfoQuery,
    }),
    qrCode: route<IotCardQr>()({
      method: "GET",
      path: "/api/iotcard/iotCard/qrCode",
      summary: "A QR code (PNG data URL) of the card's page, for the phone app to scan",
      input: iotCardQuery,
    }),
    scan: route<IotCardView>()({
      method: "POST",
      path: "/api/v1/iotcard/qrCode",
      summary: "The card a scanned QR (or ICCID bar code) names, if the caller sees it",
      input: iotCardScanBody,
    }),
    warningLog: route<ListResult<IotCardWarningView>>()({
      method: "POST",
      path: "/api/v1/iotcard/alarm/device/log",
      summary: "Low-traffic and plan-expiry warnings (alarms) of a device, a card or the context",
      input: iotCardLogBody,
      smsAlarm: true,
    }),
    refresh: route<IotCardView>()({
      method: "POST",
      path: "/api/v1/iotcard/refresh",
      summary: "Reads one card from the carrier now (once an hour per card: 15010201)",
      input: iotCardQuery,
    }),
    traffic: route<IotCardTraffic>()({
      method: "POST",
      path: "/api/v1/iotcard/traffic",
      summary: "Data centre: card traffic of the context (totals, per day, per card, by state)",
      input: iotCardTrafficBody,
    }),
  },
);
