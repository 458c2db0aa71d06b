/**
 * The regional BI cockpit's declaration (config/cockpit.json) as pure functions, like
 * ./dashboard.ts: its sections and panels, the statistics call each panel makes (a
 * declared view with fixed values over a quick range), a panel's figures from the
 * answer's totals, a chart panel's echarts option (./model's chartModel, the largest
 * groups only, in the large type a wall screen needs), and how often it all refreshes.
 * No query of its own: every number is a declared statistics view's, cut by the server
 * to the caller's data scope.
 */
import cockpit from '../../config/cockpit.json';
import { LIMITS } from '../../config/limits';
import { dayText } from '../shared/dateRanges';
import { chartModel, getStatsView, quickRangeDays, toRequest, type StatsAnswer, type StatsQuickRange, type StatsRequest, type StatsValues, type StatsView } from './model';

type Translate = (key: string, params?: Record<string, unknown>) => string;

export interface CockpitPanel {
  key: string;
  view: string;
  range: StatsQuickRange;
  values: Pick<StatsValues, 'dimension' | 'series' | 'measures'>;
  /** Measures shown as large figures (the answer's totals). */
  figures?: string[];
  chart?: 'bar' | 'line' | 'pie';
  stack?: boolean;
  /** The largest groups only (a category grouping answers largest first). */
  top?: number;
  /** Bars along the value axis, the largest on top: hospital names and diagnoses are long. */
  horizontal?: boolean;
}

export interface CockpitSection {
  key: string;
  panels: CockpitPanel[];
}

export const SECTIONS: readonly CockpitSection[] = cockpit.sections as CockpitSection[];

/** Every panel's view, checked once: a panel naming an unknown view or measure is a declaration error. */
export function panelView(panel: CockpitPanel): StatsView {
  const view = getStatsView(panel.view);
  if (!view) throw new Error(`config/cockpit.json: panel ${panel.key} names unknown view ${panel.view}`);
  const declared = new Set(view.measures.map((m) => m.key));
  for (const m of [...(panel.values.measures ?? []), ...(panel.figures ?? [])]) {
    if (!declared.has(m)) throw new Error(`config/cockpit.json: panel ${panel.key}: ${panel.view} has no measure ${m}`);
  }
  return view;
}

/** The call a panel makes now: its view and the request body over its quick range. */
export function panelRequest(panel: CockpitPanel, now: Date = new Date()): { view: string; body: StatsRequest } {
  const [first, last] = quickRangeDays(panel.range, now);
  return { view: panel.view, body: toRequest(panelView(panel), { ...panel.values, range: [dayText(first), dayText(last)] }) };
}

/** Minutes between refreshes: the user's common setting refresh.duration, else the default. */
export function refreshMinutes(setting: { refresh?: { duration?: number } } | undefined): number {
  const d = setting?.refresh?.duration;
  return typeof d === 'number' && d > 0 ? d : LIMITS.refreshDurationDefault;
}

/** The answer without groups that have no key (exams without an approved diagnosis), cut to the panel's top groups. */
export function panelAnswer(panel: CockpitPanel, answer: StatsAnswer): StatsAnswer {
  const rows = answer.rows.filter((r) => r.key !== null && r.key !== '');
  if (!panel.top || answer.series) return { ...answer, rows };
  return { ...answer, rows: rows.slice(0, panel.top) };
}

/** Large type on a dark wall: the sizes every chart of the cockpit takes. */
const WALL = { fontSize: 18, color: '#cfd8e3' };

/** A chart panel's echarts option: the view's chart model in the cockpit's type sizes. */
export function panelChart(panel: CockpitPanel, answer: StatsAnswer, t: Translate): Record<string, unknown> {
  const view = panelView(panel);
  const shown = panelAnswer(panel, answer);
  const { option } = chartModel(panel.view, view, { type: panel.chart ?? 'bar', measures: shown.measures as [string, ...string[]], stack: panel.stack }, shown, t);
  // Every category shown (long ones cut to a width), value axes with few steps.
  const axis = (a: unknown, extra: object = {}) => {
    const category = (a as { type?: string }).type === 'category';
    const label = category ? { interval: 0, width: 170, overflow: 'truncate' } : {};
    return { ...(a as object), ...extra, ...(category ? {} : { splitNumber: 4 }), axisLabel: { ...(a as { axisLabel?: object }).axisLabel, ...WALL, fontSize: 16, ...label } };
  };
  const series = (option.series as Array<Record<string, unknown>>).map((s) =>
    s.type === 'pie' ? { ...s, radius: ['34%', '58%'], center: ['50%', '46%'], label: { ...WALL, fontSize: 16, formatter: '{b}\n{d}%' } } : { ...s, barMaxWidth: 22 },
  );
  const axes = !option.xAxis
    ? {}
    : panel.horizontal
      ? { xAxis: axis(option.yAxis), yAxis: axis(option.xAxis, { inverse: true }), grid: { ...(option.grid as object), left: 8, right: 32 } }
      : { xAxis: axis(option.xAxis), yAxis: axis(option.yAxis) };
  return {
    ...option,
    backgroundColor: 'transparent',
    textStyle: WALL,
    legend: { ...(option.legend as object), textStyle: WALL },
    ...axes,
    series,
  };
}
