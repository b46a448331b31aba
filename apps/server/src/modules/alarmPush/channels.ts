import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { anyOf } from "../../db/unnest.ts";
import type { Clock } from "../../infra/clock.ts";
import { decryptSecret, signedText } from "../../infra/crypto.ts";
import type { Senders } from "../../infra/senders.ts";
import { SmsNotSent, type SmsProvider, type SmsSend } from "../../infra/sms.ts";
import { type AlarmSend, alarmSends, entMsgConfigs } from "./schema.ts";

/** The SMS message of a send ("+86 138…" split back into country code and number). */
const smsOf = (send: AlarmSend, params: Record<string, string>): SmsSend => {
  const [countryCode, phone] = send.recipient.replace(/^\+/, "").split(" ");
  return { countryCode, phone, text: send.content, params, key: send.idempotencyKey };
};

export type Channels = ReturnType<typeof createChannels>;

/** How long an enterprise's webhook receiver has to answer a call. */
const WEBHOOK_TIMEOUT_MS = 10_000;
/**
 * How long a receiver that did not answer is not called again (by any node): well within
 * a send's retry horizon (its fifth and sixth attempts come 30–124 s after its first), so a
 * send skipped during a rest is called again before it fails.
 */
export const WEBHOOK_REST_MS = 30_000;

/** The three channels of an alarm send: the SMS provider, SMTP and the enterprise's webhook. */
export function createChannels(deps: {
  db: Db;
  clock: Clock;
  senders: Senders;
  sms: SmsProvider;
  secretKey: string;
  /** Tests shorten WEBHOOK_TIMEOUT_MS. */
  webhookTimeoutMs?: number;
}) {
  const { db, clock, senders, sms } = deps;
  const notCalled = (since: Date) =>
    new SmsNotSent(`not called: the receiver did not answer at ${since.toISOString()}`, true);

  /**
   * A receiver that did not answer its last call (timeout, refused connection) rests: sends
   * to it fail at once until WEBHOOK_REST_MS has passed, each counting an attempt as a call
   * would; then one call, on whichever node claims it first, tries it again. A dead or
   * hostile receiver costs one call per rest for all nodes, not one per alarm
   * (docs/architecture/alarms.md#sms-e-mail-and-webhooks).
   */
  async function passRest(send: AlarmSend, since: Date | null) {
    if (since === null) return;
    if (clock.now().getTime() - since.getTime() < WEBHOOK_REST_MS) throw notCalled(since);
    const [claimed] = await db
      .update(entMsgConfigs)
      .set({ webhookUnansweredAt: clock.now() })
      .where(and(eq(entMsgConfigs.eid, send.eid), eq(entMsgConfigs.webhookUnansweredAt, since)))
      .returning({ eid: entMsgConfigs.eid });
    // Another worker, here or on another node, is trying it now.
    if (!claimed) throw notCalled(since);
  }

  /** Marks the receiver unanswered (its rest starts), if the enterprise still has it. */
  async function unanswered(send: AlarmSend) {
    await db
      .update(entMsgConfigs)
      .set({ webhookUnansweredAt: clock.now() })
      .where(and(eq(entMsgConfigs.eid, send.eid), eq(entMsgConfigs.webhookUrl, send.recipient)));
  }

  async function callWebhook(send: AlarmSend): Promise<string> {
    const [ent] = await db.select().from(entMsgConfigs).where(eq(entMsgConfigs.eid, send.eid));
    if (!ent?.webhookSecret || !ent.webhookUrl) throw new SmsNotSent("webhook removed", false);
    // A send still to a URL the enterprise has since changed is no part of the new one's rest.
    const rest = ent.webhookUrl === send.recipient ? ent.webhookUnansweredAt : null;
    await passRest(send, rest);
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
        signal: AbortSignal.timeout(deps.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS),
      });
    } catch (error) {
      await unanswered(send);
      // Webhooks are at least once (the delivery id lets the receiver drop a repeat).
      throw new SmsNotSent(error instanceof Error ? error.message : String(error), true);
    }
    if (rest !== null)
      await db
        .update(entMsgConfigs)
        .set({ webhookUnansweredAt: null })
        .where(eq(entMsgConfigs.eid, send.eid));
    // Only the status matters: the body is not waited for (nor its connection held).
    await response.body?.cancel().catch(() => {});
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

    /**
     * The pending webhook sends among `sendIds`, one lane per enterprise (its receiver), each
     * in send order: delivered one after another, so a receiver that does not answer holds
     * its own lane only (delivery.ts).
     */
    async webhookLanes(sendIds: number[]): Promise<number[][]> {
      const rows = await db
        .select({ id: alarmSends.id, eid: alarmSends.eid })
        .from(alarmSends)
        .where(
          and(
            anyOf(alarmSends.id, sendIds),
            eq(alarmSends.channel, "webhook"),
            eq(alarmSends.status, "pending"),
          ),
        )
        .orderBy(alarmSends.id);
      const lanes = new Map<number, number[]>();
      for (const { id, eid } of rows) {
        const lane = lanes.get(eid);
        if (lane) lane.push(id);
        else lanes.set(eid, [id]);
      }
      return [...lanes.values()];
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
