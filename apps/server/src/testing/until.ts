/** Polls `check` until it holds; fails after `ms` naming `what` (set-up waits, not timings). */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 20_000,
  what = "it",
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls `check` until it gives a value, and returns it. */
export async function untilValue<T>(check: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  let value: T | undefined;
  await until(async () => {
    value = await check();
    return value !== undefined;
  }, ms);
  return value as T;
}
