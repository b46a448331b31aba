import { PUSH_STATS_DAYS, type PushStats } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Card, Col, Empty, Row, Skeleton, Statistic, Tag, Typography } from "antd";
import { useMemo } from "react";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { queryKeys } from "../../api/keys.ts";
import { EChart, type EChartOption } from "../../components/EChart.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { type TextKey, type Translate, useLang } from "../../i18n/index.ts";

const COLORS = {
  smsSent: "#1677ff",
  smsFailed: "#ff7875",
  emailSent: "#13c2c2",
  emailFailed: "#ffc53d",
  used: "#722ed1",
  total: "#eb2f96",
};

/**
 * The data centre's push charts for the current context: SMS and e-mail alarm pushes per day
 * of the last 30 days (sent and not sent) and the SMS stock they used, with the totals.
 */
export function PushStatsTab({ eid }: { eid: number }) {
  const { t } = useLang();
  const stats = useQuery({
    queryKey: queryKeys.alarmPush(eid, "stats"),
    queryFn: () => alarmPushApi.statistics(eid),
    meta: { silent: true },
  });
  const data = stats.data;
  const options = useMemo(() => (data ? chartOptions(data, t) : null), [data, t]);

  if (stats.isError && !data)
    return (
      <div data-testid="push-stats-error">
        <ListEmpty error={stats.error.message} onRetry={() => stats.refetch()} description={null} />
      </div>
    );
  if (!data || !options)
    return (
      <div data-testid="push-stats-loading">
        <Skeleton active paragraph={{ rows: 8 }} />
      </div>
    );

  const { totals } = data;
  const sends = totals.smsSent + totals.smsFailed + totals.emailSent + totals.emailFailed;
  const figures: Array<{ title: TextKey; value: number; failed?: boolean; testId?: string }> = [
    { title: "pushStats.smsSent", value: totals.smsSent, testId: "push-stats-sms-sent" },
    { title: "pushStats.smsFailed", value: totals.smsFailed, failed: true },
    { title: "pushStats.emailSent", value: totals.emailSent, testId: "push-stats-email-sent" },
    { title: "pushStats.emailFailed", value: totals.emailFailed, failed: true },
    { title: "pushStats.smsUsed", value: totals.smsUsed },
    { title: "pushStats.balance", value: data.stock.balance, testId: "push-stats-balance" },
  ];
  return (
    <div data-testid="push-stats" data-scope={data.scope}>
      <Typography.Paragraph type="secondary">
        {t("pushStats.intro", { days: PUSH_STATS_DAYS })}{" "}
        <Tag color={data.scope === "enterprise" ? "purple" : "blue"}>
          {data.scope === "enterprise" ? t("pushStats.introEnterprise") : t("pushStats.introMine")}
        </Tag>
      </Typography.Paragraph>
      <Row gutter={[16, 16]} className="kw-mb">
        {figures.map((figure) => (
          <Col key={figure.title} xs={12} md={8} xl={4}>
            <Statistic
              title={t(figure.title)}
              value={figure.value}
              // Sends that did not go out are shown in red when there are any.
              styles={{ content: { color: figure.failed && figure.value ? "#cf1322" : undefined } }}
              {...(figure.testId ? { "data-testid": figure.testId } : {})}
            />
          </Col>
        ))}
      </Row>
      {sends === 0 ? (
        <Card className="kw-card" size="small">
          <Empty
            image={Empty.PRESENTED_IMAGE_SIMPLE}
            description={t("pushStats.empty", { days: PUSH_STATS_DAYS })}
            data-testid="push-stats-empty"
          />
        </Card>
      ) : (
        <Row gutter={[16, 16]}>
          <Col xs={24} xl={14}>
            <Card className="kw-card" size="small" title={t("pushStats.byDay")}>
              <EChart option={options.byDay} height={280} data-testid="push-stats-chart-day" />
              <Typography.Text type="secondary" className="kw-small">
                {t("pushStats.notSentHint")}
              </Typography.Text>
            </Card>
          </Col>
          <Col xs={24} xl={10}>
            <Card
              className="kw-card"
              size="small"
              title={t("pushStats.stockTitle")}
              extra={
                <Typography.Text type="secondary">
                  {t("pushStats.usedAll")}: {data.stock.used}
                </Typography.Text>
              }
            >
              <EChart option={options.stock} height={280} data-testid="push-stats-chart-stock" />
            </Card>
          </Col>
        </Row>
      )}
    </div>
  );
}

function chartOptions(data: PushStats, t: Translate) {
  const days = data.byDay.map((d) => d.day.slice(5));
  const bar = (name: string, stack: string, color: string, values: number[]) => ({
    name,
    type: "bar" as const,
    stack,
    barMaxWidth: 18,
    itemStyle: { color },
    data: values,
  });
  const byDay: EChartOption = {
    grid: { left: 40, right: 16, top: 40, bottom: 28 },
    tooltip: { trigger: "axis", axisPointer: { type: "shadow" } },
    legend: { top: 0, type: "scroll" },
    xAxis: { type: "category", data: days, axisLabel: { hideOverlap: true } },
    yAxis: { type: "value", minInterval: 1 },
    series: [
      bar(
        t("pushStats.smsSent"),
        "sms",
        COLORS.smsSent,
        data.byDay.map((d) => d.smsSent),
      ),
      bar(
        t("pushStats.smsFailed"),
        "sms",
        COLORS.smsFailed,
        data.byDay.map((d) => d.smsFailed),
      ),
      bar(
        t("pushStats.emailSent"),
        "email",
        COLORS.emailSent,
        data.byDay.map((d) => d.emailSent),
      ),
      bar(
        t("pushStats.emailFailed"),
        "email",
        COLORS.emailFailed,
        data.byDay.map((d) => d.emailFailed),
      ),
    ],
  };
  let running = 0;
  const cumulative = data.byDay.map((d) => {
    running += d.smsUsed;
    return running;
  });
  const stock: EChartOption = {
    grid: { left: 40, right: 40, top: 40, bottom: 28 },
    tooltip: { trigger: "axis" },
    legend: { top: 0 },
    xAxis: { type: "category", data: days, axisLabel: { hideOverlap: true } },
    yAxis: [
      { type: "value", minInterval: 1 },
      { type: "value", minInterval: 1, splitLine: { show: false } },
    ],
    series: [
      bar(
        t("pushStats.usedPerDay"),
        "used",
        COLORS.used,
        data.byDay.map((d) => d.smsUsed),
      ),
      {
        name: t("pushStats.usedTotal", { day: days[0] ?? "" }),
        type: "line",
        yAxisIndex: 1,
        smooth: true,
        symbol: "none",
        itemStyle: { color: COLORS.total },
        areaStyle: { opacity: 0.08 },
        data: cumulative,
      },
    ],
  };
  return { byDay, stock };
}
