import { DATE_FORMAT } from "@keyway/shared";
import dayjs from "dayjs";
import relativeTime from "dayjs/plugin/relativeTime";
import utc from "dayjs/plugin/utc";

/** SPEC date format (YYYY-MM-DD HH:mm:ss) for ISO strings, epoch milliseconds or seconds. */
export function formatDateTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === "") return "-";
  let input: string | number = value;
  if (typeof value === "number" || /^\d+$/.test(value)) {
    const n = Number(value);
    input = n < 1e12 ? n * 1000 : n;
  }
  const date = dayjs(input);
  return date.isValid() ? date.format(DATE_FORMAT) : String(value);
}

dayjs.extend(relativeTime);
dayjs.extend(utc);

/** "3 minutes ago" in the current dayjs locale; null / invalid → undefined. */
export function formatRelative(
  value: string | null | undefined,
  now: number = Date.now(),
): string | undefined {
  if (!value) return undefined;
  const date = dayjs(value);
  return date.isValid() ? date.from(dayjs(now)) : undefined;
}

const OFFSET_ZONE = /^(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i;

/**
 * An instant (ISO) as YYYY-MM-DD HH:mm:ss on the wall clock of `zone` (an IANA zone such as
 * "Asia/Shanghai" or an offset such as "+08:00"). An unknown zone falls back to local time.
 */
export function formatInZone(value: string | null | undefined, zone: string | null | undefined) {
  if (!value) return "-";
  const date = dayjs(value);
  if (!date.isValid()) return String(value);
  const z = (zone ?? "").trim();
  if (z === "" || /^(?:UTC|GMT|Z)$/i.test(z)) return date.utc().format(DATE_FORMAT);
  const offset = OFFSET_ZONE.exec(z);
  if (offset) {
    const minutes = Number(offset[2]) * 60 + Number(offset[3] ?? 0);
    return date.utcOffset(offset[1] === "-" ? -minutes : minutes).format(DATE_FORMAT);
  }
  try {
    const parts = new Intl.DateTimeFormat("en-GB", {
      timeZone: z,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    }).formatToParts(date.toDate());
    const part = (type: Intl.DateTimeFormatPartTypes) =>
      parts.find((p) => p.type === type)?.value ?? "00";
    return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}:${part("second")}`;
  } catch {
    return date.format(DATE_FORMAT);
  }
}
