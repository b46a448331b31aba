import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { ConsentDesk, ConsentResult } from "./consent.ts";
import { isJson, localHost, readJson, send } from "./httpJson.ts";

/**
 * The consent front-end of a screen at the machine: a panel (prompt with Accept / Refuse and
 * a countdown, and "Remote session by … — End" for accepted visits) and its JSON API. The
 * simulated HMI embeds both in its page; `--consent-port` serves them alone for a real site.
 *
 *   GET  /api/consent                      → ConsentState
 *   POST /api/consent/<visit>/accept       (also refuse, end; JSON only) → {ok: true}
 *
 * Only a person at the machine may answer: a request that came through the tunnel (a
 * visitor of this very device, `fromTunnel`) is refused, so is a Host that is not this
 * machine's (DNS rebinding) and a non-JSON POST (another site's form).
 */

export const CONSENT_API = "/api/consent";

const ACTIONS = ["accept", "refuse", "end"] as const;
const ROUTE = /^\/api\/consent\/([a-z2-7]{26})\/(accept|refuse|end)$/;

const STATUS: Record<ConsentResult, [number, string]> = {
  ok: [200, ""],
  unknown: [404, "no such request or visit (answered, withdrawn or ended already)"],
  offline: [503, "the cloud is not reachable now; try again"],
};

/**
 * Serves the consent API when the request is for it (true), else leaves it (false).
 * `fromTunnel`: whether the request came through the agent's tunnel (a remote visitor).
 */
export async function consentApi(
  desk: ConsentDesk,
  req: IncomingMessage,
  res: ServerResponse,
  fromTunnel: (req: IncomingMessage) => boolean,
): Promise<boolean> {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  if (path !== CONSENT_API && !path.startsWith(`${CONSENT_API}/`)) return false;
  if (fromTunnel(req) || !localHost(req)) {
    req.resume();
    send(res, 403, { error: "on-site consent is answered at the machine only" });
    return true;
  }
  if (path === CONSENT_API) {
    if (req.method !== "GET") send(res, 405, { error: "GET only" });
    else send(res, 200, desk.state());
    return true;
  }
  const match = ROUTE.exec(path);
  if (!match || req.method !== "POST") {
    req.resume();
    send(res, 404, { error: "not found" });
    return true;
  }
  if (!isJson(req)) {
    req.resume();
    send(res, 415, { error: "content-type must be application/json" });
    return true;
  }
  if ((await readJson(req)) === undefined) {
    send(res, 400, { error: "body must be a JSON object" });
    return true;
  }
  const [, visit, action] = match as unknown as [string, string, (typeof ACTIONS)[number]];
  const result = action === "end" ? desk.end(visit) : desk.answer(visit, action === "accept");
  const [status, error] = STATUS[result];
  send(res, status, status === 200 ? { ok: true } : { error });
  return true;
}

const CONSENT_STYLE = `
  .kw-consent { position: fixed; left: 0; right: 0; top: 0; z-index: 10; display: grid; gap: 8px; padding: 10px 20px; }
  .kw-consent[hidden] { display: none; }
  .kw-ask, .kw-run { background: #fff8e1; color: #2b2b2b; border-radius: 8px; padding: 12px 16px; box-shadow: 0 4px 16px #0008; display: flex; flex-wrap: wrap; align-items: center; gap: 10px; }
  .kw-run { background: #e3f2fd; }
  .kw-ask b, .kw-run b { font-size: 16px; }
  .kw-consent button { margin: 0; padding: 6px 14px; border: 0; border-radius: 4px; color: #fff; cursor: pointer; font-weight: 600; }
  .kw-accept { background: #2e7d32; } .kw-refuse, .kw-end { background: #c62828; }
  .kw-count { font-variant-numeric: tabular-nums; color: #6d4c00; }
  .kw-grow { flex: 1; }
  .kw-consent p:empty { display: none; }
  .kw-consent p { margin: 0; padding: 6px 12px; border-radius: 4px; background: #b71c1c; color: #fff; }
`;

const CONSENT_MARKUP = `<section id="kw-consent" class="kw-consent" data-testid="consent-panel" hidden>
  <div id="kw-consent-asks"></div><div id="kw-consent-running"></div>
  <p id="kw-consent-notice" data-testid="consent-notice"></p>
</section>`;

/**
 * The panel's script: polls the API every second (a page with a live WebSocket also calls
 * `window.kwConsent(state)` on each push) and redraws only when the asks or visits change,
 * so a button is never replaced under a click; the countdown ticks in place.
 */
