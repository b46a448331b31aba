import type { EmailSendRecord, SmsSendRecord } from "@keyway/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Table, type TableProps, Typography } from "antd";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { queryKeys } from "../../api/keys.ts";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { errorText, rowsOf, SendStatusTag } from "./parts.tsx";
import { type ListProps, machineColumn, timeColumn, usePagination } from "./recordParts.tsx";

/** SMS sends: the caller's, or the enterprise's for an admin. */
export function SmsRecords(props: ListProps) {
  const { t } = useLang();
  const records = useQuery({
    queryKey: queryKeys.alarmPush(props.query.eid, "smsLog", { ...props.query, a: props.admin }),
    queryFn: () =>
      props.admin ? alarmPushApi.entSmsLog(props.query) : alarmPushApi.smsLog(props.query),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
  const { list, total } = rowsOf(records);
  const columns: TableProps<SmsSendRecord>["columns"] = [
    timeColumn(t("alarmPush.records.time")),
    machineColumn<SmsSendRecord>(t("alarmPush.records.device")),
    {
      title: t("alarmPush.records.recipient"),
      key: "to",
      width: 170,
      render: (_: unknown, r) => (
        <div>
          <div>{r.name || "-"}</div>
          <Typography.Text type="secondary" className="kw-code">
            {r.phone}
          </Typography.Text>
        </div>
      ),
    },
    {
      title: t("alarmPush.records.content"),
      dataIndex: "content",
      ellipsis: true,
    },
    {
      title: t("alarmPush.records.segments"),
      dataIndex: "segments",
      width: 90,
      align: "right",
    },
    {
      title: t("alarmPush.records.status"),
      key: "status",
      width: 170,
      render: (_: unknown, r) => <SendStatusTag status={r.status} reason={r.reasonText} />,
    },
  ];
  return (
    <Table<SmsSendRecord>
      rowKey="id"
      size="middle"
      columns={columns}
      dataSource={list}
      loading={records.isFetching}
      scroll={{ x: 1000 }}
      onRow={() => ({ "data-testid": "record-row-sms" }) as React.HTMLAttributes<HTMLElement>}
      locale={{
        emptyText: (
          <ListEmpty
            error={errorText(records)}
            onRetry={() => records.refetch()}
            description={t("alarmPush.records.empty")}
          />
        ),
      }}
      pagination={usePagination(props.query, total, props.onPage)}
    />
  );
}

/** E-mail sends: the caller's, or the enterprise's for an admin. */
export function EmailRecords(props: ListProps) {
  const { t } = useLang();
  const records = useQuery({
    queryKey: queryKeys.alarmPush(props.query.eid, "emailLog", { ...props.query, a: props.admin }),
    queryFn: () =>
      props.admin ? alarmPushApi.entEmailLog(props.query) : alarmPushApi.emailLog(props.query),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
  const { list, total } = rowsOf(records);
  const columns: TableProps<EmailSendRecord>["columns"] = [
    timeColumn(t("alarmPush.records.time")),
    machineColumn<EmailSendRecord>(t("alarmPush.records.device")),
    {
      title: t("alarmPush.records.recipient"),
      key: "to",
      width: 220,
      render: (_: unknown, r) => (
        <div>
          <div>{r.name || "-"}</div>
          <Typography.Text type="secondary">{r.email}</Typography.Text>
        </div>
      ),
    },
    {
      title: t("alarmPush.records.subject"),
      dataIndex: "subject",
      ellipsis: true,
    },
    {
      title: t("alarmPush.records.status"),
      key: "status",
      width: 170,
      render: (_: unknown, r) => <SendStatusTag status={r.status} reason={r.reasonText} />,
    },
  ];
  return (
    <Table<EmailSendRecord>
      rowKey="id"
      size="middle"
      columns={columns}
      dataSource={list}
      loading={records.isFetching}
      scroll={{ x: 900 }}
      onRow={() => ({ "data-testid": "record-row-email" }) as React.HTMLAttributes<HTMLElement>}
      locale={{
        emptyText: (
          <ListEmpty
            error={errorText(records)}
            onRetry={() => records.refetch()}
            description={t("alarmPush.records.empty")}
          />
        ),
      }}
      pagination={usePagination(props.query, total, props.onPage)}
    />
  );
}
