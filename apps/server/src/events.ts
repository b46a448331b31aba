import type { VisitEndReason } from "@keyway/shared";
import type { Bus } from "./infra/bus.ts";
import type { TerminalsEnded } from "./modules/accounts/sessions.ts";
import type { Alarm } from "./modules/alarms/schema.ts";
import type { PushEnvelope } from "./modules/push/service.ts";

/**
 * The domain events between modules (docs/architecture/events.md): one typed map, each event
 * with whether it crosses nodes. A module publishes what happened in its domain, after the
 * row is written; the modules that act on it subscribe themselves. `buildApp` only wires.
 */
export interface DomainEvents {
  /** A newly stored alarm (a device's, or the cloud's own). Told once: by the node that stored it. */
  "alarm.stored": Alarm;
  /** Sessions ended by something done elsewhere (a login elsewhere, a removed terminal). */
  "terminals.ended": TerminalsEnded;
  /** A push for a user's or a terminal's open sockets: every node holds some of them. */
  push: PushEnvelope;
  /** A right on a device may have ended (of one user when given): every node re-checks its visits. */
  "rights.changed": { deviceId: number; userId?: number };
  /** A visit ended (by its owner, a refused right …): the node holding its streams cuts them. */
  "visit.ended": { visitId: string; reason: VisitEndReason };
  /** A device's tunnel came up or went away on some node: pooled streams to it are stale. */
  "tunnel.link": { deviceId: number; online: boolean };
}

export type DomainEvent = keyof DomainEvents;

/**
 * Which events every node must hear. The others stay on the node that raised them: an alarm
 * is told (messages, notifications) once, by the node that stored it.
 */
export const CROSSES_NODES: { readonly [K in DomainEvent]: boolean } = {
  "alarm.stored": false,
  // Told where it happened: the logout push it causes crosses nodes itself.
  "terminals.ended": false,
  push: true,
  "rights.changed": true,
  "visit.ended": true,
  "tunnel.link": true,
};

export const CROSS_NODE_EVENTS: readonly DomainEvent[] = (
  Object.keys(CROSSES_NODES) as DomainEvent[]
).filter((name) => CROSSES_NODES[name]);

/** The typed face of the bus: names and payloads checked against DomainEvents. */
export interface Events {
  publish<K extends DomainEvent>(name: K, payload: DomainEvents[K]): void;
  subscribe<K extends DomainEvent>(
    name: K,
    handler: (payload: DomainEvents[K]) => void,
  ): () => void;
}

export function domainEvents(bus: Bus): Events {
  return {
    publish: (name, payload) => bus.publish(name, payload),
    subscribe: (name, handler) => bus.subscribe(name, handler),
  };
}
