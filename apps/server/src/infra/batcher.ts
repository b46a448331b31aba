/**
 * Groups work that arrives close together into one call: items submitted while a flush is
 * running (or within the same turn of the event loop) go to the next flush together, up to
 * `max` at a time. An idle system flushes each item at once, so batching adds no latency;
 * a busy one makes fewer, larger database round trips. Each submit settles with its own
 * result (`flush` answers in input order) or with the batch's error.
 */
export function createBatcher<T, R>(flush: (items: T[]) => Promise<R[]>, max = 200) {
  let queue: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  let running = false;

  async function drain() {
    running = true;
    try {
      while (queue.length) {
        const batch = queue.length <= max ? queue : queue.slice(0, max);
        queue = batch === queue ? [] : queue.slice(max);
        try {
          const results = await flush(batch.map((b) => b.item));
          for (const [i, b] of batch.entries()) b.resolve(results[i]);
        } catch (error) {
          for (const b of batch) b.reject(error);
        }
      }
    } finally {
      running = false;
    }
  }

  return {
    submit(item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (!running) {
          running = true;
          setImmediate(() => void drain());
        }
      });
    },
    get pending(): number {
      return queue.length;
    },
  };
}
