import { createServer, connect as netConnect, type Server } from "node:net";
import type { SMTPServerOptions } from "smtp-server";
import { afterAll, describe, expect, it } from "vitest";
import { startCountingSmtpServer } from "../testing/smtp.ts";
import { createMailBuilder } from "./mailMessage.ts";
import { createSenders, smtpPipelineFor } from "./senders.ts";

const closers: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/**
 * A real SMTP server (smtp-server) keeping each message's text by recipient, behind a TCP
 * relay that counts the writes the client's side arrives in.
 */
async function mailServer(options: Partial<SMTPServerOptions> = {}, cutFirstMessage = false) {
  const texts = new Map<string, string>();
  const server = await startCountingSmtpServer({
    dropAt: cutFirstMessage ? 1 : undefined,
    options: {
      onRcptTo(address, _session, callback) {
        if (address.address.startsWith("refused")) callback(new Error("no such mailbox"));
        else callback();
      },
      ...options,
    },
    onMessage(text, recipients) {
      for (const to of recipients) texts.set(to, text);
    },
  });
  const smtpPort = server.port;
  let clientChunks = 0;
  const relay: Server = createServer((client) => {
    const upstream = netConnect({ host: "127.0.0.1", port: smtpPort });
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    client.on("data", (chunk) => {
      clientChunks++;
      upstream.write(chunk);
    });
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const port = (relay.address() as { port: number }).port;
  closers.push(() => new Promise<void>((resolve) => relay.close(() => resolve())), server.close);
  return {
    port,
    texts,
    connections: server.connections,
    clientChunks: () => clientChunks,
  };
}

const builder = createMailBuilder("Keyway <alarms@keyway.local>");
const message = (to: string, text: string) => {
  const built = builder.build(to, `Alarm for ${to}`, text);
  if (!built) throw new Error("not buildable");
  return built;
};

describe("the pipelining SMTP pool", () => {
  it("sends a burst over a few connections, each message's end and the next one's envelope in one write", async () => {
    const smtp = await mailServer();
    const pool = smtpPipelineFor(`smtp://127.0.0.1:${smtp.port}/?maxConnections=2`);
    if (!pool) throw new Error("the URL should pipeline");
    closers.push(() => pool.close());
    const count = 200;
    await Promise.all(
      Array.from({ length: count }, (_, i) => {
        const m = message(`user${i}@example.com`, `Burst alarm ${i}\n.a line starting with a dot`);
        return pool.send(m.envelope.from, `user${i}@example.com`, m.raw);
      }),
    );
    expect(smtp.texts.size).toBe(count);
    expect(smtp.texts.get("user7@example.com")).toBe("Burst alarm 7\n.a line starting with a dot");
    expect(smtp.connections()).toBeLessThanOrEqual(2);
    // nodemailer writes five times a message (MAIL, RCPT, DATA, the body, its end); here a
    // message costs about one write, plus the few of each connection's greeting and EHLO.
    expect(smtp.clientChunks()).toBeLessThan(count * 1.5);
  });

  it("refuses one message the server refuses, and sends the ones around it on the same connection", async () => {
    const smtp = await mailServer();
    const pool = smtpPipelineFor(`smtp://127.0.0.1:${smtp.port}/?maxConnections=1`);
    if (!pool) throw new Error("the URL should pipeline");
    closers.push(() => pool.close());
    const outcomes = await Promise.allSettled(
      ["before@example.com", "refused@example.com", "after@example.com"].map((to) => {
        const m = message(to, `for ${to}`);
        return pool.send(m.envelope.from, to, m.raw);
      }),
    );
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toContain("RCPT TO refused: 550");
    expect([...smtp.texts.keys()].sort()).toEqual(["after@example.com", "before@example.com"]);
    expect(smtp.connections()).toBe(1);
  });

  it("upgrades with STARTTLS and logs in, and refuses to send with a wrong password", async () => {
    for (const authMethods of [["PLAIN"], ["LOGIN"]]) {
      const logins: string[] = [];
      const smtp = await mailServer({
        authOptional: false,
        disabledCommands: [],
        authMethods,
        onAuth(auth, session, callback) {
          logins.push(`${auth.method} ${auth.username} tls=${Boolean(session.secure)}`);
          if (auth.username === "keyway" && auth.password === "s3cret:pass")
            callback(null, { user: auth.username });
          else callback(new Error("invalid credentials"));
        },
      });
      const url = (pass: string) =>
        `smtp://keyway:${encodeURIComponent(pass)}@127.0.0.1:${smtp.port}/?tls.rejectUnauthorized=false`;
      const senders = createSenders({
        smtpUrl: url("s3cret:pass"),
        mailFrom: "alarms@keyway.local",
      });
      const wrong = createSenders({ smtpUrl: url("guess"), mailFrom: "alarms@keyway.local" });
      closers.push(
        () => senders.close(),
        () => wrong.close(),
      );
      await senders.email?.({ to: "tls@example.com", subject: "s", text: "over TLS" });
      expect(smtp.texts.get("tls@example.com")).toBe("over TLS");
      await expect(
        wrong.email?.({ to: "intruder@example.com", subject: "s", text: "no" }),
      ).rejects.toThrow(/authentication refused: 535/i);
      expect(smtp.texts.has("intruder@example.com")).toBe(false);
      expect(logins).toEqual([
        `${authMethods[0]} keyway tls=true`,
        `${authMethods[0]} keyway tls=true`,
      ]);
    }
  });

  it("leaves a server that does not pipeline to nodemailer, and the mail still arrives", async () => {
    const smtp = await mailServer({ hidePIPELINING: true });
    const senders = createSenders({
      smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
      mailFrom: "alarms@keyway.local",
    });
    closers.push(() => senders.close());
    for (const to of ["first@example.com", "second@example.com"])
      await senders.email?.({ to, subject: "s", text: `to ${to}` });
    expect(smtp.texts.get("second@example.com")).toBe("to second@example.com");
  });

  it("fails the messages of a server that cannot be reached, and of one that dies mid-message, then recovers", async () => {
    // Nothing listens: every queued message fails at once (the alarm job tries it later).
    const probe: Server = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const deadPort = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const dead = smtpPipelineFor(`smtp://127.0.0.1:${deadPort}`);
    if (!dead) throw new Error("the URL should pipeline");
    closers.push(() => dead.close());
    const m = message("nobody@example.com", "lost?");
    const refused = await Promise.allSettled(
      [1, 2, 3].map(() => dead.send(m.envelope.from, "nobody@example.com", m.raw)),
    );
    expect(refused.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);

    // A server that cuts the connection at the first message's end: that message fails;
    // the pool opens a new connection for the next.
    const smtp = await mailServer({}, true);
    const pool = smtpPipelineFor(`smtp://127.0.0.1:${smtp.port}/?maxConnections=1`);
    if (!pool) throw new Error("the URL should pipeline");
    closers.push(() => pool.close());
    const first = message("cut@example.com", "cut");
    await expect(pool.send(first.envelope.from, "cut@example.com", first.raw)).rejects.toThrow();
    const second = message("next@example.com", "next");
    await pool.send(second.envelope.from, "next@example.com", second.raw);
    expect(smtp.connections()).toBe(2);
  });

  it("refuses an envelope address that could write a command of its own", async () => {
    const smtp = await mailServer();
    const pool = smtpPipelineFor(`smtp://127.0.0.1:${smtp.port}`);
    if (!pool) throw new Error("the URL should pipeline");
    closers.push(() => pool.close());
    const m = message("a@example.com", "x");
    await expect(
      pool.send(m.envelope.from, "a@example.com>\r\nRCPT TO:<victim@example.com", m.raw),
    ).rejects.toThrow("not a plain address");
    expect(smtp.connections()).toBe(0);
  });

  it("is not used where the URL asks for what only nodemailer does", () => {
    expect(smtpPipelineFor("smtp://127.0.0.1:25/?pool=false")).toBeNull();
    expect(smtpPipelineFor("smtp://127.0.0.1:25/?proxy=socks5://127.0.0.1:1080")).toBeNull();
    expect(smtpPipelineFor("smtp://127.0.0.1:25/?tls.ciphers=SSLv3")).toBeNull();
  });
});
