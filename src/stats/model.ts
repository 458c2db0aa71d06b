/**
 * Declared statistics views (schemas/stats/*.json) on the client, as pure functions
 * from a view to its renderer's input (no React, no DOM), like ../schema/toFormily and
 * toColumns: the query bar as a Formily schema, the request body from its values, the
 * echarts option of each declared chart, the table's rows and the drill-through URL of
 * a group. The server compiles the same names (server/stats); a name unknown there is
 * refused, so nothing here is trusted beyond showing.
 */
import type { ISchema } from '@formily/react';
import dayjs from 'dayjs';
import { statsFiles } from '../shared/generated/catalog';
import type { Stats, QuickRange } from '../shared/generated/stats/_stats.schema';
import { addDays, dayText, startOfDay, toFilterRange, toDay } from '../shared/dateRanges';
import { formatMoney, shortNumber } from '../shared/format';
import type { StatsAnswer, StatsQuery, StatsRow } from '../shared/answers';

export type { StatsAnswer, StatsRow };
/** The body of POST /api/stat/v1/<view>. */
export type StatsRequest = StatsQuery;

export type StatsView = Stats;
export type StatsQuickRange = QuickRange;
type Translate = (key: string, params?: Record<string, unknown>) => string;

export const statsViews: Readonly<Record<string, StatsView>> = Object.freeze(statsFiles as Record<string, StatsView>);

export function getStatsView(name: string | undefined | null): StatsView | undefined {
  return name && Object.prototype.hasOwnProperty.call(statsViews, name) ? statsViews[name] : undefined;
}

export const ALL_QUICK_RANGES: StatsQuickRange[] = ['today', 'yesterday', 'last3Days', 'thisWeek', 'thisMonth', 'last7Days', 'last30Days', 'thisYear'];

/** First and last day (inclusive, local midnights) of a quick range; a week starts on Monday. */
export function quickRangeDays(key: StatsQuickRange, now: Date = new Date()): [Date, Date] {
  const today = startOfDay(now);
  switch (key) {
    case 'today':
      return [today, today];
    case 'yesterday':
      return [addDays(today, -1), addDays(today, -1)];
    case 'last3Days':
      return [addDays(today, -2), today];
    case 'thisWeek':
      return [addDays(today, -((today.getDay() + 6) % 7)), today];
    case 'thisMonth':
      return [new Date(today.getFullYear(), today.getMonth(), 1), today];
    case 'last7Days':
      return [addDays(today, -6), today];
    case 'last30Days':
      return [addDays(today, -29), today];
    case 'thisYear':
      return [new Date(today.getFullYear(), 0, 1), today];
  }
}

/** The values of the query bar: the days picked, the grouping, and each declared filter by its key. */
export interface StatsValues {
  range?: [string, string];
  dimension?: string;
  series?: string;
  /** The measures asked for (a dashboard's chart); default all the view declares. */
  measures?: string[];
  [filter: string]: unknown;
}

/** The names the query bar keeps for itself; a filter may not take one. */
export const RESERVED = ['range', 'dimension', 'series', 'measures'];

export function initialValues(view: StatsView, now: Date = new Date()): StatsValues {
  const [first, last] = quickRangeDays(view.range.initial, now);
  return { range: [dayText(first), dayText(last)], dimension: view.dimensions[0], ...(view.initialSeries ? { series: view.initialSeries } : {}) };
}

/** The query bar (Formily): the required date range with the view's quick ranges, the grouping, the series and the filters. */
export function toQuerySchema(view: StatsView, t: Translate, now: Date = new Date()): ISchema {
  const quick = view.range.quick ?? ALL_QUICK_RANGES;
  const option = (d: string) => ({ label: t(`stats.dimension.${d}`), value: d });
  const properties: Record<string, ISchema> = {
    range: {
      type: 'array',
      title: t('stats.field.range'),
      required: true,
      'x-decorator': 'FormItem',
      'x-component': 'DatePicker.RangePicker',
      'x-component-props': {
        allowClear: false,
        'data-testid': 'stats-range',
        presets: quick.map((key) => ({ label: t(`stats.range.${key}`), value: quickRangeDays(key, now).map((d) => dayjs(d)) })),
      },
      'x-validator': [{ required: true, message: t('validation.select', { field: t('stats.field.range') }) }],
    },
    dimension: {
      type: 'string',
      title: t('stats.field.dimension'),
      'x-decorator': 'FormItem',
      'x-component': 'Select',
      'x-component-props': { allowClear: false, 'data-testid': 'stats-dimension' },
      enum: view.dimensions.map(option),
    },
  };
  if (view.series) {
    properties.series = {
      type: 'string',
      title: t('stats.field.series'),
      'x-decorator': 'FormItem',
      'x-component': 'Select',
      'x-component-props': { allowClear: true, placeholder: t('stats.query.noSeries'), 'data-testid': 'stats-series' },
      enum: view.series.map(option),
    };
  }
  for (const f of view.filters ?? []) {
    properties[f.key] = {
      type: 'string',
      title: t(`stats.field.${f.key}`),
      'x-decorator': 'FormItem',
      'x-component': 'RemoteSelect',
      'x-component-props': { source: f.options, allowClear: true, 'data-testid': `stats-filter-${f.key}` },
    };
  }
  return {
    type: 'object',
    properties: {
      grid: { type: 'void', 'x-component': 'FormGrid', 'x-component-props': { maxColumns: 4, minColumns: 1, columnGap: 16 }, properties },
    },
  };
}

