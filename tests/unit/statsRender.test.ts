/**
 * The statistics renderer's pure half (src/stats/model.ts), like the schema renderer's
 * snapshot tests. Scenarios:
 * - each declared statistics view's query bar (Formily schema) and charts (echarts
 *   options) over a fixed answer, as snapshots
 * - quick ranges: this week starts on Monday, this month on the 1st, the last 30 days
 *   include today
 * - the request: picked days → [first 00:00, the day after the last); empty filters
 *   are left out; a filter never takes a reserved name
 * - a series answer makes one chart series per series key (stacked when declared);
 *   a pie sums the series per group; a click maps back to the group's keys
 * - the home page's declaration (config/dashboard.json): permission keys of
 *   config/permissions.json, figures opening routes that exist, statistics measures
 *   that exist; a clerk sees today's registrations and the volume chart, a radiologist
 *   the reports to write and not the review queue, an auditor nothing
 * - drill-through: the group's key as the list's field, the query bar's filters, the
 *   range narrowed to a week's days; no URL for a grouping without a list field
 */
import { chartModel, drillUrl, initialValues, PIE_SLICES, quickRangeDays, RESERVED, statsViews, toQuerySchema, toRequest, type StatsAnswer } from '@/stats/model';
import { dayText } from '@/shared/dateRanges';
import { CHARTS, FIGURES, figureUrl, measuresOf, valueAt, visibleCharts, visibleFigures } from '@/stats/dashboard';
import { allRoutes } from '@/routes/table';
import permissions from '../../config/permissions.json';

const t = (key: string) => key;
const NOW = new Date(2026, 10, 26, 15, 30); // a Thursday

const answer: StatsAnswer = {
  dimension: 'modality',
  series: 'hospital',
  measures: ['exams', 'amount'],
  rows: [
    { key: 'CT', label: 'CT', seriesKey: 3, seriesLabel: 'A', values: { exams: 5, amount: 1500 } },
    { key: 'CT', label: 'CT', seriesKey: 4, seriesLabel: 'B', values: { exams: 2, amount: 600 } },
    { key: 'DR', label: 'DR', seriesKey: 3, seriesLabel: 'A', values: { exams: 4, amount: 320 } },
  ],
  totals: { exams: 11, amount: 2420 },
};

