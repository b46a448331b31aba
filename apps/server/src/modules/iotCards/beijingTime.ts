/** Carriers in China bill by Beijing time (UTC+8): a traffic cycle is a calendar month there. */
export const BEIJING_MS = 8 * 3_600_000;

/** The Beijing calendar day of an instant ("YYYY-MM-DD"). */
export const beijingDay = (d: Date) =>
  new Date(d.getTime() + BEIJING_MS).toISOString().slice(0, 10);

/** Start of the Beijing calendar month holding `at`, as an instant. */
export function beijingMonthStart(at: Date, monthsAhead = 0): Date {
  const local = new Date(at.getTime() + BEIJING_MS);
  return new Date(
    Date.UTC(local.getUTCFullYear(), local.getUTCMonth() + monthsAhead, 1) - BEIJING_MS,
  );
}
