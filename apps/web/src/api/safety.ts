import type { ListResult, TerminalEntry } from "@keyway/shared";
import { PAGE_SIZE } from "@keyway/shared";
import { api } from "./client.ts";

/** Security center: terminal tokens (SPEC §3 "Terminal token", §7 tokenInfo). */
export const safetyApi = {
  terminals: (page: number, pageSize: number = PAGE_SIZE.tokenList) =>
    api.get<ListResult<TerminalEntry>>("/user/v1/tokenInfo", { page, pageSize }),
  removeTerminal: (id: number) => api.delete<unknown>(`/user/v1/tokenInfo/${id}`),
};
