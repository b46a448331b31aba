import { isIP, connect as netConnect, type Socket } from "node:net";
import { hostname } from "node:os";
import { connect as tlsConnect } from "node:tls";

/**
 * A pool of SMTP connections that pipeline (RFC 2920) finished messages
 * (docs/architecture/alarms.md#sms-e-mail-and-webhooks, decision 209). nodemailer waits for a
 * reply to each of MAIL, RCPT, DATA and the message's end and writes each on its own: five
 * writes and four round trips a message. Here a message's end goes out in one write with the
 * next message's MAIL, RCPT and DATA, so a busy connection costs one write and one round of
 * replies a message. Servers without PIPELINING, or that ask for an authentication this client
 * does not speak, get `SmtpUnsupported`: the caller sends through nodemailer instead.
 */
export interface SmtpPipelineOptions {
  host: string;
  port: number;
  /** TLS from the first byte (smtps); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  requireTLS: boolean;
  ignoreTLS: boolean;
  rejectUnauthorized: boolean;
  servername?: string;
  user?: string;
  pass?: string;
  /** The EHLO name. */
  name?: string;
  maxConnections: number;
  /** Messages a connection carries before it says QUIT and a new one is opened. */
  maxMessages: number;
  /** Waiting for a reply longer than this drops the connection; an idle one is closed. */
  timeoutMs: number;
}

/** The server cannot be spoken to by this client (no PIPELINING, no PLAIN or LOGIN auth). */
export class SmtpUnsupported extends Error {}

interface Reply {
  code: number;
  text: string;
}

interface Outgoing {
  from: string;
  to: string;
  raw: string;
  resolve(): void;
  reject(error: Error): void;
}

/** One SMTP conversation: commands written in groups, replies matched in order. */
class Conversation {
  private waiting: Array<{ resolve(reply: Reply): void; reject(error: Error): void }> = [];
  private partial = "";
  private lines: string[] = [];
  private failure: Error | null = null;
  private onGone: () => void = () => {};

  constructor(
    private socket: Socket,
    private timeoutMs: number,
  ) {
    this.attach(socket);
  }

  get alive() {
    return this.failure === null;
  }

  /** Called once, when the connection is gone. */
  whenGone(callback: () => void) {
    this.onGone = callback;
  }

  private attach(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    // Silence while a reply is due drops the connection; an idle one says QUIT.
    socket.setTimeout(this.timeoutMs, () =>
      this.waiting.length ? this.fail(new Error("SMTP server timeout")) : this.quit(),
    );
    socket.on("data", (chunk: Buffer) => this.read(chunk.toString("latin1")));
    socket.on("error", (error) => this.fail(error));
    socket.on("close", () => this.fail(new Error("SMTP connection closed")));
  }

  /** Replaces the socket with a TLS one on top of it (STARTTLS). */
  async upgrade(options: SmtpPipelineOptions) {
    const plain = this.socket;
    plain.removeAllListeners("data").removeAllListeners("error").removeAllListeners("close");
    plain.setTimeout(0);
    const secured = tlsConnect({
      socket: plain,
      servername: options.servername ?? (isIP(options.host) ? undefined : options.host),
      rejectUnauthorized: options.rejectUnauthorized,
    });
    this.attach(secured);
    await new Promise<void>((resolve, reject) => {
      secured.once("secureConnect", resolve);
      secured.once("error", reject);
    });
  }

  private read(text: string) {
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop() ?? "";
    for (const raw of lines) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      this.lines.push(line.slice(4));
      // "250-..." continues the reply; "250 ..." (or a bare "250") ends it.
      if (line.charAt(3) === "-") continue;
      const reply = { code: Number(line.slice(0, 3)), text: this.lines.join("\n") };
      this.lines = [];
      const waiter = this.waiting.shift();
      if (!waiter || !Number.isInteger(reply.code)) {
        this.fail(new Error(`unexpected SMTP reply: ${line.slice(0, 80)}`));
        return;
      }
      waiter.resolve(reply);
    }
  }

  /** Writes the lines in one write; a promise of each one's reply (`expected` more than lines: the greeting). */
  group(lines: string[], expected = lines.length): Promise<Reply>[] {
    const replies = Array.from({ length: expected }, () => {
      const reply = new Promise<Reply>((resolve, reject) => {
        if (this.failure) reject(this.failure);
        else this.waiting.push({ resolve, reject });
      });
      // Replies after a failed one are rejected too; whoever awaits them sees it.
      reply.catch(() => {});
      return reply;
    });
    if (lines.length > 0 && !this.failure) this.socket.write(`${lines.join("\r\n")}\r\n`);
    return replies;
  }

  command(line: string): Promise<Reply> {
    return this.group([line])[0];
  }

  fail(error: Error) {
    if (this.failure) return;
    this.failure = error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(error);
    this.socket.destroy();
    this.onGone();
  }

  quit() {
    if (this.failure) return;
    this.socket.end("QUIT\r\n");
    this.fail(new Error("closed"));
  }
}

