import type { SmsStockRecord } from "@keyway/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type TableProps, Typography } from "antd";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { OperateTag } from "./parts.tsx";
import { type ListProps, RecordTable, timeColumn } from "./recordParts.tsx";

/** Stock sales, or allocations and transfers between the pool and members. */
export function StockRecords({ kind, ...props }: ListProps & { kind: "sales" | "allocation" }) {
  const { t } = useLang();
  const records = useQuery({
    queryKey: queryKeys.alarmPush(props.query.eid, kind, props.query),
    queryFn: () =>
      kind === "sales" ? alarmPushApi.sales(props.query) : alarmPushApi.allocations(props.query),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
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
    <RecordTable<SmsStockRecord>
      records={records}
      columns={columns}
      kind={kind}
      scrollX={900}
      list={props}
    />
  );
}
