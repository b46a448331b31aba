import type { ServerResponse } from "node:http";
import { HW } from "@keyway/shared";
import type { FastifyBaseLogger } from "fastify";
import { AppError } from "../../../http/envelope.ts";

/** The relay's refusals: an AppError (unexpected failures logged), as a page with its hwcode. */
export function createRefusals(log: FastifyBaseLogger) {
  function refuse(response: ServerResponse, error: unknown) {
    const e = asAppError(error);
    if (response.headersSent) return response.destroy();
    const status = e.httpStatus >= 400 ? e.httpStatus : 403;
    const entry = HW[e.key];
    clearHeaders(response);
    response.writeHead(status, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "x-keyway-hwcode": String(entry.code),
    });
    response.end(
      `<!doctype html><html><head><meta charset="utf-8"><title>Keyway</title></head>` +
        `<body style="font-family:sans-serif;margin:3em;color:#333">` +
        `<h2>${escapeHtml(entry.zh)}</h2><p>${escapeHtml(entry.en)}</p>` +
        `<p style="color:#999">hwcode ${escapeHtml(String(entry.code))}</p></body></html>`,
    );
  }

  function asAppError(error: unknown): AppError {
    if (error instanceof AppError) return error;
    log.warn({ err: error }, "relay failure");
    return new AppError("TARGET_UNREACHABLE", null, 502);
  }

  return { refuse, asAppError };
}

/** Headers Fastify's plugins (helmet) put on the response: the device's own go instead. */
export function clearHeaders(response: ServerResponse) {
  for (const name of response.getHeaderNames()) response.removeHeader(name);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
