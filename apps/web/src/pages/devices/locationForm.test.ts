import { describe, expect, it } from "vitest";
import { zodFieldIssue } from "../../lib/zodIssue.ts";
import { manualLocationForm } from "./locationForm.ts";

describe("manual location form", () => {
  it("requires lat and lng in range and coerces text", () => {
    expect(zodFieldIssue(manualLocationForm, { lat: "", lng: "1" }, "lat")).toBe("v.required");
    expect(zodFieldIssue(manualLocationForm, { lat: "91", lng: "1" }, "lat")).toBe("v.latLng");
    expect(zodFieldIssue(manualLocationForm, { lat: "1", lng: "abc" }, "lng")).toBe("v.latLng");
    expect(manualLocationForm.parse({ lat: " 31.23 ", lng: "-121.5", address: " X " })).toEqual({
      lat: 31.23,
      lng: -121.5,
      address: "X",
    });
  });
});
