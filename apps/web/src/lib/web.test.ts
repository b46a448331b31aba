import {
  COOKIE_DEFAULT_DAYS,
  changePhoneForm,
  DAY_MS,
  formatUnreadBadge,
  INDICATOR_CLEAR_MS,
  loginByEmailForm,
  registerByPhoneForm,
  resetPasswordForm,
  STORAGE_VERSION,
  TOKEN_COOKIE_DAYS,
  type UserInfo,
} from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import en from "../i18n/en.ts";
import zh from "../i18n/zh.ts";
import { type FakeBrowser, installFakeBrowser } from "../store/testDom.ts";
import { formatDateTime } from "./format.ts";
import { browserName, osName } from "./terminal.ts";
import { zodFieldIssue } from "./zodIssue.ts";

describe("zodFieldIssue (antd rule adapter core)", () => {
  it("reports a missing field as required", () => {
    expect(zodFieldIssue(loginByEmailForm, {}, "email")).toBe("v.required");
    expect(zodFieldIssue(loginByEmailForm, { email: "a@b.co" }, "email")).toBeUndefined();
  });

  it("runs the phone rule even while another field is still empty", () => {
    const values = { countryCode: "86", phone: "123" };
    expect(zodFieldIssue(changePhoneForm, values, "phone")).toBe("v.phone");
    expect(zodFieldIssue(changePhoneForm, { ...values, phone: "13800138000" }, "phone")).toBe(
      undefined,
    );
  });

  it("checks that the two passwords match", () => {
    const v = { password: "secret1", confirmPassword: "secret2" };
    expect(zodFieldIssue(resetPasswordForm, v, "confirmPassword")).toBe("v.passwordMismatch");
    expect(zodFieldIssue(resetPasswordForm, v, "password")).toBeUndefined();
  });

  it("validates name rules through the shared schema", () => {
    const v = { countryCode: "86", phone: "13800138000", name: "#", password: "secret1" };
    expect(zodFieldIssue(registerByPhoneForm, v, "name")).toBe("v.personName");
  });
});

describe("terminal description", () => {
  const chrome =
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
  const edge = `${chrome.replace("Linux x86_64", "Windows NT 10.0; Win64; x64")} Edg/125.0.0.0`;
  const safari =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

  it("names the browser and the OS", () => {
    expect(browserName(chrome)).toBe("Chrome 126");
    expect(browserName(edge)).toBe("Edge 125");
    expect(browserName(safari)).toBe("Safari 17");
    expect(osName(chrome)).toBe("Linux");
    expect(osName(edge)).toBe("Windows 10/11");
    expect(osName(safari)).toBe("iOS 17");
  });
});

describe("formatDateTime", () => {
  it("uses the SPEC format and accepts epoch seconds", () => {
    expect(formatDateTime("2026-01-02T03:04:05")).toBe("2026-01-02 03:04:05");
    expect(formatDateTime(null)).toBe("-");
    const seconds = Math.floor(new Date("2026-01-02T03:04:05").getTime() / 1000);
    expect(formatDateTime(seconds)).toBe("2026-01-02 03:04:05");
  });
});

