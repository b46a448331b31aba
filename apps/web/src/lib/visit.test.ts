import { HW } from "@keyway/shared";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api/errors.ts";
import { formatBytes, formatDuration } from "./format.ts";
import { connectStateOf, subdomainsResolve, visitHref } from "./visit.ts";

const visit = {
  url: "http://abc.visit.keyway.example.com/?kw_ticket=t1",
  path_url: "http://keyway.example.com/visit/abc/?kw_ticket=t1",
};

describe("visitHref", () => {
  it("opens the visit's own host where sub-domains resolve", () => {
    for (const hostname of ["keyway.example.com", "localhost", "kw.localhost", "cloud.cn"]) {
      expect(subdomainsResolve(hostname)).toBe(true);
      expect(visitHref(visit, { hostname, origin: `http://${hostname}` })).toBe(visit.url);
    }
  });

  it("falls back to the path form on this page's own origin for IPs and single labels", () => {
    for (const [hostname, origin] of [
      ["192.168.1.20", "http://192.168.1.20:8080"],
      ["::1", "http://[::1]:8080"],
      ["[::1]", "http://[::1]:8080"],
      ["keyway", "http://keyway:8080"],
    ]) {
      expect(subdomainsResolve(hostname)).toBe(false);
      expect(visitHref(visit, { hostname, origin })).toBe(`${origin}/visit/abc/?kw_ticket=t1`);
    }
  });

  it("opens a visit domain of its own (VISIT_DOMAIN) even from an IP address", () => {
    const dedicated = { ...visit, url: "https://abc.kw-visit.example.net/?kw_ticket=t1" };
    const here = { hostname: "192.168.1.20", origin: "http://192.168.1.20:8080" };
    expect(visitHref(dedicated, here, "kw-visit.example.net")).toBe(dedicated.url);
    // A url not under the configured domain is not trusted to resolve.
    expect(visitHref(visit, here, "kw-visit.example.net")).toBe(
      "http://192.168.1.20:8080/visit/abc/?kw_ticket=t1",
    );
  });
});

describe("connectStateOf", () => {
  const business = (code: number | string) => new ApiError("msg", "business", code);
  it("maps the SPEC §8 connect codes onto the SPEC §4 connection states", () => {
    expect(connectStateOf(business(HW.DEVICE_OFFLINE.code))).toBe("offline");
    expect(connectStateOf(business(HW.CLOUD_CLOSED.code))).toBe("closed");
    expect(connectStateOf(business(HW.CLOUD_EXPIRED.code))).toBe("closed");
    expect(connectStateOf(business(203))).toBe("unbound");
    expect(connectStateOf(business(504))).toBe("unbound");
    expect(connectStateOf(business(HW.DEVICE_NO_PERMISSION.code))).toBe("unbound");
    expect(connectStateOf(business(HW.TARGET_UNREACHABLE.code))).toBe("failed");
    expect(connectStateOf(new ApiError("Network Error", "transport", null, 502))).toBe("failed");
    expect(connectStateOf(new Error("boom"))).toBe("failed");
  });

  it("ends a visit not accepted at the machine as refused, a screen not offered as failed", () => {
    expect(connectStateOf(business(HW.CONSENT_REFUSED.code))).toBe("refused");
    expect(connectStateOf(business(HW.CONSENT_TIMEOUT.code))).toBe("refused");
    expect(connectStateOf(business(HW.CONSENT_UNSUPPORTED.code))).toBe("refused");
    expect(connectStateOf(business(HW.SCREEN_NOT_OFFERED.code))).toBe("failed");
  });
});

describe("formatBytes / formatDuration", () => {
  it("writes bytes in binary units", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.50 KB");
    expect(formatBytes(23.4 * 1024 * 1024)).toBe("23.4 MB");
    expect(formatBytes(5 * 1024 ** 3)).toBe("5.00 GB");
  });

  it("writes a duration as its two largest units in both languages", () => {
    expect(formatDuration(0, "en")).toBe("0 s");
    expect(formatDuration(45_000, "en")).toBe("45 s");
    expect(formatDuration(192_000, "en")).toBe("3 min 12 s");
    expect(formatDuration(2 * 3600_000 + 5 * 60_000 + 9_000, "en")).toBe("2 h 5 min");
    expect(formatDuration(2 * 3600_000 + 9_000, "cn")).toBe("2小时");
    expect(formatDuration(3 * 86_400_000 + 4 * 3600_000, "cn")).toBe("3天4小时");
    expect(formatDuration(192_000, "cn")).toBe("3分12秒");
  });
});
