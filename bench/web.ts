/**
 * `npm run bench -- web [runs]`: the desktop login page's first load in Chromium, the whole
 * server serving the built web app (apps/web/dist, or BENCH_WEB_DIST) on the embedded
 * defaults (PGlite, its own broker). Each cold visit opens a fresh browser context (empty
 * cache) with the CPU throttled 4x (CDP Emulation.setCPUThrottlingRate) and waits until the
 * login form is usable (its submit button rendered); then a second visit in a new tab of the
 * same context shows what the cache saves. Prints the medians beside two peers visited in the
 * same alternating rounds (bench/web-peers.ts): nginx serving the same build, and the page
 * before issue 17 (BEFORE_COMMIT's build on its own server), with the ratios to each.
 *
 * Figures: the compressed JavaScript (response bodies) until the form is usable, the same with
 * the responses' headers, and decoded (what the browser parses); first contentful paint and
 * form usable, from navigation start; on the repeat visit, JavaScript bytes fetched again and
 * scripts asked of the server again (revalidations). BENCH_RUNS sets the number of visits.
 */
import { loadavg } from "node:os";
import { type Browser, type CDPSession, chromium } from "playwright-core";
import { buildApp } from "../apps/server/src/app.ts";
import { testConfig } from "../apps/server/src/config.ts";
import { createTestDatabase } from "../apps/server/src/db/testing.ts";
import { WEB_DIST } from "../apps/server/src/paths.ts";
import { percentile } from "./stats.ts";
import { type Peer, startBeforePeer, startNginxPeer } from "./web-peers.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? process.argv[3] ?? 9);
const WARMUP = 1;
const THROTTLE = 4;

interface Figures {
  /** Compressed JavaScript (response bodies) until the form is usable. */
  jsBytes: number;
  /** The same with the responses' headers: all bytes on the wire for those scripts. */
  jsWire: number;
  /** The same JavaScript once decoded (what the browser parses). */
  jsDecoded: number;
  jsFiles: number;
  /** Content-Encoding of those scripts. */
  encodings: string;
  /** First contentful paint, ms from navigation start. */
  fcp: number;
  /** The login form's submit button rendered, ms from navigation start. */
  usable: number;
  /** Repeat visit: JavaScript bytes fetched from the network again. */
  repeatJsBytes: number;
  /** Repeat visit: scripts asked of the server again (revalidated) instead of read from cache. */
  repeatAsked: number;
}

interface Transfer {
  script: boolean;
  encoding: string;
  cached: boolean;
  /** Encoded body bytes (Content-Length): the compressed JavaScript itself. */
  body: number;
  /** Bytes on the wire: the body and the response headers. */
  wire: number;
  decoded: number;
  done: boolean;
}

/** Every response of a page, by CDP request id. */
async function watchNetwork(cdp: CDPSession) {
  const transfers = new Map<string, Transfer>();
  const of = (id: string) => {
    let t = transfers.get(id);
    if (!t) {
      t = {
        script: false,
        encoding: "identity",
        cached: false,
        body: 0,
        wire: 0,
        decoded: 0,
        done: false,
      };
      transfers.set(id, t);
    }
    return t;
  };
  cdp.on("Network.responseReceived", (e) => {
    const t = of(e.requestId);
    t.script = e.type === "Script";
    t.cached = Boolean(e.response.fromDiskCache || e.response.fromPrefetchCache);
    const headers = Object.fromEntries(
      Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]),
    );
    t.encoding = headers["content-encoding"] ?? "identity";
    t.body = Number(headers["content-length"] ?? 0);
  });
  cdp.on("Network.requestServedFromCache", (e) => {
    of(e.requestId).cached = true;
  });
  cdp.on("Network.dataReceived", (e) => {
    of(e.requestId).decoded += e.dataLength;
  });
  cdp.on("Network.loadingFinished", (e) => {
    const t = of(e.requestId);
    t.wire = e.encodedDataLength;
    t.done = true;
  });
  await cdp.send("Network.enable");
  return () => [...transfers.values()].filter((t) => t.script);
}

/** In the page (bench/ has no DOM types): the time the submit button is there and enabled. */
const usableAt = () => {
  const { document } = globalThis as unknown as {
    document: { querySelector(selector: string): { disabled: boolean } | null };
  };
  const button = document.querySelector('[data-testid="login-submit"]');
  return button && !button.disabled ? performance.now() : 0;
};
/** First contentful paint, once the browser has reported it (0 until then). */
const fcpOf = () => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? 0;

