/// <reference types="node" />
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { LOGOUT_DELAY_MS, LOGOUT_DELAY_SMS_ALARM_MS, REQUEST_TIMEOUT_MS } from "@keyway/shared";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Feedback } from "../lib/feedback.ts";
import { type FakeBrowser, installFakeBrowser } from "../store/testDom.ts";
import type { CallOptions, FormBody } from "./client.ts";

/**
 * The axios client of SPEC §7/§8 against a real local HTTP server: what goes on the wire
 * (base /api, cloudtoken, form bodies) and each row of the transport table as the user meets
 * it (the text shown, the notification, the logout and where it lands).
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let browser: FakeBrowser;
let client: typeof import("./client.ts");
let showError: typeof import("./queryClient.ts").showError;
let server: Server;
let origin: string;
const seen: Seen[] = [];
const navigations: string[] = [];
const notifications: { title: unknown; duration?: number | false; key?: unknown }[] = [];
const messages: string[] = [];

/** What the stand-in server answers, by path (the /api or /eapi prefix stripped). */
function answer(path: string): {
  status: number;
  body?: unknown;
  hang?: boolean;
  drop?: boolean;
  late?: boolean;
} {
  const hw = path.match(/\/hw\/(\w+)(?:\/(nomsg))?$/);
  if (hw) {
    const code = /^\d+$/.test(hw[1]!) && !hw[1]!.startsWith("0") ? Number(hw[1]) : hw[1];
    return {
      status: 200,
      body: { hwcode: code, hwdata: null, msg: hw[2] ? "" : `server says ${hw[1]}` },
    };
  }
  const status = path.match(/\/status\/(\d+)$/);
  if (status) {
    const n = Number(status[1]);
    return n === 429
      ? { status: 429, body: { hwcode: 429, hwdata: null, msg: "slow down (server)" } }
      : { status: n, body: { hwcode: n, hwdata: null, msg: "" } };
  }
  if (path.endsWith("/hang")) return { status: 200, hang: true };
  if (path.endsWith("/drop")) return { status: 200, drop: true };
  if (path.endsWith("/late")) {
    return { status: 200, late: true, body: { hwcode: 0, hwdata: { late: true }, msg: "" } };
  }
  return { status: 200, body: { hwcode: 0, hwdata: { ok: true }, msg: "" } };
}

