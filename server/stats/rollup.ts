/**
 * The rollup path of a statistics request: when everything it names lies in its
 * source's rollup declaration (./sources.ts `rollup`), it is answered from the daily
 * (and monthly) sums of migration 0037 (exams) or 0039 (report work) instead of the
 * source's rows. Decided here, from the declarations, for every view alike: nothing
 * per view. Pure: SQL text and parameters; ./compile.ts calls it after validating
 * the request.
 *
 * Same answer as the indexed path, except medians and P90s, which come from
 * fixed-width bins (stat_hours_bin: quarter hours below 72 h, whole hours above):
 * interpolated between bin middles, so within half the width of the wider bin of the
 * two values interpolated (0.125 h below 72 h, 0.5 h above). A rollup without bins
 * (the report work's) leaves a request naming a median or P90 to the indexed path.
 * tests/api/statsRollup.test.ts holds every servable grouping to that.
 */
import { scopeSql, type DataScope } from '../identity/scope';
import { REGION_TIME_ZONE } from '../lib/examRules';
import type { Stats } from '../../src/shared/generated/stats/_stats.schema';
import type { DimensionSql, RollupSql, StatsSource } from './sources';

/** The widest error of a rollup median or P90, in hours (half the widest bin). */
export const ROLLUP_PERCENTILE_TOLERANCE_HOURS = 0.5;

export interface RollupRequest {
  view: Stats;
  source: StatsSource;
  from: number;
  to: number;
  dimension: string;
  series?: string;
  measures: string[];
  filters: Array<[string, unknown]>;
  scope: DataScope;
  maxGroups: number;
}

export interface RollupCompiled {
  sql: string;
  totalSql: string;
  params: unknown[];
  levels: DimensionSql[];
}