describe("i18n", () => {
  const keys = (o: object, prefix = ""): string[] =>
    Object.entries(o).flatMap(([k, v]) =>
      typeof v === "object" && v !== null ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`],
    );

  it("zh and en have the same keys and the same placeholders", () => {
    expect(keys(zh).sort()).toEqual(keys(en).sort());
    const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]);
    const get = (o: object, path: string) =>
      path.split(".").reduce<unknown>((acc, k) => (acc as Record<string, unknown>)[k], o) as string;
    for (const key of keys(en)) {
      expect(placeholders(get(zh, key)).sort(), key).toEqual(placeholders(get(en, key)).sort());
    }
  });
});

describe("unread badge", () => {
  it('shows the count up to 99, then "99+"', () => {
    expect(formatUnreadBadge(0)).toBe("0");
    expect(formatUnreadBadge(99)).toBe("99");
    expect(formatUnreadBadge(100)).toBe("99+");
    expect(formatUnreadBadge(4321)).toBe("99+");
  });
});

/** The browser-side state: the persisted store, its version reset and the cookies. */
describe("client state and cookies", () => {
  // A whole second, so the cookie's expires (second precision) compares exactly.
  const NOW = Date.UTC(2026, 0, 10, 8, 0, 0);
  let browser: FakeBrowser;
  let store: typeof import("../store/app.ts");

  const stale = {
    state: { version: "v0.9", user: { name: "Old" }, userId: 7 },
    version: 1,
  };

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
    browser = installFakeBrowser();
    // What an older release left behind: another version key, and its data.
    browser.storage.set("keyway.version", "v0.9");
    browser.storage.set("keyway.store", JSON.stringify(stale));
    store = await import("../store/app.ts");
  });
  afterAll(() => vi.useRealTimers());

  it('drops local storage whose version key is not "v1.0"', () => {
    expect(STORAGE_VERSION).toBe("v1.0");
    expect(browser.storage.get("keyway.version")).toBe("v1.0");
    expect(store.useAppStore.getState().user).toBeNull();
    expect(store.useAppStore.getState().userId).toBeNull();
  });

  it("persists exactly the SPEC's keys, and ignores a stored state of another version", async () => {
    const s = store.useAppStore.getState();
    const user = { id: 5, name: "Ada", account: "ada@example.com" } as UserInfo;
    s.signedIn(5);
    s.setUser(user);
    s.setUnread(120);
    s.setEnterprises([{ eid: 3, name: "Acme", enableProject: 1 }]);
    s.selectContext({ eid: 3, name: "Acme", enableProject: 1 });
    s.setCountryCode("44");

    const saved = JSON.parse(browser.storage.get("keyway.store") ?? "{}").state;
    expect(Object.keys(saved).sort()).toEqual([
      "enterpriseInfos",
      "enterprisesList",
      "messageCenter",
      "smsData",
      "user",
      "userId",
      "version",
    ]);
    expect(saved.version).toBe("v1.0");
    expect(saved.userId).toBe(5);
    expect(saved.user.name).toBe("Ada");
    expect(saved.messageCenter).toEqual({ totalUnreadMsg: 120 });
    expect(saved.enterpriseInfos["5"].eid).toBe(3);
    expect(store.selectCurrentContext(store.useAppStore.getState()).name).toBe("Acme");

    // A stored state written by another version is not merged back in.
    browser.storage.set("keyway.store", JSON.stringify(stale));
    await store.useAppStore.persist.rehydrate();
    expect(store.useAppStore.getState().user?.name).toBe("Ada");
  });

  it("clears the error indicator after 1 s, and sign-out resets login 0 / user 8", () => {
    const s = store.useAppStore.getState();
    s.flashError("boom");
    expect(store.useAppStore.getState().error).toBe("boom");
    browser.clock.advance(INDICATOR_CLEAR_MS - 1);
    expect(store.useAppStore.getState().error).toBe("boom");
    browser.clock.advance(1);
    expect(store.useAppStore.getState().error).toBeNull();

    s.signOut();
    const after = store.useAppStore.getState();
    expect(after.loginState).toBe(store.LOGIN_STATE.initial);
    expect(after.userState).toBe(store.USER_STATE.signedOut);
    expect(after.user).toBeNull();
  });

  it("keep-login keeps the token 30 days; without it the token is a session cookie", async () => {
    const { saveToken } = await import("./session.ts");
    saveToken("t-keep", true);
    expect(browser.cookies.get("token")?.expires?.getTime()).toBe(NOW + TOKEN_COOKIE_DAYS * DAY_MS);
    saveToken("t-session", false);
    expect(browser.cookies.get("token")).toEqual({ value: "t-session" });
  });

  it("the chosen language goes into the lang cookie the server reads", async () => {
    const { setLang } = await import("../i18n/index.ts");
    setLang("en");
    expect(browser.cookies.get("lang")).toEqual({
      value: "en",
      expires: new Date(NOW + COOKIE_DEFAULT_DAYS * DAY_MS),
    });
    setLang("cn");
    expect(browser.cookies.get("lang")?.value).toBe("cn");
  });
});
