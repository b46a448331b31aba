/**
 * The mail server of `npm run bench -- alarms`, in its own process: a real SMTP server
 * (smtp-server) that counts, per alarm, the e-mails it accepted ("Bench alarm N" in the
 * text), and the connections they came over. Tells its port over IPC; asked for "figures",
 * answers them and exits.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

const seen = new Set<number>();
let accepted = 0;
let duplicates = 0;
let connections = 0;

/** The message's text, its transfer encoding undone (nodemailer picks base64 or QP). */
function textOf(raw: string): string {
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

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  logger: false,
  // Default 100: the bench's sender keeps connections open for many messages.
  maxClients: 100,
  onConnect(_session, callback) {
    connections++;
    callback();
  },
  onData(stream, _session, callback) {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      const match = /Bench alarm (\d+)/.exec(textOf(Buffer.concat(chunks).toString("latin1")));
      accepted++;
      if (match) {
        const i = Number(match[1]);
        if (seen.has(i)) duplicates++;
        else seen.add(i);
      }
      callback();
    });
  },
});
server.listen(0, "127.0.0.1", () => {
  process.send?.({ port: (server.server.address() as AddressInfo).port });
});
process.on("message", (message) => {
  if (message !== "figures") return;
  process.send?.({ alarms: seen.size, accepted, duplicates, connections }, () => process.exit(0));
});
// The bench ended without asking (a crash, a kill): so does its mail server.
process.on("disconnect", () => process.exit(0));
