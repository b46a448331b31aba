import type { ListResult, OutboxEntry } from "@keyway/shared";

export type { OutboxEntry };

import { api } from "./client.ts";

export const operatorApi = {
  outbox: (page: number, pageSize: number) =>
    api.get<ListResult<OutboxEntry>>("/operator/v1/outbox", { page, pageSize }),
};
