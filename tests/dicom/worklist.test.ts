/**
 * The worklist query's value handling, as functions:
 * - date matching: a single date, a range, open ends; malformed or impossible dates refused
 * - DICOM wildcards (* and ?) become LIKE patterns with %, _ and \ taken literally
 * - every value reaches SQL as a parameter, never inside the statement
 */
import { dateRange, likePattern, worklistSql, WorklistQueryError } from '../../server/dicom/worklist';

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
