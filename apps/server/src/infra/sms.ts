import { createHmac, randomUUID } from "node:crypto";

/**
 * SMS provider adapters. The default is the local outbox (rows the operator reads at
 * GET /api/operator/v1/outbox); `aliyun` calls Alibaba Cloud SMS (dysmsapi SendSms).
 * Infrastructure, below both users: the notify queue (codes) and the alarm sends.
 */
export interface SmsSend {
  /** Country code and national number, e.g. "86" and "13800138000". */
  countryCode: string;
  phone: string;
  text: string;
  /** Template variables for providers that send a registered template. */
  params: Record<string, string>;
  /** Our idempotency key (sent as the provider's out id where it has one). */
  key: string;
}

/** The provider refused or could not take the message: nothing was sent. */
export class SmsNotSent extends Error {
  constructor(
    message: string,
    /** True when trying again may work (throttling, provider down). */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface SmsProvider {
  name: string;
  /** Local providers are written in the same transaction as the send's "sent". */
  local: boolean;
  send(message: SmsSend): Promise<{ ref: string }>;
  /**
   * Was the message with this key sent? `{ref}` yes, null no, undefined the provider cannot
   * tell (then an interrupted send is not repeated: it is marked uncertain).
   */
  lookup?(message: SmsSend, sentOn: Date): Promise<{ ref: string } | null | undefined>;
}

/** Marks the outbox: the notify module's queue keeps the text and the operator reads it. */
export const outboxSmsProvider: SmsProvider = {
  name: "outbox",
  local: true,
  async send() {
    return { ref: "outbox" };
  },
};

export interface AliyunSmsOptions {
  accessKeyId: string;
  accessKeySecret: string;
  signName: string;
  templateCode: string;
  /** https://dysmsapi.aliyuncs.com by default; tests point it at a local stand-in. */
  endpoint: string;
  regionId?: string;
  timeoutMs?: number;
}

/** RFC 3986 encoding as Alibaba Cloud's RPC signature wants it (space %20, * %2A, ~ kept). */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * The RPC-style signature (SignatureVersion 1.0, HMAC-SHA1): sort the parameters by name,
 * percent-encode names and values, join as a query, then sign
 * `METHOD&%2F&percentEncode(query)` with `AccessKeySecret&`; base64.
 */
export function aliyunSignature(
  method: "GET" | "POST",
  params: Record<string, string>,
  accessKeySecret: string,
): string {
  const canonical = Object.keys(params)
    .filter((k) => k !== "Signature")
    .sort()
    .map((k) => `${percentEncode(k)}=${percentEncode(params[k])}`)
    .join("&");
  const stringToSign = `${method}&${percentEncode("/")}&${percentEncode(canonical)}`;
  return createHmac("sha1", `${accessKeySecret}&`).update(stringToSign).digest("base64");
}

/** Aliyun's error codes worth another try later (throttling, its own trouble). */
const RETRYABLE_CODES =
  /^(isv\.BUSINESS_LIMIT_CONTROL|Throttling|ServiceUnavailable|InternalError|isp\.)/;

export function createAliyunSmsProvider(opts: AliyunSmsOptions): SmsProvider {
  const endpoint = opts.endpoint.replace(/\/$/, "");

  async function call(action: string, extra: Record<string, string>) {
    const params: Record<string, string> = {
      AccessKeyId: opts.accessKeyId,
      Action: action,
      Format: "JSON",
      RegionId: opts.regionId ?? "cn-hangzhou",
      SignatureMethod: "HMAC-SHA1",
      SignatureNonce: randomUUID(),
      SignatureVersion: "1.0",
      Timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      Version: "2017-05-25",
      ...extra,
    };
    params.Signature = aliyunSignature("POST", params, opts.accessKeySecret);
    const body = Object.keys(params)
      .map((k) => `${percentEncode(k)}=${percentEncode(params[k])}`)
      .join("&");
    let response: Response;
    try {
      response = await fetch(`${endpoint}/`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      // Nothing reached the provider: safe to try again.
      if (cause === "ECONNREFUSED" || cause === "ENOTFOUND")
        throw new SmsNotSent(`aliyun unreachable (${cause})`, true);
      // A timeout or a reset after the request left: whether it was sent is unknown.
      throw error;
    }
    const text = await response.text();
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new SmsNotSent(
        `aliyun answered HTTP ${response.status} without JSON`,
        response.status >= 500,
      );
    }
    return json;
  }

  const phoneNumber = (m: SmsSend) =>
    m.countryCode === "86" ? m.phone : `${m.countryCode}${m.phone}`;

  return {
    name: "aliyun",
    local: false,
    async send(m) {
      const json = await call("SendSms", {
        PhoneNumbers: phoneNumber(m),
        SignName: opts.signName,
        TemplateCode: opts.templateCode,
        TemplateParam: JSON.stringify(m.params),
        OutId: m.key,
      });
      const code = String(json.Code ?? "");
      if (code !== "OK") {
        throw new SmsNotSent(
          `aliyun ${code}: ${String(json.Message ?? "")}`,
          RETRYABLE_CODES.test(code),
        );
      }
      return { ref: String(json.BizId ?? "") };
    },
    /** QuerySendDetails of that phone and day, matched on our OutId. */
    async lookup(m, sentOn) {
      let json: Record<string, unknown>;
      try {
        json = await call("QuerySendDetails", {
          PhoneNumber: phoneNumber(m),
          SendDate: sentOn.toISOString().slice(0, 10).replace(/-/g, ""),
          PageSize: "50",
          CurrentPage: "1",
        });
      } catch {
        return undefined;
      }
      if (String(json.Code ?? "") !== "OK") return undefined;
      const dtos = (json.SmsSendDetailDTOs as { SmsSendDetailDTO?: unknown[] } | undefined)
        ?.SmsSendDetailDTO;
      if (!Array.isArray(dtos)) return undefined;
      const hit = dtos.find((d) => (d as { OutId?: string }).OutId === m.key) as
        | { BizId?: string }
        | undefined;
      return hit ? { ref: String(hit.BizId ?? "") } : null;
    },
  };
}
