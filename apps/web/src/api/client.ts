import {
  API,
  type Envelope,
  HW,
  hwKeyOf,
  hwMessage,
  type InputOf,
  isSuccess,
  LOGOUT_DELAY_MS,
  LOGOUT_DELAY_SMS_ALARM_MS,
  pathOf,
  REQUEST_TIMEOUT_MS,
  type ReplyOf,
  type Route,
} from "@keyway/shared";
import axios, { type AxiosError, type AxiosRequestConfig, type Method } from "axios";
import i18n, { currentLang } from "../i18n/index.ts";
import { feedback } from "../lib/feedback.ts";
import { navigateTo } from "../lib/navigation.ts";
import { getToken, hasToken, signOutLocally } from "../lib/session.ts";
import { LOGIN_STATE, useAppStore } from "../store/app.ts";
import { ApiError } from "./errors.ts";

/**
 * The HTTP client of SPEC §7/§8: base /api, 15 s timeout, `cloudtoken` header from the
 * `token` cookie, form-encoded bodies, the envelope {hwcode, hwdata, msg} unwrapped.
 */
export const http = axios.create({
  baseURL: "/api",
  timeout: REQUEST_TIMEOUT_MS,
  withCredentials: true,
});

http.interceptors.request.use((config) => {
  const token = getToken();
  if (token) config.headers.set("cloudtoken", token);
  return config;
});

export type FormValue = string | number | boolean | null | undefined;
export type FormBody = Record<string, FormValue>;

/** application/x-www-form-urlencoded body; undefined/null fields are left out, booleans are 1/0. */
export function toForm(body: FormBody): URLSearchParams {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    form.append(key, typeof value === "boolean" ? (value ? "1" : "0") : String(value));
  }
  return form;
}

export interface CallOptions {
  /** Do not start the expired-session logout on 113/401 (e.g. the logout call itself). */
  skipSessionHandling?: boolean;
  signal?: AbortSignal;
  /** Base path of the call: `/api` (default) or `/eapi` (SPEC §7 enterprise portal calls). */
  base?: ApiBase;
  /**
   * SPEC §8 treats SMS and alarm calls apart (hwcode 404 logs out, 1.2 s logout, persistent
   * 504); `request` takes it from the route's contract.
   */
  smsAlarm?: boolean;
  /** This call's own timeout (ms) instead of REQUEST_TIMEOUT_MS: calls the server may hold. */
  timeout?: number;
}

export type ApiBase = "/api" | "/eapi";

const HTTP_KEYS = {
  400: "http.e400",
  401: "http.e401",
  403: "http.e403",
  404: "http.e404",
  408: "http.e408",
  429: "http.e429",
  500: "http.e500",
  501: "http.e501",
  502: "http.e502",
  503: "http.e503",
  504: "http.e504",
  505: "http.e505",
} as const;

export function transportMessage(status: number | null): string {
  if (status === null) return i18n.t("http.noResponse");
  const key = HTTP_KEYS[status as keyof typeof HTTP_KEYS];
  return key ? i18n.t(key) : i18n.t("http.other", { code: status });
}

/** Text for a non-zero hwcode when the server sent no `msg`. */
export function hwcodeMessage(code: number | string): string {
  if (String(code) === String(HW.SERVER_ERROR.code)) return i18n.t("http.serverApi");
  const key = hwKeyOf(code);
  return key ? hwMessage(key, currentLang()) : i18n.t("http.failed", { code });
}

// ---- Expired session: notify, then log out after LOGOUT_DELAY_MS (1.2 s on SMS / alarm calls) ----

let expiring = false;

export function expireSession(message: string, delayMs: number = LOGOUT_DELAY_MS): void {
  if (expiring) return;
  expiring = true;
  const hadToken = hasToken();
  useAppStore.getState().setLoginState(LOGIN_STATE.expired);
  // Without a session there is nothing that expired (e.g. a screen still fetching just after a
  // sign-out): only the way to the login.
  if (hadToken) feedback()?.notification.error({ key: "session-expired", title: message });
  window.setTimeout(() => {
    expiring = false;
    const to = hadToken ? "/loginTimeout" : "/login";
    // Leave the signed-in page first (rendered at once): a main-layout page that saw the token
    // go would send the user on to /login, and /loginTimeout would never show.
    const leave = { replace: true, flushSync: true };
    navigateTo(to, leave);
    window.setTimeout(() => signOutLocally(to), 0);
  }, delayMs);
}

/**
 * Tokens this browser signed out of (API.accounts.logout sent): a call still in flight with one
 * comes back refused after the logout, which is not an expired session to announce.
 */
const retiredTokens = new Set<string>();

function isStale(sentToken: string | undefined): boolean {
  return sentToken !== undefined && (retiredTokens.has(sentToken) || getToken() !== sentToken);
}