const CONSENT_SCRIPT = `
(() => {
  const KINDS = { web: "the web page", screen: "the screen (VNC)", tcp: "a TCP port" };
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
  const panel = document.getElementById("kw-consent");
  let state = { asks: [], running: [] };
  let received = Date.now();
  let drawn = "";
  function seconds(ask) { return Math.max(0, Math.ceil((ask.remainingMs - (Date.now() - received)) / 1000)); }
  function tick() {
    for (const ask of state.asks) {
      const count = document.querySelector('[data-consent-count="' + ask.visit + '"]');
      if (count) count.textContent = seconds(ask) + " s";
    }
  }
  async function act(visit, action) {
    const r = await fetch("${CONSENT_API}/" + visit + "/" + action, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    document.getElementById("kw-consent-notice").textContent = r.ok ? "" : (await r.json()).error;
    poll();
  }
  function draw() {
    const key = JSON.stringify([state.asks.map((a) => a.visit), state.running.map((v) => v.visit)]);
    if (key === drawn) return tick();
    drawn = key;
    panel.hidden = state.asks.length === 0 && state.running.length === 0;
    document.getElementById("kw-consent-asks").replaceChildren(...state.asks.map((ask) => {
      const row = el("div", "kw-ask");
      row.dataset.testid = "consent-ask";
      row.dataset.visit = ask.visit;
      const who = el("b", "", ask.visitor);
      who.dataset.testid = "consent-visitor";
      const account = el("span", "", ask.account ? "(" + ask.account + ")" : "");
      const kind = el("span", "", KINDS[ask.kind] || ask.kind);
      kind.dataset.testid = "consent-kind";
      const mode = el("span", "", ask.viewOnly ? "view only" : "with control");
      mode.dataset.testid = "consent-view-only";
      mode.dataset.viewOnly = ask.viewOnly ? "1" : "0";
      const count = el("span", "kw-count");
      count.dataset.testid = "consent-countdown";
      count.dataset.consentCount = ask.visit;
      const accept = el("button", "kw-accept", "Accept");
      accept.dataset.testid = "consent-accept";
      accept.onclick = () => act(ask.visit, "accept");
      const refuse = el("button", "kw-refuse", "Refuse");
      refuse.dataset.testid = "consent-refuse";
      refuse.onclick = () => act(ask.visit, "refuse");
      const text = el("span", "kw-grow");
      text.append("Remote visit request: ", who, " ", account, " asks for ", kind, ", ", mode);
      row.append(text, count, accept, refuse);
      return row;
    }));
    document.getElementById("kw-consent-running").replaceChildren(...state.running.map((v) => {
      const row = el("div", "kw-run");
      row.dataset.testid = "consent-running";
      row.dataset.visit = v.visit;
      const who = el("b", "", v.visitor);
      const end = el("button", "kw-end", "End");
      end.dataset.testid = "consent-end";
      end.onclick = () => act(v.visit, "end");
      const text = el("span", "kw-grow");
      text.append("Remote session by ", who, " — " + (KINDS[v.kind] || v.kind) + (v.viewOnly ? ", view only" : ""));
      row.append(text, end);
      return row;
    }));
    tick();
  }
  window.kwConsent = (next) => { state = next; received = Date.now(); draw(); };
  let polling;
  async function poll() {
    try {
      const r = await fetch("${CONSENT_API}", { cache: "no-store" });
      // Refused: this page is seen through a visit, never at the machine; no more asking.
      if (r.status === 403) clearInterval(polling);
      window.kwConsent(r.ok ? await r.json() : { asks: [], running: [] });
    } catch {}
  }
  polling = setInterval(poll, 1000);
  setInterval(tick, 250);
  poll();
})();
`;

/** Text for HTML (a device's code, a visitor's name). */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}

/**
 * A page at the machine with the consent banner in it: the simulated HMI's and the
 * `--consent-port` page. `title` is HTML already escaped; `style` and `body` the page's own.
 */
export function pageWithConsent(title: string, style: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; background: #1f2a36; color: #e8eef4; }
${style}
${CONSENT_STYLE}
</style>
</head>
<body>
${CONSENT_MARKUP}
${body}
<script>${CONSENT_SCRIPT}</script>
</body>
</html>
`;
}

function page(code: string): string {
  const title = `Keyway on-site consent ${escapeHtml(code)}`;
  return pageWithConsent(
    title,
    `  h1 { font-size: 18px; margin: 0; padding: 14px 20px; background: #142030; }
  .idle { padding: 20px; color: #9fb3c8; }
  .kw-consent { position: static; }`,
    `<h1>${title}</h1>
<p class="idle">Remote visits that need your approval appear here.</p>`,
  );
}

/** `--consent-port`: the consent page and API alone, for a site without the simulated HMI. */
export class ConsentServer {
  private server: Server | undefined;

  constructor(
    private readonly options: {
      desk: ConsentDesk;
      code: string;
      port: number;
      /** Default loopback: anyone who reaches the page may let a visitor in. */
      host?: string;
      fromTunnel: (req: IncomingMessage) => boolean;
    },
  ) {}

  async start(): Promise<number> {
    const server = createServer((req, res) => {
      void this.handle(req, res).catch((error) => {
        send(res, 500, { error: error instanceof Error ? error.message : String(error) });
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port, this.options.host ?? "127.0.0.1", () => resolve());
    });
    const address = server.address();
    return typeof address === "object" && address ? address.port : this.options.port;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { desk, fromTunnel } = this.options;
    if (await consentApi(desk, req, res, fromTunnel)) return;
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method === "GET" && (path === "/" || path === "/index.html")) {
      if (fromTunnel(req) || !localHost(req))
        return send(res, 403, { error: "at the machine only" });
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
      });
      res.end(page(this.options.code));
      return;
    }
    send(res, 404, { error: "not found" });
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
