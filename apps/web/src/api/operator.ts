import type {
  BrandSettingsView,
  OutboxEntry,
  ParsedInputOf,
  ProvisionedDevice,
  RegistryEntry,
} from "@keyway/shared";
import { API } from "@keyway/shared";
import { request } from "./client.ts";

export type { BrandSettingsView, OutboxEntry, ProvisionedDevice, RegistryEntry };

export interface PageQuery {
  page: number;
  pageSize: number;
  search?: string;
}

const e = API.enterprises;

/** Operator back office (role "operator"; others get 06010201). */
export const operatorApi = {
  outbox: (page: number, pageSize: number) => request(API.notify.listOutbox, { page, pageSize }),
  provision: (body: ParsedInputOf<typeof API.devices.provision>) =>
    request(API.devices.provision, body),
  registry: (query: PageQuery) => request(e.registry, { ...query }),
  enterprises: (query: PageQuery) => request(e.listAll, { ...query }),
  createEnterprise: (body: ParsedInputOf<typeof e.create>) => request(e.create, body),
  brandSettings: () => request(e.brandSettings),
  setBrandSettings: (body: { oemid: string; userEnterprises: 0 | 1 }) =>
    request(e.setBrandSettings, body),
};
