import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { LocationPayload } from "@keyway/protocol";
import { type WebSocket, WebSocketServer } from "ws";
import type { Agent, AlarmInput } from "./agent.ts";
import type { ConsentDesk } from "./consent.ts";
import { consentApi, escapeHtml, pageWithConsent } from "./consentPage.ts";
import { isJson, localHost, readJson, sameOrigin, send } from "./httpJson.ts";

/** A fixed point in Shanghai (People's Square); reports jitter around it. */
const HOME = { lat: 31.2304, lng: 121.4737 };

export function simulatedLocation(): LocationPayload {
  const jitter = () => (Math.random() - 0.5) * 0.002;
  return {
    lat: Number((HOME.lat + jitter()).toFixed(6)),
    lng: Number((HOME.lng + jitter()).toFixed(6)),
    way: "gps",
    address: "Shanghai (simulated)",
  };
}

export interface SimulatorOptions {
  agent: Agent;
  httpPort: number;
  /**
   * The address the HMI page listens on. Default loopback: the page raises alarms without a
   * login, so it is opened to the LAN only when asked (remote visits reach it through the
   * agent's tunnel, which connects from loopback).
   */
  host?: string;
  /** Seconds between random alarms; 0 = none. */
  alarmEvery?: number;
  /** Seconds between tag reports on `data` (for a reporting project); 0 = none. */
  dataEvery?: number;
  /** On-site consent: the page shows its asks and running visits (consentPage.ts). */
  consent?: ConsentDesk;
  /**
   * Whether a request came through the agent's tunnel (a remote visitor): such a one never
   * sees or answers the consent prompt.
   */
  fromTunnel?: (req: IncomingMessage) => boolean;
}

interface Tags {
  "Tank1.Level": number;
  "Pump1.Speed": number;
  "Line.Temperature": number;
}

interface RecentAlarm {
  id: string;
  type: string;
  variable: string;
  content: string;
  time: number;
  /** A clear message: the id of the alarm it ends. */
  clears?: string;
  /** A raised alarm a later message cleared. */
  cleared?: boolean;
}

/** The page's live WebSocket: the status pushed every second, as an HMI's live values are. */
export const LIVE_PATH = "/api/live";

/**
 * A simulated HMI: a few tags that drift every second, a small web page on `httpPort` and a
 * JSON API to raise and clear alarms, which go through the agent's durable queue. Clearing
 * sends `clears: <id>` for the newest raised alarm not yet cleared (or the one named), so the
 * cloud marks that alarm cleared. The page also holds a WebSocket (`LIVE_PATH`) that gets the
 * status every second: what a visit relays besides plain requests.
 */
export class Simulator {
  private readonly options: SimulatorOptions;
  private server: Server | undefined;
  private readonly live = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  /** Live sockets of people at the machine: they also get the consent state. */
  private readonly onSite = new WeakSet<WebSocket>();
  private readonly pushConsent = () => this.pushLive();
  private tickTimer: NodeJS.Timeout | undefined;
  private liveTimer: NodeJS.Timeout | undefined;
  private alarmTimer: NodeJS.Timeout | undefined;
  private dataTimer: NodeJS.Timeout | undefined;
  private dataSent = 0;
  private tags: Tags = { "Tank1.Level": 62.5, "Pump1.Speed": 1450, "Line.Temperature": 41.2 };
  private recent: RecentAlarm[] = [];

  constructor(options: SimulatorOptions) {
    this.options = options;
  }

