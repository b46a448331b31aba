import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
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
            received.push({ to: rcpt.address, subject: mail.subject ?? "", text: mail.text ?? "" });
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
