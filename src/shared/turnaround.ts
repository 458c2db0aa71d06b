/**
 * Turnaround limits of reports sent to a superior hospital (issue #19 item 4), pure
 * for both sides: which limit a report takes, when it is due on a working-hours
 * calendar, how much of it is left when the clock pauses, and where it stands now
 * (ok, near, overdue). The server stores what these answer; nothing here reads a clock.
 *
 * Times of day are the region's (China Standard Time, UTC+8 all year: the region keeps
 * no daylight saving, so a fixed offset is exact and a minute loop is not needed).
 */

/** codes/reportPriority.json */
export type Priority = 1 | 2 | 3 | 4;
export const PRIORITY = { emergency: 1, inpatient: 2, outpatient: 3, physicalExamination: 4 } as const;

/** codes/dueState.json */
export type DueState = 'ok' | 'near' | 'overdue' | 'paused' | 'done';

/** A report's priority from its exam's patient source (codes/patientSource.json) when registration set none. */
export function priorityOf(examPriority: number | null | undefined, patientSource: number | null | undefined): Priority {
  if (examPriority === 1 || examPriority === 2 || examPriority === 3 || examPriority === 4) return examPriority;
  const bySource: Record<number, Priority> = { 1: 3, 2: 2, 3: 1, 4: 4 };
  return bySource[patientSource ?? 0] ?? 3;
}

/** One limit rule (entities/turnaroundLimit.json): a missing part matches anything. */
export interface LimitRule {
  priority?: number | null;
  modality?: string | null;
  /** Matched as a substring of the exam's item names (头 matches 头颅平扫). */
  bodyPart?: string | null;
  minutes: number;
  workingHours: boolean;
}

const XRAY = ['DR', 'CR', 'DX', 'RF', 'MG'];

/**
 * The platform's defaults, from published Chinese hospital report limits: emergency
 * X-ray 30 min, emergency CT/MR 1 h (head 30 min), outpatient CT/MR 4 working hours,
 * inpatient CT/MR 6 working hours, anything else (complex cases) 24 h.
 */
export const DEFAULT_LIMITS: readonly LimitRule[] = Object.freeze([
  ...XRAY.map((modality) => ({ priority: PRIORITY.emergency, modality, minutes: 30, workingHours: false })),
  ...['CT', 'MR'].flatMap((modality) => [
    // The head is 头 (头颅) or 颅 (颅脑) in item names.
    ...['头', '颅'].map((bodyPart) => ({ priority: PRIORITY.emergency, modality, bodyPart, minutes: 30, workingHours: false })),
    { priority: PRIORITY.emergency, modality, minutes: 60, workingHours: false },
    { priority: PRIORITY.outpatient, modality, minutes: 240, workingHours: true },
    { priority: PRIORITY.inpatient, modality, minutes: 360, workingHours: true },
  ]),
  { minutes: 24 * 60, workingHours: false },
]);

/** How many parts of the rule are set: the more, the more specific. */
function specificity(rule: LimitRule): number {
  return (rule.priority != null ? 4 : 0) + (rule.modality ? 2 : 0) + (rule.bodyPart ? 1 : 0);
}

/**
 * The limit a report takes: among the rules matching its priority, modality and item
 * names, the most specific; a hospital's own before a default of equal specificity.
 */
export function pickLimit(own: readonly LimitRule[], report: { priority: number; modality?: string | null; itemNames?: string | null }): LimitRule {
  const modality = (report.modality ?? '').toUpperCase();
  const matches = (r: LimitRule) =>
    (r.priority == null || r.priority === report.priority) &&
    (!r.modality || r.modality.toUpperCase() === modality) &&
    (!r.bodyPart || (report.itemNames ?? '').includes(r.bodyPart));
  let best: LimitRule | undefined;
  for (const rule of [...own, ...DEFAULT_LIMITS]) if (matches(rule) && (!best || specificity(rule) > specificity(best))) best = rule;
  // The last default matches everything.
  return best!;
}

