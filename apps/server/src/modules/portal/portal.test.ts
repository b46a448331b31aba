import {
  CLIENT_VERSIONS,
  DEFAULT_BRAND,
  HW,
  type MapPoint,
  scadaRegisterForm,
} from "@keyway/shared";
import { eq, inArray } from "drizzle-orm";
import QRCode from "qrcode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../config.ts";
import { createSenders } from "../../infra/senders.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { startSmtpServer } from "../../testing/smtp.ts";
import { devices } from "../devices/schema.ts";
import { notifications } from "../notify/schema.ts";
import { QR_OPTIONS } from "./appDownload.ts";
import { scadaRegistrations } from "./schema.ts";
import { createPortalService } from "./service.ts";

const SUPPORT = "scada-desk@keyway.example";
let h: Harness;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let owner: string;
let stranger: string;
let member: string;
let maintainer: string;
let admin: string;
let eid = 0;
/** The owner's three personal devices, then two enterprise (type 1) and one maintenance device. */
const codes: string[] = [];

const points = (token: string, form: Record<string, string | number> = {}) =>
  h.call<{ list: MapPoint[]; total: number; located: number }>("POST", "/api/v1/cloudmap/points", {
    form,
    token,
    lang: "en",
  });

const SCADA = {
  company: "Acme Water Works",
  contactName: "Li Wei",
  countryCode: "86",
  phone: "13800138000",
  email: "li.wei@acme-water.example",
  projectName: "Pump station SCADA",
  deviceCount: 12,
  description: "Twelve pump stations with HMI panels; we want remote SCADA access.",
};

beforeAll(async () => {
  smtp = await startSmtpServer();
  h = await createHarness({
    config: { SMTP_URL: smtp.url, SUPPORT_EMAIL: SUPPORT },
    senders: createSenders({ smtpUrl: smtp.url, mailFrom: "Keyway <no-reply@keyway.local>" }),
  });
  await seedDemo(h.app.services.accounts);
  owner = await h.signUp("owner@plant.example");
  stranger = await h.signUp("stranger@plant.example");
  member = await h.signUp("member@plant.example");
  maintainer = await h.signUp("maintainer@plant.example");
  admin = await h.signUp("admin@plant.example");

  const provisioned = await h.app.services.devices.provision(6);
  for (const [i, d] of provisioned.slice(0, 3).entries()) {
    const added = await h.call("POST", "/api/machine/add", {
      form: {
        machineName: `Press ${i + 1}`,
        machineCode: d.machineCode,
        machinePwd: d.devicePassword,
      },
      token: owner,
    });
    expect(added.body.hwcode).toBe(0);
  }
  codes.push(...provisioned.map((d) => d.machineCode));
  // Positions and states as the gateway would have stored them: Press 1 online in Shanghai,
  // Press 2 offline in Suzhou, Press 3 never located.
  await h.db
    .update(devices)
    .set({ online: true, lat: 31.23, lng: 121.47 })
    .where(eq(devices.code, codes[0]));
  await h.db
    .update(devices)
    .set({ lat: 31.3, lng: 120.6, address: "Suzhou" })
    .where(eq(devices.code, codes[1]));
  await h.db
    .update(devices)
    .set({ online: true, lat: 39.9, lng: 116.4 })
    .where(inArray(devices.code, codes.slice(3)));

  const { enterprises, accounts } = h.app.services;
  const ops = await accounts.findUser({ channel: "email", email: "operator@keyway.local" });
  const operator = { userId: ops?.id ?? 0, role: "operator" as const };
  eid = (await enterprises.create(operator, { name: "Acme Water", enableProject: 0 })).eid;
  const people = [
    ["member@plant.example", "member", false],
    ["maintainer@plant.example", "maintenance", false],
    ["admin@plant.example", "member", true],
  ] as const;
  for (const [email, kind, isAdmin] of people) {
    await enterprises.addMember(operator, {
      eid,
      account: { channel: "email", email },
      kind,
      isAdmin,
    });
  }
  await enterprises.assignDevice(operator, { eid, code: codes[3], type: 1 });
  await enterprises.assignDevice(operator, { eid, code: codes[4], type: 1 });
  await enterprises.assignDevice(operator, { eid, code: codes[5], type: 2 });
});
afterAll(async () => {
  await h?.close();
  await smtp?.close();
});

