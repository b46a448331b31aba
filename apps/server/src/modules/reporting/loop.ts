import type { FastifyBaseLogger } from "fastify";

/**
 * The delivery loop: a pass when points arrive, and every pollMs for retries and intervals.
 * Passes never overlap; a wake-up during a pass asks for one more.
 */
export function createDeliveryLoop(deps: {
  log: FastifyBaseLogger;
  /** One pass; returns the points it moved. */
  pass: () => Promise<number>;
}) {
  const { log } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = true;
  /** Set by stop(): a delivery finishes the batch in flight and takes no more. */
  let closing = false;

  function wake() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          // Keep going while a pass moved points: a backlog drains without waiting.
          while ((await deps.pass()) > 0 && !stopped) {}
        } catch (error) {
          log.error({ err: error }, "report delivery pass failed");
        }
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
  }

  return {
    wake,
    closing: () => closing,
    /** Starts passing every `pollMs` (0: never, passes are asked for by hand). */
    start(pollMs: number) {
      if (pollMs <= 0) return;
      stopped = false;
      timer = setInterval(wake, pollMs);
      timer.unref();
      wake();
    },
    /** No more passes; resolves once the running one is over. */
    async stop() {
      stopped = true;
      closing = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
