/**
 * A statistics request compiled to SQL over the allow-list of ./sources.ts: the
 * declared view (schemas/stats/<name>.json) says which of the source's names a request
 * may pick; the request's dimension, series, measures and filters are looked up by name
 * there (anything else is refused, never interpolated), its values are bound as
 * parameters, and the caller's data scope is always ANDed in. Pure: no database, no
 * request; refusals are StatsRefusal (the route answers UAA421 naming the field).
 */
import { scopeSql, type DataScope } from '../identity/scope';
import { SOURCES, timeKeySql, type DimensionSql, type StatsSource } from './sources';
import { compileRollup } from './rollup';
import type { Stats } from '../../src/shared/generated/stats/_stats.schema';
import type { StatsQuery } from '../../src/shared/answers';

export type { StatsQuery };

export type StatsView = Stats;

/** Why a request is refused: the body field at fault and the validation text key (validation.*). */
export class StatsRefusal extends Error {
  constructor(
    readonly field: string,
    readonly reason: 'invalid' | 'select' | 'maxRangeDays',
    readonly limit?: number,
  ) {
    super(`${field}: ${reason}`);
  }
}

export interface CompiledStats {
  /** Grouped rows: k0 (and l0 label), k1/l1 with a series, then one column per measure. */
  sql: string;
  /** The same measures over every row in range (one row). */
  totalSql: string;
  params: unknown[];
  dimension: string;
  series?: string;
  measures: string[];
  /** Code tables labelling the grouping keys, by level. */
  codes: Array<string | undefined>;
  /** Which path answers: the source's rows (indexed) or its daily rollup (./rollup.ts). */
  path: 'indexed' | 'rollup';
}

export interface CompileOptions {
  /** Only the source's rows (the parity test's reference); otherwise the rollup wherever it can answer. */
  path?: 'indexed';
}

const DAY_MS = 86_400_000;
/** Most groups one answer carries (largest first for a category, in time order for a time grouping). */
export const MAX_GROUPS = 1000;

/** Checks a declared view against its source; throws naming the first unknown name (at start-up and in tests). */
export function checkStatsView(name: string, view: StatsView): void {
  const source = SOURCES[view.source];
  const fail = (what: string) => {
    throw new Error(`schemas/stats/${name}.json: ${what}`);
  };
  if (!source) fail(`unknown source ${view.source}`);
  if (!source.dates[view.range.field]) fail(`source ${view.source} has no date field ${view.range.field}`);
  for (const d of [...view.dimensions, ...(view.series ?? [])]) if (!source.dimensions[d]) fail(`source ${view.source} has no dimension ${d}`);
  for (const f of view.filters ?? []) if (!source.filters[f.key]) fail(`source ${view.source} has no filter ${f.key}`);
  const keys = new Set<string>();
  for (const m of view.measures) {
    if (keys.has(m.key)) fail(`measure ${m.key} twice`);
    keys.add(m.key);
    if (m.field && source.fields[m.field] === undefined) fail(`source ${view.source} has no field ${m.field}`);
    if (m.when && !source.conditions[m.when]) fail(`source ${view.source} has no condition ${m.when}`);
    if (m.among && !source.conditions[m.among]) fail(`source ${view.source} has no condition ${m.among}`);
  }
  for (const c of view.charts) for (const m of c.measures) if (!keys.has(m)) fail(`chart measure ${m} is not a measure`);
  for (const d of Object.keys(view.drill?.dimensions ?? {})) if (!source.dimensions[d]) fail(`drill dimension ${d} is not a dimension`);
  for (const m of Object.keys(view.drill?.measures ?? {})) if (!keys.has(m)) fail(`drill measure ${m} is not a measure`);
}

function aggregate(source: StatsSource, m: StatsView['measures'][number]): string {
  const when = m.when ? ` FILTER (WHERE ${source.conditions[m.when]})` : '';
  const field = m.field ? source.fields[m.field] : '';
  switch (m.fn) {
    case 'count':
      return `(count(*)${when})::int`;
    case 'sum':
      return `coalesce(sum(${field})${when}, 0)::float8`;
    case 'avg':
      return `(avg(${field})${when})::float8`;
    case 'median':
      return `(percentile_cont(0.5) WITHIN GROUP (ORDER BY ${field})${when})::float8`;
    case 'p90':
      return `(percentile_cont(0.9) WITHIN GROUP (ORDER BY ${field})${when})::float8`;
    case 'share': {
      // Of the rows `among` picks (all without it), the fraction where `when` holds too; null when none.
      const among = m.among ? source.conditions[m.among] : 'true';
      return `((count(*) FILTER (WHERE (${among}) AND (${source.conditions[m.when!]})))::float8 / nullif(count(*) FILTER (WHERE ${among}), 0))`;
    }
  }
}

