import { RightOutlined } from "@ant-design/icons";
import { formatTrafficKb, type IotCardTraffic } from "@keyway/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import {
  Button,
  Card,
  Col,
  Empty,
  Flex,
  Row,
  Segmented,
  Skeleton,
  Statistic,
  Typography,
} from "antd";
import { useMemo, useState } from "react";
import { useNavigate } from "react-router";
import { iotCardKeys, iotCardsApi } from "../../api/iotCards.ts";
import { EChart, type EChartOption } from "../../components/EChart.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { type Translate, useLang } from "../../i18n/index.ts";
import { iotCardPath, PATHS } from "../../paths.ts";
import { LagNote, STATE_CHART_COLORS, testId } from "../iotCards/parts.tsx";

const RANGES = [7, 30, 90] as const;

/**
 * The data centre's 4G card traffic of the current context: cards in use, traffic used and
 * left this cycle, warnings, and charts — traffic per day, the biggest users, cards by state.
 */
export function CardTrafficTab({ eid }: { eid: number }) {
  const { t } = useLang();
  const navigate = useNavigate();
  const [days, setDays] = useState<number>(30);
  const traffic = useQuery({
    queryKey: iotCardKeys.traffic(eid, days),
    queryFn: () => iotCardsApi.traffic(eid, days),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
  const data = traffic.data;
  const options = useMemo(() => (data ? chartOptions(data, t) : null), [data, t]);

  if (traffic.isError && !data)
    return (
      <div {...testId("dc-traffic-error")}>
        <ListEmpty
          error={traffic.error.message}
          onRetry={() => traffic.refetch()}
          description={null}
        />
      </div>
    );

  return (
    <div {...testId("dc-traffic")}>
      <Flex justify="space-between" align="center" wrap gap={12} className="kw-mb">
        <LagNote compact />
        <Flex gap={8} align="center">
          <Segmented
            value={days}
            onChange={(v) => setDays(Number(v))}
            options={RANGES.map((d) => ({ value: d, label: t("iotCard.range", { days: d }) }))}
            {...testId("dc-traffic-range")}
          />
          <Button onClick={() => navigate(PATHS.iotCard)} {...testId("dc-traffic-all")}>
            {t("iotCard.allCards")} <RightOutlined />
          </Button>
        </Flex>
      </Flex>
      {!data || !options ? (
        <Skeleton active paragraph={{ rows: 8 }} />
      ) : data.cards === 0 && data.byState.length === 0 ? (
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={t("iotCard.emptyAll")}
          {...testId("dc-traffic-empty")}
        />
      ) : (
        <>
          <Row gutter={[16, 16]} className="kw-mb">
            <Col xs={12} md={8} xl={4}>
              <Statistic
                title={t("iotCard.statCards")}
                value={data.cards}
                {...testId("dc-traffic-cards")}
              />
            </Col>
            <Col xs={12} md={8} xl={5}>
              <Statistic
                title={t("iotCard.statUsed")}
                value={formatTrafficKb(data.used_kb)}
                {...testId("dc-traffic-used")}
              />
            </Col>
            <Col xs={12} md={8} xl={5}>
              <Statistic title={t("iotCard.statLeft")} value={formatTrafficKb(data.left_kb)} />
            </Col>
            <Col xs={12} md={12} xl={5}>
              <Statistic
                title={t("iotCard.statLow")}
                value={data.low_traffic}
                styles={{ content: { color: data.low_traffic ? "#cf1322" : undefined } }}
                {...testId("dc-traffic-low")}
              />
            </Col>
            <Col xs={12} md={12} xl={5}>
              <Statistic
                title={t("iotCard.statExpiring")}
                value={data.expiring}
                styles={{ content: { color: data.expiring ? "#c41d7f" : undefined } }}
                {...testId("dc-traffic-expiring")}
              />
            </Col>
          </Row>
          <Row gutter={[16, 16]}>
            <Col xs={24}>
              <Card className="kw-card" size="small" title={t("iotCard.byDay")}>
                <EChart
                  option={options.byDay}
                  height={260}
                  {...testId("dc-traffic-chart-day")}
                  data-days={data.byDay.length}
                />
              </Card>
            </Col>
            <Col xs={24} lg={14}>
              <Card className="kw-card" size="small" title={t("iotCard.byCard")}>
                {data.byCard.length === 0 ? (
                  <Empty
                    image={Empty.PRESENTED_IMAGE_SIMPLE}
                    description={t("iotCard.chartEmpty")}
                  />
                ) : (
                  <EChart
                    option={options.byCard}
                    height={Math.max(200, data.byCard.length * 34 + 60)}
                    {...testId("dc-traffic-chart-card")}
                  />
                )}
                <Flex wrap gap={8} className="kw-mt-sm">
                  {data.byCard.map((c) => (
                    <Button
                      key={c.iccid}
                      size="small"
                      type="link"
                      onClick={() => navigate(iotCardPath(c.iccid))}
                      className="kw-link-compact"
                    >
                      {c.machine_name}
                    </Button>
                  ))}
                </Flex>
              </Card>
            </Col>
            <Col xs={24} lg={10}>
              <Card className="kw-card" size="small" title={t("iotCard.byState")}>
                <EChart
                  option={options.byState}
                  height={260}
                  {...testId("dc-traffic-chart-state")}
                />
              </Card>
            </Col>
          </Row>
        </>
      )}
      <Typography.Paragraph type="secondary" className="kw-small kw-mt-sm">
        {t("iotCard.byDayHint")}
      </Typography.Paragraph>
    </div>
  );
}

function chartOptions(data: IotCardTraffic, t: Translate) {
  const mb = (kb: number | null) => (kb === null ? 0 : Math.round((kb / 1024) * 10) / 10);
  const byDay: EChartOption = {
    grid: { left: 56, right: 16, top: 24, bottom: 28 },
    tooltip: { trigger: "axis", valueFormatter: (v) => `${v} MB` },
    xAxis: {
      type: "category",
      data: data.byDay.map((d) => d.day.slice(5)),
      axisLabel: { hideOverlap: true },
    },
    yAxis: { type: "value", name: "MB" },
    series: [
      {
        name: t("iotCard.used"),
        type: "bar",
        itemStyle: { color: "#1677ff" },
        data: data.byDay.map((d) => mb(d.used_kb)),
      },
    ],
  };
  const cards = [...data.byCard].reverse();
  const byCard: EChartOption = {
    grid: { left: 120, right: 24, top: 28, bottom: 24 },
    tooltip: { trigger: "axis", axisPointer: { type: "shadow" }, valueFormatter: (v) => `${v} MB` },
    legend: { top: 0, data: [t("iotCard.used"), t("iotCard.left")] },
    xAxis: { type: "value", name: "MB" },
    yAxis: {
      type: "category",
      data: cards.map((c) => c.machine_name),
      axisLabel: { width: 110, overflow: "truncate" },
    },
    series: [
      {
        name: t("iotCard.used"),
        type: "bar",
        stack: "plan",
        itemStyle: { color: "#1677ff" },
        data: cards.map((c) => mb(c.used_kb)),
      },
      {
        name: t("iotCard.left"),
        type: "bar",
        stack: "plan",
        itemStyle: { color: "#d9d9d9" },
        data: cards.map((c) => mb(c.left_kb)),
      },
    ],
  };
  const byState: EChartOption = {
    tooltip: { trigger: "item" },
    legend: { bottom: 0, type: "scroll" },
    series: [
      {
        type: "pie",
        radius: ["40%", "68%"],
        center: ["50%", "44%"],
        label: { formatter: "{c}" },
        data: data.byState.map((s) => ({
          name: t(`iotCard.states.${s.state}`),
          value: s.count,
          itemStyle: { color: STATE_CHART_COLORS[s.state] },
        })),
      },
    ],
  };
  return { byDay, byCard, byState };
}
