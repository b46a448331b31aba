/**
 * The mail server of `npm run bench -- alarms`, in its own process: a real SMTP server
 * (smtp-server) that counts, per alarm, the e-mails it accepted ("Bench alarm N" in the
 * text), and the connections they came over. Tells its port over IPC; asked for "figures",
 * answers them and exits.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { mailText } from "../apps/server/src/testing/smtp.ts";

const seen = new Set<number>();
let accepted = 0;
let duplicates = 0;
let connections = 0;

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
      const match = /Bench alarm (\d+)/.exec(mailText(Buffer.concat(chunks).toString("latin1")));
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
