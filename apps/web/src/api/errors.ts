/**
 * A failed call. `kind`:
 * - "business": the envelope's hwcode was not 0 (message = the server's localized `msg`);
 * - "transport": HTTP status or network failure (message from SPEC §8's table);
 * - "session": hwcode 113 / HTTP 401 — already notified, logout is under way.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly kind: "business" | "transport" | "session",
    readonly hwcode: number | string | null = null,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** Compares business codes as strings ("07010110" and 113 alike). */
  is(code: number | string): boolean {
    return this.hwcode !== null && String(this.hwcode) === String(code);
  }
}