describe('statistics renderer', () => {
  test.each(Object.entries(statsViews))('%s: query bar and charts', (name, view) => {
    // Presets hold dayjs objects of today: the snapshot keeps their labels only.
    const schema = toQuerySchema(view, t, NOW) as { properties: { grid: { properties: Record<string, { 'x-component-props'?: { presets?: Array<{ label: string }> } }> } } };
    const range = schema.properties.grid.properties.range['x-component-props']!;
    range.presets = range.presets!.map((p) => ({ label: p.label })) as never;
    expect(schema).toMatchSnapshot();
    for (const f of view.filters ?? []) expect(RESERVED).not.toContain(f.key);
    const plain: StatsAnswer = { ...answer, series: undefined, measures: view.measures.map((m) => m.key), rows: [{ key: 'CT', label: 'CT', values: {} }] };
    expect(view.charts.map((c) => chartModel(name, view, c, plain, t).option)).toMatchSnapshot();
  });

  test('quick ranges', () => {
    const days = (k: Parameters<typeof quickRangeDays>[0]) => quickRangeDays(k, NOW).map(dayText);
    expect(days('today')).toEqual(['2026-11-26', '2026-11-26']);
    expect(days('thisWeek')).toEqual(['2026-11-23', '2026-11-26']);
    expect(days('thisMonth')).toEqual(['2026-11-01', '2026-11-26']);
    expect(days('last30Days')).toEqual(['2026-10-28', '2026-11-26']);
    expect(days('thisYear')).toEqual(['2026-01-01', '2026-11-26']);
    expect(initialValues(statsViews.workload, NOW)).toEqual({ range: ['2026-11-01', '2026-11-26'], dimension: 'doctor' });
  });

  test('the request for the query bar', () => {
    const view = statsViews.examVolume;
    const body = toRequest(view, { range: ['2026-11-01', '2026-11-07'], dimension: 'hospital', series: '', hospitalId: 3, modality: '', other: 'x' });
    expect(body).toEqual({ range: [new Date(2026, 10, 1).toISOString(), new Date(2026, 10, 8).toISOString()], dimension: 'hospital', filters: { hospitalId: 3 } });
  });

  test('series, pie and clicks', () => {
    const view = statsViews.examVolume;
    const bar = chartModel('examVolume', view, { type: 'bar', measures: ['exams'], stack: true }, answer, t);
    const series = (bar.option.series as Array<{ name: string; data: number[]; stack?: string }>);
    expect(series.map((s) => [s.name, s.data, s.stack])).toEqual([['A', [5, 4], 'total'], ['B', [2, 0], 'total']]);
    expect(bar.pointKeys(1, 0)).toEqual({ key: 'DR', seriesKey: 3, measure: 'exams' });
    const pie = chartModel('examVolume', view, { type: 'pie', measures: ['exams'] }, answer, t);
    expect((pie.option.series as Array<{ data: unknown }>)[0].data).toEqual([{ name: 'CT', value: 7 }, { name: 'DR', value: 4 }]);
    expect(pie.pointKeys(0, 0)).toEqual({ key: 'CT', measure: 'exams' });
    // Many groups: the largest slices, then one for the rest, which drills nowhere.
    const many: StatsAnswer = { dimension: 'device', measures: ['exams'], rows: Array.from({ length: 20 }, (_, i) => ({ key: i + 1, label: `D${i + 1}`, values: { exams: i + 1 } })), totals: { exams: 210 } };
    const capped = chartModel('examVolume', view, { type: 'pie', measures: ['exams'] }, many, t);
    const slices = (capped.option.series as Array<{ data: Array<{ name: string; value: number }> }>)[0].data;
    expect([slices.length, slices[0], slices[PIE_SLICES - 1]]).toEqual([PIE_SLICES, { name: 'D20', value: 20 }, { name: 'stats.other', value: 45 }]);
    expect(slices.reduce((sum, x) => sum + x.value, 0)).toBe(210);
    expect([capped.pointKeys(0, 0), capped.pointKeys(PIE_SLICES - 1, 0)]).toEqual([{ key: 20, measure: 'exams' }, undefined]);
  });

  test('drill-through', () => {
    const view = statsViews.examVolume;
    const values = { range: ['2026-11-01', '2026-11-26'] as [string, string], modality: 'CT', patientSource: 2 };
    expect(drillUrl(view, values, 'hospital', { key: 3 })).toBe('/examination?hospitalId=3&modality=CT&patientSource=2&createdAt=2026-11-01%2C2026-11-26');
    expect(drillUrl(view, values, 'modality', { key: 'DR', seriesKey: 4 }, 'hospital')).toBe('/examination?modality=DR&hospitalId=4&patientSource=2&createdAt=2026-11-01%2C2026-11-26');
    expect(drillUrl(view, { range: ['2026-11-01', '2026-11-26'] }, 'week', { key: '2026-11-23' })).toBe('/examination?createdAt=2026-11-23%2C2026-11-26');
    expect(drillUrl(view, { range: ['2026-11-01', '2026-11-26'] }, 'month', { key: '2026-11' })).toBe('/examination?createdAt=2026-11-01%2C2026-11-26');
    // Workload: by the time the work was done; a measure's figure adds the kind of work it counts.
    const range = { range: ['2026-11-01', '2026-11-26'] as [string, string] };
    expect(drillUrl(statsViews.workload, range, 'doctor', { key: 12 })).toBe('/report?kind=all&workDoctorId=12&workAt=2026-11-01%2C2026-11-26');
    expect(drillUrl(statsViews.workload, range, 'doctor', { key: 12, measure: 'reviewed' })).toBe('/report?kind=all&work=review&workDoctorId=12&workAt=2026-11-01%2C2026-11-26');
    expect(drillUrl(statsViews.workload, range, 'hospital', { key: 3, measure: 'weighted' })).toBe('/report?kind=all&hospitalId=3&workAt=2026-11-01%2C2026-11-26');
    expect(drillUrl(statsViews.docReportStat, range, 'title', { key: 4 })).toBeUndefined();
  });

  test('the home page declaration', () => {
    const modules = permissions.modules as Record<string, string[]>;
    const valid = (key: string) => modules[key.split(':')[0]]?.includes(key.split(':')[1]);
    const paths = new Set(allRoutes().map((r) => r.path));
    for (const f of FIGURES) {
      expect(f.permission.every(valid)).toBe(true);
      expect(paths.has(f.open.split('?')[0])).toBe(true);
      if (f.stats) expect(statsViews[f.stats.view].measures.map((m) => m.key)).toContain(f.stats.measure);
      else expect(f.call && f.value).toBeTruthy();
    }
    for (const c of CHARTS) expect([valid(c.permission), Boolean(statsViews[c.view])]).toEqual([true, true]);
    const clerk = { registration: ['view', 'add'] };
    expect(visibleFigures(clerk).map((f) => f.key)).toEqual(['todayRegistrations', 'todayExamined']);
    expect(visibleCharts(clerk).map((c) => c.key)).toEqual(['todayVolume']);
    expect(visibleFigures({ registration: ['view'], report: ['view', 'write'] }).map((f) => f.key)).toEqual([
      'unwritten',
      'retrialBack',
      'reportReturn',
      'todayExamined',
      'myReportsToday',
      'myReportHoursToday',
      'myReportHoursWeek',
      'remoteDue',
    ]);
    // Figures of one view and range share one call, asking for the measures they show.
    const doctor = visibleFigures({ report: ['view', 'write', 'verify'] });
    expect([...measuresOf(doctor).entries()]).toEqual([
      ['stats:myTurnaround:today', ['written', 'writtenHoursMedian', 'reviewedHoursMedian']],
      ['stats:myTurnaround:thisWeek', ['writtenHoursMedian', 'reviewedHoursMedian']],
    ]);
    expect([visibleFigures({ audit: ['view'] }), visibleCharts({ audit: ['view'] })]).toEqual([[], []]);
    expect(figureUrl(FIGURES[0], NOW)).toBe('/examination?createdAt=2026-11-26,2026-11-26');
    expect(valueAt({ totals: { exams: 3 } }, 'totals.exams')).toBe(3);
    expect(valueAt({ unwritten: 0 }, 'unwritten')).toBe(0);
    expect(valueAt({}, 'unwritten')).toBeUndefined();
  });
});
