import { HW } from "@keyway/shared";
import { ApiError } from "../api/errors.ts";
import type { VisitUrl } from "../api/visits.ts";

/**
 * Connecting to a device (SPEC §4 "Connection": connecting; online success; failed or
 * offline; not bound or cloud closed). `offline`/`failed` and `unbound`/`closed` are the
 * SPEC's two-sided states told apart, so the title says which. Issue 20 adds `waiting` (the
 * visit URL call is held while the person at the machine is asked) and `refused` (they
 * refused, did not answer, or the device cannot ask).
 */
export type ConnectState =
  | "connecting"
  | "waiting"
  | "online"
  | "offline"
  | "failed"
  | "unbound"
  | "closed"
  | "refused";

/** What a refused or failed visit URL call leaves. */
export type ConnectFailure = Exclude<ConnectState, "connecting" | "waiting" | "online">;

/**
 * How long the person at the machine has to answer (CONSENT_TIMEOUT_MS of packages/protocol,
 * not imported: its index pulls the device protocol's generated code into the web bundle;
 * pages/screen/screenState.test.ts checks they agree).
 */
export const CONSENT_WAIT_MS = 30_000;

/**
 * A visit URL call still pending after this long is most likely held for on-site consent
 * (the caller cannot know whether the device asks: only its Akey and Bkeys see the setting),
 * so "connecting" turns into "waiting for approval at the machine (if required)".
 */
export const CONSENT_HINT_AFTER_MS = 1000;

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * Whether `<visit-id>.visit.<hostname>` can resolve for a browser standing on `hostname`:
 * not on an IP address (no names under it), not on a single-label intranet name (no
 * wildcard DNS under "keyway" or "nas"); `localhost` is the exception, browsers resolve
 * `*.localhost` to loopback themselves (RFC 6761).
 */
export function subdomainsResolve(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "" || IPV4.test(host) || host.includes(":") || host.startsWith("[")) return false;
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  return host.includes(".");
}

/**
 * Where to open a visit (docs/architecture/remote-access.md): its own host (`url`: `<visit-id>.<VISIT_DOMAIN>` when
 * the operator set one, else `<visit-id>.visit.<host>`, where the device's absolute paths and
 * cookies work unchanged) unless that cannot resolve for this page's host; then the path
 * form `/visit/<id>/` on this page's own origin, which is reachable since this page was.
 */
export function visitHref(
  visit: Pick<VisitUrl, "url" | "path_url">,
  here: { hostname: string; origin: string } = window.location,
  visitDomain: string | null = null,
): string {
  if (visitDomain && hostOf(visit.url).endsWith(`.${visitDomain}`)) return visit.url;
  if (subdomainsResolve(here.hostname)) return visit.url;
  try {
    const path = new URL(visit.path_url);
    return new URL(`${path.pathname}${path.search}`, here.origin).href;
  } catch {
    return visit.path_url;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/** The SPEC §4 connection state a refused or failed visit URL call ends in. */
export function connectStateOf(error: unknown): ConnectFailure {
  if (!(error instanceof ApiError) || error.kind !== "business") return "failed";
  if (error.is(HW.DEVICE_OFFLINE.code)) return "offline";
  if (
    error.is(HW.CONSENT_REFUSED.code) ||
    error.is(HW.CONSENT_TIMEOUT.code) ||
    error.is(HW.CONSENT_UNSUPPORTED.code)
  ) {
    return "refused";
  }
  if (error.is(HW.CLOUD_CLOSED.code) || error.is(HW.CLOUD_EXPIRED.code)) return "closed";
  if (
    error.is(HW.WRONG_ROLE.code) ||
    error.is(HW.VISIT_TIMEOUT.code) ||
    error.is(HW.NO_PERMISSION.code) ||
    error.is(HW.DEVICE_NO_PERMISSION.code)
  ) {
    return "unbound";
  }
  return "failed";
}
