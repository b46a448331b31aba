/** The SPEC's response envelope. */
export interface Envelope<T = unknown> {
  hwcode: number | string;
  hwdata: T;
  msg: string;
}

export function isSuccess(envelope: Pick<Envelope, "hwcode">): boolean {
  return String(envelope.hwcode) === "0";
}
