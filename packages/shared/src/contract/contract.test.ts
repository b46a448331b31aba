import { describe, expect, it } from "vitest";
import { API, pathOf, type Route } from "./index.ts";

const routes = Object.entries(API).flatMap(([domain, group]) =>
  Object.entries(group as Record<string, Route>).map(([name, route]) => ({
    name: `${domain}.${name}`,
    route,
  })),
);

/**
 * SPEC §8 "on SMS and alarm calls": the message service, SMS stock and sales, the alarm push
 * configuration and contacts, the alarm lists, confirmations and limits, the 4G cards'
 * warning log. The contract declares it per group; this is the rule it must agree with.
 */
const SMS_ALARM = [
  /^\/api\/msg\//,
  /^\/api\/(operator\/)?v1\/sms\//,
  /^\/api\/v1\/alarm\//,
  /^\/api\/v1\/devices\/(alarm|msgConfig|imageReset)/,
  /^\/api\/machine\/(limitAlarmSet|confirmMacAlarm)/,
  /^\/api\/v1\/iotcard\/alarm\//,
];

describe("the API contract", () => {
  it("marks exactly SPEC §8's SMS and alarm calls", () => {
    const wrong = routes
      .filter(({ route }) => route.smsAlarm !== SMS_ALARM.some((re) => re.test(route.path)))
      .map(({ name, route }) => `${name} ${route.path} smsAlarm=${route.smsAlarm}`);
    expect(wrong).toEqual([]);
    expect(routes.filter(({ route }) => route.smsAlarm).length).toBeGreaterThan(30);
  });

  it("gives every call a summary and a guard", () => {
    for (const { name, route } of routes) {
      expect(route.summary, name).not.toBe("");
      expect(["none", "user", "operator"], name).toContain(route.auth);
    }
  });

  it("fills path parameters, encoded, and refuses a missing one", () => {
    const route = { path: "/api/user/v1/tokenInfo/:id" };
    expect(pathOf(route, { id: 7 })).toBe("/api/user/v1/tokenInfo/7");
    expect(pathOf(route, { id: "a/b" })).toBe("/api/user/v1/tokenInfo/a%2Fb");
    expect(() => pathOf(route)).toThrow("no id");
  });
});
