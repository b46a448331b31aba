import {
  type InputOf,
  type ProvisionedDevice,
  pathOf,
  type ReplyOf,
  type Route,
} from "@keyway/shared";
import { desc, eq } from "drizzle-orm";
import { type AppDeps, buildApp } from "../app.ts";
import { type Config, testConfig } from "../config.ts";
import { createTestDatabase } from "../db/testing.ts";
import { ManualClock } from "../infra/clock.ts";
import type { Senders } from "../infra/senders.ts";
import { notifications } from "../modules/notify/schema.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary envelopes
export interface Envelope<T = any> {
  hwcode: number | string;
  hwdata: T;
  msg: string;
}

/**
 * The whole app on a fresh database (PGlite, or the PostgreSQL of DATABASE_URL), a manual
 * clock and the local outbox; plus helpers that speak the wire format like a client does.
 */
export async function createHarness(
  opts: {
    config?: Partial<Config>;
    senders?: Senders;
    reporting?: AppDeps["reporting"];
    /** Fastify's logger (default none); a test reading log lines passes a stream. */
    logger?: AppDeps["logger"];
    /** On-site consent's wait (default CONSENT_TIMEOUT_MS): tests of the timeout shorten it. */
    consentTimeoutMs?: number;
  } = {},
) {
  const database = await createTestDatabase();
  const clock = new ManualClock(new Date("2026-11-21T08:00:00Z"));
  const boot = async (reporting: AppDeps["reporting"]) => {
    const built = await buildApp({
      config: testConfig({ WEB_DIST: "/nonexistent", ...opts.config }),
      db: database.db,
      clock,
      senders: opts.senders,
      logger: opts.logger ?? false,
      sweepEveryMs: 0,
      // Notifications go out at their enqueue's kick or when a test calls deliverDue.
      notifyEveryMs: 0,
      consentTimeoutMs: opts.consentTimeoutMs,
      // Report deliveries run when a test calls deliverDue, unless it asks for the loop.
      reporting: { pollMs: 0, ...reporting },
    });
    await built.ready();
    return built;
  };
  let app = await boot(opts.reporting);
  let stopped = false;

  type Method = "GET" | "POST" | "PUT" | "DELETE";
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary envelopes
  async function call<T = any>(
    method: Method,
    url: string,
    opts: {
      form?: Record<string, string | number>;
      json?: unknown;
      token?: string;
      lang?: "cn" | "en";
      ip?: string;
    } = {},
  ): Promise<{ status: number; body: Envelope<T> }> {
    const headers: Record<string, string> = {};
    if (opts.token) headers.cloudtoken = opts.token;
    if (opts.lang) headers.cookie = `lang=${opts.lang}`;
    let payload: string | undefined;
    if (opts.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      payload = new URLSearchParams(
        Object.entries(opts.form).map(([k, v]): [string, string] => [k, String(v)]),
      ).toString();
    } else if (opts.json !== undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(opts.json);
    }
    // Each call from its own address, like many clients; rate-limit tests pin one address.
    const remoteAddress = opts.ip ?? `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const response = await app.inject({ method, url, headers, payload, remoteAddress });
    return { status: response.statusCode, body: response.json() as Envelope<T> };
  }

  /**
   * Calls a route of the contract like the web client does: the input as a form body (a
   * query string on GET), the path's parameters filled in.
   */
  async function request<R extends Route>(
    route: R,
    opts: {
      input?: InputOf<R>;
      params?: Record<string, string | number>;
      token?: string;
      lang?: "cn" | "en";
      ip?: string;
    } = {},
  ): Promise<{ status: number; body: Envelope<ReplyOf<R>> }> {
    const { input, params, ...rest } = opts;
    const fields = Object.fromEntries(
      Object.entries((input ?? {}) as Record<string, unknown>)
        .filter(([, v]) => v !== undefined && v !== null)
        .map(([k, v]): [string, string] => [
          k,
          typeof v === "boolean" ? (v ? "1" : "0") : String(v),
        ]),
    );
    const path = pathOf(route, params);
    if (route.method === "GET") {
      const query = new URLSearchParams(fields).toString();
      return call(route.method, query ? `${path}?${query}` : path, rest);
    }
    return call(route.method, path, { ...rest, form: fields });
  }

  /** The last code the platform sent to `recipient`, read from the outbox as an operator would. */
  async function lastCode(recipient: string): Promise<string> {
    const [row] = await database.db
      .select()
      .from(notifications)
      .where(eq(notifications.recipient, recipient))
      .orderBy(desc(notifications.id))
      .limit(1);
    const code = row?.body.match(/\b(\d{6})\b/)?.[1];
    if (!code) throw new Error(`no code sent to ${recipient}`);
    return code;
  }

  /** Registers and activates an e-mail account; returns its login token. */
  async function signUp(email: string, password = "secret123", name = "Tester") {
    const reg = await call("POST", "/api/user/v1/register", { form: { email, password, name } });
    if (reg.body.hwcode !== 0) throw new Error(`register failed: ${JSON.stringify(reg.body)}`);
    const code = await lastCode(email);
    await call("POST", "/api/user/activeAccount", {
      form: { activeAccount: email, SMSVerificationCode: code },
    });
    // The phone app's session: a later web login (the default type) keeps it (one session per
    // terminal type).
    return login(email, password, { terminalType: "android", terminalName: "Test phone" });
  }

  async function login(loginName: string, loginPwd: string, extra: Record<string, string> = {}) {
    const res = await call<{ result: { token: string; userid: number } }>(
      "POST",
      "/api/user/login",
      {
        form: {
          loginName,
          loginPwd,
          terminalUUID: `t-${Math.random()}`,
          terminalName: "Vitest",
          ...extra,
        },
      },
    );
    if (res.body.hwcode !== 0) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
    return res.body.hwdata.result.token;
  }

  let people = 0;
  /** A new user signed up by e-mail at a unique address: their token, e-mail, name and id. */
  async function person(name: string) {
    const email = `${name.toLowerCase()}${++people}@example.com`;
    const token = await signUp(email, "secret123", name);
    const info = await call("POST", "/api/user/selectInfo", { token });
    return { token, email, name, userId: info.body.hwdata.id as number };
  }

  /** New machine codes from the operator's back-office call (`operator`: their token). */
  async function provision(operator: string, count = 1, model = ""): Promise<ProvisionedDevice[]> {
    const res = await call("POST", "/api/operator/v1/devices/provision", {
      form: { count, model },
      token: operator,
    });
    if (res.body.hwcode !== 0) throw new Error(`provision failed: ${JSON.stringify(res.body)}`);
    return res.body.hwdata.list;
  }

  /** Adds a provisioned device to `token`'s personal list (its first adder is the Akey). */
  async function addDevice(token: string, device: ProvisionedDevice, name: string) {
    const res = await call("POST", "/api/machine/add", {
      form: {
        machineName: name,
        machineCode: device.machineCode,
        machinePwd: device.devicePassword,
      },
      token,
    });
    if (res.body.hwcode !== 0) throw new Error(`add failed: ${JSON.stringify(res.body)}`);
    return { id: res.body.hwdata.machine_id as number, code: device.machineCode };
  }

  return {
    /** The running app (a new one after `restart`). */
    get app() {
      return app;
    },
    db: database.db,
    clock,
    call,
    request,
    lastCode,
    signUp,
    person,
    login,
    provision,
    addDevice,
    /** A restart: the app is closed and a new one built on the same database. */
    async restart(reporting: AppDeps["reporting"] = opts.reporting) {
      if (!stopped) await app.close();
      app = await boot(reporting);
      stopped = false;
    },
    /** The app alone stops (as a process would); `restart` or `close` follows. */
    async stopApp() {
      stopped = true;
      await app.close();
    },
    async close() {
      if (!stopped) await app.close();
      await database.close();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof createHarness>>;