beforeAll(async () => {
  browser = installFakeBrowser({ search: "?language=en" });
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const path = (req.url ?? "").split("?")[0]!.replace(/^\/e?api/, "");
      const a = answer(path);
      if (a.hang) return; // never answers: the client's timeout decides
      if (a.drop) return void req.socket.destroy();
      const send = () => {
        res.writeHead(a.status, { "content-type": "application/json" });
        res.end(JSON.stringify(a.body));
      };
      // Answers after a while (a call the server holds, like on-site consent's).
      if (a.late) setTimeout(send, 300);
      else send();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  client = await import("./client.ts");
  showError = (await import("./queryClient.ts")).showError;
  const { registerNavigate } = await import("../lib/navigation.ts");
  const { setFeedback } = await import("../lib/feedback.ts");
  registerNavigate((to) => navigations.push(to));
  setFeedback({
    notification: { error: (config: (typeof notifications)[number]) => notifications.push(config) },
    message: { error: (text: string) => messages.push(text) },
  } as unknown as Feedback);
  // Node has no page origin: the test server stands in for it, the paths stay the client's.
  client.http.interceptors.request.use((config) => ({
    ...config,
    baseURL: `${origin}${config.baseURL ?? ""}`,
  }));
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

afterEach(() => {
  // Any logout still pending ends here, so the next test starts without one.
  browser.clock.advance(60_000);
  seen.length = 0;
  navigations.length = 0;
  notifications.length = 0;
  messages.length = 0;
  browser.cookies.clear();
});

/** Where the logout took the user (the page is left first, then the session cleared). */
function landedOn(): string[] {
  return [...new Set(navigations)];
}

function signIn() {
  browser.cookies.set("token", { value: "tok-123" });
}

async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as import("./errors.ts").ApiError;
}

/** Calls as `request` makes them; SPEC §8's SMS and alarm calls say so (the contract's flag). */
const get = (url: string, params?: FormBody, options?: CallOptions) =>
  client.call("GET", url, params, options);
const post = <T = unknown>(url: string, body: FormBody, options?: CallOptions) =>
  client.call<T>("POST", url, body, options);
const SMS_ALARM = { smsAlarm: true };

describe("what the client sends", () => {
  it("uses base /api, a 15 s timeout, the cloudtoken header and form-encoded bodies", async () => {
    expect(client.http.defaults.baseURL).toBe("/api");
    expect(REQUEST_TIMEOUT_MS).toBe(15_000);
    expect(client.http.defaults.timeout).toBe(REQUEST_TIMEOUT_MS);
    signIn();

    const data = await post<{ ok: boolean }>("/user/v1/userName", {
      name: "Ada Lovelace",
      keepLogin: true,
      remember: false,
      skipped: undefined,
      empty: null,
    });
    expect(data).toEqual({ ok: true });
    const sent = seen[0]!;
    expect(sent.method).toBe("POST");
    expect(sent.url).toBe("/api/user/v1/userName");
    expect(sent.headers.cloudtoken).toBe("tok-123");
    expect(sent.headers["content-type"]).toContain("application/x-www-form-urlencoded");
    expect(sent.body).toBe("name=Ada+Lovelace&keepLogin=1&remember=0");

    await get("/user/selectInfo", { page: 2, none: undefined });
    expect(seen[1]!.url).toBe("/api/user/selectInfo?page=2");
    await post("/portal/x", { a: 1 }, { base: "/eapi" });
    expect(seen[2]!.url).toBe("/eapi/portal/x");
    expect(seen[2]!.headers.cloudtoken).toBe("tok-123");
  });

  it("sends no cloudtoken without the token cookie", async () => {
    await get("/common/x");
    expect(seen[0]!.headers.cloudtoken).toBeUndefined();
  });
});

describe("SPEC §8 transport table", () => {
  it("hwcode 113: error notification, logout to /loginTimeout after 1 s", async () => {
    signIn();
    const error = await failure(get("/device/v1/list/hw/113"));
    expect(error.kind).toBe("session");
    expect(notifications.map((n) => n.title)).toEqual(["server says 113"]);
    browser.clock.advance(LOGOUT_DELAY_MS - 1);
    expect(navigations).toEqual([]);
    expect(browser.cookies.has("token")).toBe(true);
    browser.clock.advance(1);
    expect(landedOn()).toEqual(["/loginTimeout"]);
    expect(browser.cookies.has("token")).toBe(false);
  });

  it("hwcode 113 on an SMS call: logout after 1.2 s, not at 1 s", async () => {
    signIn();
    await failure(get("/v1/sms/stock/hw/113", undefined, SMS_ALARM));
    browser.clock.advance(LOGOUT_DELAY_MS);
    expect(navigations).toEqual([]);
    browser.clock.advance(LOGOUT_DELAY_SMS_ALARM_MS - LOGOUT_DELAY_MS - 1);
    expect(navigations).toEqual([]);
    browser.clock.advance(1);
    expect(landedOn()).toEqual(["/loginTimeout"]);
  });

  it("hwcode 404 on an alarm call is a token error: logout after 1.2 s", async () => {
    signIn();
    const error = await failure(get("/v1/devices/alarms/hw/404", undefined, SMS_ALARM));
    expect(error.kind).toBe("session");
    expect(notifications.map((n) => n.title)).toEqual([
      "Invalid token (Token expired). Please log in again",
    ]);
    browser.clock.advance(LOGOUT_DELAY_SMS_ALARM_MS - 1);
    expect(navigations).toEqual([]);
    browser.clock.advance(1);
    expect(landedOn()).toEqual(["/loginTimeout"]);
  });

  it("hwcode 404 elsewhere is an ordinary failure: no logout", async () => {
    signIn();
    const error = await failure(get("/device/v1/detail/hw/404"));
    expect(error.kind).toBe("business");
    expect(error.message).toBe("server says 404");
    expect(browser.clock.pending()).toBe(0);
    expect(notifications).toEqual([]);
  });

  it("other hwcodes on SMS and alarm calls show the server's message", async () => {
    signIn();
    for (const url of ["/msg/v1/ent/userMessage/hw/04012501", "/v1/alarm/contact/add/hw/420"]) {
      const error = await failure(post(url, {}, SMS_ALARM));
      expect(error.kind).toBe("business");
      showError(error);
    }
    expect(messages).toEqual(["server says 04012501", "server says 420"]);
    expect(browser.clock.pending()).toBe(0);
  });

  it('hwcode 500 without a message: "Server-api Error"', async () => {
    const error = await failure(get("/device/hw/500/nomsg"));
    expect(error.message).toBe("Server-api Error");
  });

  it("shows each HTTP status's text", async () => {
    const table: [number, string][] = [
      [400, "Api Request Error(400)"],
      [403, "Access denied"],
      [404, "Request error"],
      [408, "Request timeout"],
      [500, "Server Error"],
      [501, "Service not implemented"],
      [502, "Network Error"],
      [503, "Service Unavailable"],
      [504, "Network Timeout"],
      [505, "HTTP version not supported"],
      [418, "Connecting error(418)!"],
    ];
    for (const [status, text] of table) {
      const error = await failure(get(`/device/status/${status}`));
      expect(error.message, String(status)).toBe(text);
      expect(error.status).toBe(status);
    }
    // Only SMS and alarm calls keep a 504 on screen.
    expect(notifications).toEqual([]);
    expect(browser.clock.pending()).toBe(0);
  });

  it("HTTP 504 on an SMS or alarm call: a notification that stays", async () => {
    const error = await failure(get("/msg/v1/alarm/sms/page/status/504", undefined, SMS_ALARM));
    expect(error.message).toBe("Network Timeout");
    expect(notifications).toHaveLength(1);
    expect(notifications[0]!.title).toBe("Network Timeout");
    expect(notifications[0]!.duration).toBe(false);
  });

  it("a rate-limit answer shows the server's text", async () => {
    const error = await failure(post("/user/login/status/429", {}));
    expect(error.message).toBe("slow down (server)");
  });

  it("HTTP 401 with a session: the token text, logout to /loginTimeout after 1 s", async () => {
    signIn();
    const error = await failure(get("/device/status/401"));
    expect(error.kind).toBe("session");
    expect(notifications.map((n) => n.title)).toEqual([
      "Invalid token (Token expired)... Please log in again",
    ]);
    browser.clock.advance(LOGOUT_DELAY_MS - 1);
    expect(navigations).toEqual([]);
    browser.clock.advance(1);
    expect(landedOn()).toEqual(["/loginTimeout"]);
  });

  it("HTTP 401 without a session (an account page opened logged out): to /login, no expiry notice", async () => {
    await failure(get("/user/selectInfo/status/401"));
    expect(notifications).toEqual([]);
    browser.clock.advance(LOGOUT_DELAY_MS);
    expect(landedOn()).toEqual(["/login"]);
  });

  it("the logout call itself does not start another logout", async () => {
    signIn();
    const error = await failure(post("/user/logout/status/401", {}, { skipSessionHandling: true }));
    expect(error.kind).toBe("transport");
    expect(browser.clock.pending()).toBe(0);
  });

  it("a call refused after this browser logged out of its token is quiet: no notice, no logout", async () => {
    signIn();
    await post("/user/logout", {}, { skipSessionHandling: true });
    // Still on its way with the old token when the logout went through.
    const error = await failure(get("/device/v1/list/hw/113"));
    expect(error.kind).toBe("session");
    const refused = await failure(get("/device/status/401"));
    expect(refused.kind).toBe("session");
    expect(notifications).toEqual([]);
    expect(browser.clock.pending()).toBe(0);
  });

  it("a refusal for a token the browser no longer holds is quiet", async () => {
    browser.cookies.set("token", { value: "tok-old" });
    const late = failure(get("/device/status/401"));
    browser.cookies.clear(); // signed out meanwhile
    expect((await late).kind).toBe("session");
    expect(notifications).toEqual([]);
    expect(navigations).toEqual([]);
  });

  it('no answer at all: "Network or interface error!"', async () => {
    const error = await failure(get("/device/drop"));
    expect(error.message).toBe("Network or interface error!");
    expect(error.status).toBeNull();
  });

  it('a call that outlives the timeout: "Request timeout"', async () => {
    // The real limit is 15 s (checked above); a short one keeps the test quick.
    const saved = client.http.defaults.timeout;
    client.http.defaults.timeout = 150;
    try {
      const error = await failure(get("/device/hang"));
      expect(error.message).toBe("Request timeout");
    } finally {
      client.http.defaults.timeout = saved;
    }
  });

  it("a call given its own timeout waits for an answer the default would give up on", async () => {
    const saved = client.http.defaults.timeout;
    client.http.defaults.timeout = 150;
    try {
      expect((await failure(get("/device/late"))).message).toBe("Request timeout");
      expect(await get("/device/late", undefined, { timeout: 10_000 })).toEqual({ late: true });
    } finally {
      client.http.defaults.timeout = saved;
    }
  });
});
