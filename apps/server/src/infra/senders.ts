import nodemailer from "nodemailer";
import type { SmsProvider } from "./sms.ts";

/**
 * Outgoing channels. A channel with no sender configured keeps its notifications in the
 * local outbox (SMTP_URL unset, SMS_PROVIDER=outbox).
 */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface SmsMessage {
  /** E.164 without the plus: country code followed by the national number. */
  to: string;
  countryCode: string;
  phone: string;
  text: string;
  /** Variables of the provider's registered template (verification codes: `code`). */
  params: Record<string, string>;
  /** Idempotency key, sent as the provider's out id. */
  key: string;
}

export interface Senders {
  email: ((message: EmailMessage) => Promise<void>) | null;
  sms: ((message: SmsMessage) => Promise<void>) | null;
  close(): void;
}

/**
 * `smsProvider`: the SMS_PROVIDER adapter set up with the verification-code template; none
 * (or a local one) keeps codes in the outbox.
 */
export function createSenders(opts: {
  smtpUrl?: string;
  mailFrom: string;
  smsProvider?: SmsProvider | null;
}): Senders {
  const transport = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : null;
  const provider = opts.smsProvider && !opts.smsProvider.local ? opts.smsProvider : null;
  return {
    email: transport
      ? async (m) => {
          await transport.sendMail({
            from: opts.mailFrom,
            to: m.to,
            subject: m.subject,
            text: m.text,
          });
        }
      : null,
    sms: provider
      ? async (m) => {
          await provider.send({
            countryCode: m.countryCode,
            phone: m.phone,
            text: m.text,
            params: m.params,
            key: m.key,
          });
        }
      : null,
    close: () => transport?.close(),
  };
}
