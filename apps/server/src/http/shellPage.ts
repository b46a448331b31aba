import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import {
  brandForHost,
  brandLogo,
  brandWording,
  type Lang,
  LOGIN_SHELL_PATHS,
} from "@keyway/shared";
import type { FastifyReply, FastifyRequest } from "fastify";
import { requestLang } from "./lang.ts";

const SHELL_PATHS: ReadonlySet<string> = new Set(LOGIN_SHELL_PATHS);
const ROOT = '<div id="root"></div>';

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

export const isLoginShellPath = (pathname: string) => SHELL_PATHS.has(pathname);

/**
 * The login shell's brand side as the web app's AuthShellLoading draws it
 * (apps/web/src/components/AuthFrame.tsx: the same elements and classes), without the hero's
 * feature list, which needs the app's icons and texts. React replaces it with the same markup.
 */
export function shellMarkup(host: string, lang: Lang): string {
  const brand = brandForHost(host);
  const wording = brandWording(brand, lang);
  const name = escapeHtml(wording.name);
  const logo = escapeHtml(brandLogo(brand));
  return `<div id="root" style="--kw-primary:${escapeHtml(brand.color)}"><div class="kw-auth"><header class="kw-auth-top"><span class="kw-brand"><img src="${logo}" width="32" height="32" alt="" class="kw-brand-logo"><span class="kw-brand-name" data-testid="brand-name">${name}</span></span></header><main class="kw-auth-main"><section class="kw-auth-hero" aria-hidden="true"><img src="${logo}" width="64" height="64" alt=""><h1>${name}</h1><p class="kw-auth-hero-title">${escapeHtml(wording.title)}</p><ul></ul></section><div class="kw-auth-card kw-auth-card-loading" aria-busy="true"><span class="kw-spinner"></span></div></main></div></div>`;
}

interface Rendered {
  etag: string;
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

/**
 * index.html for a login-shell page with the brand's header and panel already in #root
 * (issue 17): the first paint needs only the HTML and the stylesheet, not the scripts. Kept per
 * (build, brand, language); compressed once each, revalidated with its ETag like index.html.
 */
export function createShellPages(webDist: string) {
  const file = path.join(webDist, "index.html");
  const cache = new Map<string, Rendered>();

  function render(host: string, lang: Lang): Rendered | null {
    let mtime: number;
    try {
      mtime = statSync(file).mtimeMs;
    } catch {
      return null;
    }
    const brandId = brandForHost(host).id;
    const key = `${mtime}|${brandId}|${lang}`;
    let rendered = cache.get(key);
    if (!rendered) {
      const html = readFileSync(file, "utf8");
      if (!html.includes(ROOT)) return null;
      const identity = Buffer.from(
        html
          .replace(ROOT, shellMarkup(host, lang))
          .replace(/<html lang="[^"]*"/, `<html lang="${lang === "en" ? "en" : "zh-CN"}"`),
      );
      const hash = createHash("sha256").update(identity).digest("base64url").slice(0, 16);
      rendered = { etag: `"shell-${hash}"`, identity };
      // A new build (another mtime) makes the old entries useless.
      for (const old of cache.keys()) if (!old.startsWith(`${mtime}|`)) cache.delete(old);
      cache.set(key, rendered);
    }
    return rendered;
  }

  /** Sends the page, or returns false when the build has no index.html to fill. */
  return function sendShellPage(request: FastifyRequest, reply: FastifyReply): boolean {
    const page = render(request.hostname, requestLang(request));
    if (!page) return false;
    reply
      .header("content-type", "text/html; charset=utf-8")
      .header("cache-control", "no-cache")
      // The language comes from the query, the cookie or Accept-Language; the brand from Host.
      .header("vary", "accept-encoding, accept-language, cookie")
      .header("etag", page.etag);
    if (request.headers["if-none-match"] === page.etag) {
      reply.code(304).send();
      return true;
    }
    const accepted = String(request.headers["accept-encoding"] ?? "");
    if (/\bbr\b/.test(accepted)) {
      page.br ??= zlib.brotliCompressSync(page.identity);
      reply.header("content-encoding", "br").send(page.br);
    } else if (/\bgzip\b/.test(accepted)) {
      page.gzip ??= zlib.gzipSync(page.identity);
      reply.header("content-encoding", "gzip").send(page.gzip);
    } else reply.send(page.identity);
    return true;
  };
}
