import { CONSENT_TIMEOUT_MS } from "@keyway/protocol";
import { HW } from "@keyway/shared";
import { describe, expect, it } from "vitest";
import { consentSecondsLeft } from "../../features/device/ConsentCountdown.tsx";
import { CONSENT_HINT_AFTER_MS, CONSENT_WAIT_MS } from "../../lib/visit.ts";
import { closeMessage, endOfClose, hwcodeOfReason, screenViewOf } from "./screenState.ts";
import type { RfbState } from "./useRfb.ts";

const rfb = (over: Partial<RfbState> = {}): RfbState => ({
  status: "connecting",
  end: null,
  code: null,
  detail: null,
  credentials: [],
  desktopName: "",
  clipboard: null,
  ...over,
});
const visit = {
  visit_id: "a".repeat(26),
  url: "",
  path_url: "",
  expires_at: "",
  machine_id: 1,
  online: true,
  target: "127.0.0.1:5900",
  role: "akey",
  right_expires_at: null,
  kind: "screen" as const,
  view_only: false,
  ws_url: "ws://localhost/visit-screen/x?kw_ticket=t",
  consent: "none" as const,
};

describe("the viewer's connection state", () => {
  it("says connecting, then waiting for approval while the visit URL call is held", () => {
    const asking = { phase: "asking" as const, since: 1000 };
    expect(screenViewOf(asking, rfb(), null, 1000).state).toBe("connecting");
    expect(screenViewOf(asking, rfb(), null, 1000 + CONSENT_HINT_AFTER_MS).state).toBe("waiting");
    expect(screenViewOf(asking, rfb(), true, 1000 + CONSENT_HINT_AFTER_MS).state).toBe("waiting");
    // A device known not to ask is only connecting, however long the call takes.
    expect(screenViewOf(asking, rfb(), false, 60_000).state).toBe("connecting");
  });

  it("carries a refusal's SPEC state and the server's message", () => {
    const refused = {
      phase: "refused" as const,
      state: "refused" as const,
      message: "Refused at the machine",
      code: String(HW.CONSENT_REFUSED.code),
    };
    expect(screenViewOf(refused, rfb(), null, 0)).toEqual({
      state: "refused",
      end: null,
      code: String(HW.CONSENT_REFUSED.code),
      message: "Refused at the machine",
    });
  });

  it("follows the RFB session once the visit is there", () => {
    const ready = { phase: "ready" as const, visit };
    expect(screenViewOf(ready, rfb(), null, 0).state).toBe("connecting");
    expect(screenViewOf(ready, rfb({ status: "password" }), null, 0).state).toBe("password");
    expect(screenViewOf(ready, rfb({ status: "online" }), null, 0).state).toBe("online");
    const ended = rfb({ status: "ended", end: "visit", code: String(HW.VISIT_ENDED.code) });
    expect(screenViewOf(ready, ended, null, 0)).toMatchObject({ state: "ended", end: "visit" });
    // An answer without a WebSocket (a server that did not make it a screen visit) fails.
    const noSocket = { phase: "ready" as const, visit: { ...visit, ws_url: undefined } };
    expect(screenViewOf(noSocket, rfb(), null, 0).state).toBe("failed");
  });
});

describe("the relay's close codes", () => {
  it("tells an ended visit from a device gone, a screen unreachable and a broken link", () => {
    expect(endOfClose(4410)).toBe("visit");
    expect(endOfClose(4404)).toBe("visit");
    expect(endOfClose(4403)).toBe("visit");
    expect(endOfClose(4502)).toBe("offline");
    expect(endOfClose(4503)).toBe("unreachable");
    expect(endOfClose(4504)).toBe("unreachable");
    expect(endOfClose(1000)).toBe("device");
    expect(endOfClose(1006)).toBe("lost");
    expect(endOfClose(4400)).toBe("lost");
  });

  it("reads the hwcode of a close reason and says it in the page's language", () => {
    const reason = `${HW.DEVICE_OFFLINE.code} ${HW.DEVICE_OFFLINE.en}`;
    expect(hwcodeOfReason(reason)).toBe(String(HW.DEVICE_OFFLINE.code));
    expect(hwcodeOfReason("rfb: a text message")).toBeNull();
    expect(closeMessage(String(HW.DEVICE_OFFLINE.code), "cn")).toBe(HW.DEVICE_OFFLINE.zh);
    expect(closeMessage(String(HW.DEVICE_OFFLINE.code), "en")).toBe(HW.DEVICE_OFFLINE.en);
    expect(closeMessage(null, "en")).toBeNull();
  });
});

describe("the on-site approval countdown", () => {
  it("waits as long as the server does", () => {
    expect(CONSENT_WAIT_MS).toBe(CONSENT_TIMEOUT_MS);
  });

  it("counts the seconds left from when the call was sent, never below zero", () => {
    expect(consentSecondsLeft(0, 0)).toBe(CONSENT_WAIT_MS / 1000);
    expect(consentSecondsLeft(0, 1)).toBe(CONSENT_WAIT_MS / 1000);
    expect(consentSecondsLeft(0, 10_500)).toBe(CONSENT_WAIT_MS / 1000 - 10);
    expect(consentSecondsLeft(0, CONSENT_WAIT_MS + 5000)).toBe(0);
  });
});