/** The request for the query bar's values: the picked days as [first 00:00, the day after the last 00:00). */
export function toRequest(view: StatsView, values: StatsValues): StatsRequest {
  const [first, last] = values.range ?? [];
  const filters: Record<string, unknown> = {};
  for (const f of view.filters ?? []) {
    const v = values[f.key];
    if (v !== undefined && v !== null && v !== '') filters[f.key] = v;
  }
  return {
    range: first && last ? toFilterRange(first, last) : (undefined as unknown as [string, string]),
    ...(values.dimension ? { dimension: values.dimension } : {}),
    ...(values.series ? { series: values.series } : {}),
    ...(values.measures?.length ? { measures: values.measures } : {}),
    ...(Object.keys(filters).length ? { filters } : {}),
  };
}

/** A measure's value as its cell shows it: counts in the spec's short forms, money in CNY, hours with one decimal, shares as percents. */
export function formatMeasure(view: StatsView, measure: string, value: number | null | undefined, locale = 'zh-CN'): string {
  if (value === null || value === undefined) return '-';
  const format = view.measures.find((m) => m.key === measure)?.format;
  if (format === 'money') return formatMoney(value, locale);
  if (format === 'hours') return value.toFixed(1);
  if (format === 'percent') return `${(value * 100).toFixed(1)}%`;
  return shortNumber(value);
}

interface Category {
  key: StatsRow['key'];
  label: string;
}

/** The groups in answer order (the first level), and the series in order of first appearance. */
export function categoriesOf(answer: StatsAnswer): { categories: Category[]; series: Category[] } {
  const categories = new Map<string, Category>();
  const series = new Map<string, Category>();
  for (const r of answer.rows) {
    categories.set(String(r.key), { key: r.key, label: r.label });
    if (answer.series) series.set(String(r.seriesKey), { key: r.seriesKey ?? null, label: r.seriesLabel ?? '' });
  }
  return { categories: [...categories.values()], series: [...series.values()] };
}

export type ChartDef = StatsView['charts'][number];

/** What a clicked figure drills with: its group's keys and the measure it shows. */
export interface DrillPoint {
  key: StatsRow['key'];
  seriesKey?: StatsRow['key'];
  measure?: string;
}

/** Most slices a pie shows: the largest, then one for all the others. */
export const PIE_SLICES = 12;

/** What a click on the chart maps back to: the group and the series keys of each data point. */
export interface ChartModel {
  option: Record<string, unknown>;
  /** [category index][series index] → the keys to drill with, and the measure the point shows. */
  pointKeys: (dataIndex: number, seriesIndex: number) => DrillPoint | undefined;
}

