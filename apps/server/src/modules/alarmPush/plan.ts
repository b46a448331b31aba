import { randomUUID } from "node:crypto";
import { type Lang, smsSegments } from "@keyway/shared";
import type { Alarm } from "../alarms/schema.ts";
import { deviceCapKey } from "./caps.ts";
import { entSettings, userSettings } from "./config.ts";
import type { Recipients } from "./recipients.ts";
import type { alarmSends } from "./schema.ts";
import { alarmEmail, alarmSmsText, formatTime } from "./texts.ts";

export type NewSend = typeof alarmSends.$inferInsert;

type Owner = { eid: number; userId: number; brandId: string | null; lang: Lang };
type Caps = { phoneCap: number; deviceCap: number; deviceKey: string };

/** A member's sends: billed to their account in the context, in their brand and language. */
const ownerOf = (
  eid: number,
  u: { id: number; oemId: string | null; language: string },
): Owner => ({
  eid,
  userId: u.id,
  brandId: u.oemId,
  lang: u.language === "en" ? "en" : "cn",
});

/**
 * The sends one alarm makes (who gets which alarm, on which channel, billed to which stock
 * account, under which caps), from the recipients read for its batch. One send per channel
 * and recipient.
 */
export function planSends(alarm: Alarm, all: Recipients, now: Date): NewSend[] {
  const device = all.deviceRows.find((d) => d.id === alarm.deviceId);
  if (!device) return [];
  const { personal, enterprise, holders } = all.of(alarm.deviceId);
  const switches = all.switches.filter((s) => s.deviceId === alarm.deviceId);
  const { userRows, userCfgs, entCfgs, contacts } = all;
  const userOf = new Map(userRows.map((u) => [u.id, u]));
  const userCfg = (userId: number, eid: number) =>
    userSettings(
      userCfgs.find((r) => r.userId === userId && r.eid === eid),
      userId,
      eid,
      now,
    );
  const entCfg = (eid: number) =>
    entSettings(
      entCfgs.find((r) => r.eid === eid),
      eid,
      now,
    );
  const switchOn = (eid: number, userId: number) =>
    switches.find((s) => s.eid === eid && s.userId === userId)?.smsFlag ?? true;
  const contactsOf = (eid: number, userId: number) =>
    contacts.filter((c) => c.eid === eid && c.userId === userId);

  const sends: NewSend[] = [];
  const seen = new Set<string>();
  const time = formatTime(alarm.time, alarm.timeZone);
  const add = (
    s: Omit<NewSend, "alarmId" | "deviceId" | "idempotencyKey" | "createdAt" | "updatedAt">,
  ) => {
    const id = `${s.channel}|${s.recipient}`;
    if (seen.has(id)) return;
    seen.add(id);
    sends.push({
      ...s,
      alarmId: alarm.id,
      deviceId: alarm.deviceId,
      idempotencyKey: randomUUID(),
      createdAt: now,
      updatedAt: now,
    });
  };
  const text = (deviceName: string) => ({
    device: deviceName || device.code,
    level: alarm.level,
    content: alarm.content,
    time,
  });
  const smsTo = (
    owner: Owner,
    who: { name: string; countryCode: string; phone: string; contactId?: number },
    deviceName: string,
    caps: Caps,
  ) => {
    const content = alarmSmsText(owner.brandId, owner.lang, text(deviceName));
    add({
      channel: "sms",
      eid: owner.eid,
      userId: who.contactId ? 0 : owner.userId,
      contactId: who.contactId ?? null,
      name: who.name,
      deviceName,
      recipient: `+${who.countryCode} ${who.phone}`,
      content,
      segments: smsSegments(content),
      accountEid: owner.eid,
      accountUserId: owner.userId,
      phoneCap: caps.phoneCap,
      deviceCap: caps.deviceCap,
      deviceCapKey: caps.deviceKey,
    });
  };
  const mailTo = (
    owner: Owner,
    who: { name: string; email: string; contactId?: number },
    deviceName: string,
  ) => {
    const mail = alarmEmail(owner.brandId, text(deviceName));
    add({
      channel: "email",
      eid: owner.eid,
      userId: who.contactId ? 0 : owner.userId,
      contactId: who.contactId ?? null,
      name: who.name,
      deviceName,
      recipient: who.email.toLowerCase(),
      subject: mail.subject,
      content: mail.text,
      accountEid: owner.eid,
      accountUserId: owner.userId,
    });
  };
  /** An owner's contacts, on the channels that owner's settings leave on. */
  const toContacts = (
    owner: Owner,
    list: typeof contacts,
    on: { sms: boolean; email: boolean },
    deviceName: string,
    caps: Caps,
  ) => {
    for (const c of list) {
      if (c.kind === "phone" && on.sms)
        smsTo(
          owner,
          { name: c.name, countryCode: c.countryCode, phone: c.phone, contactId: c.id },
          deviceName,
          caps,
        );
      if (c.kind === "email" && on.email)
        mailTo(owner, { name: c.name, email: c.email, contactId: c.id }, deviceName);
    }
  };

  // Personal members (alarm level on): their switches, caps, stock and contacts.
  for (const p of personal) {
    const u = userOf.get(p.userId);
    if (!u) continue;
    const cfg = userCfg(u.id, 0);
    const owner = ownerOf(0, u);
    const caps = {
      phoneCap: cfg.userSmsDaily,
      deviceCap: cfg.machineSmsDaily,
      deviceKey: deviceCapKey(0, u.id, alarm.deviceId),
    };
    const smsOn = cfg.smsFlag && switchOn(0, u.id);
    if (smsOn && u.phone)
      smsTo(owner, { name: u.name, countryCode: u.countryCode, phone: u.phone }, p.name, caps);
    if (cfg.emailFlag && u.email) mailTo(owner, { name: u.name, email: u.email }, p.name);
    toContacts(owner, contactsOf(0, u.id), { sms: smsOn, email: cfg.emailFlag }, p.name, caps);
  }
  // Enterprise members of the device's lists, the enterprise's contacts and webhook.
  for (const { eid, name: deviceName } of holders) {
    const ent = entCfg(eid);
    const entSwitch = switchOn(eid, 0);
    const deviceKey = deviceCapKey(eid, 0, alarm.deviceId);
    for (const m of enterprise.filter((e) => e.eid === eid)) {
      const u = userOf.get(m.userId);
      if (!u) continue;
      const cfg = userCfg(u.id, eid);
      const owner = ownerOf(eid, u);
      if (ent.smsFlag && cfg.smsFlag && entSwitch && u.phone)
        smsTo(owner, { name: u.name, countryCode: u.countryCode, phone: u.phone }, deviceName, {
          phoneCap: Math.min(ent.smsDaily, cfg.userSmsDaily),
          deviceCap: ent.smsMachineDaily,
          deviceKey,
        });
      if (ent.emailFlag && cfg.emailFlag && u.email)
        mailTo(owner, { name: u.name, email: u.email }, deviceName);
    }
    toContacts(
      { eid, userId: 0, brandId: null, lang: "cn" },
      contactsOf(eid, 0),
      { sms: ent.smsFlag && entSwitch, email: ent.emailFlag },
      deviceName,
      { phoneCap: ent.smsDaily, deviceCap: ent.smsMachineDaily, deviceKey },
    );
    if (ent.webhookUrl && ent.webhookSecret) {
      add({
        channel: "webhook",
        eid,
        userId: 0,
        name: "webhook",
        deviceName,
        recipient: ent.webhookUrl,
        content: JSON.stringify({
          event: "alarm",
          eid,
          alarmId: alarm.id,
          machineId: alarm.deviceId,
          machineCode: device.code,
          machineName: deviceName,
          type: alarm.type,
          variable: alarm.variable,
          level: alarm.level,
          content: alarm.content,
          time: alarm.time.toISOString(),
          timeZone: alarm.timeZone,
        }),
        accountEid: eid,
        accountUserId: 0,
      });
    }
  }
  return sends;
}
