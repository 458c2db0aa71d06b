/**
 * The quick date ranges of spec section 9 (today, yesterday, last 3 days, last 7 days,
 * custom) in one place. A range is picked as whole days, first..last inclusive; the
 * server gets [first 00:00, the day after last 00:00) in ISO form, so "custom" ends the
 * day after the chosen end date, as the spec says. Local time; pure.
 */
export const QUICK_RANGES = ['today', 'yesterday', 'last3Days', 'last7Days'] as const;
export type QuickRange = (typeof QUICK_RANGES)[number];

/** What a date picker may hand over: a Date, a dayjs-like object or 'YYYY-MM-DD[...]'. */
export type DayInput = Date | string | { toDate(): Date };

const DAYS_BACK: Record<QuickRange, [number, number]> = {
  today: [0, 0],
  yesterday: [1, 1],
  last3Days: [2, 0],
  last7Days: [6, 0],
};

export function startOfDay(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate());
}

export function addDays(d: Date, n: number): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + n, d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds());
}

/** 'YYYY-MM-DD' is a local day (Date would read it as UTC midnight). */
export function toDay(input: DayInput): Date {
  if (input instanceof Date) return startOfDay(input);
  if (typeof input === 'string') {
    const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(input);
    if (m) return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    return startOfDay(new Date(input));
  }
  return startOfDay(input.toDate());
}

/** First and last day (inclusive) a quick range covers, as local midnights. */
export function quickRangeDays(key: QuickRange, now: Date = new Date()): [Date, Date] {
  const [back, backEnd] = DAYS_BACK[key];
  const today = startOfDay(now);
  return [addDays(today, -back), addDays(today, -backEnd)];
}

/** The filter for days first..last inclusive: [first 00:00, day after last 00:00) as ISO strings. */
export function toFilterRange(first: DayInput, last: DayInput): [string, string] {
  const from = toDay(first);
  const to = toDay(last);
  const [a, b] = from <= to ? [from, to] : [to, from];
  return [a.toISOString(), addDays(b, 1).toISOString()];
}

/** YYYY-MM-DD of a local day. */
export function dayText(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The same days as toFilterRange for a date without a time (a DICOM study date): [first, the day after last) as YYYY-MM-DD. */
export function toDayFilterRange(first: DayInput, last: DayInput): [string, string] {
  const from = toDay(first);
  const to = toDay(last);
  const [a, b] = from <= to ? [from, to] : [to, from];
  return [dayText(a), dayText(addDays(b, 1))];
}

/**
 * The days (first, last inclusive) a date-time range filter covers (`[from, to)` as
 * toFilterRange makes it), else those of a quick range: a dialog that needs a range
 * starts from the list's own.
 */
export function filterDaysOr(filter: unknown, fallback: QuickRange, now: Date = new Date()): [Date, Date] {
  if (Array.isArray(filter) && filter.length === 2 && filter.every((v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)))) {
    const [from, to] = (filter as string[]).map((v) => new Date(v));
    if (from < to) return [startOfDay(from), addDays(startOfDay(to), -1)];
  }
  return quickRangeDays(fallback, now);
}

export function quickRange(key: QuickRange, now: Date = new Date()): [string, string] {
  const [first, last] = quickRangeDays(key, now);
  return toFilterRange(first, last);
}
