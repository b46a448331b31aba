import type { IncomingMessage, ServerResponse } from "node:http";
import { isIP } from "node:net";

/** Small JSON helpers of the agent's local pages (the simulated HMI, the consent page). */

/**
 * JSON only: a form or text/plain POST is what another web page can send without a CORS
 * preflight, so refusing it keeps other sites from acting on these pages.
 */
export function isJson(req: IncomingMessage): boolean {
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  return type === "application/json";
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) return undefined;
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

/**
 * Whether the request names this machine the way a person at it does: an IP address,
 * `localhost`, a one-label name or a `.local` name. A web page that re-binds its own domain
 * to 127.0.0.1 (DNS rebinding) sends its own name and is refused.
 */
export function localHost(req: IncomingMessage): boolean {
  const host = (req.headers.host ?? "").trim().toLowerCase();
  const name = host.startsWith("[") ? host.slice(1, host.indexOf("]")) : host.replace(/:\d+$/, "");
  if (!name) return false;
  if (isIP(name)) return true;
  return (
    name === "localhost" ||
    name.endsWith(".localhost") ||
    name.endsWith(".local") ||
    /^[a-z0-9-]+$/.test(name)
  );
}

/** A WebSocket opened by a page of this very host (or by no page at all): not another site's. */
export function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    return new URL(origin).host === (req.headers.host ?? "").toLowerCase();
  } catch {
    return false;
  }
}
