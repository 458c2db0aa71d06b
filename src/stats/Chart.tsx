/**
 * One echarts chart of a statistics view. echarts/core with only what the declared
 * charts use registered (bar, line, pie; grid, tooltip, legend; the canvas renderer),
 * so the bundle carries nothing else. A click on a bar, a point or a slice reports
 * the data point (its category and series index) for the drill-through.
 */
import ReactEChartsCore from 'echarts-for-react/lib/core';
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useMemo } from 'react';

echarts.use([BarChart, LineChart, PieChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export interface ChartProps {
  option: Record<string, unknown>;
  height?: number;
  onPoint?: (dataIndex: number, seriesIndex: number) => void;
  testId?: string;
  /** An echarts theme registered by echarts/core ('dark' for the wall screen). */
  theme?: string;
}

/** A user who asked for reduced motion gets charts drawn at once, as antd's motion is off for them (src/app.tsx). */
const reducedMotion = () => typeof window !== 'undefined' && window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;

export default function Chart({ option, height = 320, onPoint, testId, theme }: ChartProps) {
  const shown = useMemo(() => (reducedMotion() ? { ...option, animation: false } : option), [option]);
  const events = useMemo(
    () => (onPoint ? { click: (p: { dataIndex: number; seriesIndex?: number }) => onPoint(p.dataIndex, p.seriesIndex ?? 0) } : undefined),
    [onPoint],
  );
  return (
    <div data-testid={testId}>
      <ReactEChartsCore echarts={echarts} option={shown} theme={theme} notMerge lazyUpdate style={{ height, width: '100%' }} onEvents={events} />
    </div>
  );
}
