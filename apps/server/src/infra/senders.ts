import nodemailer from "nodemailer";

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
  text: string;
}

export interface Senders {
  email: ((message: EmailMessage) => Promise<void>) | null;
  sms: ((message: SmsMessage) => Promise<void>) | null;
  close(): void;
}

export function createSenders(opts: { smtpUrl?: string; mailFrom: string }): Senders {
  const transport = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : null;
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
    // Real SMS gateways arrive with the alarm pushes (SMS_PROVIDER adapters); until then: outbox.
    sms: null,
    close: () => transport?.close(),
  };
}
