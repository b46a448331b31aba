/**
 * Query helpers of the device modules; enterprises and cameras build on devices and take
 * them from here.
 */

/** A search term as an ILIKE pattern: its own %, _ and \ match literally. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** PostgreSQL's unique_violation, directly or as the driver's cause. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code === "23505" || e?.cause?.code === "23505";
}
