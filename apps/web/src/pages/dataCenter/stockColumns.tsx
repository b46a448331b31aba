import type { SmsStock } from "@keyway/shared";
import { Button, Space, type TableProps, Typography } from "antd";
import { useLang } from "../../i18n/index.ts";

/** A stock dialog and whom it opens on. */
export type StockDialog =
  | { kind: "allocate"; userId?: number }
  | { kind: "transfer"; fromUserId?: number };

/** The admin's stock table: each member's balance, with allocate and transfer. */
export function useStockColumns(
  setDialog: (dialog: StockDialog) => void,
): TableProps<SmsStock>["columns"] {
  const { t } = useLang();
  return [
    { title: t("alarmPush.stock.member"), dataIndex: "name", ellipsis: true },
    { title: t("field.account"), dataIndex: "account", ellipsis: true },
    {
      title: t("alarmPush.stock.balance"),
      dataIndex: "balance",
      width: 120,
      align: "right",
      render: (v: number) => <Typography.Text strong>{v}</Typography.Text>,
    },
    { title: t("alarmPush.stock.received"), dataIndex: "received", width: 120, align: "right" },
    { title: t("alarmPush.stock.used"), dataIndex: "used", width: 120, align: "right" },
    {
      title: t("common.action"),
      key: "action",
      width: 190,
      align: "center",
      render: (_: unknown, s) => (
        <Space size={0}>
          <Button
            type="link"
            size="small"
            onClick={() => setDialog({ kind: "allocate", userId: s.userId })}
            data-testid={`stock-allocate-${s.userId}`}
          >
            {t("alarmPush.stock.allocate")}
          </Button>
          <Button
            type="link"
            size="small"
            disabled={s.balance <= 0}
            onClick={() => setDialog({ kind: "transfer", fromUserId: s.userId })}
            data-testid={`stock-transfer-${s.userId}`}
          >
            {t("alarmPush.stock.transfer")}
          </Button>
        </Space>
      ),
    },
  ];
}
