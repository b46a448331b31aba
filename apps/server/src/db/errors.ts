/**
 * PostgreSQL error codes of a failed query. drizzle wraps the driver's error (PGlite's and
 * node-postgres' alike) and keeps it as `cause`, so the code is on either.
 */
export function pgErrorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null | undefined;
  const code = e?.cause?.code ?? e?.code;
  return typeof code === "string" ? code : undefined;
}

/** unique_violation: a row with that key exists. */
export const isUniqueViolation = (error: unknown) => pgErrorCode(error) === "23505";

/** foreign_key_violation: the row it points at is gone. */
export const isForeignKeyViolation = (error: unknown) => pgErrorCode(error) === "23503";
