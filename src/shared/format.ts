/**
 * Display formats of spec section 9: date-time as {y}-{m}-{d} {h}:{i}:{s}; ten-digit
 * timestamps are seconds; time-ago ("just now" under 30 s, minutes under an hour,
 * hours under a day, "1 day ago" under two days, else the date); numbers with a
 * thousands separator and short forms k, M, G, T, P, E; amounts in CNY.
 */
export type TimeInput = number | string | Date;

function toDate(value: TimeInput): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(String(Math.trunc(value)).length === 10 ? value * 1000 : value);
  if (/^\d{10}$/.test(value)) return new Date(Number(value) * 1000);
  if (/^\d{13}$/.test(value)) return new Date(Number(value));
  return new Date(value);
}

const pad = (n: number) => String(n).padStart(2, '0');

export function formatTime(value: TimeInput | null | undefined, pattern = '{y}-{m}-{d} {h}:{i}:{s}'): string {
  if (value === null || value === undefined || value === '') return '';
  const d = toDate(value);
  if (Number.isNaN(d.getTime())) return '';
  const parts: Record<string, string> = {
    y: String(d.getFullYear()),
    m: pad(d.getMonth() + 1),
    d: pad(d.getDate()),
    h: pad(d.getHours()),
    i: pad(d.getMinutes()),
    s: pad(d.getSeconds()),
  };
  return pattern.replace(/\{([ymdhis])\}/g, (_, k: string) => parts[k]);
}

/** Key and parameters for a time-ago text; the caller translates (common.timeAgo.*). */
export function timeAgo(value: TimeInput, now: number = Date.now()): { key: string; params?: Record<string, number>; text?: string } {
  const seconds = (now - toDate(value).getTime()) / 1000;
  if (seconds < 30) return { key: 'common.timeAgo.justNow' };
  if (seconds < 3600) return { key: 'common.timeAgo.minutes', params: { count: Math.ceil(seconds / 60) } };
  if (seconds < 86400) return { key: 'common.timeAgo.hours', params: { count: Math.ceil(seconds / 3600) } };
  if (seconds < 172800) return { key: 'common.timeAgo.oneDay' };
  return { key: '', text: formatTime(value, '{y}-{m}-{d} {h}:{i}') };
}

const UNITS = ['', 'k', 'M', 'G', 'T', 'P', 'E'];

export function formatNumber(n: number): string {
  return n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function shortNumber(n: number, digits = 1): string {
  let i = 0;
  let v = Math.abs(n);
  while (v >= 1000 && i < UNITS.length - 1) {
    v /= 1000;
    i += 1;
  }
  const s = i === 0 ? formatNumber(Math.round(v)) : `${+v.toFixed(digits)}${UNITS[i]}`;
  return n < 0 ? `-${s}` : s;
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * An amount in CNY (spec section 3: prices in yuan) with the yuan sign and two
 * decimals, in the language's number format: "¥1,234.50" in zh-CN and en-US,
 * "1234,50 ¥" in es-ES; empty for no number.
 */
export function formatMoney(n: number | string | null | undefined, locale = 'zh-CN'): string {
  const v = typeof n === 'string' && n.trim() !== '' ? Number(n) : n;
  if (typeof v !== 'number' || !Number.isFinite(v)) return '';
  let format = moneyFormats.get(locale);
  if (!format) {
    // narrowSymbol: "¥" everywhere, not "CN¥" outside Chinese.
    format = new Intl.NumberFormat(locale, { style: 'currency', currency: 'CNY', currencyDisplay: 'narrowSymbol', minimumFractionDigits: 2, maximumFractionDigits: 2 });
    moneyFormats.set(locale, format);
  }
  return format.format(v);
}
