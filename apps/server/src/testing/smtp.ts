import type { AddressInfo, Socket } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
  /** The From header as the parser reads it: `"Name" <address>`. */
  from: string;
  /** Every header field's name, lower-case. */
  headerNames: string[];
}

/** A real SMTP server on a free loopback port, collecting what it receives. */
export async function startSmtpServer(port = 0) {
  const received: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          for (const rcpt of session.envelope.rcptTo) {
            received.push({
              to: rcpt.address,
              subject: mail.subject ?? "",
              text: mail.text ?? "",
              from: mail.from?.text ?? "",
              headerNames: [...mail.headers.keys()],
            });
          }
          for (const wake of waiters.splice(0)) wake();
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.server.address() as AddressInfo;

  /** Waits (up to `timeoutMs`) for a mail to `to` and returns the newest one. */
  async function waitFor(to: string, timeoutMs = 10_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mail = received.filter((m) => m.to === to).at(-1);
      if (mail) return mail;
      if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  return {
    port: address.port,
    url: `smtp://127.0.0.1:${address.port}`,
    received,
    waitFor,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The text of a raw single-part message, its transfer encoding undone (Keyway's alarm
 * e-mails are base64; nodemailer's composer picks base64 or quoted-printable).
 */
export function mailText(raw: string): string {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  if (/content-transfer-encoding:\s*base64/i.test(head))
    return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (/content-transfer-encoding:\s*quoted-printable/i.test(head))
    return Buffer.from(
      body
        .replace(/=\r?\n/g, "")
        .replace(/=([0-9A-F]{2})/gi, (_, hex: string) =>
          String.fromCharCode(Number.parseInt(hex, 16)),
        ),
      "latin1",
    ).toString("utf8");
  return body;
}

/**
 * A real SMTP server that hands each accepted message's text, with its recipients, to
 * `onMessage`, and counts the connections. `dropAt`: the connection carrying the n-th message
 * is cut before that message is answered (once), as a server that dies mid-batch. `options`
 * are smtp-server's (authentication, TLS, hidden extensions).
 */
export async function startCountingSmtpServer(opts: {
  onMessage: (text: string, recipients: string[]) => void;
  dropAt?: number;
  options?: Partial<SMTPServerOptions>;
}) {
  let connections = 0;
  let messages = 0;
  const server: SMTPServer = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        messages++;
        if (messages === opts.dropAt) {
          const open = (server as unknown as { connections: Set<{ id: string; _socket: Socket }> })
            .connections;
          for (const c of open) if (c.id === session.id) c._socket.destroy();
          return;
        }
        const text = mailText(Buffer.concat(chunks).toString("latin1"));
        opts.onMessage(
          text,
          session.envelope.rcptTo.map((rcpt) => rcpt.address),
        );
        callback();
      });
    },
    ...opts.options,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
