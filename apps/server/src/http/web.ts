import { existsSync } from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { AppError } from "./envelope.ts";
import { createShellPages, isLoginShellPath } from "./shellPage.ts";

/** A file name the web build gives a content hash to (`index-p5HXvf6K.js`, Vite's default). */
const HASHED = /-[\w-]{8}\.[a-z0-9]+$/i;
/** The encodings @fastify/static picks a precompressed sibling for (`<file>.br`, `.gz`). */
const ENCODED = /\.(br|gz)$/;

/**
 * Helmet's headers that mean something only on a document (or a worker script, which the app
 * has none of): left off the hashed scripts and styles, where they cost ~700 bytes a file,
 * tens of kilobytes over the login's first load. `nosniff` and the resource policy stay.
 */
export const DOCUMENT_ONLY_HEADERS = [
  "content-security-policy",
  "cross-origin-opener-policy",
  "origin-agent-cluster",
  "referrer-policy",
  "strict-transport-security",
  "x-dns-prefetch-control",
  "x-download-options",
  "x-frame-options",
  "x-permitted-cross-domain-policies",
  "x-xss-protection",
];

export const CACHE_IMMUTABLE = "public, max-age=31536000, immutable";
export const CACHE_REVALIDATE = "no-cache";

/**
 * Cache-Control of a file of the built app (`file` absolute, or relative to `root`): the
 * hashed build output under assets/ never changes under its name, so browsers keep it a year
 * without asking again; everything else (index.html, which names the current hashes, the
 * favicon) is revalidated on every use (ETag, 304 when unchanged).
 */
export function cacheControlOf(root: string, file: string): string {
  const relative = path.relative(root, path.resolve(root, file)).split(path.sep);
  const name = (relative.at(-1) ?? "").replace(ENCODED, "");
  return relative.length === 2 && relative[0] === "assets" && HASHED.test(name)
    ? CACHE_IMMUTABLE
    : CACHE_REVALIDATE;
}

/**
 * The built SPA (apps/web/dist), with its routes falling back to index.html; API paths answer
 * 404 envelopes. The build writes brotli and gzip siblings of its larger text files
 * (apps/web/precompress.ts): they are sent as they are, by the request's Accept-Encoding, with
 * `Vary: Accept-Encoding` (preCompressed), and hashed assets are cached for good. The login
 * shell's pages get index.html with the brand's side already drawn (shellPage.ts).
 */
export async function serveWeb(app: FastifyInstance, webDist: string) {
  const hasWeb = existsSync(path.join(webDist, "index.html"));
  // Wildcard serving: a rebuilt bundle (new hashed file names) is served without a restart;
  // unknown files fall through to the not-found handler below.
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webDist,
      preCompressed: true,
      cacheControl: false,
      setHeaders: (reply, file) => {
        const cacheControl = cacheControlOf(webDist, file);
        reply.header("cache-control", cacheControl);
        if (cacheControl === CACHE_IMMUTABLE && /\.(js|css)$/.test(file.replace(ENCODED, "")))
          for (const name of DOCUMENT_ONLY_HEADERS) reply.removeHeader(name);
      },
    });
  }
  const sendShellPage = createShellPages(webDist);
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split("?")[0];
    const isApi = /^\/(api|eapi|ws|tunnel)(\/|$)/.test(pathname);
    // Screens (no file extension) get the SPA; a missing asset stays a 404.
    const isFile = /\.[a-z0-9]+$/i.test(pathname);
    if (hasWeb && request.method === "GET" && !isApi && !isFile) {
      // A login-shell page comes with its brand side drawn (first paint before the scripts).
      if (isLoginShellPath(pathname) && sendShellPage(request, reply)) return reply;
      return reply.sendFile("index.html");
    }
    throw new AppError("NOT_FOUND", null, 404);
  });
}
