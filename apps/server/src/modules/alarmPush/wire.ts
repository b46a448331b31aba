/** How the push calls spell values on the wire (SPEC §7): switches as 0 / 1, times in seconds. */
export const flag = (b: boolean): 0 | 1 => (b ? 1 : 0);
export const epoch = (d: Date) => Math.floor(d.getTime() / 1000);
