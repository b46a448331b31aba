import type { IncomingMessage, ServerResponse } from "node:http";
import { HW, parseLang } from "@keyway/shared";
import type { FastifyBaseLogger } from "fastify";
import { AppError } from "../../../http/envelope.ts";

/** The relay's refusals: an AppError (unexpected failures logged), as a page with its hwcode. */
export function createRefusals(log: FastifyBaseLogger) {
  function refuse(response: ServerResponse, error: unknown) {
    const e = asAppError(error);
    if (response.headersSent) return response.destroy();
    const page = refusalPage(e);
    clearHeaders(response);
    response.writeHead(page.status, page.headers);
    response.end(page.html);
  }

  /**
   * A read-only visitor's changing request (POST, PUT, PATCH, DELETE…): refused before it
   * reaches the device, with a page in the browser's language saying why.
   */
  function refuseViewOnly(response: ServerResponse, request: IncomingMessage) {
    const entry = HW.VIEW_ONLY;
    const zh = parseLang(request.headers["accept-language"]?.split(",")[0]) !== "en";
    const title = zh ? entry.zh : entry.en;
    const text = zh
      ? "您在该设备上的成员级别为只读：可以查看设备的页面，但提交、保存或更改的内容不会发送到设备。如需操作设备，请联系设备的管理员（A 钥匙）将您设为可读写。"
      : "Your member level on this device is read-only: you can look at the device's pages, but nothing you submit, save or change is sent to the device. To operate it, ask the device's owner (Akey) for read and write access.";
    clearHeaders(response);
    response.writeHead(403, {
      "content-type": "text/html; charset=utf-8",
      "content-language": zh ? "zh-CN" : "en",
      "cache-control": "no-store",
      vary: "accept-language",
      "x-keyway-hwcode": String(entry.code),
    });
    response.end(
      `<!doctype html><html lang="${zh ? "zh-CN" : "en"}"><head><meta charset="utf-8">` +
        `<title>${escapeHtml(title)}</title></head>` +
        `<body style="font-family:sans-serif;margin:3em;color:#333">` +
        `<h2>${escapeHtml(title)}</h2><p>${escapeHtml(text)}</p>` +
        `<p style="color:#999">${escapeHtml(request.method ?? "")} · hwcode ${escapeHtml(String(entry.code))}</p>` +
        `<p><a href="javascript:history.back()">${zh ? "返回" : "Back"}</a></p></body></html>`,
    );
  }

  function asAppError(error: unknown): AppError {
    if (error instanceof AppError) return error;
    log.warn({ err: error }, "relay failure");
    return new AppError("TARGET_UNREACHABLE", null, 502);
  }

  return { refuse, refuseViewOnly, asAppError };
}

/** The page of a refusal: its status, headers and text in both languages with its hwcode. */
export function refusalPage(e: AppError) {
  const entry = HW[e.key];
  return {
    status: e.httpStatus >= 400 ? e.httpStatus : 403,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "x-keyway-hwcode": String(entry.code),
    },
    html:
      `<!doctype html><html><head><meta charset="utf-8"><title>Keyway</title></head>` +
      `<body style="font-family:sans-serif;margin:3em;color:#333">` +
      `<h2>${escapeHtml(entry.zh)}</h2><p>${escapeHtml(entry.en)}</p>` +
      `<p style="color:#999">hwcode ${escapeHtml(String(entry.code))}</p></body></html>`,
  };
}

/** Headers Fastify's plugins (helmet) put on the response: the device's own go instead. */
export function clearHeaders(response: ServerResponse) {
  for (const name of response.getHeaderNames()) response.removeHeader(name);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
