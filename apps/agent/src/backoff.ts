/**
 * The wait before reconnect attempt `attempt` (0-based): `min` doubling up to `max`, with
 * ±25% jitter so a site full of devices does not reconnect in lock-step.
 */
export function backoffDelay(attempt: number, min: number, max: number): number {
  const base = Math.min(max, min * 2 ** attempt);
  return Math.round(Math.min(max, base * (0.75 + Math.random() * 0.5)));
}
