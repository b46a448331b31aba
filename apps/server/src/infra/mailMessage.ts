import { randomUUID } from "node:crypto";
import MailComposer from "nodemailer/lib/mail-composer/index.js";

/**
 * Plain-text e-mails as finished bytes, for nodemailer's `raw`
 * (docs/architecture/alarms.md#sms-e-mail-and-webhooks). nodemailer's own composer builds a MIME tree for every message and encodes CJK
 * text as quoted-printable in JavaScript: at an alarm burst that cost more than the SMTP
 * conversation (decision 206). Here the `From:` line is composed once, by nodemailer, and each
 * message is a few fixed headers with the subject and body in base64 (Node's own encoder), so
 * nothing a device wrote can reach a header or the SMTP conversation.
 */
export function createMailBuilder(mailFrom: string) {
  const from = composeFrom(mailFrom);
  return {
    /**
     * The message to `to`, with its SMTP envelope; null when `to` is not a plain ASCII
     * address (an internationalised one or a display name) or MAIL_FROM names no address:
     * nodemailer's full composer handles those instead (and says what is wrong).
     */
    build(to: string, subject: string, text: string) {
      if (!from || !PLAIN_ADDRESS.test(to)) return null;
      const { fromLine, fromAddress, domain } = from;
      const raw = [
        fromLine,
        `To: ${to}`,
        `Subject: ${encodedWords(subject)}`,
        `Message-ID: <${randomUUID()}@${domain}>`,
        `Date: ${new Date().toUTCString().replace(/GMT$/, "+0000")}`,
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8",
        "Content-Transfer-Encoding: base64",
        "",
        base64Lines(text),
      ].join("\r\n");
      return { envelope: { from: fromAddress, to: [to] }, raw };
    },
  };
}

/** local@domain in printable ASCII, with none of the characters that make an address list. */
const PLAIN_ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9.-]+$/;

/** nodemailer's own `From:` line for `mailFrom` (a display name may need encoding). */
function composeFrom(mailFrom: string) {
  const root = new MailComposer({ from: mailFrom, to: "x@example.com", text: "" }).compile();
  // Header fields, each with its folded continuation lines.
  const fields = root.buildHeaders().split(/\r\n(?![ \t])/);
  const fromLine = fields.find((field) => /^from:/i.test(field));
  const fromAddress = root.getEnvelope().from;
  if (!fromLine || !fromAddress) return null;
  return { fromLine, fromAddress, domain: fromAddress.split("@")[1] || "localhost" };
}

/**
 * RFC 2047 "B" encoded words of at most 75 characters, folded onto continuation lines; split
 * between characters, never inside one.
 */
function encodedWords(value: string): string {
  const words: string[] = [];
  let chunk = "";
  for (const char of value) {
    if (Buffer.byteLength(chunk + char) > 45) {
      words.push(chunk);
      chunk = "";
    }
    chunk += char;
  }
  if (chunk || words.length === 0) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w).toString("base64")}?=`).join("\r\n ");
}

/** The UTF-8 text in base64, in lines of 76 characters. */
function base64Lines(text: string): string {
  const encoded = Buffer.from(text).toString("base64");
  const lines: string[] = [];
  for (let i = 0; i < encoded.length; i += 76) lines.push(encoded.slice(i, i + 76));
  return lines.join("\r\n");
}
