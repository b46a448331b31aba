import { WalletOutlined } from "@ant-design/icons";
import { useQuery } from "@tanstack/react-query";
import { Card, Col, Row, Skeleton, Statistic, Typography } from "antd";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { queryKeys } from "../../api/keys.ts";
import { LoadFailed } from "../../components/LoadFailed.tsx";
import { useLang } from "../../i18n/index.ts";
import { AdminStock } from "./AdminStock.tsx";

/** The enterprise's SMS stock: admins see every member's balance, allocate and transfer. */
export function StockTab({ eid }: { eid: number }) {
  const entConfig = useQuery({
    queryKey: queryKeys.alarmPush(eid, "entConfig"),
    queryFn: () => alarmPushApi.entConfig(eid),
  });
  if (entConfig.isPending) return <Skeleton active paragraph={{ rows: 6 }} />;
  if (entConfig.data?.isAdmin) {
    return (
      <AdminStock
        eid={eid}
        pool={entConfig.data.poolBalance}
        allocated={entConfig.data.allocatedBalance}
      />
    );
  }
  return <MyStock eid={eid} />;
}

/** A member's own balance in the enterprise. */
function MyStock({ eid }: { eid: number }) {
  const { t } = useLang();
  const stock = useQuery({
    queryKey: queryKeys.alarmPush(eid, "myStock"),
    queryFn: () => alarmPushApi.userStock(eid),
  });
  return (
    <Card className="kw-card" data-testid="stock-mine">
      {stock.isError ? (
        <LoadFailed error={stock.error} onRetry={stock.refetch} />
      ) : !stock.data ? (
        <Skeleton active />
      ) : (
        <>
          <Row gutter={16}>
            <Col xs={8}>
              <Statistic
                title={t("alarmPush.stock.balance")}
                value={stock.data.balance}
                prefix={<WalletOutlined />}
              />
            </Col>
            <Col xs={8}>
              <Statistic title={t("alarmPush.stock.received")} value={stock.data.received} />
            </Col>
            <Col xs={8}>
              <Statistic title={t("alarmPush.stock.used")} value={stock.data.used} />
            </Col>
          </Row>
          <Typography.Paragraph type="secondary" className="kw-mt">
            {t("alarmPush.stock.mineHint")}
          </Typography.Paragraph>
        </>
      )}
    </Card>
  );
}
