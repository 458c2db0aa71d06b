/**
 * Quick date ranges (spec section 9), src/shared/dateRanges.ts. Scenarios:
 * - today, yesterday, last 3 days, last 7 days as inclusive local days
 * - the filter sent is [first 00:00, the day after the last 00:00): custom ranges end
 *   the day after the chosen end date
 * - month and year boundaries, reversed input, 'YYYY-MM-DD' read as a local day,
 *   dayjs-like objects
 * - a dialog needing a range starts from the list's filter's days, else a quick range
 *   (a missing, malformed or empty filter)
 */
import { filterDaysOr, QUICK_RANGES, quickRange, quickRangeDays, toDay, toFilterRange } from '@/shared/dateRanges';

const local = (y: number, m: number, d: number, h = 0, min = 0) => new Date(y, m - 1, d, h, min);
const day = (d: Date) => `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()} ${d.getHours()}:${d.getMinutes()}`;
const now = local(2026, 3, 15, 14, 30);

describe('quick ranges', () => {
  test('the four quick ranges, in the spec order', () => {
    expect(QUICK_RANGES).toEqual(['today', 'yesterday', 'last3Days', 'last7Days']);
  });

  test.each([
    ['today', '2026-3-15 0:0', '2026-3-15 0:0'],
    ['yesterday', '2026-3-14 0:0', '2026-3-14 0:0'],
    ['last3Days', '2026-3-13 0:0', '2026-3-15 0:0'],
    ['last7Days', '2026-3-9 0:0', '2026-3-15 0:0'],
  ] as const)('%s covers %s .. %s (inclusive days)', (key, first, last) => {
    expect(quickRangeDays(key, now).map(day)).toEqual([first, last]);
  });

  test('the filter of a quick range ends at the start of the day after its last day', () => {
    expect(quickRange('today', now)).toEqual([local(2026, 3, 15).toISOString(), local(2026, 3, 16).toISOString()]);
    expect(quickRange('yesterday', now)).toEqual([local(2026, 3, 14).toISOString(), local(2026, 3, 15).toISOString()]);
    expect(quickRange('last7Days', now)).toEqual([local(2026, 3, 9).toISOString(), local(2026, 3, 16).toISOString()]);
  });

  test('crosses month and year boundaries', () => {
    expect(quickRangeDays('last7Days', local(2026, 3, 2, 9)).map(day)).toEqual(['2026-2-24 0:0', '2026-3-2 0:0']);
    expect(quickRange('today', local(2025, 12, 31, 23, 59))).toEqual([local(2025, 12, 31).toISOString(), local(2026, 1, 1).toISOString()]);
  });
});

describe('custom ranges', () => {
  test('the end is the day after the chosen end date; times of day are ignored', () => {
    expect(toFilterRange(local(2026, 1, 10, 15), local(2026, 1, 12, 8))).toEqual([
      local(2026, 1, 10).toISOString(),
      local(2026, 1, 13).toISOString(),
    ]);
  });

  test("'YYYY-MM-DD' strings are local days, reversed input is put in order", () => {
    expect(toDay('2026-02-28').getTime()).toBe(local(2026, 2, 28).getTime());
    expect(toFilterRange('2026-02-28', '2026-02-27')).toEqual([local(2026, 2, 27).toISOString(), local(2026, 3, 1).toISOString()]);
  });

  test('dayjs-like values (what the range picker gives) are accepted', () => {
    const dj = (d: Date) => ({ toDate: () => d });
    expect(toFilterRange(dj(local(2026, 5, 1, 10)), dj(local(2026, 5, 1, 11)))).toEqual([
      local(2026, 5, 1).toISOString(),
      local(2026, 5, 2).toISOString(),
    ]);
  });
});

describe('the days of a range filter, else a quick range', () => {
  test("a list's filter gives back the days it was made from", () => {
    const filter = toFilterRange(local(2026, 2, 27), local(2026, 3, 2));
    expect(filterDaysOr(filter, 'last7Days', now).map(day)).toEqual(['2026-2-27 0:0', '2026-3-2 0:0']);
    expect(toFilterRange(...filterDaysOr(filter, 'last7Days', now))).toEqual(filter);
  });

  test.each([[undefined], [[]], [['x', 'y']], [[local(2026, 3, 2).toISOString(), local(2026, 3, 2).toISOString()]], ['2026-03-01']])(
    'none usable (%p): the last 7 days',
    (filter) => {
      expect(filterDaysOr(filter, 'last7Days', now).map(day)).toEqual(['2026-3-9 0:0', '2026-3-15 0:0']);
    },
  );
});
