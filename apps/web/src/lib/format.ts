import { DATE_FORMAT } from "@keyway/shared";
import dayjs from "dayjs";

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
