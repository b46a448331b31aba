import type { HwKey } from "@keyway/shared";

/**
 * The EZVIZ (萤石) open platform, as documented for its "lapp" API: form-encoded POSTs,
 * answers `{code, msg, data}` with `code` a string ("200" success).
 *   POST /api/lapp/token/get   appKey, appSecret  → data {accessToken, expireTime (ms)}
 *     10001 parameter error, 10005 AppKey frozen, 10017 AppKey does not exist,
 *     10030 AppKey and AppSecret do not match, 49999 data error.
 *   POST /api/lapp/device/list accessToken, pageStart, pageSize → data [...], page {total}
 * open.ys7.com serves mainland China; open.ezvizlife.com (and regional hosts) the rest of
 * the world, hence the configurable base URL (EZVIZ_API_URL).
 */
export interface EzvizClient {
  /** Checks a key pair: a token and the number of cameras on the account, or why not. */
  check(appKey: string, appSecret: string): Promise<EzvizCheck>;
}

export type EzvizCheck =
  | { ok: true; cameraCount: number | null }
  /** `refused`: EZVIZ answered no (the account is wrong); otherwise it could not answer. */
  | { ok: false; error: HwKey; refused: boolean };

interface LappAnswer {
  code?: unknown;
  msg?: unknown;
  data?: unknown;
  page?: { total?: unknown };
}

const REFUSALS: Record<string, HwKey> = {
  "10001": "EZVIZ_APPKEY_NOT_FOUND",
  "10005": "EZVIZ_APPKEY_FROZEN",
  "10017": "EZVIZ_APPKEY_NOT_FOUND",
  "10030": "EZVIZ_SECRET_MISMATCH",
};

export function createEzvizClient(opts: {
  baseUrl: string;
  /** Below the client's 15 s request timeout, so the user hears back in time. */
  timeoutMs?: number;
  /** Told of failures without credentials: the EZVIZ code or the network error. */
  log?: { warn: (obj: object, msg: string) => void };
}): EzvizClient {
  const base = opts.baseUrl.replace(/\/$/, "");
  const timeoutMs = opts.timeoutMs ?? 8_000;

  async function post(path: string, form: Record<string, string>): Promise<LappAnswer> {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`EZVIZ HTTP ${response.status}`);
    return (await response.json()) as LappAnswer;
  }

  async function check(appKey: string, appSecret: string): Promise<EzvizCheck> {
    let token: LappAnswer;
    try {
      token = await post("/api/lapp/token/get", { appKey, appSecret });
    } catch (error) {
      // Only the error's name/message: a fetch error names the URL, never the body.
      opts.log?.warn({ path: "/api/lapp/token/get", err: String(error) }, "EZVIZ unreachable");
      return { ok: false, error: "EZVIZ_UNREACHABLE", refused: false };
    }
    const code = String(token.code ?? "");
    const accessToken = (token.data as { accessToken?: unknown } | null)?.accessToken;
    if (code !== "200" || typeof accessToken !== "string") {
      const refusal = REFUSALS[code];
      opts.log?.warn({ path: "/api/lapp/token/get", code }, "EZVIZ refused the key pair");
      return refusal
        ? { ok: false, error: refusal, refused: true }
        : { ok: false, error: "EZVIZ_UNREACHABLE", refused: false };
    }
    // The camera count is a courtesy: a valid pair stays valid if the list fails.
    try {
      const list = await post("/api/lapp/device/list", {
        accessToken,
        pageStart: "0",
        pageSize: "1",
      });
      const total = Number(list.page?.total);
      const count = String(list.code) === "200" && Number.isInteger(total) ? total : null;
      return { ok: true, cameraCount: count };
    } catch (error) {
      opts.log?.warn({ path: "/api/lapp/device/list", err: String(error) }, "EZVIZ list failed");
      return { ok: true, cameraCount: null };
    }
  }

  return { check };
}