describe("cloud map points", () => {
  it("gives the owner their personal devices with positions and states, online first", async () => {
    const res = await points(owner);
    expect(res.body.hwcode).toBe(0);
    const { list, total, located } = res.body.hwdata;
    expect(total).toBe(3);
    expect(located).toBe(2);
    expect(list.map((p) => p.machine_name)).toEqual(["Press 1", "Press 2", "Press 3"]);
    expect(list[0]).toMatchObject({ lat: 31.23, lng: 121.47, online: true, state: 1, eid: 0 });
    expect(list[1]).toMatchObject({ address: "Suzhou", online: false, state: 0 });
    expect(list[2]).toMatchObject({ lat: null, lng: null });
    // Only map fields: no hashes, no secrets.
    expect(Object.keys(list[0]).sort()).toEqual(
      [
        "address",
        "eid",
        "lat",
        "lng",
        "location_way",
        "machine_code",
        "machine_id",
        "machine_name",
        "online",
        "state",
        "type",
      ].sort(),
    );
  });

  it("shows another user none of the owner's devices", async () => {
    const res = await points(stranger);
    expect(res.body.hwdata).toEqual({ list: [], total: 0, located: 0 });
  });

  it("shows an enterprise member only the lists of their kind", async () => {
    const all = await points(member, { eid });
    expect(all.body.hwcode).toBe(0);
    expect(all.body.hwdata.list.map((p) => p.machine_code).sort()).toEqual(
      [codes[3], codes[4]].sort(),
    );
    expect(all.body.hwdata.list.every((p) => p.type === 1 && p.eid === eid)).toBe(true);

    const mine = await points(maintainer, { eid, type: 2 });
    expect(mine.body.hwdata.list.map((p) => p.machine_code)).toEqual([codes[5]]);
  });

  it("refuses a member the other list, and a non-member the enterprise", async () => {
    const other = await points(member, { eid, type: 2 });
    expect(other.body.hwcode).toBe(HW.NO_PERMISSION.code);
    expect(other.body.msg).toBe("User has no permission");
    expect(other.body.hwdata).toBeNull();

    for (const token of [stranger, owner]) {
      const res = await points(token, { eid });
      expect(res.body.hwcode).toBe(HW.NO_PERMISSION.code);
    }
    const missing = await points(member, { eid: eid + 1000 });
    expect(missing.body.hwcode).toBe(HW.NO_PERMISSION.code);
  });

  it("shows an admin both lists, and the maintenance device as such", async () => {
    const res = await points(admin, { eid });
    const byCode = new Map(res.body.hwdata.list.map((p) => [p.machine_code, p]));
    expect([...byCode.keys()].sort()).toEqual(codes.slice(3).sort());
    expect(byCode.get(codes[5])?.type).toBe(2);
    expect(res.body.hwdata.located).toBe(3);
  });

  it("refuses a call without a token and a bad context", async () => {
    const anonymous = await h.call("POST", "/api/v1/cloudmap/points", { form: { eid: 0 } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.hwcode).toBe(HW.TOKEN_INVALID.code);
    const bad = await points(owner, { eid: "abc" });
    expect(bad.body.hwcode).toBe(HW.BAD_REQUEST.code);
    const badType = await points(member, { eid, type: 3 });
    expect(badType.body.hwcode).toBe(HW.BAD_REQUEST.code);
  });
});

describe("SCADA registration", () => {
  it("stores the form, mails it to support and promises an answer within 24 hours", async () => {
    const res = await h.call("POST", "/api/common/scadaRegister", { form: SCADA, lang: "en" });
    expect(res.body.hwcode).toBe(0);
    expect(res.body.hwdata.replyWithinHours).toBe(24);

    const mail = await smtp.waitFor(SUPPORT);
    expect(mail.subject).toBe(
      "[Keyway Cloud] SCADA registration / SCADA 注册申请: Acme Water Works",
    );
    expect(mail.text).toContain("Contact / 联系人: Li Wei");
    expect(mail.text).toContain("Phone / 电话: +86 13800138000");
    expect(mail.text).toContain("E-mail / 邮箱: li.wei@acme-water.example");
    expect(mail.text).toContain("Devices / 设备数量: 12");
    expect(mail.text).toContain("Twelve pump stations");

    const [row] = await h.db
      .select()
      .from(scadaRegistrations)
      .where(eq(scadaRegistrations.id, res.body.hwdata.id));
    expect(row).toMatchObject({ company: "Acme Water Works", oemId: "keyway", language: "en" });
    // The queue marks the e-mail sent once the SMTP server took it.
    await expect
      .poll(async () => {
        const [queued] = await h.db
          .select()
          .from(notifications)
          .where(eq(notifications.id, row.notificationId ?? 0));
        return queued?.status;
      })
      .toBe("sent");
  });

  it("names the brand of the page in the subject", async () => {
    const res = await h.app.inject({
      method: "POST",
      url: "/api/common/scadaRegister",
      headers: { host: "cloud.vantage-iot.com" },
      payload: { ...SCADA, email: "ops@vantage-customer.example", company: "Vantage Customer" },
    });
    expect(res.json().hwcode).toBe(0);
    await expect
      .poll(() => smtp.received.filter((m) => m.subject.includes("Vantage Customer")).length)
      .toBe(1);
    const mail = smtp.received.find((m) => m.subject.includes("Vantage Customer"));
    expect(mail?.subject.startsWith("[Vantage Cloud]")).toBe(true);
  });

  it("refuses bad fields with the localized message of the field, and stores nothing", async () => {
    const before = (await h.db.select().from(scadaRegistrations)).length;
    const cases: Array<[Record<string, string | number>, string, string, string]> = [
      [{ email: "not-an-email" }, "email", "Wrong e-mail format", "邮箱格式错误"],
      [{ phone: "12345" }, "phone", "Wrong phone format", "手机号格式错误"],
      [{ company: "  " }, "company", "This field is required", "此项为必填项"],
      [
        { contactName: "#!" },
        "contactName",
        "Name must be 2-10 characters without special characters",
        "姓名为 2-10 个字符，不能包含特殊字符",
      ],
      [{ deviceCount: 0 }, "deviceCount", "The count must be 1-1000", "数量为 1-1000"],
      [{ description: "x".repeat(1001) }, "description", "Text too long", "内容过长"],
    ];
    for (const [change, field, en, zh] of cases) {
      const form = { ...SCADA, ...change };
      const english = await h.call("POST", "/api/common/scadaRegister", { form, lang: "en" });
      expect(english.body.hwcode, field).toBe(HW.BAD_REQUEST.code);
      expect(english.body.hwdata, field).toEqual({ field });
      expect(english.body.msg, field).toBe(en);
      const chinese = await h.call("POST", "/api/common/scadaRegister", { form, lang: "cn" });
      expect(chinese.body.msg, field).toBe(zh);
    }
    expect((await h.db.select().from(scadaRegistrations)).length).toBe(before);
  });

  it("takes three registrations a day from one e-mail address", async () => {
    const form = { ...SCADA, email: "busy@acme-water.example" };
    for (let i = 0; i < 3; i++) {
      const res = await h.call("POST", "/api/common/scadaRegister", { form });
      expect(res.body.hwcode).toBe(0);
    }
    const fourth = await h.call("POST", "/api/common/scadaRegister", {
      form: { ...form, email: "BUSY@acme-water.example" },
      lang: "en",
    });
    expect(fourth.body.hwcode).toBe(HW.TOO_FREQUENT.code);
    expect(fourth.body.msg).toBe("Requests too frequent");
    h.clock.advance(24 * 60 * 60 * 1000 + 1);
    const nextDay = await h.call("POST", "/api/common/scadaRegister", { form });
    expect(nextDay.body.hwcode).toBe(0);
  });

  it("holds the three-a-day cap when one address registers many times at once", async () => {
    // The service itself, so that every submission reaches the count in the same tick.
    const portal = createPortalService({
      db: h.db,
      clock: h.clock,
      notifier: { enqueue: h.app.services.notifier.enqueue },
      supportEmail: "support@keyway.local",
      client: {
        mapTileUrl: "",
        mapTileAttribution: "",
        mapTileSubdomains: [],
        mapTileOverlayUrl: null,
        mapTileCrs: "wgs84",
        newVersionUrl: null,
        apiDocUrl: "",
        visitDomain: null,
      },
      enterprises: h.app.services.enterprises,
    });
    const form = scadaRegisterForm.parse({ ...SCADA, email: "burst@acme-water.example" });
    const meta = { brand: DEFAULT_BRAND, lang: "en" as const, ip: "203.0.113.5" };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => portal.registerScada(form, meta)),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(3);
    for (const o of outcomes.filter((o) => o.status === "rejected"))
      expect((o as PromiseRejectedResult).reason).toMatchObject({ key: "TOO_FREQUENT" });
    const stored = await h.db
      .select()
      .from(scadaRegistrations)
      .where(eq(scadaRegistrations.email, "burst@acme-water.example"));
    expect(stored).toHaveLength(3);
  });

  it("rate limits one address", async () => {
    const ip = "203.0.113.77";
    const codes: Array<number | string> = [];
    for (let i = 0; i < 6; i++) {
      const res = await h.call("POST", "/api/common/scadaRegister", {
        form: { ...SCADA, email: `limit${i}@acme-water.example` },
        ip,
      });
      codes.push(res.body.hwcode);
      if (i === 5) expect(res.status).toBe(429);
    }
    expect(codes).toEqual([0, 0, 0, 0, 0, HW.RATE_LIMITED.code]);
  });

  it("lists registrations to the operator only", async () => {
    // A day has passed (the per-address test): sessions without keep-login have ended.
    const operatorToken = await h.login("operator@keyway.local", "operator123");
    const owner = await h.login("owner@plant.example", "secret123");
    const list = await h.call("GET", "/api/operator/v1/scadaRegistrations?page=1&pageSize=5", {
      token: operatorToken,
    });
    expect(list.body.hwcode).toBe(0);
    expect(list.body.hwdata.total).toBeGreaterThanOrEqual(5);
    expect(list.body.hwdata.list).toHaveLength(5);
    const user = await h.call("GET", "/api/operator/v1/scadaRegistrations", { token: owner });
    expect(user.body.hwcode).toBe(HW.NO_MANAGEMENT_ACCESS.code);
  });
});

