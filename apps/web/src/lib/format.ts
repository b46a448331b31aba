import { DATE_FORMAT, type Lang } from "@keyway/shared";
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

const BYTE_UNITS = ["B", "KB", "MB", "GB", "TB"] as const;

/** Bytes in binary units with 3 significant digits: 0 B, 512 B, 1.50 KB, 23.4 MB, 1.02 GB. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes <= 0) return "0 B";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${Math.round(value)} B`;
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${BYTE_UNITS[unit]}`;
}

/**
 * A duration as its two largest units: "45 s", "3 min 12 s", "2 h 5 min", "3 d 4 h" (en) or
 * "45秒", "3分12秒", "2小时5分", "3天4小时" (zh).
 */
export function formatDuration(ms: number | null | undefined, lang: Lang): string {
  const total = Math.max(0, Math.floor((ms ?? 0) / 1000));
  const units =
    lang === "en"
      ? { d: " d", h: " h", m: " min", s: " s", sep: " " }
      : { d: "天", h: "小时", m: "分", s: "秒", sep: "" };
  const parts: [number, string][] = [
    [Math.floor(total / 86_400), units.d],
    [Math.floor((total % 86_400) / 3600), units.h],
    [Math.floor((total % 3600) / 60), units.m],
    [total % 60, units.s],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  if (first < 0) return `0${units.s}`;
  return parts
    .slice(first, first + 2)
    .filter(([n], i) => i === 0 || n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join(units.sep);
}
