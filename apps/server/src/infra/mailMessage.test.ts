import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtpServer } from "../testing/smtp.ts";
import { createMailBuilder } from "./mailMessage.ts";
import { createSenders, type Senders } from "./senders.ts";

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let senders: Senders;
beforeAll(async () => {
  smtp = await startSmtpServer();
  senders = createSenders({ smtpUrl: smtp.url, mailFrom: "凯威报警 Keyway <alarms@keyway.local>" });
});
afterAll(async () => {
  senders.close();
  await smtp.close();
});

describe("alarm e-mails as finished bytes", () => {
  it("arrive with the bilingual subject and text exactly as written, and the brand as sender", async () => {
    const subject = `【凯威】设备报警 KW-000001 / [Keyway] Device alarm: KW-000001 ${"很长的主题".repeat(12)}`;
    const text =
      "凯威 设备报警\n设备：KW-000001\n内容：压力过高\n\nKeyway device alarm\nContent: pressure high";
    await senders.email?.({ to: "owner@example.com", subject, text });
    const mail = await smtp.waitFor("owner@example.com");
    expect(mail.subject).toBe(subject);
    expect(mail.text.trim()).toBe(text);
    expect(mail.from).toBe('"凯威报警 Keyway" <alarms@keyway.local>');
  });

  it("keep what a hostile device wrote out of the headers and the SMTP conversation", async () => {
    const subject = "Alarm\r\nBcc: victim@example.com\r\nX-Injected: yes";
    const text =
      "line one\r\n.\r\nMAIL FROM:<evil@example.com>\r\nRCPT TO:<victim@example.com>\r\nDATA\r\nforged\r\n.\r\n";
    await senders.email?.({ to: "target@example.com", subject, text });
    const mail = await smtp.waitFor("target@example.com");
    expect(mail.headerNames).not.toContain("x-injected");
    expect(mail.headerNames).not.toContain("bcc");
    expect(mail.text).toContain("MAIL FROM:<evil@example.com>");
    // One message, to its one recipient: nothing reached the victim.
    await senders.email?.({ to: "after@example.com", subject: "after", text: "after" });
    await smtp.waitFor("after@example.com");
    expect(smtp.received.filter((m) => m.to === "victim@example.com")).toEqual([]);
    expect(smtp.received.filter((m) => m.to === "target@example.com")).toHaveLength(1);
  });

  it("leave an internationalised or named recipient to nodemailer's composer, which still delivers it", async () => {
    const builder = createMailBuilder("Keyway <alarms@keyway.local>");
    expect(builder.build("用户@例子.中国", "s", "t")).toBeNull();
    expect(builder.build("Someone <someone@example.com>", "s", "t")).toBeNull();
    expect(builder.build("a@example.com, b@example.com", "s", "t")).toBeNull();
    await senders.email?.({ to: "Named <named@example.com>", subject: "报警", text: "内容" });
    const mail = await smtp.waitFor("named@example.com");
    expect(mail.subject).toBe("报警");
  });

  it("never stop a server that sends no e-mail over a MAIL_FROM without an address", () => {
    const quiet = createSenders({ mailFrom: "Keyway alarms" });
    expect(quiet.email).toBeNull();
    quiet.close();
    expect(createMailBuilder("Keyway alarms").build("a@example.com", "s", "t")).toBeNull();
  });
});