const localParts = new Intl.DateTimeFormat('en-CA', {
  timeZone: REGION_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** The local day 'YYYY-MM-DD' an instant starts, or null when it is not a local midnight. */
export function localMidnight(ms: number): string | null {
  if (ms % 1000 !== 0) return null;
  const p = Object.fromEntries(localParts.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  if (p.hour !== '00' || p.minute !== '00' || p.second !== '00') return null;
  return `${p.year}-${p.month}-${p.day}`;
}

/** The first day of the month of `day`, or of the next month when `day` is not a first. */
function monthStart(day: string, next: boolean): string {
  if (!next || day.endsWith('-01')) return `${day.slice(0, 8)}01`;
  const d = new Date(`${day.slice(0, 8)}01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return d.toISOString().slice(0, 10);
}

/** Why a request cannot use the rollup, or null when it can (exported for the tests' coverage check). */
export function rollupBlocker(r: Omit<RollupRequest, 'from' | 'to' | 'maxGroups'> & { from?: number; to?: number }): string | null {
  const rollup = r.source.rollup;
  if (!rollup) return 'source';
  if (r.view.range.field !== rollup.date) return 'date';
  if (r.from !== undefined && (localMidnight(r.from) === null || localMidnight(r.to!) === null)) return 'range';
  for (const d of [r.dimension, r.series]) if (d !== undefined && !rollup.dimensions[d]) return `dimension ${d}`;
  for (const [key] of r.filters) if (!rollup.filters[key]) return `filter ${key}`;
  const declared = new Map(r.view.measures.map((m) => [m.key, m]));
  for (const key of r.measures) {
    const m = declared.get(key)!;
    const ok =
      m.fn === 'count'
        ? !m.when || rollup.counts[m.when] !== undefined
        : m.fn === 'sum'
          ? rollup.sums[sumKey(m)] !== undefined
          : m.fn === 'median' || m.fn === 'p90'
            ? rollup.bins?.[sumKey(m)] !== undefined && [r.dimension, r.series].every((d) => d === undefined || (rollup.binDimensions ?? []).includes(d))
            : m.fn === 'share'
              ? m.among
                ? rollup.both[`${m.among}&${m.when}`] !== undefined && rollup.counts[m.among] !== undefined
                : rollup.counts[m.when!] !== undefined
              : false;
    if (!ok) return `measure ${key}`;
  }
  // A custom condition on a field of the source's rows must be testable on the rollup's.
  const sourceFields = r.source.scope.fields ?? {};
  for (const set of r.scope.conditionSets) for (const c of set.conditions) if (sourceFields[c.field] && !rollup.scope.fields?.[c.field]) return `condition ${c.field}`;
  return null;
}

/** A sum's or histogram's name in a rollup declaration: its field, or `field&when` over the rows meeting a condition. */
function sumKey(m: Stats['measures'][number]): string {
  return m.when ? `${m.field}&${m.when}` : m.field!;
}

function timeKey(unit: 'day' | 'week' | 'month'): string {
  return `to_char(date_trunc('${unit}', u.day::timestamp), '${unit === 'month' ? 'YYYY-MM' : 'YYYY-MM-DD'}')`;
}

function measureSql(rollup: RollupSql, m: Stats['measures'][number]): string {
  switch (m.fn) {
    case 'count':
      return `coalesce(${m.when ? rollup.counts[m.when] : rollup.count}, 0)::int`;
    case 'sum':
      return `coalesce(${rollup.sums[sumKey(m)]}, 0)::float8`;
    case 'share': {
      const among = m.among ? rollup.counts[m.among] : rollup.count;
      const both = m.among ? rollup.both[`${m.among}&${m.when}`] : rollup.counts[m.when!];
      return `((${both})::float8 / nullif(${among}, 0))`;
    }
    default:
      throw new Error(`rollup measure ${m.fn}`);
  }
}

/** A percentile from cumulative bins c (n, cum, tot per group and field): interpolated between the two bins' middles as percentile_cont does between values. */
function percentileSql(field: number, p: number): string {
  const x = `(${p} * (c.tot - 1))`;
  const at = (i: string) => `max(stat_bin_mid(c.bin)) FILTER (WHERE c.field = ${field} AND c.cum - c.n <= ${i} AND ${i} < c.cum)`;
  return `(${at(`floor(${x})`)} + max(${x} - floor(${x})) FILTER (WHERE c.field = ${field}) * (${at(`ceil(${x})`)} - ${at(`floor(${x})`)}))::float8`;
}

export function compileRollup(r: RollupRequest): RollupCompiled | null {
  if (rollupBlocker(r) !== null) return null;
  const rollup = r.source.rollup!;
  const params: unknown[] = [];
  const bind = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };

  // Whole days from the day rows; whole months inside the range from the month rows,
  // unless a grouping needs days (day, week).
  const fromDay = localMidnight(r.from)!;
  const toDay = localMidnight(r.to)!;
  const byDay = [r.dimension, r.series].some((d) => d === 'day' || d === 'week');
  const mFrom = monthStart(fromDay, true);
  const mTo = monthStart(toDay, false);
  const span =
    !byDay && mFrom < mTo
      ? `((u.grain = 'm' AND u.day >= ${bind(mFrom)}::date AND u.day < ${bind(mTo)}::date)
          OR (u.grain = 'd' AND ((u.day >= ${bind(fromDay)}::date AND u.day < $1::date) OR (u.day >= $2::date AND u.day < ${bind(toDay)}::date))))`
      : `u.grain = 'd' AND u.day >= ${bind(fromDay)}::date AND u.day < ${bind(toDay)}::date`;
  const where = [span];
  for (const [key, value] of r.filters) {
    const f = rollup.filters[key];
    where.push(`${f.sql} = ANY(${bind(Array.isArray(value) ? value : [value])}::${f.type === 'integer' ? 'int' : 'text'}[])`);
  }
  where.push(`(${scopeSql(r.scope, rollup.scope, params)})`);
  const whereSql = where.join(' AND ');

  const levels = [r.dimension, ...(r.series ? [r.series] : [])].map((name) => {
    const d = rollup.dimensions[name];
    return d.trunc ? { key: timeKey(d.trunc), trunc: d.trunc } : d;
  });
  const declared = new Map(r.view.measures.map((m) => [m.key, m]));
  const pct = r.measures.filter((k) => ['median', 'p90'].includes(declared.get(k)!.fn));
  // The histograms the percentiles read, numbered in the query: each the sum of its stored fields' bins.
  const hists = [...new Set(pct.map((k) => sumKey(declared.get(k)!)))];

  const build = (grouped: boolean): string => {
    const ks = grouped ? levels.map((_, i) => `k${i}`) : [];
    const keyCols = grouped ? levels.map((d, i) => `${d.key} AS k${i}, ${d.label ?? d.key} AS l${i}`) : [];
    const groupBy = grouped ? ` GROUP BY ${levels.map((d) => d.key).join(', ')} HAVING ${rollup.rows} > 0` : '';
    const counts = r.measures.filter((k) => !pct.includes(k)).map((k) => `${measureSql(rollup, declared.get(k)!)} AS "${k}"`);
    const g = `SELECT ${[...keyCols, ...counts, `${rollup.rows} AS rows_`].join(', ')} FROM ${rollup.table} u WHERE ${whereSql}${groupBy}`;
    const out = r.measures.map((k) => (pct.includes(k) ? `p."${k}"` : `g."${k}"`));
    const keysOut = grouped ? levels.map((_, i) => `g.k${i}, g.l${i}`) : [];
    if (!pct.length) return `WITH g AS (${g}) SELECT ${[...keysOut, ...out].join(', ')} FROM g`;
    const binKeys = grouped ? levels.map((d, i) => `${d.key} AS k${i}`) : [];
    const wanted = hists.map((h, i) => `(${i}, ARRAY[${rollup.bins![h].join(',')}]::smallint[])`).join(', ');
    const b = `SELECT ${[...binKeys, 'm.f AS field', 'u.bin', 'sum(u.n) AS n'].join(', ')} FROM ${rollup.binTable} u
                JOIN (VALUES ${wanted}) m (f, fields) ON u.field = ANY(m.fields)
                WHERE ${whereSql}
                GROUP BY ${[...levels.map((d) => d.key).filter(() => grouped), 'm.f', 'u.bin'].join(', ')} HAVING sum(u.n) > 0`;
    const part = [...ks, 'b.field'].join(', ');
    const c = `SELECT b.*, sum(b.n) OVER (PARTITION BY ${part} ORDER BY b.bin) AS cum, sum(b.n) OVER (PARTITION BY ${part}) AS tot FROM b`;
    const pSel = pct.map((k) => {
      const m = declared.get(k)!;
      return `${percentileSql(hists.indexOf(sumKey(m)), m.fn === 'median' ? 0.5 : 0.9)} AS "${k}"`;
    });
    const pq = `SELECT ${[...ks.map((k) => `c.${k}`), ...pSel].join(', ')} FROM c${grouped ? ` GROUP BY ${ks.map((k) => `c.${k}`).join(', ')}` : ''}`;
    const on = grouped ? ks.map((k) => `p.${k} IS NOT DISTINCT FROM g.${k}`).join(' AND ') : 'true';
    return `WITH g AS (${g}), b AS (${b}), c AS (${c}), p AS (${pq}) SELECT ${[...keysOut, ...out].join(', ')} FROM g LEFT JOIN p ON ${on}`;
  };

  const time = levels[0].trunc !== undefined;
  const order = time ? 'k0' : `"${r.measures[0]}" DESC, k0`;
  return {
    sql: `SELECT * FROM (${build(true)}) q ORDER BY ${order}${r.series ? ', k1' : ''} LIMIT ${r.maxGroups}`,
    totalSql: build(false),
    params,
    levels,
  };
}
