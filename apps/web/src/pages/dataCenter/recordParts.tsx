import { PAGE_SIZE } from "@keyway/shared";
import type { UseQueryResult } from "@tanstack/react-query";
import { Table, type TableProps } from "antd";
import type { RecordQuery } from "../../api/alarmPush.ts";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { MachineCode } from "../../features/device/MachineParts.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { errorText, rowsOf } from "./parts.tsx";

/** What each record list gets from the tab: the query (context, range, page) and paging. */
export interface ListProps {
  query: RecordQuery;
  admin: boolean;
  onPage: (page: number) => void;
}

/** The record lists' server paging, 10 a page. */
export function usePagination(query: RecordQuery, total: number, onPage: (page: number) => void) {
  const { t } = useLang();
  return {
    current: query.page,
    pageSize: query.pageSize ?? PAGE_SIZE.smsLogs,
    total,
    showSizeChanger: false,
    showTotal: (n: number) => t("alarmPush.total", { total: n }),
    onChange: onPage,
  };
}

export const timeColumn = (title: string) => ({
  title,
  dataIndex: "createTime",
  width: 170,
  render: (v: number) => <span className="kw-nowrap">{formatDateTime(v)}</span>,
});

/** A record's device: its name over its code. */
export function machineColumn<T extends { machineName: string; machineCode: string }>(
  title: string,
) {
  return {
    title,
    key: "machine",
    width: 220,
    render: (_: unknown, r: T) => (
      <div>
        <div className="kw-ellipsis">{r.machineName || "-"}</div>
        {r.machineCode && <MachineCode code={r.machineCode} />}
      </div>
    ),
  };
}

/** One record list: a page of the query's rows, its empty and error states, server paging. */
export function RecordTable<T extends { id: number }>(props: {
  records: UseQueryResult<{ list: T[]; total: number }>;
  columns: TableProps<T>["columns"];
  /** The rows' test id (record-row-<kind>). */
  kind: string;
  scrollX: number;
  list: ListProps;
}) {
  const { t } = useLang();
  const { records } = props;
  const { list, total } = rowsOf(records);
  return (
    <Table<T>
      rowKey="id"
      size="middle"
      columns={props.columns}
      dataSource={list}
      loading={records.isFetching}
      scroll={{ x: props.scrollX }}
      onRow={() =>
        ({ "data-testid": `record-row-${props.kind}` }) as React.HTMLAttributes<HTMLElement>
      }
      locale={{
        emptyText: (
          <ListEmpty
            error={errorText(records)}
            onRetry={() => records.refetch()}
            description={t("alarmPush.records.empty")}
          />
        ),
      }}
      pagination={usePagination(props.list.query, total, props.list.onPage)}
    />
  );
}