  async start(): Promise<number> {
    this.tickTimer = setInterval(() => this.tick(), 1000);
    const every = this.options.alarmEvery ?? 0;
    if (every > 0) this.alarmTimer = setInterval(() => this.randomAlarm(), every * 1000);
    const dataEvery = this.options.dataEvery ?? 0;
    if (dataEvery > 0)
      this.dataTimer = setInterval(() => {
        void this.options.agent.publishData({ ...this.tags }).then((sent) => {
          if (sent) this.dataSent += 1;
        });
      }, dataEvery * 1000);
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error) => {
        send(res, 500, { error: error instanceof Error ? error.message : String(error) });
      });
    });
    server.on("upgrade", (req, socket, head) => this.upgrade(req, socket, head));
    this.liveTimer = setInterval(() => this.pushLive(), 1000);
    // An ask shows at once, not at the next second.
    this.options.consent?.on("change", this.pushConsent);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.httpPort, this.options.host ?? "127.0.0.1", () => resolve());
    });
    const address = server.address();
    return typeof address === "object" && address ? address.port : this.options.httpPort;
  }

  async stop(): Promise<void> {
    clearInterval(this.tickTimer);
    clearInterval(this.alarmTimer);
    clearInterval(this.dataTimer);
    clearInterval(this.liveTimer);
    this.options.consent?.off("change", this.pushConsent);
    for (const client of this.live.clients) client.terminate();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  status() {
    const agent = this.options.agent.status();
    const queued = new Set(agent.queued.map((a) => a.id));
    return {
      code: agent.code,
      server: agent.server,
      connection: agent.connection,
      cloudSwitch: agent.cloudSwitch,
      tags: this.tags,
      dataSent: this.dataSent,
      queued: agent.queued.length,
      delivered: agent.delivered,
      lastError: agent.lastError ?? null,
      alarms: this.recent.map((a) => ({ ...a, delivered: !queued.has(a.id) })),
    };
  }

  raise(input: AlarmInput) {
    const alarm = this.options.agent.raiseAlarm(input);
    if (alarm.clears) {
      const ended = this.recent.find((a) => a.id === alarm.clears);
      if (ended) ended.cleared = true;
    }
    this.recent.unshift({
      id: alarm.id,
      type: alarm.type,
      variable: alarm.variable,
      content: alarm.content,
      time: alarm.time,
      ...(alarm.clears && { clears: alarm.clears }),
    });
    this.recent = this.recent.slice(0, 10);
    return alarm;
  }

  /** The status to every live socket; with the consent state to those at the machine. */
  private pushLive(): void {
    if (this.live.clients.size === 0) return;
    const status = this.status();
    const plain = JSON.stringify(status);
    const consent = this.options.consent;
    const local = consent ? JSON.stringify({ ...status, consent: consent.state() }) : plain;
    for (const client of this.live.clients) client.send(this.onSite.has(client) ? local : plain);
  }

  private fromTunnel(req: IncomingMessage): boolean {
    return this.options.fromTunnel?.(req) ?? false;
  }

  /** `LIVE_PATH` becomes a WebSocket that gets the status now and every second; nothing else. */
  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => socket.destroy());
    if (new URL(req.url ?? "/", "http://localhost").pathname !== LIVE_PATH) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    // Consent asks name visitors: only for a page of this machine, opened at the machine.
    const onSite = !this.fromTunnel(req) && localHost(req) && sameOrigin(req);
    this.live.handleUpgrade(req, socket, head, (client: WebSocket) => {
      client.on("error", () => client.terminate());
      if (onSite) this.onSite.add(client);
      // Nothing is read from the page: a message is answered with the status, as a ping.
      client.on("message", () => client.send(JSON.stringify(this.status())));
      client.send(JSON.stringify(this.status()));
    });
  }

  /** The alarm a clear ends: the one named, or the newest raised one still on. */
  private toClear(id: string | undefined): RecentAlarm | undefined {
    return this.recent.find((a) => !a.clears && !a.cleared && (id === undefined || a.id === id));
  }

  private tick(): void {
    const walk = (value: number, step: number, min: number, max: number) =>
      Math.min(max, Math.max(min, value + (Math.random() - 0.5) * step));
    this.tags = {
      "Tank1.Level": round(walk(this.tags["Tank1.Level"], 2, 0, 100), 1),
      "Pump1.Speed": Math.round(walk(this.tags["Pump1.Speed"], 40, 0, 3000)),
      "Line.Temperature": round(walk(this.tags["Line.Temperature"], 0.6, -20, 120), 1),
    };
  }

  private randomAlarm(): void {
    const picks: AlarmInput[] = [
      {
        type: "raise",
        variable: "Tank1.Level",
        level: 3,
        content: `Tank1 level high: ${this.tags["Tank1.Level"]}%`,
      },
      {
        type: "raise",
        variable: "Pump1.Speed",
        level: 2,
        content: `Pump1 speed out of range: ${this.tags["Pump1.Speed"]} rpm`,
      },
      {
        type: "raise",
        variable: "Line.Temperature",
        level: 4,
        content: `Line temperature high: ${this.tags["Line.Temperature"]} °C`,
      },
    ];
    this.raise(picks[Math.floor(Math.random() * picks.length)]);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const route = `${req.method} ${url.pathname}`;
    if (route === "GET /" || route === "GET /index.html") {
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
      });
      res.end(page(this.options.agent.options.code));
      return;
    }
    if (route === "GET /api/status") return send(res, 200, this.status());
    const consent = this.options.consent;
    if (consent && (await consentApi(consent, req, res, (r) => this.fromTunnel(r)))) return;
    if (route === "POST /api/alarms" || route === "POST /api/alarms/clear") {
      // JSON only (httpJson.ts): other sites cannot raise alarms here.
      if (!isJson(req)) {
        req.resume();
        return send(res, 415, { error: "content-type must be application/json" });
      }
      const body = await readJson(req);
      if (body === undefined) return send(res, 400, { error: "body must be a JSON object" });
      const input = alarmInput(body);
      if (typeof input === "string") return send(res, 400, { error: input });
      const clear = route === "POST /api/alarms/clear";
      const target = clear ? this.toClear(input.clears) : undefined;
      if (clear && !target) return send(res, 409, { error: "no raised alarm to clear" });
      const alarm = this.raise(
        target
          ? {
              type: "clear",
              variable: input.variable ?? target.variable,
              level: input.level ?? 0,
              content: input.content ?? `Cleared: ${target.content}`,
              clears: target.id,
            }
          : {
              type: "raise",
              variable: input.variable ?? "",
              level: input.level ?? 1,
              content: input.content ?? "Alarm raised from the simulated HMI",
            },
      );
      return send(res, 201, { id: alarm.id, queued: this.options.agent.status().queued.length });
    }
    send(res, 404, { error: "not found" });
  }
}

