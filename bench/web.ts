/**
 * `npm run bench -- web [runs]`: the desktop login page's first load in Chromium, the whole
 * server serving the built web app (apps/web/dist, or BENCH_WEB_DIST) on the embedded
 * defaults (PGlite, its own broker). Each cold visit opens a fresh browser context (empty
 * cache) with the CPU throttled 4x (CDP Emulation.setCPUThrottlingRate) and waits until the
 * login form is usable (its submit button rendered); then a second visit in a new tab of the
 * same context shows what the cache saves. Prints the median of the runs against the same page before
 * issue 17, measured once (BEFORE below: that build cannot be rebuilt beside this one).
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

const RUNS = Number(process.env.BENCH_RUNS ?? process.argv[3] ?? 9);
const WARMUP = 1;
const THROTTLE = 4;

const BEFORE_WHAT =
  "commit 5b64982 (old build on the old server), this bench, 2026-11-25, load 9.5";
/**
 * The page before issue 17 (commit 5b64982: index + antd + vendor chunks, 3.08 MiB of
 * JavaScript in 8 files, uncompressed, `max-age=0`), measured once with this bench on this
 * 2-core machine (BENCH_URL at the old build served by the old server): it cannot be rebuilt
 * beside the new one. Other runs at load 5-13 gave FCP 4.6-6.6 s and the form 4.7-6.4 s.
 */
const BEFORE: Figures = {
  jsBytes: 3_228_774,
  jsWire: 3_237_274,
  jsDecoded: 3_228_774,
  jsFiles: 8,
  encodings: "identity",
  fcp: 5160,
  usable: 5074,
  repeatJsBytes: 7_885,
  repeatAsked: 8,
};

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

export async function run() {
  // BENCH_URL: measure a server already running (how BEFORE was measured: the old build on
  // the old server); otherwise this server on the built app (BENCH_WEB_DIST or apps/web/dist).
  const external = process.env.BENCH_URL;
  const database = external ? null : await createTestDatabase();
  const app = database
    ? await buildApp({
        config: testConfig({ WEB_DIST: process.env.BENCH_WEB_DIST ?? WEB_DIST }),
        db: database.db,
        logger: false,
      })
    : null;
  await app?.listen({ port: 0, host: "127.0.0.1" });
  const address = app?.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const url = external ?? `http://localhost:${port}/login?language=en`;
  const target = external ? url : `whole server on ${database?.kind}`;
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
  const runs: Figures[] = [];
  try {
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const figures = await visit(browser, url);
      if (i >= WARMUP) runs.push(figures);
    }
  } finally {
    await browser.close();
    await app?.close();
    await database?.close();
  }

  const now: Figures = {
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
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : "");
  const rows: [string, string, string, string][] = [
    [
      "JS until the form is usable",
      kb(now.jsBytes),
      kb(BEFORE.jsBytes),
      ratio(now.jsBytes, BEFORE.jsBytes),
    ],
    [
      "  with response headers",
      kb(now.jsWire),
      kb(BEFORE.jsWire),
      ratio(now.jsWire, BEFORE.jsWire),
    ],
    [
      "  decoded (what is parsed)",
      kb(now.jsDecoded),
      kb(BEFORE.jsDecoded),
      ratio(now.jsDecoded, BEFORE.jsDecoded),
    ],
    ["  files", String(now.jsFiles), String(BEFORE.jsFiles), ""],
    ["  content-encoding", now.encodings, BEFORE.encodings, ""],
    ["first contentful paint", ms(now.fcp), ms(BEFORE.fcp), ratio(now.fcp, BEFORE.fcp)],
    ["login form usable", ms(now.usable), ms(BEFORE.usable), ratio(now.usable, BEFORE.usable)],
    ["repeat visit: JS fetched again", kb(now.repeatJsBytes), kb(BEFORE.repeatJsBytes), ""],
    ["repeat visit: scripts asked again", String(now.repeatAsked), String(BEFORE.repeatAsked), ""],
  ];
  console.log(
    `web: desktop /login in Chromium (CPU throttled ${THROTTLE}x), median of ${RUNS} cold visits after ${WARMUP} warm-up, each followed by a repeat visit in a new tab; ${target}; load average ${loadavg()[0].toFixed(1)}`,
  );
  console.log(`  ${"".padEnd(34)} ${"now".padStart(12)} ${"before".padStart(12)}  ratio`);
  for (const [name, a, b, r] of rows)
    console.log(`  ${name.padEnd(34)} ${a.padStart(12)} ${b.padStart(12)}  ${r}`);
  console.log(
    `  (before: ${BEFORE_WHAT}; aim: <= 500 KB of compressed JS, FCP <= 1.5 s; times swing with the machine's load)`,
  );
}
