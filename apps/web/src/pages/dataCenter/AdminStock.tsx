import { SendOutlined, SwapOutlined, WalletOutlined } from "@ant-design/icons";
import type { SmsStock } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Button, Card, Col, Flex, Row, Statistic, Table, Typography } from "antd";
import { useMemo, useState } from "react";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { enterpriseAdminApi } from "../../api/enterprises.ts";
import { queryKeys } from "../../api/keys.ts";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { AllocateModal } from "./AllocateModal.tsx";
import { errorText } from "./parts.tsx";
import { type StockDialog, useStockColumns } from "./stockColumns.tsx";
import { TransferModal } from "./TransferModal.tsx";

/** The admin's view: the pool, what was allocated, every member's balance. */
export function AdminStock({
  eid,
  pool,
  allocated,
}: {
  eid: number;
  pool: number;
  allocated: number;
}) {
  const { t } = useLang();
  const [dialog, setDialog] = useState<StockDialog | null>(null);
  const stock = useQuery({
    queryKey: queryKeys.alarmPush(eid, "stockList"),
    queryFn: () => alarmPushApi.stockList(eid),
    meta: { silent: true },
  });
  const members = useQuery({
    queryKey: queryKeys.adminMembers(eid),
    queryFn: () => enterpriseAdminApi.members(eid),
    meta: { silent: true },
  });

  // Every member, with a zero balance when nothing was allocated to them yet.
  const rows = useMemo<SmsStock[]>(() => {
    if (stock.isError) return [];
    const byUser = new Map<number, SmsStock>();
    for (const s of stock.data?.list ?? []) if (s.userId !== 0) byUser.set(s.userId, s);
    for (const m of members.data?.list ?? []) {
      if (!byUser.has(m.userId)) {
        byUser.set(m.userId, {
          eid,
          userId: m.userId,
          name: m.name,
          account: m.account,
          balance: 0,
          received: 0,
          used: 0,
        });
      }
    }
    return [...byUser.values()];
  }, [stock.data, stock.isError, members.data, eid]);

  const columns = useStockColumns(setDialog);

  return (
    <Flex vertical gap={16} data-testid="stock-admin">
      <Card className="kw-card">
        <Row gutter={16} align="middle">
          <Col xs={12} md={6}>
            <Statistic
              title={t("alarmPush.stock.pool")}
              value={pool}
              prefix={<WalletOutlined />}
              data-testid="stock-pool"
            />
          </Col>
          <Col xs={12} md={6}>
            <Statistic title={t("alarmPush.stock.allocated")} value={allocated} />
          </Col>
          <Col xs={24} md={12}>
            <Flex gap={8} justify="flex-end" wrap>
              <Button
                type="primary"
                icon={<SendOutlined />}
                onClick={() => setDialog({ kind: "allocate" })}
                data-testid="stock-allocate"
              >
                {t("alarmPush.stock.allocate")}
              </Button>
              <Button
                icon={<SwapOutlined />}
                onClick={() => setDialog({ kind: "transfer" })}
                data-testid="stock-transfer"
              >
                {t("alarmPush.stock.transfer")}
              </Button>
            </Flex>
          </Col>
        </Row>
        <Typography.Paragraph type="secondary" className="kw-mt">
          {t("alarmPush.stock.poolHint")}
        </Typography.Paragraph>
      </Card>
      <Card className="kw-card" title={t("alarmPush.stock.tableTitle")}>
        <Table<SmsStock>
          rowKey="userId"
          size="middle"
          columns={columns}
          dataSource={rows}
          loading={stock.isFetching || members.isFetching}
          pagination={false}
          scroll={{ x: 760 }}
          onRow={(s) =>
            ({
              "data-testid": `stock-row-${s.userId}`,
              "data-name": s.name,
            }) as React.HTMLAttributes<HTMLElement>
          }
          locale={{
            emptyText: (
              <ListEmpty
                error={errorText(stock)}
                onRetry={() => stock.refetch()}
                description={t("alarmPush.stock.empty")}
              />
            ),
          }}
        />
      </Card>
      <AllocateModal
        eid={eid}
        pool={pool}
        members={rows}
        open={dialog?.kind === "allocate"}
        userId={dialog?.kind === "allocate" ? dialog.userId : undefined}
        onClose={() => setDialog(null)}
      />
      <TransferModal
        eid={eid}
        members={rows}
        open={dialog?.kind === "transfer"}
        fromUserId={dialog?.kind === "transfer" ? dialog.fromUserId : undefined}
        onClose={() => setDialog(null)}
      />
    </Flex>
  );
}
