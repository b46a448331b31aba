import type { IotCardWarningView } from "@keyway/shared";
import { Card, Empty, Table, type TableProps, Tag } from "antd";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { testId } from "./parts.tsx";

/** The warnings the card raised (low traffic, expiry), and whether they cleared. */
export function WarningsCard({ warnings }: { warnings: IotCardWarningView[] }) {
  const { t } = useLang();
  const columns: TableProps<IotCardWarningView>["columns"] = [
    {
      title: t("iotCard.warningTime"),
      dataIndex: "time",
      width: 170,
      render: (v: string) => <span className="kw-nowrap">{formatDateTime(v)}</span>,
    },
    {
      title: t("iotCard.warningKind"),
      dataIndex: "kind",
      width: 120,
      render: (kind: IotCardWarningView["kind"]) => (
        <Tag color={kind === "lowTraffic" ? "red" : "magenta"} className="kw-tag-tight">
          {t(`iotCard.kinds.${kind}`)}
        </Tag>
      ),
    },
    {
      title: t("iotCard.warningContent"),
      dataIndex: "content",
      render: (v: string) => <span className="kw-break">{v}</span>,
    },
    {
      title: t("iotCard.warningState"),
      key: "state",
      width: 100,
      render: (_: unknown, w) => (
        <Tag color={w.cleared ? "default" : "red"} className="kw-tag-tight">
          {t(w.cleared ? "iotCard.cleared" : "iotCard.active")}
        </Tag>
      ),
    },
  ];
  return (
    <Card className="kw-card" title={t("iotCard.warnings")} {...testId("iot-detail-warnings")}>
      <Table<IotCardWarningView>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={warnings}
        pagination={false}
        scroll={{ x: 640 }}
        locale={{
          emptyText: (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("iotCard.warningsEmpty")} />
          ),
        }}
      />
    </Card>
  );
}