/** A hospital's working hours (entities/workCalendar.json). */
export interface Calendar {
  /** "08:00", region time. */
  dayStart: string;
  dayEnd: string;
  /** ISO weekdays worked: 1 Monday .. 7 Sunday. */
  workDays: readonly number[];
  /** Near: less than this share (percent) of the limit left. */
  nearPercent: number;
}

export const DEFAULT_CALENDAR: Calendar = Object.freeze({ dayStart: '08:00', dayEnd: '17:30', workDays: Object.freeze([1, 2, 3, 4, 5]), nearPercent: 25 });

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const REGION_OFFSET = 8 * 60 * MINUTE;

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The working spans of the region day starting at local midnight `dayStart` (ms, region clock), or none. */
function spanOf(dayStart: number, cal: Calendar): [number, number] | undefined {
  const weekday = ((Math.floor(dayStart / DAY) + 3) % 7) + 1; // 1970-01-01 was a Thursday (ISO 4)
  if (!cal.workDays.includes(weekday)) return undefined;
  return [dayStart + minutesOf(cal.dayStart) * MINUTE, dayStart + minutesOf(cal.dayEnd) * MINUTE];
}

/** A calendar without a working day would never reach a due time: its limits count as wall-clock time. */
const worksAtAll = (cal: Calendar) => cal.workDays.length > 0 && minutesOf(cal.dayEnd) > minutesOf(cal.dayStart);

/** `from` plus `minutes` of working time on the calendar (wall-clock time when `working` is false). */
export function addMinutes(from: Date, minutes: number, working: boolean, cal: Calendar): Date {
  if (!working || !worksAtAll(cal) || minutes <= 0) return new Date(from.getTime() + minutes * MINUTE);
  let at = from.getTime() + REGION_OFFSET;
  let left = minutes * MINUTE;
  for (let day = Math.floor(at / DAY) * DAY; ; day += DAY) {
    const span = spanOf(day, cal);
    if (!span) continue;
    const start = Math.max(at, span[0]);
    if (start >= span[1]) continue;
    if (start + left <= span[1]) return new Date(start + left - REGION_OFFSET);
    left -= span[1] - start;
    at = span[1];
  }
}

/** Minutes of working time (wall-clock when `working` is false) from `from` to `to`; negative when `to` is earlier. */
export function minutesBetween(from: Date, to: Date, working: boolean, cal: Calendar): number {
  if (to < from) return -minutesBetween(to, from, working, cal);
  if (!working || !worksAtAll(cal)) return Math.round((to.getTime() - from.getTime()) / MINUTE);
  const a = from.getTime() + REGION_OFFSET;
  const b = to.getTime() + REGION_OFFSET;
  let sum = 0;
  for (let day = Math.floor(a / DAY) * DAY; day < b; day += DAY) {
    const span = spanOf(day, cal);
    if (span) sum += Math.max(0, Math.min(b, span[1]) - Math.max(a, span[0]));
  }
  return Math.round(sum / MINUTE);
}

/** When the report is due and when it turns near, from `start` (sent, or resumed with `minutes` left of `limit`). */
export function dueTimes(start: Date, minutes: number, limit: number, working: boolean, cal: Calendar): { dueAt: Date; nearAt: Date } {
  const nearLeft = Math.round((limit * cal.nearPercent) / 100);
  const dueAt = addMinutes(start, minutes, working, cal);
  // Already inside the near share when (re)started: near at once.
  const nearAt = minutes <= nearLeft ? start : addMinutes(start, minutes - nearLeft, working, cal);
  return { dueAt, nearAt };
}

/** Where a report stands at `now` (the same rule the list's SQL applies: server/report/turnaround.ts). */
export function dueState(r: { dueAt?: Date | null; nearAt?: Date | null; pausedAt?: Date | null; finalAt?: Date | null }, now: Date): DueState | undefined {
  if (!r.dueAt) return undefined;
  if (r.finalAt) return 'done';
  if (r.pausedAt) return 'paused';
  if (r.dueAt <= now) return 'overdue';
  if (r.nearAt && r.nearAt <= now) return 'near';
  return 'ok';
}
