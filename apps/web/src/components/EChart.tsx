import type { BarSeriesOption, LineSeriesOption, PieSeriesOption } from "echarts/charts";
import { BarChart, LineChart, PieChart } from "echarts/charts";
import type {
  GridComponentOption,
  LegendComponentOption,
  TooltipComponentOption,
} from "echarts/components";
import { GridComponent, LegendComponent, TooltipComponent } from "echarts/components";
import { type ComposeOption, init, use } from "echarts/core";
import { CanvasRenderer } from "echarts/renderers";
import { type HTMLAttributes, useEffect, useRef } from "react";

// Only the parts the app draws (keeps the bundle small).
use([
  BarChart,
  LineChart,
  PieChart,
  GridComponent,
  LegendComponent,
  TooltipComponent,
  CanvasRenderer,
]);

export type EChartOption = ComposeOption<
  | BarSeriesOption
  | LineSeriesOption
  | PieSeriesOption
  | GridComponentOption
  | LegendComponentOption
  | TooltipComponentOption
>;

/**
 * An echarts chart in a div: created on mount, updated when `option` changes, resized with
 * its box, disposed on unmount. Extra attributes (data-testid, data-*) go on the div.
 */
export function EChart({
  option,
  height = 240,
  ...rest
}: { option: EChartOption; height?: number } & HTMLAttributes<HTMLDivElement>) {
  const ref = useRef<HTMLDivElement>(null);
  const chart = useRef<ReturnType<typeof init> | null>(null);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const instance = init(el);
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(el);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true });
  }, [option]);

  return <div ref={ref} style={{ width: "100%", height }} {...rest} />;
}
