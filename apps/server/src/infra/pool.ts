/**
 * Runs `work` for each item, at most `width` at a time, in the items' order; resolves when
 * every item is done (rejects with the first failure, the others still running).
 */
export async function eachAtMost<T>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}
