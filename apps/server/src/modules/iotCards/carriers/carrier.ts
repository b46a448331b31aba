import type { IotCardState, IotCarrier } from "@keyway/shared";

/** What a carrier says about one card. Traffic in KB; dates as instants. */
export interface CarrierCardInfo {
  iccid: string;
  msisdn: string;
  imsi: string;
  state: IotCardState;
  planName: string;
  /** The plan's traffic for this cycle; null when the carrier gives none. */
  totalKb: number | null;
  usedKb: number | null;
  expiresAt: Date | null;
  activatedAt: Date | null;
}

/** A carrier's card API. `null`: the carrier does not know the card. */
export interface CarrierAdapter {
  readonly name: IotCarrier;
  cardInfo(iccid: string): Promise<CarrierCardInfo | null>;
}

/**
 * A carrier call that failed: the carrier could not be reached, answered something that is
 * not its API, or refused with an error status. The message (with the carrier's own words)
 * is for the log; users get `readError` only.
 */
export class CarrierError extends Error {
  constructor(
    message: string,
    readonly status?: string,
    readonly kind: "unreachable" | "invalid" | "refused" = status ? "refused" : "unreachable",
  ) {
    super(message);
  }

  /** What the card's last_error keeps: a language-neutral code (IotCardReadError). */
  get readError(): string {
    return this.kind === "refused" && this.status ? `refused:${this.status}` : this.kind;
  }
}