describe("app download", () => {
  it("gives the host's brand its versions, links and QR images of those links", async () => {
    const res = await h.call("POST", "/api/common/appDownload", { lang: "en" });
    expect(res.body.hwcode).toBe(0);
    const info = res.body.hwdata;
    expect(info).toMatchObject({
      oemid: "keyway",
      OemName: "Keyway Cloud",
      version: CLIENT_VERSIONS.web,
      androidVersion: "1.4.2",
      iosVersion: "1.4.2",
      lowestVersion: "1.1.0",
      tvVersion: "1.3.0",
      url: "https://www.keyway.io",
      androidUrl: "https://www.keyway.io/download/android",
      tvUrl: "https://www.keyway.io/download/tv",
      // SPEC §3 "Brand configuration": where devices connect, logo, footer, e-mail subject.
      machineURL: "device.keyway.io",
      machinePort: 8000,
      footer: "© Keyway Cloud. All rights reserved.",
      emailSubject: "[Keyway Cloud] Your verification code",
    });
    expect(info.logo).toMatch(/^data:image\/svg\+xml;utf8,/);
    expect(decodeURIComponent(info.logo)).toContain(">K</text>");
    expect(CLIENT_VERSIONS.web).toBe("3.1.8");
    for (const [qr, link] of [
      [info.androidQr, info.androidUrl],
      [info.iosQr, info.iosUrl],
      [info.tvQr, info.tvUrl],
    ]) {
      expect(qr).toMatch(/^data:image\/png;base64,/);
      expect(qr).toBe(await QRCode.toDataURL(link, QR_OPTIONS));
    }
  });

  it("gives another brand its own links, name and lowest version", async () => {
    const byOemid = await h.call("POST", "/api/common/appDownload", {
      form: { oemid: "ironbridge" },
      lang: "cn",
    });
    expect(byOemid.body.hwdata).toMatchObject({
      oemid: "ironbridge",
      OemName: "铁桥互联",
      lowestVersion: "1.2.0",
      androidUrl: "https://www.ironbridge.cn/download/android",
      machineURL: "device.ironbridge.cn",
      machinePort: 8000,
      footer: "© 铁桥互联 版权所有",
      emailSubject: "【铁桥互联】验证码",
    });
    expect(decodeURIComponent(byOemid.body.hwdata.logo)).toContain(">IB</text>");
    const byHost = await h.app.inject({
      method: "POST",
      url: "/api/common/appDownload",
      headers: { host: "cloud.vantage-iot.com" },
      payload: {},
    });
    expect(byHost.json().hwdata).toMatchObject({
      oemid: "vantage",
      url: "https://www.vantage-iot.com",
    });
    expect(byHost.json().hwdata.androidQr).not.toBe(byOemid.body.hwdata.androidQr);
  });

  it("answers a call without a body, and falls back to the host's brand for an unknown oemid", async () => {
    const empty = await h.app.inject({ method: "POST", url: "/api/common/appDownload" });
    expect(empty.json()).toMatchObject({ hwcode: 0, hwdata: { oemid: "keyway" } });
    const unknown = await h.call("POST", "/api/common/appDownload", { form: { oemid: "nobody" } });
    expect(unknown.body.hwdata.oemid).toBe("keyway");
    const tooLong = await h.call("POST", "/api/common/appDownload", {
      form: { oemid: "x".repeat(40) },
    });
    expect(tooLong.body.hwcode).toBe(HW.BAD_REQUEST.code);
  });
});

