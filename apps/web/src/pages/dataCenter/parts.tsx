import type { SendStatus, StockOperate } from "@keyway/shared";
import type { UseQueryResult } from "@tanstack/react-query";
import { Tag, Tooltip } from "antd";
import type { Dayjs } from "dayjs";
import type { ReactNode } from "react";
import type { TimeRange } from "../../api/alarmPush.ts";
import { useLang } from "../../i18n/index.ts";

/** A setting line: icon, label, value/hint, and a control at the end. */
export function SettingRow(props: {
  icon: ReactNode;
  label: ReactNode;
  hint?: ReactNode;
  action: ReactNode;
  testId?: string;
}) {
  return (
    <div className="kw-setting-row" data-testid={props.testId}>
      <span className="kw-setting-icon">{props.icon}</span>
      <div className="kw-setting-main">
        <div className="kw-setting-value">{props.label}</div>
        {props.hint && <div className="kw-setting-hint">{props.hint}</div>}
      </div>
      <div className="kw-setting-action">{props.action}</div>
    </div>
  );
}

/**
 * The rows of a list call. SPEC §7: "The lists are filled only when hwcode is 0; otherwise
 * they are emptied" — a failed call shows no rows, not the previous page's.
 */
export function rowsOf<T>(query: UseQueryResult<{ list: T[]; total: number }>): {
  list: T[];
  total: number;
} {
  if (query.isError || !query.data) return { list: [], total: 0 };
  return { list: query.data.list ?? [], total: query.data.total ?? 0 };
}

/** The load error's text of a query, for ListEmpty. */
export function errorText(query: UseQueryResult<unknown>): string | null {
  return query.isError ? query.error.message : null;
}

/** A RangePicker's days as epoch seconds: the first day's start to the last day's end (local). */
export function rangeToSeconds(range: [Dayjs | null, Dayjs | null] | null): TimeRange {
  if (!range?.[0] || !range[1]) return {};
  return {
    startTime: range[0].startOf("day").unix(),
    endTime: range[1].endOf("day").unix(),
  };
}

const STATUS_COLORS: Record<SendStatus, string> = {
  pending: "default",
  sending: "processing",
  sent: "success",
  skipped: "warning",
  failed: "error",
  uncertain: "orange",
};

/** A send's status; the reason (e.g. "SMS daily limit exceeded") in a tooltip and below. */
export function SendStatusTag({ status, reason }: { status: SendStatus; reason: string }) {
  const { t } = useLang();
  const tag = (
    <Tag color={STATUS_COLORS[status] ?? "default"} data-testid="send-status">
      {t(`alarmPush.status.${status}`, { defaultValue: status })}
    </Tag>
  );
  return reason ? (
    <Tooltip title={reason}>
      <span>
        {tag}
        <div className="kw-dc-reason">{reason}</div>
      </span>
    </Tooltip>
  ) : (
    tag
  );
}

const OPERATE_COLORS: Record<StockOperate, string> = {
  sale: "green",
  allocate: "blue",
  transfer: "purple",
};

/** SPEC "operate" of a stock record. */
export function OperateTag({ operate }: { operate: StockOperate }) {
  const { t } = useLang();
  return (
    <Tag color={OPERATE_COLORS[operate] ?? "default"}>
      {t(`alarmPush.operate.${operate}`, { defaultValue: operate })}
    </Tag>
  );
}
