import type { EmailSendRecord, SmsSendRecord } from "@keyway/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type TableProps, Typography } from "antd";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { SendStatusTag } from "./parts.tsx";
import { type ListProps, machineColumn, RecordTable, timeColumn } from "./recordParts.tsx";

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
    <RecordTable<SmsSendRecord>
      records={records}
      columns={columns}
      kind="sms"
      scrollX={1000}
      list={props}
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
    <RecordTable<EmailSendRecord>
      records={records}
      columns={columns}
      kind="email"
      scrollX={900}
      list={props}
    />
  );
}
