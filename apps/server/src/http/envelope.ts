import { HW, type HwcodeEntry, type HwKey, hwMessage, validationMessage } from "@keyway/shared";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { requestLang } from "./lang.ts";

/**
 * The SPEC envelope `{hwcode, hwdata, msg}`. Routes return ok(data) or throw AppError; this
 * plugin fills in the localized `msg` and turns every failure into the envelope.
 */
export interface EnvelopeBody {
  hwcode: number | string;
  hwdata: unknown;
  msg?: string;
}

export function ok<T>(hwdata: T): { hwcode: 0; hwdata: T; msg: string } {
  return { hwcode: 0, hwdata, msg: "" };
}

/** A refusal the user should see: an hwcode of the catalogue, HTTP 200 unless said. */
export class AppError extends Error {
  constructor(
    readonly key: HwKey,
    readonly data: unknown = null,
    readonly httpStatus = 200,
    /** A VALIDATION_MESSAGES key whose text replaces the catalogue text. */
    readonly validationKey?: string,
  ) {
    super(key);
  }

  /** A field that fails a format rule found past the schema (e.g. phone by country). */
  static invalid(field: string, validationKey: string): AppError {
    return new AppError("BAD_REQUEST", { field }, 200, validationKey);
  }
}

export const fail = (key: HwKey, data: unknown = null) => new AppError(key, data);

function isEnvelope(payload: unknown): payload is EnvelopeBody {
  return typeof payload === "object" && payload !== null && "hwcode" in payload;
}

function keyForCode(code: number | string): HwKey | undefined {
  return (Object.keys(HW) as HwKey[]).find((k) => String(HW[k].code) === String(code));
}

/** Characters from which an answer is sent as bytes (below, counting them costs little). */
const LONG_ANSWER = 64 * 1024;

export function registerEnvelope(app: FastifyInstance) {
  app.addHook("preSerialization", async (request, _reply, payload) => {
    if (isEnvelope(payload) && !payload.msg) {
      const key = keyForCode(payload.hwcode);
      if (key) payload.msg = hwMessage(key, requestLang(request));
    }
    return payload;
  });

  // A bare status with no body is still a refusal the client must be able to read: the
  // WebSocket plugin answers a plain GET on a socket route (/ws, /tunnel) with an empty 404.
  app.addHook("onSend", async (request, reply, payload) => {
    if (reply.statusCode < 400 || (payload !== undefined && payload !== null && payload !== ""))
      return payload;
    const key: HwKey =
      reply.statusCode === 404
        ? "NOT_FOUND"
        : reply.statusCode >= 500
          ? "SERVER_ERROR"
          : "BAD_REQUEST";
    reply.type("application/json; charset=utf-8");
    return JSON.stringify({
      hwcode: HW[key].code,
      hwdata: null,
      msg: hwMessage(key, requestLang(request)),
    });
  });

  // A long answer (a list of thousands of devices) goes out as bytes, encoded once: as a
  // string Fastify encodes it twice, to count its bytes and to send them; a Chinese message
  // or name makes that string two-byte and each pass dearer (docs/performance.md "devices").
  app.addHook("onSend", async (_request, _reply, payload) =>
    typeof payload === "string" && payload.length > LONG_ANSWER ? Buffer.from(payload) : payload,
  );

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    const lang = requestLang(request);
    if (error instanceof AppError) {
      const text = error.validationKey ? validationMessage(error.validationKey, lang) : undefined;
      return send(reply, error.httpStatus, error.key, error.data, text);
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issue = error.validation[0];
      const field = issue?.instancePath.replace(/^\//, "").replace(/\//g, ".") || undefined;
      const text = issue ? validationMessage(issue.message ?? "", lang) : undefined;
      return send(reply, 200, "BAD_REQUEST", field ? { field } : null, text);
    }
    const status = error.statusCode ?? 500;
    if (status === 429) return send(reply, 429, "RATE_LIMITED", null);
    if (status >= 400 && status < 500) {
      // Malformed bodies, wrong content types, oversize payloads: the request is at fault.
      request.log.info({ err: error.message, code: error.code }, "bad request");
      return send(reply, 200, "BAD_REQUEST", null);
    }
    request.log.error({ err: error }, "unhandled error");
    return send(reply, 500, "SERVER_ERROR", null);
  });

  function send(reply: FastifyReply, status: number, key: HwKey, data: unknown, text?: string) {
    const lang = requestLang(reply.request as FastifyRequest);
    const entry: HwcodeEntry = HW[key];
    // Shared codes (203) tell their outcome in hwdata.reason (SPEC §8).
    const hwdata = entry.reason ? { ...(data as object | null), reason: entry.reason } : data;
    return reply
      .status(status)
      .send({ hwcode: entry.code, hwdata, msg: text ?? hwMessage(key, lang) });
  }
}