function alarmInput(body: Record<string, unknown>): Partial<AlarmInput> | string {
  const { content, variable, level, clears } = body;
  if (clears !== undefined && (typeof clears !== "string" || clears.length > 64)) {
    return "clears must be an alarm id";
  }
  if (content !== undefined && (typeof content !== "string" || content.length > 500)) {
    return "content must be a string of at most 500 characters";
  }
  if (variable !== undefined && (typeof variable !== "string" || variable.length > 64)) {
    return "variable must be a string of at most 64 characters";
  }
  if (
    level !== undefined &&
    (typeof level !== "number" || !Number.isInteger(level) || level < 0 || level > 9)
  ) {
    return "level must be an integer from 0 to 9";
  }
  return {
    content: content || undefined,
    variable: variable || undefined,
    level: level as number | undefined,
    clears: (clears as string | undefined) || undefined,
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function page(code: string): string {
  const title = `Simulated HMI ${escapeHtml(code)}`;
  return pageWithConsent(
    title,
    `  header { padding: 14px 20px; background: #142030; display: flex; align-items: center; gap: 16px; }
  h1 { font-size: 20px; margin: 0; flex: 1; }
  .pill { padding: 4px 10px; border-radius: 12px; font-size: 13px; font-weight: 600; }
  .online { background: #2e7d32; } .connecting { background: #b28704; }
  .offline, .stopped { background: #b71c1c; } .open { background: #1565c0; } .closed { background: #555; }
  main { padding: 20px; display: grid; gap: 16px; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); }
  section { background: #2a3a4b; border-radius: 8px; padding: 16px; }
  h2 { font-size: 14px; text-transform: uppercase; letter-spacing: .05em; color: #9fb3c8; margin: 0 0 12px; }
  .tag { display: flex; justify-content: space-between; padding: 6px 0; border-bottom: 1px solid #3a4b5d; }
  .tag b { font-variant-numeric: tabular-nums; font-size: 18px; }
  input { width: 100%; box-sizing: border-box; padding: 8px; border-radius: 4px; border: 1px solid #50657a; background: #1f2a36; color: inherit; }
  button { margin-top: 10px; padding: 8px 14px; border: 0; border-radius: 4px; color: #fff; cursor: pointer; font-weight: 600; }
  #raise { background: #c62828; } #clear, button.small { background: #2e7d32; }
  button.small { margin: 0 0 0 6px; padding: 2px 8px; font-size: 12px; }
  ul { list-style: none; padding: 0; margin: 0; font-size: 13px; }
  li { padding: 4px 0; border-bottom: 1px solid #3a4b5d; }
  .muted { color: #9fb3c8; font-size: 12px; }`,
    `<header>
  <h1>${title}</h1>
  <span>Cloud <span id="conn" class="pill connecting" data-testid="hmi-state">connecting</span></span>
  <span>Cloud switch <span id="switch" class="pill open" data-testid="hmi-switch">open</span></span>
  <span>This page <span id="link" class="pill connecting" data-testid="hmi-link">connecting</span></span>
  <span>Live <span id="live" class="pill connecting" data-testid="hmi-live">connecting</span></span>
</header>
<main>
  <section>
    <h2>Tags</h2>
    <div class="tag"><span>Tank1.Level (%)</span><b id="t-level" data-testid="tag-Tank1.Level">-</b></div>
    <div class="tag"><span>Pump1.Speed (rpm)</span><b id="t-speed" data-testid="tag-Pump1.Speed">-</b></div>
    <div class="tag"><span>Line.Temperature (°C)</span><b id="t-temp" data-testid="tag-Line.Temperature">-</b></div>
  </section>
  <section>
    <h2>Alarms</h2>
    <input id="text" data-testid="hmi-alarm-text" placeholder="Alarm text" maxlength="500">
    <button id="raise" data-testid="hmi-raise">Raise alarm</button>
    <button id="clear" data-testid="hmi-clear">Clear newest alarm</button>
    <p id="notice" class="muted" data-testid="hmi-notice"></p>
    <p class="muted">Queued: <span id="queued" data-testid="hmi-queued">0</span> ·
      Delivered: <span id="delivered">0</span></p>
    <ul id="alarms" data-testid="hmi-alarms"></ul>
  </section>
  <section>
    <h2>Device</h2>
    <div class="muted">Machine code</div><div id="code"></div>
    <div class="muted" style="margin-top:8px">Server</div><div id="server"></div>
    <div class="muted" style="margin-top:8px">Last error</div><div id="error">-</div>
  </section>
</main>
<script>
  const $ = (id) => document.getElementById(id);
  function setPill(el, text, cls) { el.textContent = text; el.className = "pill " + cls; }
  async function refresh() {
    try {
      const r = await fetch("/api/status", { cache: "no-store" });
      if (!r.ok) throw new Error("HTTP " + r.status);
      const s = await r.json();
      setPill($("link"), "connected", "online");
      setPill($("conn"), s.connection, s.connection);
      setPill($("switch"), s.cloudSwitch ? "open" : "closed", s.cloudSwitch ? "open" : "closed");
      $("t-level").textContent = s.tags["Tank1.Level"].toFixed(1);
      $("t-speed").textContent = s.tags["Pump1.Speed"];
      $("t-temp").textContent = s.tags["Line.Temperature"].toFixed(1);
      $("queued").textContent = s.queued;
      $("delivered").textContent = s.delivered;
      $("code").textContent = s.code;
      $("server").textContent = s.server;
      $("error").textContent = s.lastError || "-";
      const list = $("alarms");
      list.replaceChildren(...s.alarms.map((a) => {
        const li = document.createElement("li");
        li.textContent = new Date(a.time).toLocaleTimeString() + " " + a.type + " " +
          (a.variable ? "[" + a.variable + "] " : "") + a.content + (a.cleared ? " (cleared)" : "") +
          (a.delivered ? " ✓" : " (queued)");
        li.dataset.alarm = a.id;
        if (!a.clears && !a.cleared) {
          const b = document.createElement("button");
          b.textContent = "Clear";
          b.className = "small";
          b.dataset.testid = "hmi-clear-" + a.id;
          b.onclick = () => post("/api/alarms/clear", { clears: a.id });
          li.append(" ", b);
        }
        return li;
      }));
    } catch {
      setPill($("conn"), "agent unreachable", "offline");
      // The page lost its way to the device (agent gone, or a relayed visit ended).
      setPill($("link"), "lost", "offline");
    }
  }
  async function post(path, extra) {
    const content = $("text").value.trim();
    const r = await fetch(path, { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...(content ? { content } : {}), ...extra }) });
    $("text").value = "";
    $("notice").textContent = r.ok ? "" : (await r.json()).error;
    refresh();
  }
  // The live values' WebSocket; after a loss it is tried again every 2 s. When an open one
  // was lost is kept on the pill (data-lost-at, ms since the epoch), for whoever watches.
  function live() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "${LIVE_PATH}");
    let opened = false;
    ws.onopen = () => {
      opened = true;
      setPill($("live"), "open", "online");
    };
    ws.onmessage = (event) => {
      const s = JSON.parse(event.data);
      $("live").dataset.messages = String(Number($("live").dataset.messages || 0) + 1);
      $("t-level").textContent = s.tags["Tank1.Level"].toFixed(1);
      // Only a socket of someone at the machine carries the consent state.
      if (s.consent && window.kwConsent) window.kwConsent(s.consent);
    };
    ws.onclose = () => {
      if (opened) $("live").dataset.lostAt = String(Date.now());
      setPill($("live"), "closed", "offline");
      setTimeout(live, 2000);
    };
  }
  live();
  $("raise").onclick = () => post("/api/alarms");
  $("clear").onclick = () => post("/api/alarms/clear");
  refresh();
  setInterval(refresh, 1000);
</script>`,
  );
}
