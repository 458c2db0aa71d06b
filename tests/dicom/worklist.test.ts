/**
 * The worklist query's value handling, as functions:
 * - date matching: a single date, a range, open ends; malformed or impossible dates refused
 * - time matching: HH, HHMM, HHMMSS(.F) bounds, a "to" bound taking its whole hour or minute
 * - person names: wildcards against the pinyin or the Chinese form, any case
 * - DICOM wildcards (* and ?) become LIKE patterns with %, _ and \ taken literally
 * - every value reaches SQL as a parameter, never inside the statement
 */
import { dateRange, likePattern, personNameMatches, timeRange, worklistSql, WorklistQueryError } from '../../server/dicom/worklist';

describe('worklist query values', () => {
  test('date ranges', () => {
    expect(dateRange('20261120')).toEqual({ from: '20261120', to: '20261120' });
    expect(dateRange('20261101-20261130')).toEqual({ from: '20261101', to: '20261130' });
    expect(dateRange('20261101-')).toEqual({ from: '20261101', to: undefined });
    expect(dateRange('-20261130 ')).toEqual({ from: undefined, to: '20261130' });
    for (const bad of ['2026-11-20', '20261340', '20260230', '-', '2026112', '20261101-20261130-20261201']) {
      expect(() => dateRange(bad)).toThrow(WorklistQueryError);
    }
  });

  test('time ranges', () => {
    expect(timeRange('0800-1200')).toEqual({ from: '080000', to: '120059' });
    expect(timeRange('10')).toEqual({ from: '100000', to: '105959' });
    expect(timeRange('093000.5-')).toEqual({ from: '093000', to: undefined });
    expect(timeRange('-1430')).toEqual({ from: undefined, to: '143059' });
    for (const bad of ['8:00', '2500', '0860', '-', '1-2-3', '12345']) expect(() => timeRange(bad)).toThrow(WorklistQueryError);
  });

  test('person names match on pinyin or Chinese', () => {
    expect(personNameMatches('wang*', '王技师')).toBe(true);
    expect(personNameMatches('WANG^JI*', '王技师')).toBe(true);
    expect(personNameMatches('王*', '王技师')).toBe(true);
    expect(personNameMatches('=王技?', '王技师')).toBe(true);
    expect(personNameMatches('Zhao*', '王技师')).toBe(false);
    expect(personNameMatches('', null)).toBe(true);
    expect(personNameMatches('wang*', null)).toBe(false);
  });

  test('wildcards become LIKE patterns; LIKE metacharacters stay literal', () => {
    expect(likePattern('Zhang*')).toBe('Zhang%');
    expect(likePattern('张?')).toBe('张_');
    expect(likePattern('50%_a\\b*')).toBe('50\\%\\_a\\\\b%');
  });

  test('values are parameters, not SQL', () => {
    const hostile = "x' OR '1'='1";
    const { sql, params } = worklistSql(
      { PatientID: hostile, AccessionNumber: 'A*', PatientName: [{ Alphabetic: hostile }], ScheduledProcedureStepSequence: [{ Modality: hostile, ScheduledProcedureStepStartDate: '20261101-' }] },
      7,
    );
    expect(sql).not.toContain(hostile);
    expect(params).toEqual(expect.arrayContaining([7, hostile, 'A%', "x' OR '1'='1", '20261101']));
  });
});
