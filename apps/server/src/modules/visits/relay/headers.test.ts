import { describe, expect, it } from "vitest";
import { sameSecret } from "../../../infra/crypto.ts";
import { cookieValue } from "./headers.ts";

describe("the visit cookie in a browser's Cookie header", () => {
  it("is found by its whole name only, with spaces around it taken off", () => {
    expect(cookieValue("kw_visit=abc", "kw_visit")).toBe("abc");
    expect(cookieValue("hmi=1; kw_visit=abc; lang=en", "kw_visit")).toBe("abc");
    expect(cookieValue("  kw_visit =  abc  ;x=1", "kw_visit")).toBe("abc");
    // A device's cookie whose name ends in ours, or holds ours in its value, is not ours.
    expect(cookieValue("xkw_visit=forged; kw_visit=abc", "kw_visit")).toBe("abc");
    expect(cookieValue("hmi=kw_visit=forged", "kw_visit")).toBeUndefined();
    expect(cookieValue("kw_visit; other=1", "kw_visit")).toBeUndefined();
    expect(cookieValue("=abc; kw_visit=", "kw_visit")).toBe("");
    expect(cookieValue(undefined, "kw_visit")).toBeUndefined();
    expect(cookieValue("", "kw_visit")).toBeUndefined();
    // The first of two wins, as before.
    expect(cookieValue("kw_visit=one; kw_visit=two", "kw_visit")).toBe("one");
  });

  it("is compared whole: any other value or length is not the same secret", () => {
    const secret = "Qm9vdHN0cmFwLXNlY3JldC1mb3ItYS12aXNpdC0wMDE";
    expect(sameSecret(secret, `${secret}`)).toBe(true);
    expect(sameSecret(secret, `${secret.slice(0, -1)}x`)).toBe(false);
    expect(sameSecret(secret, `x${secret.slice(1)}`)).toBe(false);
    expect(sameSecret(secret, secret.slice(0, -1))).toBe(false);
    expect(sameSecret(secret, "")).toBe(false);
  });
});
