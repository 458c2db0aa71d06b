/**
 * Appointment scheduling (issue #5 item 2) through the API on each database:
 * - reservation rules through the generic table store: schedule:configure gates
 *   saving (the clerk may only read), an end before the start names endTime
 * - rules → slots: times in the region's clock, capacity, booked count, bookings;
 *   the calendar sums a month per day
 * - booking a walk-in into a slot: appointment + time + station, out of the worklist
 *   until check-in, logged appointExam; refused: past time or no such slot (RIS120),
 *   a full slot (RIS119, nothing stored), a terminated exam (RIS102), no right (UAA103)
 * - concurrent bookings of a slot's last place: exactly one wins
 * - moving a booking is logged modifyBooking; cancelling cancelBooking
 * - check-in after booking puts the exam on the worklist; it can no longer be booked
 * - scope: another hospital's slots, calendar and bookings are refused to the clerk
 * - masking: grade safety on masks the patient names in the day's bookings
 */
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { daySlots, regionDate, ruleApplies } from '../../server/routes/schedule';

const RIS = '/api/ris/v1';

/** A date well after the demo appointments (at most three days ahead), in the region's calendar. */
const DAY = regionDate(new Date(Date.now() + 20 * 86400_000));
const at = (hhmm: string, date = DAY) => new Date(`${date}T${hhmm}:00+08:00`).toISOString();

test('rules give slots that end by the rule end, on the days they name', () => {
  const rule = { id: 1, device_id: 1, modality: null, weekdays: 0, start_time: '08:00', end_time: '09:10', slot_minutes: 30, capacity: 2 };
  const slots = daySlots([rule], '2030-01-07');
  expect(slots.map((s) => s.start.toISOString())).toEqual(['2030-01-07T00:00:00.000Z', '2030-01-07T00:30:00.000Z']);
  // 2030-01-07 is a Monday, 2030-01-12 a Saturday.
  expect([ruleApplies(8, '2030-01-07'), ruleApplies(8, '2030-01-12'), ruleApplies(9, '2030-01-12'), ruleApplies(1, '2030-01-07'), ruleApplies(2, '2030-01-07')]).toEqual([
    true,
    false,
    true,
    true,
    false,
  ]);
  expect(daySlots([{ ...rule, weekdays: 6 }], '2030-01-07')).toEqual([]);
});

