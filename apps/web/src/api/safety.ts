import { API, PAGE_SIZE } from "@keyway/shared";
import { request } from "./client.ts";

const a = API.accounts;

/** Security center: terminal tokens (SPEC §3 "Terminal token", §7 tokenInfo). */
export const safetyApi = {
  terminals: (page: number, pageSize: number = PAGE_SIZE.tokenList) =>
    request(a.terminals, { page, pageSize }),
  removeTerminal: (id: number) => request(a.deleteTerminal, undefined, { params: { id } }),
};