describe("client configuration", () => {
  it("tells the web client the tile server and hides the new-version link by default", async () => {
    const res = await h.call("GET", "/api/common/clientConfig");
    expect(res.body.hwdata).toEqual({
      mapTileUrl: "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
      mapTileAttribution: "© OpenStreetMap contributors",
      mapTileSubdomains: ["a", "b", "c"],
      mapTileOverlayUrl: null,
      mapTileCrs: "wgs84",
      newVersionUrl: null,
      apiDocUrl: "/apiDoc",
      visitDomain: null,
    });
  });

  it("lets the browser load the configured tiles (CSP img-src)", async () => {
    const other = await createHarness({
      config: {
        MAP_TILE_URL: "https://{s}.tiles.example.com/base/{z}/{x}/{y}.png",
        NEW_VERSION_URL: "https://next.keyway.example/",
      },
    });
    try {
      const res = await other.app.inject({ method: "GET", url: "/api/common/clientConfig" });
      expect(res.json().hwdata).toMatchObject({
        mapTileUrl: "https://{s}.tiles.example.com/base/{z}/{x}/{y}.png",
        newVersionUrl: "https://next.keyway.example/",
      });
      expect(String(res.headers["content-security-policy"])).toMatch(
        /img-src 'self' data: blob: https:\/\/\*\.tiles\.example\.com/,
      );
    } finally {
      await other.close();
    }
  });

  it("takes AMap's and Tianditu's templates, their subdomains, labels and datum", async () => {
    const amap = await createHarness({
      config: {
        MAP_TILE_URL:
          "https://webrd0{s}.is.autonavi.com/appmaptile?lang=zh_cn&size=1&scale=1&style=8&x={x}&y={y}&z={z}",
        MAP_TILE_SUBDOMAINS: "1234",
        MAP_TILE_CRS: "gcj02",
      },
    });
    try {
      const res = await amap.app.inject({ method: "GET", url: "/api/common/clientConfig" });
      expect(res.json().hwdata).toMatchObject({
        mapTileSubdomains: ["1", "2", "3", "4"],
        mapTileOverlayUrl: null,
        mapTileCrs: "gcj02",
      });
      // A wildcard only for a whole leading label: "webrd0*" would be an invalid source.
      expect(String(res.headers["content-security-policy"])).toMatch(
        /img-src 'self' data: blob: https:\/\/\*\.is\.autonavi\.com;/,
      );
    } finally {
      await amap.close();
    }
    const wmts = (layer: string) =>
      `https://t{s}.tianditu.gov.cn/${layer}_w/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=${layer}&STYLE=default&TILEMATRIXSET=w&FORMAT=tiles&TILEMATRIX={z}&TILEROW={y}&TILECOL={x}&tk=KEY`;
    const tianditu = await createHarness({
      config: {
        MAP_TILE_URL: wmts("vec"),
        MAP_TILE_OVERLAY_URL: wmts("cva"),
        MAP_TILE_SUBDOMAINS: "0,1,2,3,4,5,6,7",
      },
    });
    try {
      const res = await tianditu.app.inject({ method: "GET", url: "/api/common/clientConfig" });
      expect(res.json().hwdata).toMatchObject({
        mapTileSubdomains: ["0", "1", "2", "3", "4", "5", "6", "7"],
        mapTileOverlayUrl: wmts("cva"),
        mapTileCrs: "wgs84",
      });
      expect(String(res.headers["content-security-policy"])).toMatch(
        /img-src 'self' data: blob: https:\/\/\*\.tianditu\.gov\.cn;/,
      );
    } finally {
      await tianditu.close();
    }
  });

  it("refuses a tile template without {z}, {x} and {y} and an unknown datum at boot", () => {
    expect(() =>
      loadConfig({
        SECRET_KEY: "0".repeat(64),
        MAP_TILE_URL: "https://tiles.example.com/{z}/{x}.png",
      }),
    ).toThrow(/MAP_TILE_URL: must be an http\(s\) URL template with \{z\}, \{x\} and \{y\}/);
    expect(() => loadConfig({ SECRET_KEY: "0".repeat(64), MAP_TILE_CRS: "bd09" })).toThrow(
      /MAP_TILE_CRS/,
    );
    expect(() => loadConfig({ SECRET_KEY: "0".repeat(64), MAP_TILE_SUBDOMAINS: "a b" })).toThrow(
      /MAP_TILE_SUBDOMAINS/,
    );
  });
});