describe.each(dbKinds)('scheduling on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let clerkA: string;
  let technicianA: string;
  let orgs: Record<string, number>;
  const devices: Record<string, number> = {};
  const items: Record<string, { itemId: number; organId: number }> = {};
  const call = (method: 'GET' | 'POST', url: string, payload?: object, token = admin) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const logs = async (examId: number) => (await p.db.query<{ action: string }>('SELECT action FROM exam_log WHERE exam_id = $1 ORDER BY id', [examId])).rows.map((r) => r.action);
  const inWorklist = async (id: number) => (await p.db.query('SELECT 1 FROM worklist_steps WHERE exam_id = $1', [id])).rowCount === 1;

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    [admin, clerkA, technicianA] = await Promise.all([login(p.app, '13800000001'), login(p.app, '13800000002'), login(p.app, '13800000003')]);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    for (const d of (await p.db.query<{ ae: string; id: number }>('SELECT ae_title AS ae, id FROM device')).rows) devices[d.ae] = d.id;
    const rows = await p.db.query<{ code: string; id: number; organ_id: number }>('SELECT i.code, i.id, i.organ_id FROM exam_item i WHERE i.hospital_id = $1', [orgs.HOSP_A]);
    for (const r of rows.rows) items[r.code] = { itemId: r.id, organId: r.organ_id };
  });
  afterAll(() => p.close());

  /** A walk-in registration of hospital A (here now, on the worklist). */
  const register = async (over: Record<string, unknown> = {}) => {
    const r = await call(
      'POST',
      `${RIS}/exam/save`,
      {
        hospitalId: orgs.HOSP_A,
        hisPatientName: '李预约',
        sex: 2,
        age: 40,
        ageUnit: 4,
        patientSource: 1,
        outPatientNo: 'MZ9001',
        phone: '13812345678',
        deviceId: devices.A_CT1,
        items: [items.CT002],
        ...over,
      },
      clerkA,
    );
    expect(r.body.status).toBe('0');
    return r.body.data as { id: number; examCode: string };
  };
  const book = (examId: number, start: string, deviceId = devices.A_CT1, token = clerkA) =>
    call('POST', `${RIS}/schedule/book`, { examId, start, ...(deviceId ? { deviceId } : {}) }, token);
  const slots = async (deviceId: number, token = clerkA, hospitalId = orgs.HOSP_A, date = DAY) =>
    call('GET', `${RIS}/schedule/slots?hospitalId=${hospitalId}&date=${date}&deviceId=${deviceId}`, undefined, token);

  test('reservation rules: configure right to save, an end before the start names endTime; slots follow', async () => {
    const rule = { hospitalId: orgs.HOSP_A, deviceId: devices.A_US1, weekdays: 0, startTime: '09:00', endTime: '10:00', slotMinutes: 20, capacity: 1 };
    expect((await call('POST', `${RIS}/scheduleRule/save`, rule, clerkA)).body.status).toBe('UAA103');
    expect((await call('POST', `${RIS}/scheduleRule/list`, { filters: { deviceId: devices.A_US1 } }, clerkA)).body.status).toBe('0');
    const backwards = await call('POST', `${RIS}/scheduleRule/save`, { ...rule, startTime: '10:00', endTime: '09:00' });
    expect(backwards).toMatchObject({ code: 400, body: { status: 'UAA421', field: 'endTime' } });
    const saved = await call('POST', `${RIS}/scheduleRule/save`, rule);
    expect(saved.body.status).toBe('0');

    const s = (await slots(devices.A_US1)).body.data.slots;
    expect(s.map((x: { time: string }) => x.time)).toEqual(['09:00', '09:20', '09:40']);
    expect(s[0]).toMatchObject({ start: at('09:00'), end: at('09:20'), endTime: '09:20', capacity: 1, booked: 0, past: false, bookings: [] });
    // The demo rules of A_CT1: 08:00-12:00 and 14:00-17:00 in 30-minute slots of two places.
    const ct = (await slots(devices.A_CT1)).body.data.slots;
    expect(ct).toHaveLength(14);
    expect(ct.every((x: { capacity: number }) => x.capacity === 2)).toBe(true);
    // A disabled rule gives no slots.
    await call('POST', `${RIS}/scheduleRule/save`, { ...saved.body.data, enabled: false });
    expect((await slots(devices.A_US1)).body.data.slots).toEqual([]);
    await call('POST', `${RIS}/scheduleRule/save`, { ...saved.body.data, enabled: true });
  });

  test('booking a walk-in: appointment, time and station; out of the worklist until check-in; logged', async () => {
    const e = await register();
    expect(await inWorklist(e.id)).toBe(true);
    const r = await book(e.id, at('08:00'), devices.A_DR1);
    expect(r.body.status).toBe('0');
    expect(r.body.data).toMatchObject({ examId: e.id, appointment: true, appointTime: at('08:00'), appointAt: `${DAY} 08:00`, deviceId: devices.A_DR1, modality: 'DX' });
    expect(await inWorklist(e.id)).toBe(false);
    expect(await logs(e.id)).toEqual(['registerExam', 'appointExam']);
    const stored = await p.db.query('SELECT scheduled_ae_title, scheduled_start, arrived_at FROM exam WHERE id = $1', [e.id]);
    expect(stored.rows[0]).toMatchObject({ scheduled_ae_title: 'A_DR1', arrived_at: null });
    expect(new Date(stored.rows[0].scheduled_start as string).toISOString()).toBe(at('08:00'));

    const day = (await slots(devices.A_DR1)).body.data.slots;
    expect(day[0]).toMatchObject({ time: '08:00', booked: 1, capacity: 3 });
    expect(day[0].bookings).toEqual([expect.objectContaining({ examId: e.id, examCode: e.examCode, hisPatientName: '李预约' })]);
    expect(day[0].bookings[0].phone).toBeUndefined();

    // Check-in puts it on the worklist, after which it can no longer be booked or cancelled.
    expect((await call('POST', `${RIS}/exam/checkin/${e.id}`, undefined, clerkA)).body.status).toBe('0');
    expect(await inWorklist(e.id)).toBe(true);
    expect((await book(e.id, at('08:20'), devices.A_DR1)).body.status).toBe('RIS102');
    expect((await call('POST', `${RIS}/schedule/cancel/${e.id}`, undefined, clerkA)).body.status).toBe('RIS102');
  });

  test('refusals: past or off-slot time (RIS120), terminated exam (RIS102), no right (UAA103), foreign device (UAA421)', async () => {
    const e = await register();
    const yesterday = regionDate(new Date(Date.now() - 86400_000));
    expect((await book(e.id, at('08:00', yesterday))).body.status).toBe('RIS120');
    expect((await book(e.id, at('08:10'))).body.status).toBe('RIS120');
    expect((await book(e.id, at('13:00'))).body.status).toBe('RIS120');
    expect((await book(e.id, at('08:00'), devices.C_CT1)).body).toMatchObject({ status: 'UAA421', field: 'deviceId' });
    expect((await book(e.id, at('08:00'), devices.A_CT1, technicianA)).body.status).toBe('UAA103');
    expect(await logs(e.id)).toEqual(['registerExam']);
    expect((await call('POST', `${RIS}/exam/terminate/${e.id}`, undefined, clerkA)).body.status).toBe('0');
    expect((await book(e.id, at('08:00'))).body.status).toBe('RIS102');
  });

  test('a full slot is refused and nothing is stored', async () => {
    const [a, b, c] = [await register(), await register(), await register()];
    expect((await book(a.id, at('09:00'))).body.status).toBe('0');
    expect((await book(b.id, at('09:00'))).body.status).toBe('0');
    const full = await book(c.id, at('09:00'));
    expect(full).toMatchObject({ code: 409, body: { status: 'RIS119' } });
    const stored = await p.db.query('SELECT appointment, appoint_time FROM exam WHERE id = $1', [c.id]);
    expect(stored.rows[0]).toEqual({ appointment: false, appoint_time: null });
    expect(await logs(c.id)).toEqual(['registerExam']);
    // Moving within its own slot does not count the moving exam against itself.
    expect((await book(a.id, at('09:00'))).body.status).toBe('0');
  });

  test('concurrent bookings of the last place: exactly one wins', async () => {
    const exams = [];
    for (let i = 0; i < 6; i++) exams.push(await register({ hisPatientName: `并发预约${i}` }));
    expect((await book(exams[0].id, at('10:00'))).body.status).toBe('0');
    const replies = await Promise.all(exams.slice(1).map((e) => book(e.id, at('10:00'))));
    const statuses = replies.map((r) => r.body.status).sort();
    expect(statuses).toEqual(['0', 'RIS119', 'RIS119', 'RIS119', 'RIS119']);
    const n = await p.db.query<{ n: number }>('SELECT count(*)::int AS n FROM exam WHERE appointment AND appoint_time = $1 AND device_id = $2', [at('10:00'), devices.A_CT1]);
    expect(n.rows[0].n).toBe(2);
  });

  test('moving a booking is logged modifyBooking; cancelling leaves the exam registered and unbooked', async () => {
    const e = await register();
    expect((await book(e.id, at('11:00'))).body.status).toBe('0');
    expect((await book(e.id, at('11:00'), devices.A_CT1, technicianA)).body.status).toBe('UAA103');
    const moved = await book(e.id, at('14:30'));
    expect(moved.body.data).toMatchObject({ appointTime: at('14:30') });
    expect(await logs(e.id)).toEqual(['registerExam', 'appointExam', 'modifyBooking']);
    const detail = await p.db.query<{ detail: { from: string; to: string } }>("SELECT detail FROM exam_log WHERE exam_id = $1 AND action = 'modifyBooking'", [e.id]);
    expect(detail.rows[0].detail.to).toBe(at('14:30'));
    expect(new Date(detail.rows[0].detail.from).toISOString()).toBe(at('11:00'));

    const cancelled = await call('POST', `${RIS}/schedule/cancel/${e.id}`, undefined, clerkA);
    expect(cancelled.body.data).toMatchObject({ appointment: false });
    expect(cancelled.body.data.appointTime).toBeUndefined();
    expect(await logs(e.id)).toEqual(['registerExam', 'appointExam', 'modifyBooking', 'cancelBooking']);
    expect(await inWorklist(e.id)).toBe(false);
    expect((await call('POST', `${RIS}/schedule/cancel/${e.id}`, undefined, clerkA)).body.status).toBe('RIS102');
    // Booked again, then checked in: on the worklist.
    expect((await book(e.id, at('15:00'))).body.status).toBe('0');
    expect((await call('POST', `${RIS}/exam/checkin/${e.id}`, undefined, clerkA)).body.status).toBe('0');
    expect(await inWorklist(e.id)).toBe(true);
  });

  test('modality slots (rules without a device) book the exam without a station', async () => {
    const e = await register({ deviceId: devices.A_US1, items: [items.US001] });
    const monday = (() => {
      let d = new Date(`${DAY}T12:00:00+08:00`);
      while (![1, 2, 3, 4, 5].includes(new Date(`${regionDate(d)}T00:00:00Z`).getUTCDay())) d = new Date(d.getTime() + 86400_000);
      return regionDate(d);
    })();
    const r = await book(e.id, at('08:15', monday), 0); // no device: the modality's slots
    expect(r.body.status).toBe('0');
    expect(r.body.data).toMatchObject({ modality: 'US', appointAt: `${monday} 08:15` });
    expect(r.body.data.deviceId).toBeUndefined();
    const day = await call('GET', `${RIS}/schedule/slots?hospitalId=${orgs.HOSP_A}&date=${monday}&modality=US`, undefined, clerkA);
    expect(day.body.data.slots.find((s: { time: string }) => s.time === '08:15')).toMatchObject({ booked: 1, capacity: 1 });
  });

  test('calendar per day and the bookings list; scope keeps other hospitals out', async () => {
    const month = DAY.slice(0, 7);
    const cal = await call('GET', `${RIS}/schedule/calendar?hospitalId=${orgs.HOSP_A}&month=${month}&deviceId=${devices.A_CT1}`, undefined, clerkA);
    expect(cal.body.status).toBe('0');
    const day = cal.body.data.days.find((d: { date: string }) => d.date === DAY);
    const booked = (await slots(devices.A_CT1)).body.data.slots.reduce((n: number, s: { booked: number }) => n + s.booked, 0);
    expect(day).toEqual({ date: DAY, slots: 14, capacity: 28, booked });
    expect(booked).toBeGreaterThan(0);

    const list = await call('GET', `${RIS}/schedule/bookings?hospitalId=${orgs.HOSP_A}&from=${DAY}&to=${DAY}`, undefined, clerkA);
    expect(list.body.data.total).toBeGreaterThanOrEqual(booked);
    const pending = await call('GET', `${RIS}/schedule/bookings?hospitalId=${orgs.HOSP_A}&from=${DAY}&to=${DAY}&pending=true`, undefined, clerkA);
    expect(pending.body.data.list.every((b: { arrivedAt?: string }) => !b.arrivedAt)).toBe(true);
    expect(pending.body.data.total).toBeLessThan(list.body.data.total);

    // Hospital A's clerk asks for the central hospital: refused, and no rows leak.
    for (const url of [
      `${RIS}/schedule/slots?hospitalId=${orgs.CENTRAL}&date=${DAY}&deviceId=${devices.C_CT1}`,
      `${RIS}/schedule/calendar?hospitalId=${orgs.CENTRAL}&month=${month}&deviceId=${devices.C_CT1}`,
      `${RIS}/schedule/bookings?hospitalId=${orgs.CENTRAL}&from=${DAY}&to=${DAY}`,
    ]) {
      expect((await call('GET', url, undefined, clerkA)).body.status).toBe('UCENTER101');
    }
    expect((await slots(devices.C_CT1, clerkA, orgs.HOSP_A)).body).toMatchObject({ status: 'UAA421', field: 'deviceId' });
    const rules = await call('POST', `${RIS}/scheduleRule/list`, { pageSize: 100 }, clerkA);
    expect(new Set(rules.body.data.list.map((r: { hospitalId: number }) => r.hospitalId))).toEqual(new Set([orgs.HOSP_A]));
    // The administrator sees the central hospital's slots.
    expect((await slots(devices.C_CT1, admin, orgs.CENTRAL)).body.data.slots.length).toBe(40);
  });

  test('grade safety masks the patient names of the bookings', async () => {
    const e = await register({ hisPatientName: '王掩码' });
    expect((await book(e.id, at('16:00'))).body.status).toBe('0');
    await call('POST', '/api/ucenter/v1/config/gradeSafety', { enabled: true });
    try {
      const slot = (await slots(devices.A_CT1)).body.data.slots.find((s: { time: string }) => s.time === '16:00');
      expect(slot.bookings.find((b: { examId: number }) => b.examId === e.id).hisPatientName).toBe('王**');
      const admin16 = (await slots(devices.A_CT1, admin)).body.data.slots.find((s: { time: string }) => s.time === '16:00');
      expect(admin16.bookings.find((b: { examId: number }) => b.examId === e.id).hisPatientName).toBe('王掩码');
    } finally {
      await call('POST', '/api/ucenter/v1/config/gradeSafety', { enabled: false });
    }
  });
});