function refused(what: string, reply: Reply) {
  return new Error(`${what} refused: ${reply.code} ${reply.text.split("\n")[0]}`);
}

const ok = (reply: Reply) => reply.code >= 200 && reply.code < 300;

/** Dot-stuffing (RFC 5321 §4.5.2): a line starting with "." gets another. */
function stuffed(raw: string) {
  return (raw.startsWith(".") ? "." : "") + raw.replace(/\r\n\./g, "\r\n..");
}

/** nodemailer's EHLO name: the host's name when it is a domain, else a loopback literal. */
function ehloName(options: SmtpPipelineOptions) {
  if (options.name) return options.name;
  const name = hostname();
  return name.includes(".") ? name : "[127.0.0.1]";
}

/** Connects, says EHLO, secures and authenticates: a conversation ready for messages. */
async function open(options: SmtpPipelineOptions): Promise<Conversation> {
  const socket = options.secure
    ? tlsConnect({
        host: options.host,
        port: options.port,
        servername: options.servername ?? (isIP(options.host) ? undefined : options.host),
        rejectUnauthorized: options.rejectUnauthorized,
      })
    : netConnect({ host: options.host, port: options.port });
  const conversation = new Conversation(socket, options.timeoutMs);
  const [greeting] = conversation.group([], 1);
  try {
    const hello = await greeting;
    if (hello.code !== 220) throw refused("SMTP greeting", hello);
    const name = ehloName(options);
    let ehlo = await conversation.command(`EHLO ${name}`);
    if (!ok(ehlo)) throw new SmtpUnsupported(refused("EHLO", ehlo).message);
    const offers = (word: string) => new RegExp(`^${word}\\b`, "im").test(ehlo.text);
    if (!options.secure && !options.ignoreTLS && offers("STARTTLS")) {
      const start = await conversation.command("STARTTLS");
      if (start.code !== 220) throw refused("STARTTLS", start);
      await conversation.upgrade(options);
      ehlo = await conversation.command(`EHLO ${name}`);
      if (!ok(ehlo)) throw refused("EHLO", ehlo);
    } else if (!options.secure && options.requireTLS) {
      throw new Error("the SMTP server offers no STARTTLS and TLS is required");
    }
    if (!offers("PIPELINING")) throw new SmtpUnsupported("the SMTP server does not pipeline");
    if (options.user !== undefined) await authenticate(conversation, ehlo.text, options);
    return conversation;
  } catch (error) {
    conversation.fail(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
}

async function authenticate(
  conversation: Conversation,
  ehlo: string,
  options: SmtpPipelineOptions,
) {
  const mechanisms = /^AUTH[ =](.*)$/im.exec(ehlo)?.[1].toUpperCase().split(/\s+/) ?? [];
  const base64 = (value: string) => Buffer.from(value, "utf8").toString("base64");
  const user = options.user ?? "";
  const pass = options.pass ?? "";
  let reply: Reply;
  if (mechanisms.includes("PLAIN")) {
    reply = await conversation.command(`AUTH PLAIN ${base64(`\0${user}\0${pass}`)}`);
  } else if (mechanisms.includes("LOGIN")) {
    reply = await conversation.command("AUTH LOGIN");
    if (reply.code === 334) reply = await conversation.command(base64(user));
    if (reply.code === 334) reply = await conversation.command(base64(pass));
  } else {
    throw new SmtpUnsupported("the SMTP server offers neither AUTH PLAIN nor AUTH LOGIN");
  }
  // The reply's text only: never the credentials.
  if (reply.code !== 235) throw refused("SMTP authentication", reply);
}

/** The pool: messages queue here and the connections take them in order. */
export function createSmtpPipeline(options: SmtpPipelineOptions) {
  const queue: Outgoing[] = [];
  const idle: Array<() => void> = [];
  let connections = 0;
  let unsupported: SmtpUnsupported | null = null;
  let closed = false;
  const conversations = new Set<Conversation>();

  const envelope = (m: Outgoing) => [`MAIL FROM:<${m.from}>`, `RCPT TO:<${m.to}>`, "DATA"];

  /** Carries messages from the queue, each one's end pipelined with the next one's envelope. */
  async function carry(conversation: Conversation, first: Outgoing, budget: number) {
    let sent = 0;
    let message: Outgoing | undefined = first;
    let replies = conversation.group(envelope(first));
    const inFlight = new Set<Outgoing>([first]);
    try {
      while (message) {
        const [mail, rcpt, data] = [await replies[0], await replies[1], await replies[2]];
        if (!ok(mail) || !ok(rcpt) || data.code !== 354) {
          // A server that asks for the body of a refused envelope breaks the protocol: ending
          // it with "." could deliver an empty message, so the connection is dropped instead.
          if (data.code === 354) throw refused("DATA after a refused envelope", data);
          // Refused: the transaction is reset before the next message.
          const reset = await conversation.command("RSET");
          if (!ok(reset)) throw refused("RSET", reset);
          inFlight.delete(message);
          message.reject(
            !ok(mail)
              ? refused("MAIL FROM", mail)
              : !ok(rcpt)
                ? refused("RCPT TO", rcpt)
                : refused("DATA", data),
          );
          message = queue.shift();
          if (message) {
            inFlight.add(message);
            replies = conversation.group(envelope(message));
          }
          continue;
        }
        sent++;
        const next: Outgoing | undefined = sent < budget ? queue.shift() : undefined;
        if (next) inFlight.add(next);
        const [end, ...nextReplies] = conversation.group([
          `${stuffed(message.raw)}\r\n.`,
          ...(next ? envelope(next) : []),
        ]);
        const taken = await end;
        inFlight.delete(message);
        if (ok(taken)) message.resolve();
        else message.reject(refused("message", taken));
        message = next;
        replies = nextReplies;
      }
    } catch (error) {
      for (const m of inFlight) m.reject(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    return sent;
  }

  async function connection() {
    connections++;
    let conversation: Conversation | null = null;
    try {
      conversation = await open(options);
      conversations.add(conversation);
      let sent = 0;
      while (!closed && conversation.alive && sent < options.maxMessages) {
        const message = queue.shift();
        if (message) {
          sent += await carry(conversation, message, options.maxMessages - sent);
          continue;
        }
        // Nothing to send: wait for a message, or for the server to close the idle connection.
        const gone = new Promise<void>((resolve) => conversation?.whenGone(resolve));
        await Promise.race([new Promise<void>((resolve) => idle.push(resolve)), gone]);
      }
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      if (failure instanceof SmtpUnsupported) unsupported = failure;
      // Could not connect, and no other connection is up to carry the queue: its messages
      // fail now, as nodemailer's would (the caller tries them again later).
      if (conversation === null && (conversations.size === 0 || unsupported))
        for (const m of queue.splice(0)) m.reject(failure);
    } finally {
      if (conversation) {
        conversations.delete(conversation);
        conversation.quit();
      }
      connections--;
      // A connection that ended after its messages (QUIT at maxMessages, the server closed
      // it) is replaced while messages wait; one that could not be opened is not retried here.
      if (conversation && queue.length > 0 && !closed) pump();
    }
  }

  function pump() {
    // Idle connections first; another connection while messages wait and the pool has room.
    while (idle.length > 0 && queue.length > 0) idle.shift()?.();
    if (queue.length > connections && connections < options.maxConnections) void connection();
  }

  return {
    send(from: string, to: string, raw: string): Promise<void> {
      // The envelope is written into the conversation: nothing that could end a command.
      if (/[\s<>]/.test(from + to)) return Promise.reject(new Error("not a plain address"));
      if (unsupported) return Promise.reject(unsupported);
      if (closed) return Promise.reject(new Error("the SMTP pool is closed"));
      return new Promise((resolve, reject) => {
        queue.push({ from, to, raw, resolve, reject });
        pump();
      });
    },
    close() {
      closed = true;
      for (const m of queue.splice(0)) m.reject(new Error("the SMTP pool is closed"));
      for (const wake of idle.splice(0)) wake();
      for (const conversation of conversations) conversation.quit();
    },
  };
}