function isEnvelope(data: unknown): data is Envelope {
  return typeof data === "object" && data !== null && "hwcode" in data;
}

/** Performs a call and returns `hwdata`, or throws ApiError. */
export async function call<T>(
  method: Method,
  url: string,
  params?: FormBody,
  options: CallOptions = {},
): Promise<T> {
  const isQuery = method.toUpperCase() === "GET";
  const config: AxiosRequestConfig = { method, url, signal: options.signal };
  if (options.timeout !== undefined) config.timeout = options.timeout;
  if (options.base) config.baseURL = options.base;
  if (params) {
    if (isQuery) config.params = stripEmpty(params);
    else config.data = toForm(params);
  }

  const smsAlarm = options.smsAlarm ?? false;
  const sentToken = getToken();
  if (`${options.base ?? "/api"}${url}` === API.accounts.logout.path && sentToken) {
    retiredTokens.add(sentToken);
  }

  let envelope: unknown;
  try {
    envelope = (await http.request(config)).data;
  } catch (error) {
    if ((error as AxiosError).response?.status === 401 && isStale(sentToken)) {
      throw new ApiError(transportMessage(401), "session", 113, 401);
    }
    throw transportError(error as AxiosError, options, smsAlarm);
  }

  if (!isEnvelope(envelope)) throw new ApiError(i18n.t("http.serverApi"), "transport", 500);
  if (isSuccess(envelope)) return envelope.hwdata as T;

  const code = String(envelope.hwcode);
  // On SMS / alarm calls the server's own message is what the user sees (SPEC §8).
  const message = envelope.msg || hwcodeMessage(envelope.hwcode);
  const tokenRefused =
    code === String(HW.TOKEN_INVALID.code) || (smsAlarm && code === String(HW.NOT_FOUND.code));
  // A late answer for a token signed out of here: quiet, the sign-out already happened.
  if (tokenRefused && isStale(sentToken)) throw new ApiError(message, "session", envelope.hwcode);
  if (tokenRefused && !options.skipSessionHandling) {
    const text =
      code === String(HW.TOKEN_INVALID.code) ? message : hwMessage("TOKEN_INVALID", currentLang());
    expireSession(text, smsAlarm ? LOGOUT_DELAY_SMS_ALARM_MS : LOGOUT_DELAY_MS);
    throw new ApiError(text, "session", envelope.hwcode);
  }
  throw new ApiError(message, "business", envelope.hwcode);
}

function stripEmpty(params: FormBody): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}

function transportError(error: AxiosError, options: CallOptions, smsAlarm: boolean): ApiError {
  if (axios.isCancel(error)) return new ApiError("cancelled", "transport");
  const response = error.response;
  if (!response) {
    const timedOut = error.code === "ECONNABORTED" || error.code === "ETIMEDOUT";
    return new ApiError(transportMessage(timedOut ? 408 : null), "transport", null, null);
  }
  const status = response.status;
  const body = response.data;
  if (status === 401) {
    const message = transportMessage(401);
    if (!options.skipSessionHandling) {
      expireSession(message);
      return new ApiError(message, "session", isEnvelope(body) ? body.hwcode : 113, 401);
    }
    return new ApiError(message, "transport", 113, 401);
  }
  // Rate limiting answers with an envelope whose msg is already localized.
  if (status === 429 && isEnvelope(body) && body.msg) {
    return new ApiError(body.msg, "transport", body.hwcode, 429);
  }
  const message = transportMessage(status);
  // A gateway timeout on an SMS / alarm call stays on screen until closed (SPEC §8).
  if (status === 504 && smsAlarm) {
    feedback()?.notification.error({ key: "gateway-timeout", title: message, duration: false });
  }
  return new ApiError(message, "transport", null, status);
}

export interface RouteCallOptions extends Omit<CallOptions, "base" | "smsAlarm"> {
  params?: Record<string, string | number>;
}

/**
 * Calls a route of the contract (packages/shared/src/contract/): its method, path, base and
 * transport rule come from the route, the input and reply are typed by it.
 */
export function request<R extends Route>(
  route: R,
  ...[input, options]: InputOf<R> extends undefined
    ? [input?: undefined, options?: RouteCallOptions]
    : [input: InputOf<R>, options?: RouteCallOptions]
): Promise<ReplyOf<R>> {
  const path = pathOf(route, options?.params);
  const base: ApiBase = path.startsWith("/eapi/") ? "/eapi" : "/api";
  const body = (input ?? (route.method === "GET" ? undefined : {})) as FormBody | undefined;
  return call<ReplyOf<R>>(route.method, path.slice(base.length), body, {
    ...options,
    base,
    smsAlarm: route.smsAlarm,
  });
}
