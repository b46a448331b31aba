import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TunnelControl } from "@keyway/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsentDesk } from "./consent.ts";
import { ConsentServer } from "./consentPage.ts";
import { spawnAgent, until } from "./testing.ts";

/**
 * The agent's side of on-site consent without a cloud: the desk (asks, answers, running
 * visits), the script hook as a real program, the consent page's refusals, and the CLI's
 * checks of the consent and screen options. End to end with the real server:
 * apps/server/src/modules/visits/consent*.test.ts.
 */

const V1 = "a".repeat(26);
const V2 = "b".repeat(26);
const ask = (visit: string, visitor = "Ann", timeoutMs = 30_000): TunnelControl => ({
  t: "consent.ask",
  visit,
  visitor,
  account: "an***@example.com",
  kind: "screen",
  viewOnly: true,
  timeoutMs,
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kw-consent-agent-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A desk whose answers go to `sent` (or nowhere: the cloud is out of reach). */
function desk(options: { hook?: string; online?: boolean } = {}) {
  const sent: TunnelControl[] = [];
  const d = new ConsentDesk({ hook: options.hook, log: () => {} });
  d.attach((m) => (options.online === false ? false : sent.push(m) > 0));
  return { d, sent };
}

describe("the consent desk", () => {
  it("lists an ask, answers it once, and keeps the accepted visit until it ends", () => {
    const { d, sent } = desk();
    d.onControl(ask(V1, "Ann\u0007\nEvil"));
    expect(d.state().asks).toMatchObject([
      { visit: V1, visitor: "Ann  Evil", kind: "screen", viewOnly: true },
    ]);
    expect(d.answer(V1, true)).toBe("ok");
    expect(d.answer(V1, true)).toBe("unknown");
    expect(sent).toEqual([{ t: "consent.answer", visit: V1, accept: true }]);
    expect(d.state()).toMatchObject({ asks: [], running: [{ visit: V1, visitor: "Ann  Evil" }] });
    expect(d.end(V1)).toBe("ok");
    expect(sent.at(-1)).toEqual({ t: "visit.end", visit: V1 });
    expect(d.state().running).toEqual([]);
    d.close();
  });

  it("drops what the cloud withdraws or ends, and keeps an answer given while offline", () => {
    const offline = desk({ online: false });
    offline.d.onControl(ask(V1));
    expect(offline.d.answer(V1, true)).toBe("offline");
    expect(offline.d.state().asks).toHaveLength(1);
    offline.d.onControl({ t: "consent.cancel", visit: V1 });
    expect(offline.d.state().asks).toEqual([]);
    const { d } = desk();
    d.onControl(ask(V2));
    d.answer(V2, true);
    d.onControl({ t: "visit.ended", visit: V2 });
    expect(d.state().running).toEqual([]);
    // A cloud asking without end holds at most 32 asks here.
    for (let i = 0; i < 100; i++) d.onControl(ask(i.toString(32).padStart(26, "a")));
    expect(d.state().asks).toHaveLength(32);
    d.close();
  });

  it("forgets an ask nobody answered once the cloud stops waiting", async () => {
    const { d, sent } = desk();
    d.onControl(ask(V1, "Ann", 50));
    await until(() => d.state().asks.length === 0, { timeoutMs: 5000 });
    // Unanswered is the cloud's to decide: nothing was sent.
    expect(sent).toEqual([]);
  });
});

describe("the consent hook", () => {
  function hook(body: string): string {
    const path = join(dir, `hook-${Math.random().toString(36).slice(2)}.sh`);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  }

  it("accepts on exit 0 with the ask in its environment, refuses on any other", async () => {
    const out = join(dir, "env");
    process.env.KEYWAY_AGENT_SECRET = "not-for-hooks";
    const accepting = desk({ hook: hook(`env > ${out}; exit 0`) });
    accepting.d.onControl(ask(V1));
    await until(() => accepting.sent.length === 1, { timeoutMs: 10_000 });
    delete process.env.KEYWAY_AGENT_SECRET;
    expect(accepting.sent).toEqual([{ t: "consent.answer", visit: V1, accept: true }]);
    const env = readFileSync(out, "utf8");
    for (const line of [
      `KEYWAY_VISIT_ID=${V1}`,
      "KEYWAY_VISITOR=Ann",
      "KEYWAY_ACCOUNT=an***@example.com",
      "KEYWAY_VISIT_KIND=screen",
      "KEYWAY_VIEW_ONLY=1",
    ])
      expect(env.split("\n")).toContain(line);
    expect(env).not.toContain("not-for-hooks");
    const refusing = desk({ hook: hook("exit 3") });
    refusing.d.onControl(ask(V2));
    await until(() => refusing.sent.length === 1, { timeoutMs: 10_000 });
    expect(refusing.sent).toEqual([{ t: "consent.answer", visit: V2, accept: false }]);
  });

  it("says nothing for a hook still running when the cloud stops waiting", async () => {
    const { d, sent } = desk({ hook: hook("exec sleep 30") });
    d.onControl(ask(V1, "Ann", 300));
    await until(() => d.state().asks.length === 0, { timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(sent).toEqual([]);
  });
});

describe("the consent page", () => {
  let server: ConsentServer;
  let port: number;
  let through = false;
  const { d } = desk();
  const call = (path: string, options: { method?: string; type?: string; host?: string } = {}) =>
    new Promise<{ status: number; body: string }>((done, fail) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          path,
          method: options.method ?? "GET",
          headers: {
            ...(options.type && { "content-type": options.type }),
            ...(options.host && { host: options.host }),
          },
        },
        (res) => {
          let body = "";
          res.on("data", (c) => {
            body += c;
          });
          res.on("end", () => done({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", fail);
      req.end(options.method === "POST" ? "{}" : undefined);
    });

  beforeAll(async () => {
    server = new ConsentServer({ desk: d, code: "KW-1", port: 0, fromTunnel: () => through });
    port = await server.start();
    d.onControl(ask(V1));
  });
  afterAll(() => server.stop());

  it("answers the person at the machine, and no one else", async () => {
    expect(JSON.parse((await call("/api/consent")).body).asks).toHaveLength(1);
    const post = (action: string, type = "application/json") =>
      call(`/api/consent/${V1}/${action}`, { method: "POST", type });
    // Another site's form, a name that is not this machine's, a visitor through the tunnel.
    expect((await post("accept", "text/plain")).status).toBe(415);
    expect((await call("/api/consent", { host: "evil.example" })).status).toBe(403);
    through = true;
    expect((await post("accept")).status).toBe(403);
    expect((await call("/")).status).toBe(403);
    through = false;
    expect((await post("end")).status).toBe(404);
    expect((await post("refuse")).status).toBe(200);
    expect((await post("accept")).status).toBe(404);
    expect((await call("/")).body).toContain('data-testid="consent-panel"');
  });
});

describe("keyway-agent run's consent and screen options", () => {
  it.each([
    [["--vnc", "not-a-target"], "--vnc must be host:port"],
    [["--consent-hook", "/nonexistent/hook"], "is not an executable file"],
    [["--consent-bind", "127.0.0.1"], "--consent-bind needs --consent-port"],
    [["--consent-port", "1", "--consent-bind", "localhost"], "--consent-bind must be an IP"],
  ])(
    "refuses %j with exit 64",
    async (extra, message) => {
      const agent = await spawnAgent(
        ["run", "--server", "mqtt://127.0.0.1:9", "--code", "KW-X", "--secret", "s", ...extra],
        {},
      );
      const code =
        agent.child.exitCode ?? (await new Promise((done) => agent.child.once("exit", done)));
      expect(code).toBe(64);
      expect(agent.text()).toContain(message);
    },
    60_000,
  );
});
