import type { VisitEndReason, VisitKind } from "@keyway/shared";
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
  /**
   * On-site consent (modules/visits/consent.ts): a visit asks the person at the machine; the
   * node holding the device's tunnel passes it to the agent.
   */
  "consent.ask": ConsentAskEvent;
  /**
   * The agent's answer, from the node holding its tunnel to the node waiting for it (every
   * node notes accepted visits, to tell the agent when they end). "unsupported": the
   * tunnel's node could not ask (its agent does not take control messages).
   */
  "consent.answered": {
    visitId: string;
    deviceId: number;
    answer: "accept" | "refuse" | "unsupported";
  };
  /** The ask is void (nobody answered in time): the node holding the tunnel tells the agent. */
  "consent.cancel": { visitId: string; deviceId: number };
}

export interface ConsentAskEvent {
  visitId: string;
  deviceId: number;
  /** The visitor's name and masked account. */
  visitor: string;
  account: string;
  kind: VisitKind;
  viewOnly: boolean;
  timeoutMs: number;
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
  // The ask is issued where the call landed; the tunnel may be on any node.
  "consent.ask": true,
  "consent.answered": true,
  "consent.cancel": true,
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
