/**
 * Declared statistics views (schemas/stats/*.json) run against the database: each is
 * checked against its source when this module loads (a view naming what its source
 * does not offer stops the start), compiled by ./compile.ts for the caller's data
 * scope, and answered as rows with labels in the caller's language, totals, and as an
 * .xlsx of the same rows. Reads only what the sources name.
 */
import type { Queryable } from '../db';
import type { DataScope } from '../identity/scope';
import { translate } from '../../locales';
import { LIMITS } from '../../config/limits';
import { excel } from '../lib/excel';
import { statsFiles } from '../../src/shared/generated/catalog';
import { checkStatsView, compileStats, type CompileOptions, type StatsQuery, type StatsView } from './compile';
import { SOURCES } from './sources';
import type { StatsAnswer, StatsRow } from '../../src/shared/answers';

export { StatsRefusal, type StatsQuery, type StatsView } from './compile';

export const STATS_VIEWS: Readonly<Record<string, StatsView>> = Object.freeze(statsFiles as Record<string, StatsView>);
for (const [name, view] of Object.entries(STATS_VIEWS)) {
  checkStatsView(name, view);
  if (view.initialSeries && !view.series?.includes(view.initialSeries)) throw new Error(`schemas/stats/${name}.json: initialSeries ${view.initialSeries} is not a series`);
  if (view.self && !SOURCES[view.source].filters[view.self]) throw new Error(`schemas/stats/${name}.json: source ${view.source} has no filter ${view.self}`);
}

/** Who asks: their data scope and their own user id (a view's `self`). */
export interface StatsCaller {
  scope: DataScope;
  userId: number;
}

/**
 * The view and request as the caller may run them: an own-hospital view narrows the
 * scope to the current hospital (the first of the scope's, see identity/scope.ts); a
 * `self` view declares its filter here and binds it to the caller, whatever was sent.
 */
function forCaller(view: StatsView, query: StatsQuery, caller: StatsCaller): { view: StatsView; query: StatsQuery; scope: DataScope } {
  const scope = view.ownHospital ? { ...caller.scope, all: false, hospitalIds: caller.scope.hospitalIds.slice(0, 1) } : caller.scope;
  if (!view.self) return { view, query, scope };
  return {
    view: { ...view, filters: [...(view.filters ?? []), { key: view.self }] },
    query: { ...query, filters: { ...(query.filters ?? {}), [view.self]: caller.userId } },
    scope,
  };
}

function labelOf(lang: string, key: unknown, label: unknown, code: string | undefined): string {
  if (key === null || key === undefined || key === '') return translate(lang, 'stats.none');
  if (code) return translate(lang, `code.${code}.${String(key)}`);
  return label === null || label === undefined ? String(key) : String(label);
}

export async function runStats(q: Queryable, declared: StatsView, asked: StatsQuery, caller: StatsCaller, lang: string, options: CompileOptions = {}): Promise<StatsAnswer> {
  const { view, query, scope } = forCaller(declared, asked, caller);
  const c = compileStats(view, query, scope, LIMITS.statsRangeDays, options);
  const [grouped, total] = await Promise.all([q.query<Record<string, unknown>>(c.sql, c.params), q.query<Record<string, number | null>>(c.totalSql, c.params)]);
  const pick = (r: Record<string, unknown>) => Object.fromEntries(c.measures.map((m) => [m, r[m] === null || r[m] === undefined ? null : Number(r[m])]));
  const rows = grouped.rows.map((r) => ({
    key: r.k0 as StatsRow['key'],
    label: labelOf(lang, r.k0, r.l0, c.codes[0]),
    ...(c.series ? { seriesKey: r.k1 as StatsRow['key'], seriesLabel: labelOf(lang, r.k1, r.l1, c.codes[1]) } : {}),
    values: pick(r),
  }));
  return { dimension: c.dimension, ...(c.series ? { series: c.series } : {}), measures: c.measures, rows, totals: pick(total.rows[0] ?? {}) };
}

/** Which path would answer the request for this caller (the parity test checks both agree). */
export function statsPath(declared: StatsView, asked: StatsQuery, caller: StatsCaller): 'indexed' | 'rollup' {
  const { view, query, scope } = forCaller(declared, asked, caller);
  return compileStats(view, query, scope, LIMITS.statsRangeDays).path;
}

/** The answer as a sheet: the grouping (and series) labels, then each measure, then the totals row. */
export async function statsWorkbook(name: string, view: StatsView, answer: StatsAnswer, lang: string): Promise<Buffer> {
  const wb = new (await excel()).Workbook();
  const sheet = wb.addWorksheet(translate(lang, `stats.${name}.title`).slice(0, 31));
  const formats = new Map(view.measures.map((m) => [m.key, m.format]));
  sheet.columns = [
    { header: translate(lang, `stats.dimension.${answer.dimension}`), key: 'label', width: 24 },
    ...(answer.series ? [{ header: translate(lang, `stats.dimension.${answer.series}`), key: 'seriesLabel', width: 20 }] : []),
    ...answer.measures.map((m) => ({
      header: translate(lang, `stats.${name}.measure.${m}`),
      key: m,
      width: 16,
      style: { numFmt: formats.get(m) === 'count' ? '0' : '0.00' },
    })),
  ];
  for (const r of answer.rows) sheet.addRow({ label: r.label, seriesLabel: r.seriesLabel, ...r.values });
  const totals = sheet.addRow({ label: translate(lang, 'stats.total'), ...answer.totals });
  totals.font = { bold: true };
  return Buffer.from(await wb.xlsx.writeBuffer());
}
