import { ArrowLeftOutlined, CreditCardOutlined, SyncOutlined } from "@ant-design/icons";
import { formatTrafficKb, HW, type IotCardDetail, type IotCardWarningView } from "@keyway/shared";
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
  Result,
  Row,
  Skeleton,
  Statistic,
  Table,
  type TableProps,
  Tag,
  Tooltip,
  Typography,
} from "antd";
import { useMemo } from "react";
import { useNavigate, useParams } from "react-router";
import { ApiError } from "../../api/errors.ts";
import { iotCardKeys, iotCardsApi } from "../../api/iotCards.ts";
import { EChart, type EChartOption } from "../../components/EChart.tsx";
import { type Translate, useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { PATHS } from "../../paths.ts";
import { selectCurrentContext, useAppStore } from "../../store/app.ts";
import { MachineCode } from "../devices/MachineParts.tsx";
import {
  CardStateTag,
  ExpiryText,
  LagNote,
  LastRead,
  PlanName,
  testId,
  WarningTags,
} from "./parts.tsx";

/**
 * /iotCard/:iccid: one card — identity, state, plan, traffic used / left with its history
 * this month, plan expiry, the warnings it raised, its QR code for the phone app, and a
 * "read now" limited to once an hour (the carriers' figures lag 6-12 hours anyway).
 */
export function IotCardDetailPage() {
  const { t } = useLang();
  const navigate = useNavigate();
  const { iccid = "" } = useParams();
  const eid = useAppStore(selectCurrentContext).eid;
  const detail = useQuery({
    queryKey: iotCardKeys.detail(eid, iccid),
    queryFn: () => iotCardsApi.info(eid, iccid),
    meta: { silent: true },
  });

  const back = (
    <Button
      type="link"
      icon={<ArrowLeftOutlined />}
      onClick={() => navigate(PATHS.iotCard)}
      className="kw-link-compact"
      {...testId("iot-back")}
    >
      {t("iotCard.back")}
    </Button>
  );

  if (detail.isError && !detail.data) {
    const missing =
      detail.error instanceof ApiError &&
      (detail.error.is(HW.IOT_CARD_NOT_FOUND.code) || detail.error.is(HW.BAD_REQUEST.code));
    return (
      <div className="kw-page kw-page-wide" {...testId("iot-detail-page")}>
        {back}
        <Result
          status={missing ? "404" : "warning"}
          title={missing ? t("iotCard.notFound") : t("iotCard.loadFailed")}
          subTitle={detail.error.message}
          extra={
            missing ? undefined : (
              <Button onClick={() => detail.refetch()}>{t("common.retry")}</Button>
            )
          }
          {...testId("iot-detail-error")}
        />
      </div>
    );
  }

  return (
    <div className="kw-page kw-page-wide" {...testId("iot-detail-page")}>
      {back}
      <Flex align="baseline" gap={12} wrap className="kw-page-head">
        <Typography.Title level={4} className="kw-page-title">
          <CreditCardOutlined /> {t("iotCard.detailTitle", { iccid })}
        </Typography.Title>
        {detail.data && <CardStateTag state={detail.data.card.card_state} />}
        {detail.data && <WarningTags card={detail.data.card} />}
      </Flex>
      <LagNote />
      {!detail.data ? (
        <Card className="kw-card">
          <Skeleton active paragraph={{ rows: 10 }} />
        </Card>
      ) : (
        <CardDetail detail={detail.data} eid={eid} />
      )}
    </div>
  );
}

function CardDetail({ detail, eid }: { detail: IotCardDetail; eid: number }) {
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

function WarningsCard({ warnings }: { warnings: IotCardWarningView[] }) {
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

/** Traffic used over the readings, against the plan, in MB. */
function historyOption(detail: IotCardDetail, t: Translate): EChartOption {
  const mb = (kb: number | null) => (kb === null ? null : Math.round((kb / 1024) * 10) / 10);
  const times = detail.history.map((h) => formatDateTime(h.time).slice(5, 16));
  return {
    grid: { left: 56, right: 16, top: 32, bottom: 28 },
    tooltip: { trigger: "axis" },
    legend: { top: 0, data: [t("iotCard.used"), t("iotCard.planTotal")] },
    xAxis: { type: "category", data: times, axisLabel: { hideOverlap: true } },
    yAxis: { type: "value", name: "MB" },
    series: [
      {
        name: t("iotCard.used"),
        type: "line",
        smooth: true,
        areaStyle: { opacity: 0.15 },
        data: detail.history.map((h) => mb(h.used_kb)),
      },
      {
        name: t("iotCard.planTotal"),
        type: "line",
        step: "end",
        symbol: "none",
        lineStyle: { type: "dashed" },
        data: detail.history.map((h) => mb(h.total_kb)),
      },
    ],
  };
}
