/** Time as a dependency, so rules about expiry and throttling can be tested. */
export interface Clock {
  now(): Date;
  /** now() as milliseconds, without a Date made (a hot path's). */
  ms(): number;
}

export const systemClock: Clock = { now: () => new Date(), ms: () => Date.now() };

/** A clock the tests move by hand. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | number = Date.now()) {
    this.current = typeof start === "number" ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  ms(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
