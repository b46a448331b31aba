/**
 * What the relay tells the visit activity recorder (issue 20, visits/activity.ts). The relay
 * calls these after the fact; they never throw and never wait on the database (rows are
 * written in batches). Nothing of bodies, query strings or headers is passed.
 */

/** One HTTP request through the relay, reported once its answer ended (or failed). */
export interface HttpActivity {
  visitId: string;
  deviceId: number;
  /** When the request arrived, in ms by the clock (defaults to its now). */
  atMs?: number;
  /** When the answer ended, in ms by the clock (defaults to its now). */
  endedAtMs?: number;
  method: string;
  /** The request target as received; the recorder drops the query string and caps it. */
  path: string;
  /** The device's status; 0 when no answer came (refused, tunnel gone). */
  status: number;
  /** Bytes of the answer (device → visitor). */
  bytesIn: number;
  /** Bytes of the request (visitor → device). */
  bytesOut: number;
  viewOnly: boolean;
}

/** A screen (VNC) session's counters, reported when it closes. */
export interface ScreenCounters {
  /** Device → viewer. */
  bytesIn: number;
  /** Viewer → device. */
  bytesOut: number;
  /** Key, pointer and clipboard messages passed to the device. */
  inputEvents: number;
  /** Input messages dropped (view only). */
  droppedEvents: number;
}

export interface ScreenOpen {
  visitId: string;
  deviceId: number;
  viewOnly: boolean;
  /** Defaults to the clock's now. */
  at?: Date;
  /**
   * The session's counters so far: read when the server closes with the session still open,
   * so that its row is completed (optional).
   */
  counters?: () => ScreenCounters;
}

/** A screen session in progress: `close` once, with its totals (later calls are ignored). */
export interface ScreenActivity {
  close(counters: ScreenCounters, endedAt?: Date): void;
}

export interface ActivityRecorder {
  http(entry: HttpActivity): void;
  /** A viewer's screen session began; its row is written when it closes. */
  screenOpen(entry: ScreenOpen): ScreenActivity;
}
