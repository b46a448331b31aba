import {
  API,
  type Envelope,
  HW,
  isSuccess,
  type LoginResult,
  type loginBody,
  pathOf,
  type TwoFactorChallenge,
  type TwoFactorEnabled,
  type TwoFactorSetup,
} from "@keyway/shared";
import type { AxiosError } from "axios";
import type { z } from "zod";
import i18n from "../i18n/index.ts";
import { http, hwcodeMessage, request, toForm, transportMessage } from "./client.ts";
import { ApiError } from "./errors.ts";

/**
 * The password login that two-factor may interrupt: `07010113` carries the challenge in
 * hwdata, which the generic client drops — so this posts by itself and maps failures the
 * same way (business refusals with the server's localized msg, transport by SPEC §8).
 */
export type LoginStep =
  | { kind: "session"; result: LoginResult["result"] }
  | ({ kind: "challenge"; message: string } & TwoFactorChallenge);

export async function passwordLoginStep(body: z.output<typeof loginBody>): Promise<LoginStep> {
  let envelope: Envelope;
  try {
    // The whole path: the contract's path carries the /api base.
    envelope = (await http.post(pathOf(API.accounts.login), toForm(body), { baseURL: "" }))
      .data as Envelope;
  } catch (error) {
    const response = (error as AxiosError<Envelope>).response;
    if (response?.status === 429 && response.data?.msg) {
      throw new ApiError(response.data.msg, "transport", response.data.hwcode, 429);
    }
    const code = (error as AxiosError).code;
    const timedOut = code === "ECONNABORTED" || code === "ETIMEDOUT";
    throw new ApiError(
      transportMessage(response ? response.status : timedOut ? 408 : null),
      "transport",
      null,
      response?.status ?? null,
    );
  }
  if (typeof envelope !== "object" || envelope === null || !("hwcode" in envelope)) {
    throw new ApiError(i18n.t("http.serverApi"), "transport", 500);
  }
  if (isSuccess(envelope)) {
    return { kind: "session", result: (envelope.hwdata as LoginResult).result };
  }
  const message = envelope.msg || hwcodeMessage(envelope.hwcode);
  if (String(envelope.hwcode) === String(HW.TWO_FACTOR_REQUIRED.code)) {
    return { kind: "challenge", message, ...(envelope.hwdata as TwoFactorChallenge) };
  }
  throw new ApiError(message, "business", envelope.hwcode);
}

const t = API.twoFactor;
const q = API.qrLogin;

/** Two-factor login: the security centre's card and the login's code step. */
export const twoFactorApi = {
  status: () => request(t.status),
  /** No code: a new secret to scan (not yet on). */
  beginSetup: () => request(t.enable, {}) as Promise<TwoFactorSetup>,
  /** The app's current code turns it on; the recovery codes come back once. */
  confirmSetup: (code: string) => request(t.enable, { code }) as Promise<TwoFactorEnabled>,
  disable: (proof: { password?: string; code?: string }) => request(t.disable, proof),
  regenerateRecoveryCodes: (code: string) => request(t.regenerateRecoveryCodes, { code }),
  /** The login's second step. */
  login: (challenge: string, code: string) => request(t.login, { challenge, code }),
};

/** QR-code login: the desktop's QR and poll, the phone's scan and answer. */
export const qrLoginApi = {
  getQrToken: (body: {
    terminalUUID: string;
    terminalType: string;
    terminalName: string;
    terminalOS: string;
    loginOemId: string;
    keepLogin: boolean;
  }) => request(q.issue, body),
  check: (checkToken: string, signal?: AbortSignal) => request(q.check, { checkToken }, { signal }),
  // The phone's page handles a missing or expired login itself (it asks to log in first).
  scan: (qrToken: string) => request(q.scan, { qrToken }, { skipSessionHandling: true }),
  answer: (qrToken: string, confirm: boolean) =>
    request(q.answer, { qrToken, confirm }, { skipSessionHandling: true }),
};

/** react-query key of the security centre's two-factor state. */
export const TWO_FACTOR_STATUS_KEY = ["user", "twoFactor"] as const;
