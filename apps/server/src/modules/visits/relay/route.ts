import type { IncomingMessage } from "node:http";
import type { VisitHosts } from "../hosts.ts";

/** The visit cookie: the ticket of the visit URL, exchanged on first open. */
export const VISIT_COOKIE = "kw_visit";
export const TICKET_PARAM = "kw_ticket";

/**
 * Path mode: `/visit/<id>/?kw_ticket=T` is claimed once and moves to `/visit/<id>.<key>/`,
 * where the key (the visit's secret, 256 bits) stands in for the cookie a sandboxed page
 * cannot carry.
 */
const VISIT_PATH = /^\/visit\/([a-z2-7]{26})(?:\.([A-Za-z0-9_-]{43}))?(\/[^?]*)?(\?.*)?$/;

/** Where a request to a visit goes: the visit, and the device's path. */
export interface Route {
  id: string;
  /** "/visit/<id>.<key>" (or "/visit/<id>" before the claim) in path mode, "" on the visit host. */
  prefix: string;
  /** The device's path and query. */
  path: string;
  /** Path mode: the visit's key from the URL (undefined before the claim). */
  key?: string;
  /** Path mode: whether the URL went on past the prefix with a slash. */
  trailingSlash?: boolean;
}

/** The visit a request belongs to: by its host (under the visit domain only) or its path. */
export function createRouter(hosts: VisitHosts) {
  return function route(request: Pick<IncomingMessage, "url" | "headers">): Route | null {
    const url = request.url ?? "/";
    const byHost = hosts.idOfHost(request.headers.host);
    if (byHost) return { id: byHost, prefix: "", path: url.startsWith("/") ? url : `/${url}` };
    const byPath = VISIT_PATH.exec(url);
    if (!byPath) return null;
    const key = byPath[2];
    return {
      id: byPath[1],
      prefix: key ? `/visit/${byPath[1]}.${key}` : `/visit/${byPath[1]}`,
      path: `${byPath[3] ?? "/"}${byPath[4] ?? ""}`,
      key,
      trailingSlash: byPath[3] !== undefined,
    };
  };
}
