import {
  API,
  type IotCardDetail,
  type IotCardQr,
  type IotCardState,
  type IotCardTraffic,
  type IotCardView,
  type IotCardWarningView,
} from "@keyway/shared";
import { request } from "./client.ts";

export type { IotCardDetail, IotCardQr, IotCardTraffic, IotCardView, IotCardWarningView };

export interface IotCardListQuery {
  eid: number;
  blur?: string;
  state?: IotCardState;
  page: number;
  pageSize: number;
}

/** react-query keys of the card pages; everything of a context lives under iotCardKeys.all(eid). */
export const iotCardKeys = {
  all: (eid: number) => ["iotCards", eid] as const,
  list: (query: IotCardListQuery) => ["iotCards", query.eid, "list", query] as const,
  detail: (eid: number, iccid: string) => ["iotCards", eid, "detail", iccid] as const,
  qr: (eid: number, iccid: string) => ["iotCards", eid, "qr", iccid] as const,
  traffic: (eid: number, days: number) => ["iotCards", eid, "traffic", days] as const,
};

/**
 * 4G IoT cards (SPEC §7 "IoT card"; packages/shared/src/contract/iotCards.ts). A card the
 * context does not see answers 15010101.
 */
export const iotCardsApi = {
  list: (query: IotCardListQuery) => request(API.iotCards.list, { ...query }),
  info: (eid: number, iccid: string) => request(API.iotCards.info, { eid, iccid }),
  qrCode: (eid: number, iccid: string) => request(API.iotCards.qrCode, { eid, iccid }),
  /** A read from the carrier now: 15010201 within an hour of the last one. */
  refresh: (eid: number, iccid: string) => request(API.iotCards.refresh, { eid, iccid }),
  warnings: (query: {
    eid: number;
    iccid?: string;
    machineId?: number;
    page: number;
    pageSize: number;
  }) => request(API.iotCards.warningLog, { ...query }),
  traffic: (eid: number, days: number) =>
    request(API.iotCards.traffic, {
      eid,
      days,
      // Days as the viewer counts them (UTC+8 is 480).
      utcOffset: -new Date().getTimezoneOffset(),
    }),
};
