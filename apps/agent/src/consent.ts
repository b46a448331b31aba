import { execFile } from "node:child_process";
import { EventEmitter } from "node:events";
import type { TunnelControl } from "@keyway/protocol";

/**
 * On-site consent on the device side (docs/architecture/remote-access.md "On-site consent").
 * The cloud asks (`consent.ask`) before a visit of a device whose Akey turned consent on; the
 * person at the machine answers through a front-end: the simulated HMI's prompt, the local
 * consent page (`--consent-port`) or a script (`--consent-hook`). The first answer counts.
 * The desk also keeps the visits it accepted until the cloud says they ended, so the person
 * can end one (`visit.end`) at any time.
 *
 * The cloud decides the timeout: an ask nobody answered is only dropped here, never refused.
 */

export type VisitKind = "web" | "screen" | "tcp";

export interface ConsentAsk {
  visit: string;
  /** The visitor's name and masked account, as the cloud knows them. */
  visitor: string;
  account: string;
  kind: VisitKind;
  viewOnly: boolean;
  /** When the cloud stops waiting (ms since the epoch, this machine's clock). */
  deadline: number;
}

export interface RunningVisit {
  visit: string;
  visitor: string;
  account: string;
  kind: VisitKind;
  viewOnly: boolean;
  /** When it was accepted (ms since the epoch). */
  since: number;
}

export interface ConsentState {
  /** Asks waiting for an answer, oldest first; remainingMs until the cloud gives up. */
  asks: Array<Omit<ConsentAsk, "deadline"> & { remainingMs: number }>;
  /** Accepted visits not yet ended. */
  running: RunningVisit[];
}

/** What a front-end's answer came to: done, no such ask or visit, or no link to the cloud now. */
export type ConsentResult = "ok" | "unknown" | "offline";

export interface ConsentDeskOptions {
  /** A program run for every ask (no shell): exit 0 accepts, anything else refuses. */
  hook?: string;
  log?: (message: string) => void;
}

/** At most this many asks wait at once; a cloud asking more has the oldest dropped. */
const MAX_ASKS = 32;
/** Accepted visits remembered at once. */
const MAX_RUNNING = 256;

/** Printable text only: names come from the cloud and end up in logs, pages and environments. */
function clean(text: string, max = 200): string {
  return text.replace(/[\p{Cc}\p{Cf}]/gu, " ").slice(0, max);
}

export class ConsentDesk extends EventEmitter<{ change: [] }> {
  private readonly asks = new Map<string, ConsentAsk & { timer: NodeJS.Timeout }>();
  private readonly running = new Map<string, RunningVisit>();
  private send: (message: TunnelControl) => boolean = () => false;

  constructor(private readonly options: ConsentDeskOptions = {}) {
    super();
  }

  private log(message: string): void {
    (this.options.log ?? ((m: string) => console.log(`${new Date().toISOString()} ${m}`)))(message);
  }

  /** Where answers go: the tunnel's control channel (false while it is down). */
  attach(send: (message: TunnelControl) => boolean): void {
    this.send = send;
  }

  /** A control message from the cloud. Messages only an agent sends are not for us. */
  onControl(message: TunnelControl): void {
    switch (message.t) {
      case "consent.ask":
        this.ask(message);
        break;
      case "consent.cancel":
        if (this.drop(message.visit)) this.log(`consent: ask for visit ${message.visit} withdrawn`);
        break;
      case "visit.ended":
        if (this.running.delete(message.visit)) {
          this.log(`consent: visit ${message.visit} ended`);
          this.emit("change");
        }
        break;
    }
  }