/** The echarts option of one declared chart over an answer. */
export function chartModel(name: string, view: StatsView, chart: ChartDef, answer: StatsAnswer, t: Translate): ChartModel {
  const { categories, series } = categoriesOf(answer);
  const measureLabel = (m: string) => t(`stats.${name}.measure.${m}`);
  const index = new Map(answer.rows.map((r) => [`${String(r.key)}\u0000${String(r.seriesKey)}`, r]));
  const valueAt = (c: Category, s: Category | undefined, m: string) =>
    index.get(`${String(c.key)}\u0000${String(s ? s.key : undefined)}`)?.values[m] ?? (s ? 0 : null);
  const tooltip = { trigger: chart.type === 'pie' ? 'item' : 'axis' };
  if (chart.type === 'pie') {
    const m = chart.measures[0];
    const all = categories.map((c) => ({
      c,
      name: c.label,
      value: answer.series ? series.reduce((sum, s) => sum + (valueAt(c, s, m) ?? 0), 0) : valueAt(c, undefined, m),
    }));
    // A readable pie: the largest slices, the rest as one (which drills nowhere).
    const shown = all.length > PIE_SLICES ? [...all].sort((a, b) => (b.value ?? 0) - (a.value ?? 0)).slice(0, PIE_SLICES - 1) : all;
    const rest = all.length > PIE_SLICES ? all.filter((x) => !shown.includes(x)) : [];
    const data = [
      ...shown.map(({ name, value }) => ({ name, value })),
      ...(rest.length ? [{ name: t('stats.other'), value: rest.reduce((sum, x) => sum + (x.value ?? 0), 0) }] : []),
    ];
    return {
      option: { tooltip, legend: { type: 'scroll', bottom: 0 }, series: [{ type: 'pie', name: measureLabel(m), radius: ['35%', '65%'], data }] },
      pointKeys: (i) => (shown[i] ? { key: shown[i].c.key, measure: m } : undefined),
    };
  }
  const lines = answer.series
    ? series.map((s) => ({ name: s.label, data: categories.map((c) => valueAt(c, s, chart.measures[0])), s }))
    : chart.measures.map((m) => ({ name: measureLabel(m), data: categories.map((c) => valueAt(c, undefined, m)), s: undefined }));
  return {
    option: {
      tooltip,
      legend: { type: 'scroll', top: 0 },
      grid: { left: 48, right: 24, top: 36, bottom: 48, containLabel: true },
      xAxis: { type: 'category', data: categories.map((c) => c.label), axisLabel: { interval: 'auto', hideOverlap: true } },
      // Counts are whole: no 0.2 steps on the axis.
      yAxis: { type: 'value', ...(chart.measures.every((m) => view.measures.find((d) => d.key === m)?.fn === 'count') ? { minInterval: 1 } : {}) },
      series: lines.map((l) => ({
        type: chart.type,
        name: l.name,
        data: l.data,
        // Stacked: the series of one measure, or the measures themselves (consecutive segments of one whole).
        ...(chart.stack && (answer.series || chart.measures.length > 1) ? { stack: 'total' } : {}),
        ...(chart.type === 'line' ? { smooth: true } : { barMaxWidth: 40 }),
      })),
    },
    pointKeys: (i, si) => {
      const c = categories[i];
      if (!c) return undefined;
      // Lines are the series' groups of the first measure, or the measures themselves.
      const s = lines[si]?.s;
      return s ? { key: c.key, seriesKey: s.key, measure: chart.measures[0] } : { key: c.key, measure: chart.measures[si] };
    },
  };
}

const TIME: Record<string, 'day' | 'week' | 'month'> = { day: 'day', week: 'week', month: 'month' };

/**
 * The list a group drills to (view.drill): its route with the range (narrowed to the
 * group's day, week or month for a time grouping), the query bar's filters and the
 * group's keys as the list's query fields, and what the clicked measure adds (drill.measures);
 * undefined when the grouping has no list field.
 */
export function drillUrl(
  view: StatsView,
  values: StatsValues,
  dimension: string,
  point: DrillPoint,
  series?: string,
): string | undefined {
  const drill = view.drill;
  if (!drill || !values.range) return undefined;
  const params = new URLSearchParams({ ...drill.query, ...(point.measure ? drill.measures?.[point.measure] : undefined) });
  let [first, last] = values.range.map((d) => toDay(d));
  const levels: Array<[string, StatsRow['key']]> = [[dimension, point.key], ...(series ? [[series, point.seriesKey ?? null] as [string, StatsRow['key']]] : [])];
  for (const [d, key] of levels) {
    const unit = TIME[d];
    if (unit && typeof key === 'string') {
      const start = toDay(unit === 'month' ? `${key}-01` : key);
      const end = unit === 'day' ? start : unit === 'week' ? addDays(start, 6) : addDays(new Date(start.getFullYear(), start.getMonth() + 1, 1), -1);
      first = start > first ? start : first;
      last = end < last ? end : last;
    } else {
      const field = drill.dimensions?.[d];
      if (!field || key === null || key === undefined || key === '') return undefined;
      params.set(field, String(key));
    }
  }
  for (const [filter, field] of Object.entries(drill.filters ?? {})) {
    const v = values[filter];
    if ((typeof v === 'string' || typeof v === 'number') && v !== '' && !params.has(field)) params.set(field, String(v));
  }
  params.set(drill.range, `${dayText(first)},${dayText(last)}`);
  return `${drill.route}?${params.toString()}`;
}