function dimensionSql(source: StatsSource, view: StatsView, name: string): DimensionSql {
  const d = source.dimensions[name];
  return d.trunc ? { key: timeKeySql(source.dates[view.range.field], d.trunc), trunc: d.trunc } : d;
}

function bindFilter(source: StatsSource, key: string, value: unknown, params: unknown[]): string {
  const f = source.filters[key];
  const values = Array.isArray(value) ? value : [value];
  const ok =
    values.length > 0 &&
    values.length <= 100 &&
    values.every((v) => (f.type === 'integer' ? Number.isInteger(v) : typeof v === 'string' && v.length > 0 && v.length <= 64));
  if (!ok) throw new StatsRefusal(`filters.${key}`, 'invalid');
  params.push(values);
  return `${f.sql} = ANY($${params.length}::${f.type === 'integer' ? 'int' : 'text'}[])`;
}

export function compileStats(view: StatsView, query: StatsQuery, scope: DataScope, maxDays: number, options: CompileOptions = {}): CompiledStats {
  const source = SOURCES[view.source];
  const params: unknown[] = [];
  const where: string[] = source.where ? [source.where] : [];

  // The range: required, in order, not longer than the limit.
  const range = query.range;
  if (!Array.isArray(range) || range.length !== 2 || range.some((v) => typeof v !== 'string' || v === '')) throw new StatsRefusal('range', 'select');
  const [from, to] = range.map((v) => new Date(v).getTime());
  if (Number.isNaN(from) || Number.isNaN(to) || to <= from) throw new StatsRefusal('range', 'invalid');
  // Whole local days; a daylight-saving change inside adds an hour that is still the same days.
  if (to - from > maxDays * DAY_MS + 3_600_000) throw new StatsRefusal('range', 'maxRangeDays', maxDays);
  const at = source.dates[view.range.field];
  params.push(new Date(from).toISOString(), new Date(to).toISOString());
  where.push(`${at} >= $1::timestamptz AND ${at} < $2::timestamptz`);
  const narrow = source.narrow?.[view.range.field];
  if (narrow) where.push(narrow('$1::timestamptz', '$2::timestamptz'));

  const dimension = query.dimension ?? view.dimensions[0];
  if (!view.dimensions.includes(dimension)) throw new StatsRefusal('dimension', 'invalid');
  const series = query.series || undefined;
  if (series !== undefined && (!view.series?.includes(series) || series === dimension)) throw new StatsRefusal('series', 'invalid');

  const declared = new Map(view.measures.map((m) => [m.key, m]));
  const measures = query.measures?.length ? query.measures : view.measures.map((m) => m.key);
  if (!Array.isArray(measures) || measures.some((m) => typeof m !== 'string' || !declared.has(m))) throw new StatsRefusal('measures', 'invalid');

  const allowed = new Set((view.filters ?? []).map((f) => f.key));
  const filters: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(query.filters ?? {})) {
    if (!allowed.has(key)) throw new StatsRefusal(`filters.${key}`, 'invalid');
    if (value === undefined || value === null || value === '' || (Array.isArray(value) && !value.length)) continue;
    where.push(bindFilter(source, key, value, params));
    filters.push([key, value]);
  }

  // Validated: the rollup answers when all the request names lies in it.
  if (options.path !== 'indexed') {
    const rolled = compileRollup({ view, source, from, to, dimension, series, measures, filters, scope, maxGroups: MAX_GROUPS });
    if (rolled) return { sql: rolled.sql, totalSql: rolled.totalSql, params: rolled.params, dimension, series, measures, codes: rolled.levels.map((d) => d.code), path: 'rollup' };
  }
  // Always the caller's data scope, last, so nothing above can widen it.
  where.push(`(${scopeSql(scope, source.scope, params)})`);

  const levels = [dimensionSql(source, view, dimension), ...(series ? [dimensionSql(source, view, series)] : [])];
  const columns = measures.map((m) => `${aggregate(source, declared.get(m)!)} AS "${m}"`);
  const keys = levels.map((d, i) => `${d.key} AS k${i}, ${d.label ?? d.key} AS l${i}`);
  const groupBy = levels.map((d) => d.key).join(', ');
  const time = levels[0].trunc !== undefined;
  const order = time ? 'k0' : `"${measures[0]}" DESC, k0`;
  const filtered = `FROM ${source.from} WHERE ${where.join(' AND ')}`;
  return {
    sql: `SELECT ${keys.join(', ')}, ${columns.join(', ')} ${filtered} GROUP BY ${groupBy} ORDER BY ${order}${series ? ', k1' : ''} LIMIT ${MAX_GROUPS}`,
    totalSql: `SELECT ${columns.join(', ')} ${filtered}`,
    params,
    dimension,
    series,
    measures,
    codes: levels.map((d) => d.code),
    path: 'indexed',
  };
}
