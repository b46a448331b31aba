import type { IotCardDetail } from "@keyway/shared";
import type { EChartOption } from "../../components/EChart.tsx";
import type { Translate } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";

/** Traffic used over the readings, against the plan, in MB. */
export function historyOption(detail: IotCardDetail, t: Translate): EChartOption {
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
