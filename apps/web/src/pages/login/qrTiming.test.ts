import { QR_LOGIN } from "@keyway/shared";
import { describe, expect, it } from "vitest";
import { afterClosingCheck, qrTick } from "./qrTiming.ts";

const S = 1000;

describe("the QR panel's countdown", () => {
  it("renews an unscanned QR only after a last check, shortly before its end", () => {
    expect(qrTick("active", 60 * S)).toBe("none");
    expect(qrTick("active", (QR_LOGIN.refreshBeforeSeconds + 1) * S)).toBe("none");
    expect(qrTick("active", QR_LOGIN.refreshBeforeSeconds * S)).toBe("closing");
    expect(qrTick("active", -S)).toBe("closing");
  });

  it("keeps polling a scanned QR past its countdown, through the server's pick-up grace", () => {
    expect(qrTick("scanned", 0)).toBe("none");
    expect(qrTick("scanned", -QR_LOGIN.pickUpSeconds * S)).toBe("none");
    expect(qrTick("scanned", -(QR_LOGIN.pickUpSeconds * S + 3 * QR_LOGIN.pollMs))).toBe("expire");
  });

  it("leaves ended states alone", () => {
    for (const status of ["loading", "expired", "cancelled", "error"] as const) {
      expect(qrTick(status, -600 * S)).toBe("none");
    }
  });

  it("does not drop a QR scanned since the last poll when renewing", () => {
    expect(afterClosingCheck("scanned", true)).toBe("scanned");
    expect(afterClosingCheck("confirmed", true)).toBe("confirmed");
    expect(afterClosingCheck("waiting", true)).toBe("renew");
    expect(afterClosingCheck("waiting", false)).toBe("expire");
    expect(afterClosingCheck("refused", true)).toBe("renew");
  });
});
