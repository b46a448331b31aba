import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { decryptSecret, signedText } from "../../infra/crypto.ts";
import type { Senders } from "../../infra/senders.ts";
import { SmsNotSent, type SmsProvider, type SmsSend } from "../../infra/sms.ts";
import { type AlarmSend, entMsgConfigs } from "./schema.ts";

/** The SMS message of a send ("+86 138…" split back into country code and number). */
const smsOf = (send: AlarmSend, params: Record<string, string>): SmsSend => {
  const [countryCode, phone] = send.recipient.replace(/^\+/, "").split(" ");
  return { countryCode, phone, text: send.content, params, key: send.idempotencyKey };
};

export type Channels = ReturnType<typeof createChannels>;

/** The three channels of an alarm send: the SMS provider, SMTP and the enterprise's webhook. */
export function createChannels(deps: {
  db: Db;
  senders: Senders;
  sms: SmsProvider;
  secretKey: string;
}) {
  const { db, senders, sms } = deps;

  async function callWebhook(send: AlarmSend): Promise<string> {
    const [ent] = await db.select().from(entMsgConfigs).where(eq(entMsgConfigs.eid, send.eid));
    if (!ent?.webhookSecret || !ent.webhookUrl) throw new SmsNotSent("webhook removed", false);
    const secret = decryptSecret(deps.secretKey, ent.webhookSecret);
    const timestamp = String(Math.floor(Date.now() / 1000));
    let response: Response;
    try {
      response = await fetch(send.recipient, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-keyway-timestamp": timestamp,
          "x-keyway-signature": `sha256=${signedText(secret, timestamp, send.content)}`,
          "x-keyway-delivery": send.idempotencyKey,
        },
        body: send.content,
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      // Webhooks are at least once (the delivery id lets the receiver drop a repeat).
      throw new SmsNotSent(error instanceof Error ? error.message : String(error), true);
    }
    if (!response.ok) throw new SmsNotSent(`webhook answered HTTP ${response.status}`, true);
    return `http ${response.status}`;
  }

  return {
    /** Calls the channel. Returns the provider's reference; throws SmsNotSent when nothing went out. */
    async call(send: AlarmSend): Promise<string> {
      if (send.channel === "sms") {
        const params = { device: send.deviceName, content: send.content.slice(0, 35) };
        return (await sms.send(smsOf(send, params))).ref;
      }
      if (send.channel === "email") {
        try {
          await senders.email!({ to: send.recipient, subject: send.subject, text: send.content });
        } catch (error) {
          // SMTP refused or could not be reached: the message was not taken.
          throw new SmsNotSent(error instanceof Error ? error.message : String(error), true);
        }
        return "smtp";
      }
      return callWebhook(send);
    },

    /** E-mails go to an SMTP server (not the outbox): delivered in batches (delivery.ts). */
    mailsOverSmtp: senders.email !== null,

    /** Local channels (the outbox) take the message in the same transaction as "sent". */
    isLocal: (send: AlarmSend) =>
      (send.channel === "sms" && sms.local) || (send.channel === "email" && !senders.email),

    /**
     * Whether the provider took an SMS: `{ref}` yes, null no, undefined it cannot tell (or
     * the send is not an SMS).
     */
    async lookup(send: AlarmSend): Promise<{ ref: string } | null | undefined> {
      if (send.channel !== "sms" || !sms.lookup) return undefined;
      return sms.lookup(smsOf(send, {}), send.updatedAt);
    },
  };
}
