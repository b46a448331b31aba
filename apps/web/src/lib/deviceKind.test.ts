import { describe, expect, it } from "vitest";
import { MOBILE_REDIRECT_EXEMPT } from "../paths.ts";
import { deviceKindOf, isTvUserAgent, mobileRedirectTarget } from "./deviceKind.ts";

const UA = {
  chromeWindows:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  safariMac:
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  pixel7:
    "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
  iphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  androidTablet:
    "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  huaweiHarmony:
    "Mozilla/5.0 (Phone; OpenHarmony 4.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/114.0.0.0 Safari/537.36 ArkWeb/4.1.6.1 Mobile HuaweiBrowser/5.0",
  wechat:
    "Mozilla/5.0 (Linux; Android 12; M2012K11AC Build/SKQ1.211006.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/107.0.5304.141 Mobile Safari/537.36 MicroMessenger/8.0.40",
  samsungTv:
    "Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 76.0.3809.146/6.0 TV Safari/537.36",
  lgTv: "Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79.0.3945.79 Safari/537.36 WebAppManager",
  fireTv:
    "Mozilla/5.0 (Linux; Android 9; AFTMM Build/PS7633) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/108.0.5359.160 Mobile Safari/537.36",
  androidTv:
    "Mozilla/5.0 (Linux; Android 11; BRAVIA 4K VH2 Build/RTM1.221121.001) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/108.0.0.0 Safari/537.36",
  googleAndroidTv:
    "Mozilla/5.0 (Linux; Android 12; Chromecast Build/STTE.230319.008; Android TV) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/110.0.0.0 Safari/537.36",
  miBox:
    "Mozilla/5.0 (Linux; Android 9; MIBOX4 Build/PI) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/91.0.4472.120 Safari/537.36",
  dangbei:
    "Mozilla/5.0 (Linux; Android 9; DBX3 Build/PI; DangbeiOS) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/88.0 Safari/537.36",
  hbbtv:
    "Mozilla/5.0 (Linux armv7l) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/38.0 Safari/537.36 HbbTV/1.4.1 (+DRM; Vestel; MB130; 3.41.1.0; _TV_NT72563_2019;)",
  tizenPhone:
    "Mozilla/5.0 (Linux; Tizen 2.3; SAMSUNG SM-Z130H) AppleWebKit/537.3 (KHTML, like Gecko) Version/2.3 Mobile Safari/537.3",
} as const;

describe("deviceKindOf", () => {
  it("keeps desktop browsers on the main app", () => {
    expect(deviceKindOf(UA.chromeWindows)).toBe("desktop");
    expect(deviceKindOf(UA.safariMac, { maxTouchPoints: 0 })).toBe("desktop");
    // A touch laptop with a big screen stays a desktop.
    expect(deviceKindOf(UA.chromeWindows, { coarsePointer: true, screenShortSide: 1080 })).toBe(
      "desktop",
    );
  });

  it("sends phones and tablets to the mobile route", () => {
    for (const ua of [UA.pixel7, UA.iphone, UA.androidTablet, UA.huaweiHarmony, UA.wechat]) {
      expect(deviceKindOf(ua), ua).toBe("mobile");
    }
    // iPadOS presents itself as a Mac, but a Mac has no touch points.
    expect(deviceKindOf(UA.safariMac, { maxTouchPoints: 5 })).toBe("mobile");
    // "Request desktop site" on a phone: a finger on a small screen.
    expect(deviceKindOf(UA.chromeWindows, { coarsePointer: true, screenShortSide: 412 })).toBe(
      "mobile",
    );
  });

  it("tells TV boxes apart, even Android ones that say Mobile", () => {
    for (const ua of [
      UA.samsungTv,
      UA.lgTv,
      UA.fireTv,
      UA.androidTv,
      UA.googleAndroidTv,
      UA.miBox,
      UA.dangbei,
      UA.hbbtv,
    ]) {
      expect(deviceKindOf(ua), ua).toBe("tv");
      expect(isTvUserAgent(ua)).toBe(true);
    }
    expect(deviceKindOf(UA.tizenPhone)).toBe("mobile");
  });
});

describe("mobileRedirectTarget", () => {
  const exempt = MOBILE_REDIRECT_EXEMPT;

  it("sends desktop routes to their mobile counterparts, keeping the language", () => {
    expect(mobileRedirectTarget("/index", "?listType=list", exempt)).toBe("/mobile");
    expect(mobileRedirectTarget("/login", "?language=en", exempt)).toBe(
      "/mobile/login?language=en",
    );
    expect(mobileRedirectTarget("/msgCenter", "?box=inbox", exempt)).toBe("/mobile/messages");
    expect(mobileRedirectTarget("/alarmCenter", "", exempt)).toBe("/mobile/alarms");
    expect(mobileRedirectTarget("/safety", "?language=cn", exempt)).toBe("/mobile/me?language=cn");
    expect(mobileRedirectTarget("/project", "?type=1", exempt)).toBe("/mobile");
  });

  it("leaves the mobile route and the SCADA registration page alone", () => {
    expect(mobileRedirectTarget("/mobile", "", exempt)).toBeNull();
    expect(mobileRedirectTarget("/mobile/device/3", "", exempt)).toBeNull();
    expect(mobileRedirectTarget("/mobile/qrLogin", "?code=abc", exempt)).toBeNull();
    expect(mobileRedirectTarget("/scadaRegister", "", exempt)).toBeNull();
    // Only the route itself, not a look-alike.
    expect(mobileRedirectTarget("/mobilex", "", exempt)).toBe("/mobile");
  });

  it("lets a phone register, recover a password and download the app", () => {
    for (const path of ["/register", "/registerByEmail", "/forgetPwd", "/appDownload"]) {
      expect(mobileRedirectTarget(path, "?language=en", exempt)).toBeNull();
    }
  });

  it("matches exempt pages as the router does: trailing slash and any case", () => {
    expect(mobileRedirectTarget("/scadaRegister/", "", exempt)).toBeNull();
    expect(mobileRedirectTarget("/SCADAREGISTER", "", exempt)).toBeNull();
    expect(mobileRedirectTarget("/forgetpwd//", "", exempt)).toBeNull();
    expect(mobileRedirectTarget("/Mobile/Me", "", exempt)).toBeNull();
    expect(mobileRedirectTarget("/MsgCenter/", "", exempt)).toBe("/mobile/messages");
  });

  it("sends a scanned card QR to the card on the phone, the ICCID as it was", () => {
    expect(mobileRedirectTarget("/iotCard/8986ABC123", "?language=cn", exempt)).toBe(
      "/mobile/iotCard/8986ABC123?language=cn",
    );
    expect(mobileRedirectTarget("/IOTCARD/8986abc/", "", exempt)).toBe("/mobile/iotCard/8986abc");
    expect(mobileRedirectTarget("/iotCard", "", exempt)).toBe("/mobile");
  });

  it("keeps a device's screen viewer on the phone (it has no mobile counterpart)", () => {
    expect(mobileRedirectTarget("/screen/12", "?eid=3", exempt)).toBeNull();
    expect(mobileRedirectTarget("/Screen/12/", "", exempt)).toBeNull();
    expect(mobileRedirectTarget("/screen", "", exempt)).toBe("/mobile");
    expect(mobileRedirectTarget("/screens/12", "", exempt)).toBe("/mobile");
  });
});
