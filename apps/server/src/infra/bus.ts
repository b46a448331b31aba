import { EventEmitter } from "node:events";

/**
 * The event bus between modules (the typed names and payloads: src/events.ts):
 * in-process by default; a Redis implementation of the same interface serves several nodes.
 * Publishers write to the database first; the bus only tells.
 */
export interface Bus {
  publish<T>(topic: string, payload: T): void;
  subscribe<T>(topic: string, handler: (payload: T) => void): () => void;
}

export function createInProcessBus(): Bus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish(topic, payload) {
      emitter.emit(topic, payload);
    },
    subscribe<T>(topic: string, handler: (payload: T) => void) {
      const listener = (payload: T) => {
        try {
          handler(payload);
        } catch {
          // A failing subscriber must not break the publisher (the row is already stored).
        }
      };
      emitter.on(topic, listener);
      return () => emitter.off(topic, listener);
    },
  };
}
