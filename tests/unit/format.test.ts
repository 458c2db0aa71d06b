/**
 * Display formats of spec section 9: {y}-{m}-{d} {h}:{i}:{s}, ten-digit timestamps
 * as seconds, the time-ago steps, thousands separators and k/M/G short forms.
 */
import { formatMoney, formatNumber, formatTime, shortNumber, timeAgo } from '../../src/shared/format';

describe('formatTime', () => {
  const local = new Date(2026, 10, 2, 8, 5, 9);
  test('default pattern, and ten-digit timestamps are seconds', () => {
    expect(formatTime(local)).toBe('2026-11-02 08:05:09');
    expect(formatTime(Math.floor(local.getTime() / 1000))).toBe('2026-11-02 08:05:09');
    expect(formatTime(String(Math.floor(local.getTime() / 1000)))).toBe('2026-11-02 08:05:09');
    expect(formatTime(local.getTime(), '{y}/{m}/{d}')).toBe('2026/11/02');
    expect(formatTime(undefined)).toBe('');
    expect(formatTime('not a date')).toBe('');
  });
});

describe('timeAgo', () => {
  const now = new Date(2026, 10, 21, 12, 0, 0).getTime();
  test.each([
    [10, 'common.timeAgo.justNow', undefined],
    [90, 'common.timeAgo.minutes', 2],
    [2 * 3600 + 5, 'common.timeAgo.hours', 3],
    [30 * 3600, 'common.timeAgo.oneDay', undefined],
  ])('%i s ago → %s', (ago, key, count) => {
    const r = timeAgo(now - ago * 1000, now);
    expect(r.key).toBe(key);
    expect(r.params?.count).toBe(count);
  });
  test('two days or more shows the date', () => {
    expect(timeAgo(now - 3 * 86400 * 1000, now).text).toBe('2026-11-18 12:00');
  });
});

describe('numbers', () => {
  test('thousands separator and short forms', () => {
    expect(formatNumber(1234567)).toBe('1,234,567');
    expect(shortNumber(999)).toBe('999');
    expect(shortNumber(1500)).toBe('1.5k');
    expect(shortNumber(2_000_000)).toBe('2M');
    expect(shortNumber(3.25e9, 2)).toBe('3.25G');
    expect(shortNumber(-1500)).toBe('-1.5k');
  });
});

describe('money', () => {
  test('CNY with two decimals and a thousands separator; nothing for no number', () => {
    expect(formatMoney(1234.5)).toBe('¥1,234.50');
    expect(formatMoney(0)).toBe('¥0.00');
    expect(formatMoney('86')).toBe('¥86.00');
    expect(formatMoney(-12.345)).toBe('-¥12.35');
    expect(formatMoney(null)).toBe('');
    expect(formatMoney('')).toBe('');
    expect(formatMoney('abc')).toBe('');
    // The language's number format, always the yuan sign and two decimals.
    expect(formatMoney(1234.5, 'en-US')).toBe('¥1,234.50');
    expect(formatMoney(1234.5, 'es-ES').replace(/\s/g, ' ')).toBe('1234,50 ¥');
    expect(formatMoney(60, 'ru-RU').replace(/\s/g, ' ')).toBe('60,00 ¥');
  });
});
