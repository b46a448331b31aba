import {
  type Envelope,
  HW,
  isSuccess,
  type LoginResult,
  type loginBody,
  type QrLoginCheckResult,
  type QrLoginRequestInfo,
  type QrTokenResult,
  type TwoFactorChallenge,
  type TwoFactorEnabled,
  type TwoFactorSetup,
  type TwoFactorStatus,
} from "@keyway/shared";
import type { AxiosError } from "axios";
import type { z } from "zod";
import i18n from "../i18n/index.ts";
import { api, http, hwcodeMessage, toForm, transportMessage } from "./client.ts";
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
    envelope = (await http.post("/user/login", toForm(body))).data as Envelope;
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

/** Two-factor login: the security centre's card and the login's code step. */
export const twoFactorApi = {
  status: () => api.get<TwoFactorStatus>("/v1/users/twoFactorAuthentication"),
  /** No code: a new secret to scan (not yet on). */
  beginSetup: () => api.post<TwoFactorSetup>("/v1/users/enableTwoFactorAuthentication", {}),
  /** The app's current code turns it on; the recovery codes come back once. */
  confirmSetup: (code: string) =>
    api.post<TwoFactorEnabled>("/v1/users/enableTwoFactorAuthentication", { code }),
  disable: (proof: { password?: string; code?: string }) =>
    api.delete<unknown>("/v1/users/twoFactorAuthentication", proof),
  regenerateRecoveryCodes: (code: string) =>
    api.post<TwoFactorEnabled>("/v1/users/twoFactorRecoveryCodes", { code }),
  /** The login's second step. */
  login: (challenge: string, code: string) =>
    api.post<LoginResult>("/user/twoFactorLogin", { challenge, code }),
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
  }) => api.post<QrTokenResult>("/user/getQrToken", body),
  check: (checkToken: string, signal?: AbortSignal) =>
    api.post<QrLoginCheckResult>("/user/qrLoginCheck", { checkToken }, { signal }),
  // The phone's page handles a missing or expired login itself (it asks to log in first).
  scan: (qrToken: string) =>
    api.post<QrLoginRequestInfo>("/user/qrLoginScan", { qrToken }, { skipSessionHandling: true }),
  answer: (qrToken: string, confirm: boolean) =>
    api.post<unknown>("/user/qrLoginConfirm", { qrToken, confirm }, { skipSessionHandling: true }),
};

/** react-query key of the security centre's two-factor state. */
export const TWO_FACTOR_STATUS_KEY = ["user", "twoFactor"] as const;
