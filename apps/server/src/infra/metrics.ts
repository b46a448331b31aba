import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { Events } from "../events.ts";

/**
 * What /metrics reads, each from the module that owns it, at scrape time. The database
 * figures (devices online, queues, backlog) are the cluster's and the same on every node;
 * the others are this node's own.
 */
export interface MetricSources {
  events: Events;
  devicesOnline(): Promise<number>;
  tunnelsHeld(): number;
  visits(): { sessions: number; streams: number; bytes: { fromDevice: number; toDevice: number } };
  pushSockets(): number;
  /** E-mails and SMS waiting in the notification queue. */
  notificationsPending(): Promise<number>;
  /** Alarm sends waiting in pg-boss; null before the queue has started. */
  alarmSendsPending(): Promise<number | null>;
  reportBacklog(): Promise<number>;
}

/** The longest a scrape waits for one database figure; it is NaN in that scrape instead. */
const DB_READ_TIMEOUT_MS = 2_000;

/** Rejects with `what timed out` after `ms`; the timer does not hold the process. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// Process metrics (CPU, memory, event loop, GC) belong to the process, not to one app: a
// process (the tests) building several apps must not start their observers more than once.
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export type Metrics = ReturnType<typeof createMetrics>;

export function createMetrics(
  sources: MetricSources,
  log: { warn(obj: object, msg: string): void },
) {
  const registry = new Registry();
  const registers = [registry];

  /** A database figure, or NaN (unknown, not zero) when it cannot be read in time. */
  const fromDb = async (what: string, read: () => Promise<number | null>) => {
    try {
      return (await withTimeout(read(), DB_READ_TIMEOUT_MS, what)) ?? Number.NaN;
    } catch (error) {
      log.warn({ err: (error as Error).message }, `metrics: ${what} not read`);
      return Number.NaN;
    }
  };

  new Gauge({
    name: "keyway_devices_online",
    help: "Devices online (the whole platform, from the database; the same on every node).",
    registers,
    async collect() {
      this.set(await fromDb("devices online", sources.devicesOnline));
    },
  });
  new Gauge({
    name: "keyway_tunnels_held",
    help: "Agent tunnels held by this node.",
    registers,
    collect() {
      this.set(sources.tunnelsHeld());
    },
  });
  new Gauge({
    name: "keyway_visits_active",
    help: "Remote-access visits with a session on this node.",
    registers,
    collect() {
      this.set(sources.visits().sessions);
    },
  });
  new Gauge({
    name: "keyway_visit_streams_open",
    help: "Tunnel streams open for visits on this node.",
    registers,
    collect() {
      this.set(sources.visits().streams);
    },
  });
  new Gauge({
    name: "keyway_push_sockets",
    help: "Authenticated push (/ws) sockets held by this node.",
    registers,
    collect() {
      this.set(sources.pushSockets());
    },
  });
  new Gauge({
    name: "keyway_notification_queue_depth",
    help: "Notifications waiting to be sent (whole platform): e-mail/SMS rows and alarm sends.",
    labelNames: ["queue"] as const,
    registers,
    async collect() {
      const [notifications, alarmSends] = await Promise.all([
        fromDb("notification queue", sources.notificationsPending),
        fromDb("alarm send queue", sources.alarmSendsPending),
      ]);
      this.set({ queue: "notifications" }, notifications);
      this.set({ queue: "alarm_sends" }, alarmSends);
    },
  });
  new Gauge({
    name: "keyway_report_backlog_points",
    help: "Data points queued for the project servers (whole platform).",
    registers,
    async collect() {
      this.set(await fromDb("report backlog", sources.reportBacklog));
    },
  });

  // Counted by this node; summed over nodes it is the platform's.
  const alarmsStored = new Counter({
    name: "keyway_alarms_stored_total",
    help: "Alarms stored by this node (device alarms and the cloud's own).",
    registers,
  });
  const unsubscribe = sources.events.subscribe("alarm.stored", () => alarmsStored.inc());

  // The visit service keeps the running totals; a counter must never step back (a stream in
  // between its session and the closed total must not look like a restart), so keep the most.
  const relayed = { from_device: 0, to_device: 0 };
  new Counter({
    name: "keyway_relay_bytes_total",
    help: "Payload bytes relayed through this node's agent tunnels for visits.",
    labelNames: ["direction"] as const,
    registers,
    collect() {
      const { bytes } = sources.visits();
      relayed.from_device = Math.max(relayed.from_device, bytes.fromDevice);
      relayed.to_device = Math.max(relayed.to_device, bytes.toDevice);
      this.reset();
      this.inc({ direction: "from_device" }, relayed.from_device);
      this.inc({ direction: "to_device" }, relayed.to_device);
    },
  });

  const all = Registry.merge([processMetrics(), registry]);
  return {
    contentType: all.contentType,
    /** The Prometheus text of every metric, collected now. */
    render: () => all.metrics(),
    close: unsubscribe,
  };
}
