import type { FastifyReply, FastifyRequest } from "fastify";

type Envelope = { hwcode: number | string; hwdata: unknown; msg?: string };
const isFailure = (payload: unknown): payload is Envelope =>
  typeof payload === "object" &&
  payload !== null &&
  "hwcode" in payload &&
  String((payload as Envelope).hwcode) !== "0";

/** SPEC: activeAccount answers 1 or 0 — every failure (format, code, account) carries 0. */
export async function zeroOnFailure(
  _request: FastifyRequest,
  _reply: FastifyReply,
  payload: unknown,
) {
  return isFailure(payload) ? { ...payload, hwdata: 0 } : payload;
}

/**
 * SPEC: `PUT /api/user/v1/account` answers 0 or 420. A business refusal (the account module's
 * string codes: same as current, taken, wrong or expired code) becomes 420 with its own
 * localized text in msg and its code in hwdata.reason; format errors keep 400 and token /
 * rate-limit answers their codes, as on every call.
 */
export async function operationFailed(
  _request: FastifyRequest,
  _reply: FastifyReply,
  payload: unknown,
) {
  if (!isFailure(payload) || typeof payload.hwcode !== "string") return payload;
  return { ...payload, hwcode: 420, hwdata: { reason: payload.hwcode } };
}
