import type { AlarmKanban } from "@keyway/shared";
import type { EChartOption } from "../../components/EChart.tsx";
import { LEVEL_CHART_COLORS } from "../../features/alarm/alarmParts.tsx";
import type { useLang } from "../../i18n/index.ts";

/** The three charts of the statistics card (by level, by device, by day) from alarmKanban. */
export function chartOptions(
  kanban: AlarmKanban,
  t: ReturnType<typeof useLang>["t"],
): { byLevel: EChartOption; byDevice: EChartOption; byDay: EChartOption } {
  const count = t("alarms.count");
  const devices = [...kanban.byDevice].reverse();
  return {
    byLevel: {
      tooltip: { trigger: "item" },
      legend: {
        bottom: 0,
        icon: "circle",
        itemWidth: 8,
        itemHeight: 8,
      },
      series: [
        {
          type: "pie",
          name: count,
          radius: ["42%", "70%"],
          center: ["50%", "44%"],
          label: { formatter: "{c}" },
          // Empty bands draw no slice (nor a "0" label).
          data: kanban.byLevel
            .filter((l) => l.count > 0)
            .map((l) => ({
              name: t(`device.alarm.levels.${l.level}`),
              value: l.count,
              itemStyle: { color: LEVEL_CHART_COLORS[l.level] },
            })),
        },
      ],
    },
    byDevice: {
      tooltip: { trigger: "axis", axisPointer: { type: "shadow" } },
      grid: { left: 8, right: 24, top: 8, bottom: 8, containLabel: true },
      xAxis: { type: "value", minInterval: 1 },
      yAxis: {
        type: "category",
        data: devices.map((d) => d.machine_name),
        axisLabel: { width: 90, overflow: "truncate" },
      },
      series: [
        {
          type: "bar",
          name: count,
          data: devices.map((d) => d.count),
          itemStyle: { color: "#1677ff", borderRadius: [0, 3, 3, 0] },
          barMaxWidth: 18,
          label: { show: true, position: "right" },
        },
      ],
    },
    byDay: {
      tooltip: { trigger: "axis" },
      grid: { left: 8, right: 16, top: 16, bottom: 8, containLabel: true },
      xAxis: {
        type: "category",
        data: kanban.byDay.map((d) => d.day.slice(5)),
        axisTick: { alignWithLabel: true },
      },
      yAxis: { type: "value", minInterval: 1 },
      series: [
        {
          type: "bar",
          name: count,
          data: kanban.byDay.map((d) => d.count),
          itemStyle: { color: "#fa8c16", borderRadius: [3, 3, 0, 0] },
          barMaxWidth: 22,
        },
      ],
    },
  };
}