  private ask(message: Extract<TunnelControl, { t: "consent.ask" }>): void {
    if (this.asks.has(message.visit) || this.running.has(message.visit)) return;
    if (this.asks.size >= MAX_ASKS) this.drop(this.asks.keys().next().value ?? "");
    const ask: ConsentAsk = {
      visit: message.visit,
      visitor: clean(message.visitor),
      account: clean(message.account),
      kind: message.kind,
      viewOnly: message.viewOnly,
      deadline: Date.now() + message.timeoutMs,
    };
    // No answer in time: the cloud counts it as a refusal by itself.
    const timer = setTimeout(() => {
      if (this.drop(ask.visit)) this.log(`consent: no answer for visit ${ask.visit}`);
    }, message.timeoutMs);
    timer.unref();
    this.asks.set(ask.visit, { ...ask, timer });
    this.log(
      `consent: ${ask.visitor} asks for a ${ask.kind} visit${ask.viewOnly ? " (view only)" : ""} (visit ${ask.visit})`,
    );
    this.emit("change");
    if (this.options.hook) this.runHook(ask, message.timeoutMs);
  }

  private drop(visit: string): boolean {
    const ask = this.asks.get(visit);
    if (!ask) return false;
    clearTimeout(ask.timer);
    this.asks.delete(visit);
    this.emit("change");
    return true;
  }

  /**
   * The hook decides for a site without a screen: run without a shell, the ask in its
   * environment (never on its command line), killed when the cloud stops waiting.
   */
  private runHook(ask: ConsentAsk, timeoutMs: number): void {
    const hook = this.options.hook as string;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      KEYWAY_VISIT_ID: ask.visit,
      KEYWAY_VISITOR: ask.visitor,
      KEYWAY_ACCOUNT: ask.account,
      KEYWAY_VISIT_KIND: ask.kind,
      KEYWAY_VIEW_ONLY: ask.viewOnly ? "1" : "0",
    };
    // Secrets the agent was started with are not the hook's business.
    delete env.KEYWAY_AGENT_SECRET;
    delete env.KEYWAY_AGENT_TOKEN;
    execFile(
      hook,
      [],
      { env, timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 64 * 1024, windowsHide: true },
      (error) => {
        if (!this.asks.has(ask.visit)) return;
        if (error && (error.killed || error.signal)) {
          this.log(`consent hook: no answer for visit ${ask.visit} in time (killed)`);
          return;
        }
        if (error && typeof error.code === "string") {
          // It could not be started at all: nobody decided, so the ask stays for a person.
          this.log(`consent hook ${hook} could not run: ${error.message}`);
          return;
        }
        const accept = !error;
        const code = error ? String(error.code) : "0";
        this.log(
          `consent hook: exit ${code}, visit ${ask.visit} ${accept ? "accepted" : "refused"}`,
        );
        this.answer(ask.visit, accept);
      },
    );
  }

  state(): ConsentState {
    const now = Date.now();
    return {
      asks: [...this.asks.values()].map(({ timer: _timer, deadline, ...ask }) => ({
        ...ask,
        remainingMs: Math.max(0, deadline - now),
      })),
      running: [...this.running.values()],
    };
  }

  /** The person at the machine answers an ask. */
  answer(visit: string, accept: boolean): ConsentResult {
    const ask = this.asks.get(visit);
    if (!ask) return "unknown";
    // Kept when the cloud is out of reach: the person may try again once it is back.
    if (!this.send({ t: "consent.answer", visit, accept })) return "offline";
    this.drop(visit);
    if (accept) {
      if (this.running.size >= MAX_RUNNING)
        this.running.delete(this.running.keys().next().value ?? "");
      const { timer: _timer, deadline: _deadline, ...rest } = ask;
      this.running.set(visit, { ...rest, since: Date.now() });
      this.emit("change");
    }
    this.log(`consent: visit ${visit} ${accept ? "accepted" : "refused"} on site`);
    return "ok";
  }

  /** The person at the machine ends an accepted visit. */
  end(visit: string): ConsentResult {
    if (!this.running.has(visit)) return "unknown";
    if (!this.send({ t: "visit.end", visit })) return "offline";
    this.running.delete(visit);
    this.log(`consent: visit ${visit} ended on site`);
    this.emit("change");
    return "ok";
  }

  close(): void {
    for (const ask of this.asks.values()) clearTimeout(ask.timer);
    this.asks.clear();
    this.running.clear();
  }
}
