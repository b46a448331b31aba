/**
 * Groups work that arrives close together into one call: items submitted while a flush is
 * running (or within the same turn of the event loop) go to the next flush together, up to
 * `max` at a time. An idle system flushes each item at once, so batching adds no latency;
 * a busy one makes fewer, larger database round trips. Each submit settles with its own
 * result (`flush` answers in input order) or with the batch's error.
 *
 * A flush that never let the event loop turn (PGlite runs its queries in this thread) gives
 * nothing the chance to arrive while it runs, and Node takes in about one new connection per
 * turn, so on a busy node every flush would carry one item. After such a flush the next one
 * waits three times as long as it took: while work keeps coming, such flushes hold at most a
 * quarter of the loop, and the rest takes in what waits (docs/performance.md "push",
 * decision 205). An idle batcher still flushes at once.
 */
/** After a flush that held the loop for d ms, the next waits HOLD_FACTOR × d (see above). */
const HOLD_FACTOR = 3;

export function createBatcher<T, R>(flush: (items: T[]) => Promise<R[]>, max = 200) {
  let queue: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  let running = false;
  /** When the loop is free again after a flush that held it (ms, performance.now()). */
  let heldUntil = 0;

  /** Runs while items wait; `running` stays set while a flush runs or one is scheduled. */
  async function drain() {
    while (queue.length) {
      const batch = queue.length <= max ? queue : queue.slice(0, max);
      queue = batch === queue ? [] : queue.slice(max);
      let turned = false;
      const turn = setImmediate(() => {
        turned = true;
      });
      const started = performance.now();
      try {
        const results = await flush(batch.map((b) => b.item));
        for (const [i, b] of batch.entries()) b.resolve(results[i]);
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
      clearImmediate(turn);
      if (!turned) {
        const ended = performance.now();
        heldUntil = ended + HOLD_FACTOR * (ended - started);
        // Let the loop take in what waits before the next flush (see above).
        if (queue.length) return schedule();
      }
    }
    running = false;
  }

  function schedule() {
    running = true;
    const wait = heldUntil - performance.now();
    if (wait > 0) setTimeout(() => void drain(), Math.ceil(wait));
    else setImmediate(() => void drain());
  }

  return {
    submit(item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (!running) schedule();
      });
    },
    get pending(): number {
      return queue.length;
    },
  };
}
