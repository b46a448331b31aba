import { DAY_MS, REMEMBER_ACCOUNT_DAYS } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type FakeBrowser, installFakeBrowser } from "../../store/testDom.ts";

describe("remember-me cookie", () => {
  // A whole second, so the cookie's expires (second precision) compares exactly.
  const NOW = Date.UTC(2026, 0, 10, 8, 0, 0);
  let browser: FakeBrowser;

  beforeAll(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
    // Before the module is imported: the cookie helpers read the document.
    browser = installFakeBrowser();
  });
  afterAll(() => vi.useRealTimers());

  it("remember-me keeps the account name (never the password) for 3 days", async () => {
    const { readRememberedAccount, rememberAccount } = await import("./remember.ts");
    expect(REMEMBER_ACCOUNT_DAYS).toBe(3);
    rememberAccount({ tab: "phone", loginName: "13800138000", countryCode: "86" });
    const cookie = browser.cookies.get("rememberAccount");
    expect(cookie?.expires?.getTime()).toBe(NOW + 3 * DAY_MS);
    expect(cookie?.value).not.toContain("password");
    expect(readRememberedAccount()).toEqual({
      tab: "phone",
      loginName: "13800138000",
      countryCode: "86",
    });
    rememberAccount(null);
    expect(browser.cookies.has("rememberAccount")).toBe(false);
    expect(readRememberedAccount()).toBeNull();
  });
});
