/**
 * The statistics compiler (server/stats/compile.ts) as a pure function:
 * - every declared view validates against schemas/stats/_stats.schema.json (ajv strict),
 *   and a broken one is refused
 * - every declared view (schemas/stats) names only what its source offers, and a view
 *   naming something else is refused at check time
 * - the SQL carries the range, the filters and the scope as bound parameters; no text
 *   of the request is ever in it (a filter value, an unknown name)
 * - the caller's data scope is always in the WHERE (hospitals as an int[] parameter,
 *   custom conditions on the source's columns), also for the union of report work
 * - a time grouping is the region's local day/week/month; a category is ordered by the
 *   first measure; measures compile to count/sum/avg/percentile_cont with FILTER
 * - refusals name the field: unknown dimension, series, measure or filter, a missing,
 *   reversed or too long range
 * - a share is the rows where `when` holds among those `among` picks (null without any);
 *   a share needs `when`, and `among` only belongs to a share
 * - the BI cockpit's panels (config/cockpit.json) name declared views and measures, and
 *   ask whole local days of their quick range
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import format from '../../schemas/stats/_stats.schema.json';
import { checkStatsView, compileStats, StatsRefusal, type StatsView } from '../../server/stats/compile';
import { statsFiles } from '../../src/shared/generated/catalog';
import type { DataScope } from '../../server/identity/scope';
import { SECTIONS, panelRequest, panelView } from '../../src/stats/cockpit';

const views = statsFiles as Record<string, StatsView>;
const ALL: DataScope = { all: true, hospitalIds: [], conditionSets: [] };
const OWN: DataScope = { all: false, hospitalIds: [7, 9], conditionSets: [{ logic: 'and', conditions: [{ field: 'modality', op: 'eq', value: 'CT' }] }] };
const range: [string, string] = ['2026-11-01T00:00:00.000Z', '2026-11-08T00:00:00.000Z'];

function refusal(fn: () => unknown): { field: string; reason: string } | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatsRefusal) return { field: e.field, reason: e.reason };
    throw e;
  }
  return undefined;
}

describe('statistics compiler', () => {
  test('every declared view validates against the format; broken ones are refused', () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(format);
    for (const view of Object.values(views)) expect([validate(view), validate.errors]).toEqual([true, null]);
    expect(validate({ ...views.examVolume, range: { field: 'createdAt' } })).toBe(false);
    expect(validate({ ...views.examVolume, measures: [{ key: 'n', fn: 'sum' }] })).toBe(false);
    expect(validate({ ...views.examVolume, measures: [{ key: 'n', fn: 'count', field: 'price' }] })).toBe(false);
    expect(validate({ ...views.examVolume, charts: [{ type: 'radar', measures: ['exams'] }] })).toBe(false);
    expect(validate({ ...views.examVolume, permission: 'registration' })).toBe(false);
  });

  test('every declared view names only what its source offers', () => {
    expect(Object.keys(views).sort()).toEqual(['business', 'businessps', 'checkstat', 'cockpit', 'docReportStat', 'examPriceStatistics', 'examVolume', 'myTurnaround', 'ownDataAnalysis', 'remoteCenter', 'reservationStat', 'teleStatistics', 'turnaround', 'workload']);
    for (const [name, view] of Object.entries(views)) expect(() => checkStatsView(name, view)).not.toThrow();
    expect(() => checkStatsView('x', { ...views.examVolume, dimensions: ['modality', 'patientName'] })).toThrow(/no dimension patientName/);
    expect(() => checkStatsView('x', { ...views.examVolume, measures: [{ key: 'n', fn: 'sum', field: 'hisPatientName' }] })).toThrow(/no field/);
    expect(() => checkStatsView('x', { ...views.examVolume, source: 'app_user' })).toThrow(/unknown source/);
  });

  test('values are bound, never written into the SQL; the scope is always there', () => {
    const c = compileStats(views.examVolume, { range, dimension: 'hospital', filters: { modality: "CT' OR 1=1 --", hospitalId: [7] } }, OWN, 366);
    expect(c.sql).not.toContain("OR 1=1");
    expect(c.params).toEqual([range[0], range[1], ["CT' OR 1=1 --"], [7], [7, 9], 'CT']);
    expect(c.sql).toContain('e.modality = ANY($3::text[])');
    expect(c.sql).toContain('e.hospital_id = ANY($4::int[])');
    expect(c.sql).toContain('e.hospital_id = ANY($5::int[])');
    expect(c.sql).toContain('e.modality::text = $6');
    expect(c.totalSql).toContain('e.hospital_id = ANY($5::int[])');
    expect(c.sql).toMatch(/GROUP BY e\.hospital_id ORDER BY "exams" DESC, k0 LIMIT 1000$/);
    const all = compileStats(views.examVolume, { range }, ALL, 366);
    expect(all.params).toEqual(range);
    expect(all.dimension).toBe('modality');
  });

  test('report work is scoped on the exam columns of each report unfolded, its range narrowed to the work-time indexes', () => {
    const c = compileStats(views.workload, { range, dimension: 'doctor' }, OWN, 366);
    expect(c.sql).toContain('e.hospital_id = ANY($3::int[])');
    expect(c.sql).toContain('e.modality::text = $4');
    expect(c.sql).toContain('(r.first_trial_time >= $1::timestamptz AND r.first_trial_time < $2::timestamptz) OR (r.retrial_time >= $1::timestamptz');
    expect(c.sql).toContain(`(count(*) FILTER (WHERE w.work = 'write'))::int AS "written"`);
    expect(c.sql).toContain('max(w.doctor_name) AS l0');
  });

  test('time groupings are local days, weeks and months in order; measures compile to their aggregates', () => {
    const c = compileStats(views.examVolume, { range, dimension: 'week', series: 'modality' }, ALL, 366);
    expect(c.sql).toContain(`to_char(date_trunc('week', e.created_at AT TIME ZONE 'Asia/Shanghai'), 'YYYY-MM-DD') AS k0`);
    expect(c.sql).toContain('ORDER BY k0, k1');
    expect(c.sql).toContain('(percentile_cont(0.9) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM (r.first_trial_time - e.created_at)) / 3600))::float8 AS "reportHoursP90"');
    expect(c.sql).toContain('coalesce(sum(e.price), 0)::float8 AS "amount"');
    expect(compileStats(views.examVolume, { range, dimension: 'month', measures: ['exams'] }, ALL, 366).sql).toContain("'YYYY-MM') AS k0");
  });

  test('refusals name the field', () => {
    const run = (q: object, days = 366) => refusal(() => compileStats(views.examVolume, { range, ...q } as never, ALL, days));
    expect(run({ dimension: 'hisPatientName' })).toEqual({ field: 'dimension', reason: 'invalid' });
    expect(run({ dimension: 'doctor' })).toEqual({ field: 'dimension', reason: 'invalid' });
    expect(run({ series: 'device' })).toEqual({ field: 'series', reason: 'invalid' });
    expect(run({ measures: ['exams', 'count(*)'] })).toEqual({ field: 'measures', reason: 'invalid' });
    expect(run({ filters: { examState: 2 } })).toEqual({ field: 'filters.examState', reason: 'invalid' });
    expect(run({ filters: { hospitalId: '7' } })).toEqual({ field: 'filters.hospitalId', reason: 'invalid' });
    expect(run({ range: undefined })).toEqual({ field: 'range', reason: 'select' });
    expect(run({ range: [range[1], range[0]] })).toEqual({ field: 'range', reason: 'invalid' });
    expect(run({}, 6)).toEqual({ field: 'range', reason: 'maxRangeDays' });
    expect(run({})).toBeUndefined();
  });

  test('a share compiles to the fraction among its rows; the format ties among to share', () => {
    const c = compileStats(views.turnaround, { range, measures: ['inLimit'] }, ALL, 366);
    expect(c.sql).toContain('((count(*) FILTER (WHERE ((r.retrial_time IS NOT NULL OR e.created_at');
    expect(c.sql).toMatch(/::float8 \/ nullif\(count\(\*\) FILTER \(WHERE \(r\.retrial_time IS NOT NULL OR .*\), 0\)\) AS "inLimit"/);
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(format);
    const withMeasure = (m: object) => ({ ...views.turnaround, measures: [m] });
    expect(validate(withMeasure({ key: 'x', fn: 'share', when: 'approvedInLimit' }))).toBe(true);
    expect(validate(withMeasure({ key: 'x', fn: 'share', among: 'due' }))).toBe(false);
    expect(validate(withMeasure({ key: 'x', fn: 'count', when: 'approved', among: 'due' }))).toBe(false);
    expect(() => checkStatsView('x', withMeasure({ key: 'x', fn: 'share', when: 'approved', among: 'nothing' }) as StatsView)).toThrow(/no condition nothing/);
  });

  test('cockpit panels name declared views and measures and ask whole days of their range', () => {
    const panels = SECTIONS.flatMap((s) => s.panels);
    expect(SECTIONS.map((s) => s.key)).toEqual(['overview', 'trend', 'subRegion', 'profile']);
    for (const p of panels) expect(() => panelView(p)).not.toThrow();
    expect(() => panelView({ ...panels[0], figures: ['nothing'] })).toThrow(/no measure nothing/);
    const now = new Date(2026, 10, 26, 15, 30);
    const month = panelRequest(panels.find((p) => p.range === 'thisMonth')!, now);
    expect(month.body.range).toEqual([new Date(2026, 10, 1).toISOString(), new Date(2026, 10, 27).toISOString()]);
    for (const p of panels) {
      const { view, body } = panelRequest(p, now);
      expect(compileStats(views[view], body, OWN, 366).measures).toEqual(p.values.measures);
    }
  });
});
