/**
 * Turnaround limits (src/shared/turnaround.ts): which limit a report takes, its due time
 * on a working-hours calendar (evenings, weekends, several days), what is left when the
 * clock pauses while returned and the due time when it resumes, and the due state.
 * Times are written in the region's time (+08:00); 2026-11-27 is a Friday.
 */
import { addMinutes, DEFAULT_CALENDAR, dueState, dueTimes, minutesBetween, pickLimit, priorityOf, type Calendar } from '../../src/shared/turnaround';

const at = (local: string) => new Date(`${local}+08:00`);
const cal = DEFAULT_CALENDAR; // 08:00-17:30, Monday to Friday

test("the priority is the exam's own, else its patient source's (emergency, inpatient, outpatient, physical examination)", () => {
  expect(priorityOf(2, 3)).toBe(2);
  expect(priorityOf(null, 3)).toBe(1);
  expect(priorityOf(null, 2)).toBe(2);
  expect(priorityOf(null, 1)).toBe(3);
  expect(priorityOf(null, 4)).toBe(4);
  expect(priorityOf(undefined, 99)).toBe(3);
});

test('the published defaults: emergency X-ray 30 min, emergency CT 1 h and head 30 min, outpatient/inpatient CT in working hours, else 24 h', () => {
  expect(pickLimit([], { priority: 1, modality: 'DR', itemNames: '胸部正位' })).toMatchObject({ minutes: 30, workingHours: false });
  expect(pickLimit([], { priority: 1, modality: 'CT', itemNames: '腹部平扫' })).toMatchObject({ minutes: 60, workingHours: false });
  expect(pickLimit([], { priority: 1, modality: 'ct', itemNames: '头颅平扫' })).toMatchObject({ minutes: 30, workingHours: false });
  expect(pickLimit([], { priority: 1, modality: 'MR', itemNames: '颅脑 MR 平扫' })).toMatchObject({ minutes: 30, workingHours: false });
  expect(pickLimit([], { priority: 3, modality: 'MR', itemNames: '膝关节' })).toMatchObject({ minutes: 240, workingHours: true });
  expect(pickLimit([], { priority: 2, modality: 'CT', itemNames: '胸部' })).toMatchObject({ minutes: 360, workingHours: true });
  expect(pickLimit([], { priority: 4, modality: 'US', itemNames: '腹部' })).toMatchObject({ minutes: 1440, workingHours: false });
});

test("a hospital's own rule wins over a default as specific, and a more specific default still wins over a vague own rule", () => {
  const own = [
    { priority: 1, modality: 'CT', minutes: 45, workingHours: false },
    { minutes: 600, workingHours: true },
  ];
  expect(pickLimit(own, { priority: 1, modality: 'CT', itemNames: '腹部' }).minutes).toBe(45);
  expect(pickLimit(own, { priority: 1, modality: 'CT', itemNames: '头颅' }).minutes).toBe(30);
  expect(pickLimit(own, { priority: 4, modality: 'US' }).minutes).toBe(600);
});

test('wall-clock limits run through the night; working-hour limits skip evenings and weekends', () => {
  expect(addMinutes(at('2026-11-27T23:50:00'), 30, false, cal)).toEqual(at('2026-11-28T00:20:00'));
  // Friday 15:30 + 4 working hours: 2 h on Friday, 2 h from Monday 08:00.
  expect(addMinutes(at('2026-11-27T15:30:00'), 240, true, cal)).toEqual(at('2026-11-30T10:00:00'));
  // Sent on Saturday evening: the clock starts on Monday morning.
  expect(addMinutes(at('2026-11-28T20:00:00'), 360, true, cal)).toEqual(at('2026-11-30T14:00:00'));
  // Sent before the day starts.
  expect(addMinutes(at('2026-11-26T06:00:00'), 60, true, cal)).toEqual(at('2026-11-26T09:00:00'));
  // A limit longer than a working day (9.5 h): Thursday 08:00 + 12 h → Friday 10:30.
  expect(addMinutes(at('2026-11-26T08:00:00'), 720, true, cal)).toEqual(at('2026-11-27T10:30:00'));
});

test('working minutes between two instants count only the working spans, and go negative backwards', () => {
  expect(minutesBetween(at('2026-11-27T15:30:00'), at('2026-11-30T10:00:00'), true, cal)).toBe(240);
  expect(minutesBetween(at('2026-11-28T09:00:00'), at('2026-11-29T18:00:00'), true, cal)).toBe(0);
  expect(minutesBetween(at('2026-11-30T10:00:00'), at('2026-11-27T15:30:00'), true, cal)).toBe(-240);
  expect(minutesBetween(at('2026-11-27T15:30:00'), at('2026-11-27T16:00:00'), false, cal)).toBe(30);
});

test("another hospital's calendar (Saturday worked, 07:30-12:00) moves the due time", () => {
  const saturday: Calendar = { dayStart: '07:30', dayEnd: '12:00', workDays: [1, 2, 3, 4, 5, 6], nearPercent: 25 };
  expect(addMinutes(at('2026-11-27T11:00:00'), 240, true, saturday)).toEqual(at('2026-11-28T10:30:00'));
  // A calendar without working days falls back to wall-clock time rather than never come due.
  expect(addMinutes(at('2026-11-27T11:00:00'), 60, true, { ...saturday, workDays: [] })).toEqual(at('2026-11-27T12:00:00'));
});

test('the clock pauses while returned: what was left resumes from the moment it comes back', () => {
  // Outpatient CT sent Friday 15:30: due Monday 10:00.
  const sent = at('2026-11-27T15:30:00');
  const { dueAt } = dueTimes(sent, 240, 240, true, cal);
  expect(dueAt).toEqual(at('2026-11-30T10:00:00'));
  // Returned Friday 16:30 (1 h used): 3 working hours left.
  const left = minutesBetween(at('2026-11-27T16:30:00'), dueAt, true, cal);
  expect(left).toBe(180);
  // Sent again on Tuesday 16:00: 1.5 h on Tuesday, 1.5 h from Wednesday 08:00.
  const resumed = dueTimes(at('2026-12-01T16:00:00'), left, 240, true, cal);
  expect(resumed.dueAt).toEqual(at('2026-12-02T09:30:00'));
  // Near once a quarter of the limit (60 working minutes) is left: Wednesday 08:30.
  expect(resumed.nearAt).toEqual(at('2026-12-02T08:30:00'));
});

test('due state: ok, near, overdue; paused and done whatever the time', () => {
  const r = { dueAt: at('2026-11-27T12:00:00'), nearAt: at('2026-11-27T11:45:00') };
  expect(dueState(r, at('2026-11-27T11:00:00'))).toBe('ok');
  expect(dueState(r, at('2026-11-27T11:50:00'))).toBe('near');
  expect(dueState(r, at('2026-11-27T12:00:00'))).toBe('overdue');
  expect(dueState({ ...r, pausedAt: at('2026-11-27T11:00:00') }, at('2026-11-28T00:00:00'))).toBe('paused');
  expect(dueState({ ...r, finalAt: at('2026-11-27T13:00:00') }, at('2026-11-28T00:00:00'))).toBe('done');
  expect(dueState({}, at('2026-11-28T00:00:00'))).toBeUndefined();
});
