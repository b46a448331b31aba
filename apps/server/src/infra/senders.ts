import { connect, type Socket } from "node:net";
import nodemailer from "nodemailer";
import { parseConnectionUrl } from "nodemailer/lib/shared/index.js";
import type SMTPPool from "nodemailer/lib/smtp-pool/index.js";
import { createMailBuilder } from "./mailMessage.ts";
import type { SmsProvider } from "./sms.ts";
import { createSmtpPipeline, type SmtpPipelineOptions, SmtpUnsupported } from "./smtpPipeline.ts";

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
 * SMTP through a pool of a few connections, each carrying many messages (a burst of alarm
 * e-mails must not open one connection per message: docs/architecture/alarms.md). The URL's
 * own `pool`, `maxConnections` or `maxMessages` parameters win.
 */
export function smtpTransport(smtpUrl: string) {
  const options = {
    pool: true,
    maxConnections: 4,
    maxMessages: 1000,
    ...parseConnectionUrl(smtpUrl),
  };
  return nodemailer.createTransport({ ...options, getSocket: noDelaySocket } as SMTPPool.Options);
}

/** The URL's options the pipelining pool understands; any other one leaves it to nodemailer. */
const PIPELINE_OPTIONS = new Set([
  "secure",
  "port",
  "host",
  "auth",
  "tls",
  "requireTLS",
  "ignoreTLS",
  "name",
  "pool",
  "maxConnections",
  "maxMessages",
  "socketTimeout",
]);

/**
 * The pipelining pool for `smtpUrl` (smtpPipeline.ts), or null when the URL asks for
 * something only nodemailer does (a proxy, a service preset, no pool, TLS options beyond the
 * certificate check).
 */
export function smtpPipelineFor(smtpUrl: string) {
  const url = parseConnectionUrl(smtpUrl) as Record<string, unknown>;
  const tls = (url.tls ?? {}) as { rejectUnauthorized?: boolean; servername?: string };
  const auth = url.auth as { user?: unknown; pass?: unknown } | undefined;
  const understood =
    Object.keys(url).every((key) => PIPELINE_OPTIONS.has(key)) &&
    Object.keys(tls).every((key) => key === "rejectUnauthorized" || key === "servername") &&
    (auth === undefined || (typeof auth.user === "string" && typeof auth.pass === "string")) &&
    url.pool !== false;
  if (!understood || typeof url.host !== "string") return null;
  const options: SmtpPipelineOptions = {
    host: url.host,
    port: Number(url.port) || (url.secure ? 465 : 587),
    secure: Boolean(url.secure),
    requireTLS: Boolean(url.requireTLS),
    ignoreTLS: Boolean(url.ignoreTLS),
    rejectUnauthorized: tls.rejectUnauthorized !== false,
    servername: tls.servername,
    user: auth?.user as string | undefined,
    pass: auth?.pass as string | undefined,
    name: typeof url.name === "string" ? url.name : undefined,
    maxConnections: Number(url.maxConnections) || 4,
    maxMessages: Number(url.maxMessages) || 1000,
    timeoutMs: Number(url.socketTimeout) || 60_000,
  };
  return createSmtpPipeline(options);
}

/**
 * The pool's sockets, without Nagle's algorithm: nodemailer writes a message's end in a
 * second small write, which Nagle holds until the server's delayed ACK (~40 ms a message,
 * measured). The connection is then handed to nodemailer (TLS on top for smtps).
 */
function noDelaySocket(
  options: SMTPPool.Options,
  callback: (error: Error | null, socketOptions?: { connection: Socket }) => void,
) {
  let answered = false;
  const answer = (error: Error | null, socket?: Socket) => {
    if (answered) return;
    answered = true;
    callback(error, socket && { connection: socket });
  };
  const socket = connect({
    host: options.host ?? "localhost",
    port: Number(options.port) || (options.secure ? 465 : 587),
    noDelay: true,
  });
  socket.once("error", (error) => answer(error));
  socket.setTimeout(options.connectionTimeout ?? 120_000, () =>
    socket.destroy(new Error("SMTP connection timeout")),
  );
  socket.once("connect", () => {
    socket.setTimeout(0);
    answer(null, socket);
  });
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
  const transport = opts.smtpUrl ? smtpTransport(opts.smtpUrl) : null;
  // Finished messages go through the pipelining pool; nodemailer composes and sends the
  // others, and all of them when the server does not pipeline.
  const pipeline = opts.smtpUrl ? smtpPipelineFor(opts.smtpUrl) : null;
  // Built only where e-mail goes out: a From line that cannot be composed must not stop a
  // server that sends no e-mail.
  const mails = transport ? createMailBuilder(opts.mailFrom) : null;
  const provider = opts.smsProvider && !opts.smsProvider.local ? opts.smsProvider : null;
  return {
    email: transport
      ? async (m) => {
          const built = mails?.build(m.to, m.subject, m.text) ?? null;
          if (built && pipeline) {
            try {
              return await pipeline.send(built.envelope.from, m.to, built.raw);
            } catch (error) {
              if (!(error instanceof SmtpUnsupported)) throw error;
            }
          }
          await transport.sendMail(
            built ?? { from: opts.mailFrom, to: m.to, subject: m.subject, text: m.text },
          );
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
    close: () => {
      pipeline?.close();
      transport?.close();
    },
  };
}