/** One cold visit and one repeat visit in a fresh context. */
async function visit(browser: Browser, url: string): Promise<Figures> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    const cdp = await context.newCDPSession(page);
    const scripts = await watchNetwork(cdp);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE });
    await page.goto(url, { waitUntil: "commit" });
    const usable = Number(await (await page.waitForFunction(usableAt)).jsonValue());
    const first = scripts();
    const fcp = Number(await (await page.waitForFunction(fcpOf)).jsonValue());

    // Repeat visit: a new tab on the same page, as a user coming back.
    const again = await context.newPage();
    const cdpAgain = await context.newCDPSession(again);
    const repeat = await watchNetwork(cdpAgain);
    await cdpAgain.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE });
    await again.goto(url, { waitUntil: "commit" });
    await again.waitForFunction(usableAt);
    const second = repeat();
    return {
      jsBytes: sum(first.map((t) => t.body)),
      jsWire: sum(first.map((t) => t.wire)),
      jsDecoded: sum(first.map((t) => t.decoded)),
      jsFiles: first.length,
      encodings: [...new Set(first.map((t) => t.encoding))].sort().join("+"),
      fcp,
      usable,
      repeatJsBytes: sum(second.filter((t) => !t.cached).map((t) => t.wire)),
      // A revalidation (304) shows in CDP as the cached 200 with the 304's bytes on the wire.
      repeatAsked: second.filter((t) => !t.cached).length,
    };
  } finally {
    await context.close();
  }
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const median = (values: number[]) => percentile(values, 50);

/** The median of each figure over the runs (the worst for the repeat visit's). */
function summary(runs: Figures[]): Figures {
  return {
    jsBytes: median(runs.map((r) => r.jsBytes)),
    jsWire: median(runs.map((r) => r.jsWire)),
    jsDecoded: median(runs.map((r) => r.jsDecoded)),
    jsFiles: median(runs.map((r) => r.jsFiles)),
    encodings: [...new Set(runs.flatMap((r) => r.encodings.split("+")))].sort().join("+"),
    fcp: median(runs.map((r) => r.fcp)),
    usable: median(runs.map((r) => r.usable)),
    repeatJsBytes: Math.max(...runs.map((r) => r.repeatJsBytes)),
    repeatAsked: Math.max(...runs.map((r) => r.repeatAsked)),
  };
}

export async function run() {
  const dist = process.env.BENCH_WEB_DIST ?? WEB_DIST;
  const database = await createTestDatabase();
  const app = await buildApp({
    config: testConfig({ WEB_DIST: dist }),
    db: database.db,
    logger: false,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const keyway: Peer = {
    url: `http://localhost:${port}/login?language=en`,
    what: `Keyway on ${database.kind}`,
    stop: async () => {},
  };
  const peers: Peer[] = [keyway];
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const runs = new Map<Peer, Figures[]>();
  const loads: number[] = [];
  try {
    peers.push(await startNginxPeer(dist, port), await startBeforePeer());
    for (const peer of peers) runs.set(peer, []);
    // Alternating rounds, each starting with the next peer: a slow spell of the shared
    // machine falls on all three alike.
    for (let round = 0; round < WARMUP + RUNS; round++) {
      for (let i = 0; i < peers.length; i++) {
        const peer = peers[(round + i) % peers.length];
        const figures = await visit(browser, peer.url);
        if (round >= WARMUP) runs.get(peer)?.push(figures);
      }
      loads.push(loadavg()[0]);
    }
  } finally {
    await browser.close();
    for (const peer of peers) await peer.stop();
    await app.close();
    await database.close();
  }

  const [now, nginx, before] = peers.map((peer) => summary(runs.get(peer) ?? []));
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : "");
  type Row = [string, (f: Figures) => string, ((f: Figures) => number)?];
  const rows: Row[] = [
    ["JS until the form is usable", (f) => kb(f.jsBytes), (f) => f.jsBytes],
    ["  with response headers", (f) => kb(f.jsWire), (f) => f.jsWire],
    ["  decoded (what is parsed)", (f) => kb(f.jsDecoded), (f) => f.jsDecoded],
    ["  files", (f) => String(f.jsFiles)],
    ["  content-encoding", (f) => f.encodings],
    ["first contentful paint", (f) => ms(f.fcp), (f) => f.fcp],
    ["login form usable", (f) => ms(f.usable), (f) => f.usable],
    ["repeat visit: JS fetched again", (f) => kb(f.repeatJsBytes)],
    ["repeat visit: scripts asked again", (f) => String(f.repeatAsked)],
  ];
  console.log(
    `web: desktop /login in Chromium (CPU throttled ${THROTTLE}x), median of ${RUNS} cold visits after ${WARMUP} warm-up, each followed by a repeat visit in a new tab, peers in alternating rounds; load average ${median(loads).toFixed(1)} (median of rounds)`,
  );
  for (const [name, peer] of [
    ["keyway", keyway],
    ["nginx", peers[1]],
    ["before", peers[2]],
  ] as const)
    console.log(`  ${name}: ${peer.what}`);
  const cell = (text: string) => text.padStart(12);
  console.log(
    `  ${"".padEnd(34)} ${cell("keyway")} ${cell("nginx")} ${cell("before")}  ${"/nginx".padStart(7)} ${"/before".padStart(7)}`,
  );
  for (const [name, show, value] of rows)
    console.log(
      `  ${name.padEnd(34)} ${cell(show(now))} ${cell(show(nginx))} ${cell(show(before))}  ${(value ? ratio(value(now), value(nginx)) : "").padStart(7)} ${(value ? ratio(value(now), value(before)) : "").padStart(7)}`,
    );
  console.log(
    "  (aim: <= 500 KB of compressed JS, FCP <= 1.5 s under 4x throttling; times swing with the machine's load)",
  );
}
