import { DEFAULT_LANG, type Lang, parseLang } from "@keyway/shared";
import type { FastifyRequest } from "fastify";

/** SPEC: `msg` is localized by the `lang` cookie or query (`cn` | `en`). */
export function requestLang(request: FastifyRequest): Lang {
  const query = (request.query ?? {}) as Record<string, unknown>;
  return (
    parseLang(query.lang) ??
    parseLang(query.language) ??
    parseLang(request.cookies?.lang) ??
    parseLang(request.headers["accept-language"]) ??
    DEFAULT_LANG
  );
}
