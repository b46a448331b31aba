import {
  CUSTOM_VISIT_MIN_MINUTES,
  VISIT_TIME_UNITS,
  type VisitTimeUnit,
  visitTimeField,
  visitTimeMinutes,
} from "@keyway/shared";
import { InputNumber, Select, Space } from "antd";
import { useLang } from "../i18n/index.ts";
import { zodValueRule } from "../lib/zodRule.tsx";

/** A visit time as typed: an amount and its unit (SPEC §4: minute, hour, day, forever). */
export interface VisitTimeValue {
  amount: number | null;
  unit: VisitTimeUnit;
}

export const DEFAULT_VISIT_TIME: VisitTimeValue = { amount: 1, unit: "hour" };

/** Minutes (-1 forever) of a typed visit time; NaN when nothing was typed. */
export function visitTimeOf(value: VisitTimeValue | undefined): number {
  if (!value) return Number.NaN;
  if (value.unit === "forever") return -1;
  return value.amount === null ? Number.NaN : visitTimeMinutes(value.amount, value.unit);
}

/** The typed value back from minutes (-1 forever): the largest unit that divides it. */
export function visitTimeValueOf(minutes: number | null | undefined): VisitTimeValue {
  if (minutes === -1) return { amount: null, unit: "forever" };
  if (!minutes || minutes < CUSTOM_VISIT_MIN_MINUTES) return DEFAULT_VISIT_TIME;
  if (minutes % (24 * 60) === 0) return { amount: minutes / (24 * 60), unit: "day" };
  if (minutes % 60 === 0) return { amount: minutes / 60, unit: "hour" };
  return { amount: minutes, unit: "minute" };
}

/** The shared rule: forever, or at least 10 minutes (visitTimeField of @keyway/shared). */
export const visitTimeRule = zodValueRule<VisitTimeValue | undefined>(visitTimeField, visitTimeOf);

/** Amount + unit picker; "forever" disables the amount. */
export function VisitTimeInput({
  value = DEFAULT_VISIT_TIME,
  onChange,
  testId,
  id,
}: {
  value?: VisitTimeValue;
  onChange?: (value: VisitTimeValue) => void;
  testId: string;
  id?: string;
}) {
  const { t } = useLang();
  const forever = value.unit === "forever";
  return (
    <Space.Compact>
      <InputNumber<number>
        id={id}
        min={1}
        precision={0}
        className="kw-w-140"
        disabled={forever}
        value={forever ? null : value.amount}
        placeholder={forever ? t("access.time.forever") : undefined}
        onChange={(amount) => onChange?.({ ...value, amount })}
        data-testid={`${testId}-amount`}
      />
      <Select<VisitTimeUnit>
        className="kw-w-140"
        value={value.unit}
        onChange={(unit) =>
          onChange?.({ unit, amount: unit === "forever" ? null : (value.amount ?? 1) })
        }
        options={VISIT_TIME_UNITS.map((unit) => ({
          value: unit,
          label: (
            <span data-testid={`${testId}-unit-${unit}`}>{t(`access.time.units.${unit}`)}</span>
          ),
        }))}
        data-testid={`${testId}-unit`}
      />
    </Space.Compact>
  );
}
