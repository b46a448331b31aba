/**
 * A small stand-in for the browser globals the web lib reads (window, document.cookie,
 * localStorage, navigator), for unit tests under Node. Install it BEFORE importing the module
 * under test (dynamic import), because the i18n and the store read them at load time.
 *
 * Timers set through `window.setTimeout` run on a manual clock (`clock.advance(ms)`), so a
 * test says "not yet after 999 ms, done after 1000 ms" without waiting or measuring.
 */

export interface StoredCookie {
  value: string;
  /** Absent for a session cookie. */
  expires?: Date;
}

export interface FakeBrowser {
  cookies: Map<string, StoredCookie>;
  storage: Map<string, string>;
  clock: {
    /** Pending timers (set, not yet run nor cleared). */
    pending(): number;
    advance(ms: number): void;
  };
  location: { search: string; hostname: string; pathname: string; protocol: string };
}

export function installFakeBrowser(opts: { search?: string; language?: string } = {}) {
  const cookies = new Map<string, StoredCookie>();
  const storage = new Map<string, string>();

  let now = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const clock = {
    pending: () => timers.size,
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = [...timers.entries()]
          .filter(([, t]) => t.at <= until)
          .sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = until;
    },
  };

  const localStorage = {
    getItem: (k: string) => storage.get(k) ?? null,
    setItem: (k: string, v: string) => void storage.set(k, String(v)),
    removeItem: (k: string) => void storage.delete(k),
    clear: () => storage.clear(),
    key: (i: number) => [...storage.keys()][i] ?? null,
    get length() {
      return storage.size;
    },
  };

  const location = {
    search: opts.search ?? "",
    hostname: "localhost",
    pathname: "/",
    protocol: "http:",
    assign: () => undefined,
  };

  const document = {
    get cookie(): string {
      const live: string[] = [];
      for (const [name, c] of cookies) {
        if (c.expires && c.expires.getTime() <= Date.now()) cookies.delete(name);
        else live.push(`${name}=${c.value}`);
      }
      return live.join("; ");
    },
    set cookie(text: string) {
      const [pair = "", ...attributes] = text.split(";").map((s) => s.trim());
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const expiresAttr = attributes.find((a) => a.toLowerCase().startsWith("expires="));
      const expires = expiresAttr ? new Date(expiresAttr.slice("expires=".length)) : undefined;
      if (expires && expires.getTime() <= Date.now()) cookies.delete(name);
      else cookies.set(name, expires ? { value, expires } : { value });
    },
    documentElement: { lang: "" },
    title: "",
    querySelector: () => null,
    createElement: () => ({}),
    head: { appendChild: () => undefined },
  };

  const window = {
    location,
    localStorage,
    setTimeout: (fn: () => void, ms = 0) => {
      const id = nextId++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (id?: number) => {
      if (id !== undefined) timers.delete(id);
    },
  };

  const g = globalThis as Record<string, unknown>;
  g.window = window;
  g.document = document;
  g.localStorage = localStorage;
  Object.defineProperty(globalThis, "navigator", {
    value: { language: opts.language ?? "en-US", userAgent: "node" },
    configurable: true,
    writable: true,
  });

  const browser: FakeBrowser = { cookies, storage, clock, location };
  return browser;
}
