/**
 * Runs up to `limit` tasks at once, those of one key (a device) one after another in the
 * order they came: uplinks of different devices are stored side by side, a device's own
 * raise and clear never overtake each other. `admitted` is called once the task holds a
 * slot; the caller reads its next message only then, so at most one task waits.
 */
export function createOrderedInFlight(limit: number) {
  const tails = new Map<string, Promise<void>>();
  const waiting: Array<() => void> = [];
  let inFlight = 0;

  function start(key: string, task: () => Promise<void>) {
    inFlight++;
    // A task never rejects (it logs its own failure): a failed uplink does not stop the key.
    const tail = (tails.get(key) ?? Promise.resolve()).then(task).finally(() => {
      if (tails.get(key) === tail) tails.delete(key);
      inFlight--;
      waiting.shift()?.();
    });
    tails.set(key, tail);
  }

  return {
    run(key: string, task: () => Promise<void>, admitted: () => void) {
      if (inFlight < limit) {
        start(key, task);
        return admitted();
      }
      waiting.push(() => {
        start(key, task);
        admitted();
      });
    },
  };
}
