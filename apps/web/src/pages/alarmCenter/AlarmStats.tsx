import type { AlarmKanban } from "@keyway/shared";
import { Card, Col, Empty, Flex, Row, Skeleton, Statistic, Typography } from "antd";
import { useMemo } from "react";
import { EChart } from "../../components/EChart.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { chartOptions } from "./alarmChartOptions.ts";

/** The statistics card: three figures and the three charts of alarmKanban. */
export function AlarmStats({
  kanban,
  loading,
}: {
  kanban: AlarmKanban | undefined;
  loading: boolean;
}) {
  const { t } = useLang();
  const options = useMemo(() => (kanban ? chartOptions(kanban, t) : null), [kanban, t]);
  const today = kanban?.byDay.at(-1);
  return (
    <Card
      className="kw-card kw-mb"
      title={t("alarms.stats")}
      extra={
        kanban && (
          <Typography.Text type="secondary" className="kw-small" data-testid="alarm-stats-range">
            {t("alarms.statsRange", {
              start: formatDateTime(kanban.startTime),
              end: formatDateTime(kanban.endTime),
            })}
          </Typography.Text>
        )
      }
      data-testid="alarm-stats"
    >
      {loading || !kanban || !options ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : (
        <>
          <Row gutter={[16, 16]} className="kw-mb">
            <Col xs={8}>
              <Statistic
                title={t("alarms.statTotal")}
                value={kanban.total}
                {...({ "data-testid": "alarm-stat-total", "data-value": kanban.total } as object)}
              />
            </Col>
            <Col xs={8}>
              <Statistic
                title={t("alarms.statUnconfirmed")}
                value={kanban.unconfirmed}
                styles={{ content: { color: kanban.unconfirmed ? "#cf1322" : undefined } }}
                {...({
                  "data-testid": "alarm-stat-unconfirmed",
                  "data-value": kanban.unconfirmed,
                } as object)}
              />
            </Col>
            <Col xs={8}>
              <Statistic
                title={t("alarms.statCleared")}
                value={kanban.cleared}
                {...({
                  "data-testid": "alarm-stat-cleared",
                  "data-value": kanban.cleared,
                } as object)}
              />
            </Col>
          </Row>
          <Row gutter={[16, 16]}>
            <Col xs={24} lg={7}>
              <Typography.Text strong>{t("alarms.byLevel")}</Typography.Text>
              {kanban.total === 0 ? (
                <ChartEmpty />
              ) : (
                <EChart
                  option={options.byLevel}
                  data-testid="alarm-chart-level"
                  data-values={kanban.byLevel.map((l) => l.count).join(",")}
                />
              )}
            </Col>
            <Col xs={24} lg={8}>
              <Typography.Text strong>{t("alarms.byDevice")}</Typography.Text>
              {kanban.total === 0 ? (
                <ChartEmpty />
              ) : (
                <EChart
                  option={options.byDevice}
                  data-testid="alarm-chart-device"
                  data-values={kanban.byDevice.map((d) => `${d.machine_code}:${d.count}`).join(",")}
                />
              )}
            </Col>
            <Col xs={24} lg={9}>
              <Typography.Text strong>{t("alarms.byDay")}</Typography.Text>
              <EChart
                option={options.byDay}
                data-testid="alarm-chart-day"
                data-today={today?.count ?? 0}
                data-values={kanban.byDay.map((d) => d.count).join(",")}
              />
            </Col>
          </Row>
        </>
      )}
    </Card>
  );
}

function ChartEmpty() {
  const { t } = useLang();
  return (
    <Flex align="center" justify="center" className="kw-chart-empty">
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("alarms.chartEmpty")} />
    </Flex>
  );
}
