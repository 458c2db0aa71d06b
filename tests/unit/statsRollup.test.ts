/**
 * The rollup path's choice and SQL (server/stats/rollup.ts), without a database:
 * - a local midnight is one of the region (Asia/Shanghai), not of UTC or the machine
 * - whole local days over the rollup's names take the rollup; a range off the region's
 *   midnights, a dimension or custom condition outside it, or a caller forcing the
 *   indexed path do not; refusals come first, whatever the path
 * - filter and scope values are bound, never written into the SQL
 * - whole months inside the range read month rows unless a grouping needs days (day,
 *   week); a range within one month reads day rows only
 */
import { compileStats, StatsRefusal, type StatsView } from '../../server/stats/compile';
import { localMidnight } from '../../server/stats/rollup';
import { statsFiles } from '../../src/shared/generated/catalog';
import type { DataScope } from '../../server/identity/scope';

const views = statsFiles as Record<string, StatsView>;
const ALL: DataScope = { all: true, hospitalIds: [], conditionSets: [] };
const CT: DataScope = { all: false, hospitalIds: [7, 9], conditionSets: [{ logic: 'and', conditions: [{ field: 'modality', op: 'eq', value: 'CT-SECRET' }] }] };
// 2026-09-15 .. 2026-12-01, region midnights (UTC 16:00 the day before).
const months: [string, string] = ['2026-09-14T16:00:00.000Z', '2026-11-30T16:00:00.000Z'];
const inOneMonth: [string, string] = ['2026-11-02T16:00:00.000Z', '2026-11-09T16:00:00.000Z'];

describe('statistics rollup path', () => {
  test('local midnights are the region\'s', () => {
    expect(localMidnight(Date.parse('2026-11-02T16:00:00Z'))).toBe('2026-11-03');
    expect(localMidnight(Date.parse('2026-11-03T00:00:00Z'))).toBeNull();
    expect(localMidnight(Date.parse('2026-11-02T16:00:00.500Z'))).toBeNull();
  });

  test('whole region days over the rollup\'s names take it; anything else the indexed path', () => {
    expect(compileStats(views.cockpit, { range: months }, ALL, 366).path).toBe('rollup');
    expect(compileStats(views.turnaround, { range: months, dimension: 'modality', series: 'patientSource' }, CT, 366).path).toBe('rollup');
    expect(compileStats(views.cockpit, { range: months }, ALL, 366, { path: 'indexed' }).path).toBe('indexed');
    expect(compileStats(views.cockpit, { range: ['2026-11-01T00:00:00.000Z', '2026-11-08T00:00:00.000Z'] }, ALL, 366).path).toBe('indexed');
    expect(compileStats(views.cockpit, { range: months, dimension: 'diagnosis' }, ALL, 366).path).toBe('indexed');
    expect(compileStats(views.checkstat, { range: months, dimension: 'item' }, ALL, 366).path).toBe('indexed');
    expect(compileStats(views.reservationStat, { range: months }, ALL, 366).path).toBe('indexed');
    // The histograms are not kept by sex: its median goes the indexed path, its counts do not.
    expect(compileStats(views.cockpit, { range: months, dimension: 'sex' }, ALL, 366).path).toBe('indexed');
    expect(compileStats(views.cockpit, { range: months, dimension: 'sex', measures: ['exams', 'inLimit'] }, ALL, 366).path).toBe('rollup');
    const device: DataScope = { ...CT, conditionSets: [{ logic: 'and', conditions: [{ field: 'deviceName', op: 'eq', value: 'x' }] }] };
    expect(compileStats(views.cockpit, { range: months }, device, 366).path).toBe('indexed');
    // Refused before any path is chosen.
    expect(() => compileStats(views.cockpit, { range: months, dimension: 'doctor' }, ALL, 366)).toThrow(StatsRefusal);
    expect(() => compileStats(views.cockpit, { range: ['2025-01-01T16:00:00.000Z', months[1]] }, ALL, 366)).toThrow(StatsRefusal);
  });

  test('values are bound, never written into the SQL', () => {
    const c = compileStats(views.examVolume, { range: months, filters: { modality: ['MR-SECRET'] } }, CT, 366);
    expect(c.path).toBe('rollup');
    for (const sql of [c.sql, c.totalSql]) {
      expect(sql).not.toContain('SECRET');
      expect(sql).toContain('u.hospital_id = ANY(');
    }
    expect(c.params).toEqual(expect.arrayContaining([['MR-SECRET'], [7, 9], 'CT-SECRET']));
  });

  test('whole months read month rows unless a grouping needs days', () => {
    const byHospital = compileStats(views.cockpit, { range: months, dimension: 'hospital' }, ALL, 366);
    expect(byHospital.sql).toContain("u.grain = 'm'");
    expect(byHospital.params.slice(0, 4)).toEqual(['2026-10-01', '2026-12-01', '2026-09-15', '2026-12-01']);
    for (const dimension of ['day']) expect(compileStats(views.cockpit, { range: months, dimension }, ALL, 366).sql).not.toContain("u.grain = 'm'");
    expect(compileStats(views.turnaround, { range: months, dimension: 'week' }, ALL, 366).sql).not.toContain("u.grain = 'm'");
    expect(compileStats(views.turnaround, { range: months, dimension: 'hospital', series: 'modality' }, ALL, 366).sql).toContain("u.grain = 'm'");
    expect(compileStats(views.cockpit, { range: inOneMonth }, ALL, 366).sql).not.toContain("u.grain = 'm'");
  });
});
