import {
  changePhoneForm,
  loginByEmailForm,
  registerByPhoneForm,
  resetPasswordForm,
} from "@keyway/shared";
import { describe, expect, it } from "vitest";
import en from "../i18n/en.ts";
import zh from "../i18n/zh.ts";
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
