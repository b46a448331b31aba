import {
  type Envelope,
  HW,
  hwKeyOf,
  hwMessage,
  isSuccess,
  LOGOUT_DELAY_MS,
  REQUEST_TIMEOUT_MS,
} from "@keyway/shared";
import axios, { type AxiosError, type AxiosRequestConfig, type Method } from "axios";
import i18n, { currentLang } from "../i18n/index.ts";
import { feedback } from "../lib/feedback.ts";
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
}

export type ApiBase = "/api" | "/eapi";

// ---- SPEC §8 transport table ----

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

// ---- Expired session: notify, then log out after LOGOUT_DELAY_MS ----

let expiring = false;

export function expireSession(message: string): void {
  if (expiring) return;
  expiring = true;
  const hadToken = hasToken();
  useAppStore.getState().setLoginState(LOGIN_STATE.expired);
  feedback()?.notification.error({ key: "session-expired", title: message });
  window.setTimeout(() => {
    expiring = false;
    signOutLocally(hadToken ? "/loginTimeout" : "/login");
  }, LOGOUT_DELAY_MS);
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
  if (options.base) config.baseURL = options.base;
  if (params) {
    if (isQuery) config.params = stripEmpty(params);
    else config.data = toForm(params);
  }

  let envelope: unknown;
  try {
    envelope = (await http.request(config)).data;
  } catch (error) {
    throw transportError(error as AxiosError, options);
  }

  if (!isEnvelope(envelope)) throw new ApiError(i18n.t("http.serverApi"), "transport", 500);
  if (isSuccess(envelope)) return envelope.hwdata as T;

  const code = envelope.hwcode;
  const message = envelope.msg || hwcodeMessage(code);
  if (String(code) === String(HW.TOKEN_INVALID.code) && !options.skipSessionHandling) {
    expireSession(message);
    throw new ApiError(message, "session", code);
  }
  throw new ApiError(message, "business", code);
}

function stripEmpty(params: FormBody): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}

function transportError(error: AxiosError, options: CallOptions): ApiError {
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
  return new ApiError(transportMessage(status), "transport", null, status);
}

export const api = {
  get: <T>(url: string, params?: FormBody, options?: CallOptions) =>
    call<T>("GET", url, params, options),
  post: <T>(url: string, body?: FormBody, options?: CallOptions) =>
    call<T>("POST", url, body ?? {}, options),
  put: <T>(url: string, body?: FormBody, options?: CallOptions) =>
    call<T>("PUT", url, body ?? {}, options),
  delete: <T>(url: string, body?: FormBody, options?: CallOptions) =>
    call<T>("DELETE", url, body, options),
};

/** The same client on the `/eapi` base (same cloudtoken header and error handling). */
export const eapi = {
  get: <T>(url: string, params?: FormBody, options?: CallOptions) =>
    call<T>("GET", url, params, { ...options, base: "/eapi" }),
  post: <T>(url: string, body?: FormBody, options?: CallOptions) =>
    call<T>("POST", url, body ?? {}, { ...options, base: "/eapi" }),
};
