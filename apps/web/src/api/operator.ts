import type {
  BrandSettingsView,
  EnterpriseSummary,
  enterpriseCreateBody,
  ListResult,
  OutboxEntry,
  ProvisionedDevice,
  provisionBody,
  RegistryEntry,
} from "@keyway/shared";
import type { z } from "zod";

export type { BrandSettingsView, OutboxEntry, ProvisionedDevice, RegistryEntry };

import { api } from "./client.ts";

export interface PageQuery {
  page: number;
  pageSize: number;
  search?: string;
}

/** Operator back office (role "operator"; others get 06010201). */
export const operatorApi = {
  outbox: (page: number, pageSize: number) =>
    api.get<ListResult<OutboxEntry>>("/operator/v1/outbox", { page, pageSize }),
  provision: (body: z.output<typeof provisionBody>) =>
    api.post<{ list: ProvisionedDevice[] }>("/operator/v1/devices/provision", body),
  registry: (query: PageQuery) =>
    api.get<ListResult<RegistryEntry>>("/operator/v1/devices", { ...query }),
  enterprises: (query: PageQuery) =>
    api.get<ListResult<EnterpriseSummary>>("/operator/v1/enterprises", { ...query }),
  createEnterprise: (body: z.output<typeof enterpriseCreateBody>) =>
    api.post<EnterpriseSummary>("/operator/v1/enterprises", body),
  brandSettings: () => api.get<{ list: BrandSettingsView[] }>("/operator/v1/brandSettings"),
  setBrandSettings: (body: { oemid: string; userEnterprises: 0 | 1 }) =>
    api.put<null>("/operator/v1/brandSettings", body),
};
