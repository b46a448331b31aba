import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import type { Project } from "../projects/schema.ts";
import { createReportConnections } from "./connections.ts";
import { createDelivery } from "./delivery.ts";
import { createDeliveryState } from "./deliveryState.ts";
import { createIntake } from "./intake.ts";
import { createDeliveryLoop } from "./loop.ts";
import type { TransportOptions } from "./transports.ts";

export type ReportingService = ReturnType<typeof createReportingService>;

/**
 * Data reporting (issue 8): points of devices in a reporting project are queued in the
 * database before the device's PUBACK (intake.ts), then delivered per project in id order
 * (so in order per device) to the project's server, signed with the project's key, retried
 * with backoff (delivery.ts, loop.ts), and counted against the project's available data
 * count. See docs/architecture/reporting.md.
 */
export function createReportingService(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The key that signs a project's reports. */
  keyOf: (project: Project) => string;
  transport?: TransportOptions;
  /** Test hook: runs after the server acknowledged a batch, before the commit. */
  afterAcknowledged?: (projectId: number, seqs: number[]) => void;
  /** The lease (default a minute; the process-kill test shortens it). */
  leaseMs?: number;
}) {
  const { db, clock, log } = deps;
  const connections = createReportConnections({ db, transport: deps.transport });
  const loop = createDeliveryLoop({ log, pass: () => delivery.deliverDue() });
  const delivery = createDelivery({ ...deps, connections, closing: loop.closing });
  const wake = loop.wake;

  return {
    storePoint: createIntake({ db, clock, log, wake }),
    deliverDue: delivery.deliverDue,
    ...createDeliveryState({ db, connections, wake }),
    /**
     * Starts delivering: at once when points arrive, and every `pollMs` for retries and
     * intervals. 0 leaves it to `deliverDue` calls (tests).
     */
    start(pollMs = 1_000) {
      loop.start(pollMs);
    },
    /** Stops after the running pass; what it delivered is committed. */
    async stop() {
      await loop.stop();
      await delivery.settled();
      await connections.closeAll();
    },
  };
}
