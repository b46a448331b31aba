import type { EmailSendRecord, SmsSendRecord, SmsStockRecord } from "@keyway/shared";
import { PAGE_SIZE } from "@keyway/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Card, DatePicker, Flex, Segmented, Table, type TableProps, Typography } from "antd";
import type { Dayjs } from "dayjs";
import { useState } from "react";
import { alarmPushApi, type RecordQuery } from "../../api/alarmPush.ts";
import { queryKeys } from "../../api/keys.ts";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { MachineCode } from "../devices/MachineParts.tsx";
import { errorText, OperateTag, rangeToSeconds, rowsOf, SendStatusTag } from "./parts.tsx";

type Kind = "sales" | "allocation" | "sms" | "email";
type Range = [Dayjs | null, Dayjs | null] | null;

/**
 * Records of the context with a date range: stock sales, allocations and transfers
 * (enterprise admins), SMS sends and e-mail sends. Newest first, 10 a page (SPEC §9 SMS logs);
 * times are epoch seconds shown as local YYYY-MM-DD HH:mm:ss.
 */
export function RecordsTab({ eid }: { eid: number }) {
  const { t } = useLang();
  const entConfig = useQuery({
    queryKey: queryKeys.alarmPush(eid, "entConfig"),
    queryFn: () => alarmPushApi.entConfig(eid),
    enabled: eid !== 0,
    meta: { silent: true },
  });
  const admin = eid !== 0 && entConfig.data?.isAdmin === true;
  // Personal: sales to the caller and the caller's sends. Enterprise: stock records are the
  // admins'; a member sees the sends made for them.
  const kinds: Kind[] =
    eid === 0
      ? ["sales", "sms", "email"]
      : admin
        ? ["sales", "allocation", "sms", "email"]
        : ["sms", "email"];
  const [chosen, setChosen] = useState<Kind>("sms");
  const kind = kinds.includes(chosen) ? chosen : "sms";
  const [range, setRange] = useState<Range>(null);
  const [page, setPage] = useState(1);

  const query: RecordQuery = {
    eid,
    ...rangeToSeconds(range),
    page,
    pageSize: PAGE_SIZE.smsLogs,
  };

  return (
    <Card className="kw-card" data-testid="records">
      <Flex wrap gap={12} align="center" className="kw-toolbar">
        <Segmented<Kind>
          value={kind}
          onChange={(value) => {
            setChosen(value);
            setPage(1);
          }}
          options={kinds.map((k) => ({
            value: k,
            label: <span data-testid={`records-kind-${k}`}>{t(`alarmPush.records.${k}`)}</span>,
          }))}
        />
        <div className="kw-grow" />
        <DatePicker.RangePicker
          value={range}
          onChange={(value) => {
            setRange(value);
            setPage(1);
          }}
          allowEmpty={[false, false]}
          placeholder={[t("alarmPush.records.start"), t("alarmPush.records.end")]}
          data-testid="records-range"
        />
      </Flex>
      {kind === "sales" || kind === "allocation" ? (
        <StockRecords kind={kind} query={query} admin={admin} onPage={setPage} />
      ) : kind === "sms" ? (
        <SmsRecords query={query} admin={admin} onPage={setPage} />
      ) : (
        <EmailRecords query={query} admin={admin} onPage={setPage} />
      )}
    </Card>
  );
}

interface ListProps {
  query: RecordQuery;
  admin: boolean;
  onPage: (page: number) => void;
}

function usePagination(query: RecordQuery, total: number, onPage: (page: number) => void) {
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

const timeColumn = (title: string) => ({
  title,
  dataIndex: "createTime",
  width: 170,
  render: (v: number) => <span className="kw-nowrap">{formatDateTime(v)}</span>,
});

function StockRecords({ kind, ...props }: ListProps & { kind: "sales" | "allocation" }) {
  const { t } = useLang();
  const records = useQuery({
    queryKey: queryKeys.alarmPush(props.query.eid, kind, props.query),
    queryFn: () =>
      kind === "sales" ? alarmPushApi.sales(props.query) : alarmPushApi.allocations(props.query),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
  const { list, total } = rowsOf(records);
  const party = (userId: number, name: string) =>
    userId === 0 ? (
      <Typography.Text type="secondary">{t("alarmPush.stock.pool")}</Typography.Text>
    ) : (
      name || `#${userId}`
    );
  const columns: TableProps<SmsStockRecord>["columns"] = [
    timeColumn(t("alarmPush.records.time")),
    {
      title: t("alarmPush.records.operate"),
      dataIndex: "operate",
      width: 110,
      render: (v: SmsStockRecord["operate"]) => <OperateTag operate={v} />,
    },
    ...(kind === "sales"
      ? [
          {
            title: t("alarmPush.records.buyer"),
            key: "buyer",
            ellipsis: true,
            render: (_: unknown, r: SmsStockRecord) =>
              r.toUserId === 0 ? r.enterpriseName || `#${r.eid}` : r.toName || `#${r.toUserId}`,
          },
        ]
      : [
          {
            title: t("alarmPush.stock.from"),
            key: "from",
            ellipsis: true,
            render: (_: unknown, r: SmsStockRecord) => party(r.fromUserId, r.fromName),
          },
          {
            title: t("alarmPush.stock.to"),
            key: "to",
            ellipsis: true,
            render: (_: unknown, r: SmsStockRecord) => party(r.toUserId, r.toName),
          },
        ]),
    {
      title: t("alarmPush.stock.amount"),
      dataIndex: "amount",
      width: 110,
      align: "right" as const,
    },
    {
      title: t("alarmPush.records.operator"),
      dataIndex: "operatorName",
      width: 140,
      ellipsis: true,
      render: (v: string) => v || "-",
    },
    {
      title: t("device.remark"),
      dataIndex: "remark",
      ellipsis: true,
      render: (v: string) => v || "-",
    },
  ];
  return (
    <Table<SmsStockRecord>
      rowKey="id"
      size="middle"
      columns={columns}
      dataSource={list}
      loading={records.isFetching}
      scroll={{ x: 900 }}
      onRow={() => ({ "data-testid": `record-row-${kind}` }) as React.HTMLAttributes<HTMLElement>}
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

function machineColumn<T extends { machineName: string; machineCode: string }>(title: string) {
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

function SmsRecords(props: ListProps) {
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

function EmailRecords(props: ListProps) {
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
