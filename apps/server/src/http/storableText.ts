import cookie from "@fastify/cookie";
import { HW, hwMessage, validationMessage } from "@keyway/shared";
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preValidationAsyncHookHandler,
} from "fastify";
import { AppError } from "./envelope.ts";
import { requestLang } from "./lang.ts";

/**
 * Text PostgreSQL cannot store is refused at the door, for every route at once: a NUL
 * (text and jsonb reject it: the driver's error made the call a 500) and a lone UTF-16
 * surrogate (jsonb rejects its escape; a text column would silently store U+FFFD instead of
 * what was sent). The answer is the format error of a malformed field: BAD_REQUEST
 * (hwcode 400), localized `v.characters`, `hwdata.field` naming where it was found.
 */
/** With the `u` flag a surrogate pair is one code point: \p{Cs} only matches a lone half. */
const LONE_SURROGATE = /\p{Cs}/u;

export const isStorableText = (text: string) => !text.includes("\0") && !LONE_SURROGATE.test(text);

/**
 * The path (`machineCode`, `list.2.name`; "" for the value itself) of the first string or
 * object key in `value` that cannot be stored, or undefined. Iterative: a 1 MB JSON body
 * may nest far deeper than the call stack goes.
 */
export function unstorablePath(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, ""]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [item, path] = next;
    if (typeof item === "string") {
      if (!isStorableText(item)) return path;
      continue;
    }
    // Buffers are bodies of binary content types, not text for the database.
    if (typeof item !== "object" || item === null || Buffer.isBuffer(item)) continue;
    for (const [key, child] of Object.entries(item)) {
      const childPath = path ? `${path}.${key}` : key;
      if (!isStorableText(key)) return childPath;
      stack.push([child, childPath]);
    }
  }
  return undefined;
}

const refuseUnstorable: preValidationAsyncHookHandler = async (request) => {
  for (const part of [request.params, request.query, request.body]) {
    const path = unstorablePath(part);
    if (path !== undefined)
      throw new AppError("BAD_REQUEST", path ? { field: path } : null, 200, "v.characters");
  }
};

/**
 * Appends the check to every route's own preValidation hooks, so it runs after the route's
 * token guard (a bad token is refused before the body is judged, auth.ts) and before the
 * schema; routes of every module and plugin get it. Register before the routes.
 */
export function registerStorableText(app: FastifyInstance) {
  app.addHook("onRoute", (route) => {
    const own = route.preValidation;
    const hooks = own === undefined ? [] : Array.isArray(own) ? own : [own];
    // Fastify runs onRoute again for the HEAD twin of a GET, with the hooks already added.
    if (!hooks.includes(refuseUnstorable)) route.preValidation = [...hooks, refuseUnstorable];
  });
}

/**
 * Fastify's `frameworkErrors`: a path whose percent-encoding is not UTF-8 (`%ED%A0%80`, a
 * lone surrogate, or `%E0%A4%A`) or a path parameter over the router's length limit is
 * refused before any route or hook runs; without this Fastify answers its own JSON, not
 * the envelope.
 */
export function refuseMalformedUrl(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  // No hook ran: the query and cookies that choose the language are not parsed yet.
  const url = new URL(request.url, "http://localhost");
  request.query ??= Object.fromEntries(url.searchParams);
  request.cookies ??= cookie.parse(request.headers.cookie ?? "");
  const lang = requestLang(request);
  if (error.code === "FST_ERR_BAD_URL" || error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    const text = validationMessage(
      error.code === "FST_ERR_BAD_URL" ? "v.characters" : "v.text",
      lang,
    );
    return reply.status(200).send({ hwcode: HW.BAD_REQUEST.code, hwdata: null, msg: text });
  }
  // The only other framework error: an async route constraint failed (none is used).
  request.log.error({ err: error }, "router error");
  return reply
    .status(500)
    .send({ hwcode: HW.SERVER_ERROR.code, hwdata: null, msg: hwMessage("SERVER_ERROR", lang) });
}
