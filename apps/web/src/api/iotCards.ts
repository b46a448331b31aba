import type {
  IotCardDetail,
  IotCardQr,
  IotCardState,
  IotCardTraffic,
  IotCardView,
  IotCardWarningView,
  ListResult,
} from "@keyway/shared";
import { api } from "./client.ts";

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
 * 4G IoT cards (SPEC §7 "IoT card"; the contract is the header of
 * packages/shared/src/iotCards.ts). A card the context does not see answers 15010101.
 */
export const iotCardsApi = {
  list: (query: IotCardListQuery) =>
    api.post<ListResult<IotCardView>>("/iotcard/iotCard/getIotCard", { ...query }),
  info: (eid: number, iccid: string) => api.get<IotCardDetail>("/v1/iotcard/info", { eid, iccid }),
  qrCode: (eid: number, iccid: string) =>
    api.get<IotCardQr>("/iotcard/iotCard/qrCode", { eid, iccid }),
  /** A read from the carrier now: 15010201 within an hour of the last one. */
  refresh: (eid: number, iccid: string) =>
    api.post<IotCardView>("/v1/iotcard/refresh", { eid, iccid }),
  warnings: (query: {
    eid: number;
    iccid?: string;
    machineId?: number;
    page: number;
    pageSize: number;
  }) => api.post<ListResult<IotCardWarningView>>("/v1/iotcard/alarm/device/log", { ...query }),
  traffic: (eid: number, days: number) =>
    api.post<IotCardTraffic>("/v1/iotcard/traffic", {
      eid,
      days,
      // Days as the viewer counts them (UTC+8 is 480).
      utcOffset: -new Date().getTimezoneOffset(),
    }),
};
