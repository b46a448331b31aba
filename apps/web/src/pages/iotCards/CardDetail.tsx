import { SyncOutlined } from "@ant-design/icons";
import { formatTrafficKb, type IotCardDetail } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  App,
  Button,
  Card,
  Col,
  Descriptions,
  Empty,
  Flex,
  Image,
  Progress,
  Row,
  Skeleton,
  Statistic,
  Tooltip,
  Typography,
} from "antd";
import { useMemo } from "react";
import { iotCardKeys, iotCardsApi } from "../../api/iotCards.ts";
import { EChart } from "../../components/EChart.tsx";
import { MachineCode } from "../../features/device/MachineParts.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { historyOption } from "./historyOption.ts";
import { CardStateTag, ExpiryText, LastRead, PlanName, testId } from "./parts.tsx";
import { WarningsCard } from "./WarningsCard.tsx";

/** One card's figures: identity, state, plan, traffic and its history, expiry, QR, read now. */
export function CardDetail({ detail, eid }: { detail: IotCardDetail; eid: number }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const card = detail.card;
  const qr = useQuery({
    queryKey: iotCardKeys.qr(eid, card.iccid),
    queryFn: () => iotCardsApi.qrCode(eid, card.iccid),
    staleTime: Number.POSITIVE_INFINITY,
    meta: { silent: true },
  });
  const refresh = useMutation({
    mutationFn: () => iotCardsApi.refresh(eid, card.iccid),
    onSuccess: () => message.success(t("iotCard.refreshed")),
    // A refusal (too soon, carrier down) still changed what the card shows.
    onSettled: () => queryClient.invalidateQueries({ queryKey: iotCardKeys.all(eid) }),
  });
  const history = useMemo(() => historyOption(detail, t), [detail, t]);
  const blocked = card.refresh_after !== null || card.card_state === "deleted";

  const refreshButton = (
    <Tooltip
      title={
        card.refresh_after
          ? t("iotCard.refreshAfter", { time: formatDateTime(card.refresh_after) })
          : undefined
      }
    >
      <Button
        icon={<SyncOutlined />}
        loading={refresh.isPending}
        disabled={blocked}
        onClick={() => refresh.mutate()}
        {...testId("iot-refresh")}
      >
        {t("iotCard.refresh")}
      </Button>
    </Tooltip>
  );

  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={16}>
        <Card
          className="kw-card kw-mb"
          title={t("iotCard.trafficTitle")}
          extra={refreshButton}
          {...testId("iot-detail-traffic")}
        >
          <Row gutter={[16, 16]} align="middle">
            <Col xs={24} md={6}>
              <Flex justify="center">
                <Progress
                  type="dashboard"
                  percent={card.used_percent ?? 0}
                  status={card.low_traffic ? "exception" : "normal"}
                  format={() => (card.used_percent === null ? "-" : `${card.used_percent}%`)}
                  size={130}
                />
              </Flex>
            </Col>
            <Col xs={8} md={6}>
              <Statistic
                title={t("iotCard.used")}
                value={formatTrafficKb(card.used_kb)}
                {...testId("iot-detail-used")}
              />
            </Col>
            <Col xs={8} md={6}>
              <Statistic
                title={t("iotCard.left")}
                value={formatTrafficKb(card.left_kb)}
                styles={{ content: { color: card.low_traffic ? "#cf1322" : undefined } }}
                {...testId("iot-detail-left")}
              />
            </Col>
            <Col xs={8} md={6}>
              <Statistic title={t("iotCard.planTotal")} value={formatTrafficKb(card.total_kb)} />
            </Col>
          </Row>
          <Typography.Text strong className="kw-block" style={{ marginBottom: 8 }}>
            {t("iotCard.history")}
          </Typography.Text>
          {detail.history.length === 0 ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("iotCard.historyEmpty")} />
          ) : (
            <EChart
              option={history}
              height={240}
              {...testId("iot-history-chart")}
              data-points={detail.history.length}
            />
          )}
        </Card>
        <WarningsCard warnings={detail.warnings} />
      </Col>
      <Col xs={24} xl={8}>
        <Card
          className="kw-card kw-mb"
          title={t("iotCard.cardInfo")}
          {...testId("iot-detail-info")}
        >
          <Descriptions column={1} size="small" styles={{ label: { width: 130 } }}>
            <Descriptions.Item label={t("iotCard.iccid")}>
              <Typography.Text copyable className="kw-code">
                {card.iccid}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t("iotCard.msisdn")}>{card.msisdn || "-"}</Descriptions.Item>
            <Descriptions.Item label={t("iotCard.imsi")}>{card.imsi || "-"}</Descriptions.Item>
            <Descriptions.Item label={t("iotCard.device")}>
              <Flex vertical>
                {card.machine_name !== card.machine_code && <span>{card.machine_name}</span>}
                <MachineCode code={card.machine_code} />
              </Flex>
            </Descriptions.Item>
            <Descriptions.Item label={t("iotCard.state")}>
              <CardStateTag state={card.card_state} />
            </Descriptions.Item>
            <Descriptions.Item label={t("iotCard.carrier")}>
              {t(`iotCard.carriers.${card.carrier}`)}
            </Descriptions.Item>
            <Descriptions.Item label={t("iotCard.plan")}>
              <PlanName name={card.plan_name} />
            </Descriptions.Item>
            <Descriptions.Item label={t("iotCard.expiry")}>
              <ExpiryText card={card} />
            </Descriptions.Item>
            <Descriptions.Item label={t("iotCard.activated")}>
              {card.active_time ? formatDateTime(card.active_time).slice(0, 10) : "-"}
            </Descriptions.Item>
            <Descriptions.Item label={t("iotCard.lastRead")}>
              <LastRead card={card} />
            </Descriptions.Item>
          </Descriptions>
        </Card>
        <Card className="kw-card" title={t("iotCard.qr")} {...testId("iot-detail-qr")}>
          <Flex vertical align="center" gap={8}>
            {qr.data ? (
              <Image
                src={qr.data.image}
                width={180}
                preview={false}
                alt={qr.data.content}
                {...testId("iot-qr-image")}
              />
            ) : qr.isError ? (
              <Typography.Text type="secondary">{qr.error.message}</Typography.Text>
            ) : (
              <Skeleton.Image active />
            )}
            <Typography.Text type="secondary" className="kw-small">
              {t("iotCard.qrHint")}
            </Typography.Text>
          </Flex>
        </Card>
      </Col>
    </Row>
  );
}
