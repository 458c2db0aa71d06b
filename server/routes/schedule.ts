/**
 * /api/ris/v1/schedule: appointment scheduling (issue #5 item 2). The day's slots of a
 * device (or of a modality, for rules without a device) come from the hospital's
 * reservation rules (schedule_rule, kept by the generic table store as the
 * scheduleRule resource); a slot's bookings are the exams whose appointment time falls
 * in it. Booking, moving and cancelling write the exam's appointment columns and its
 * operation log (appointExam, modifyBooking, cancelBooking) in one transaction; the
 * patient enters the worklist at check-in (./exam.ts). Touches exam, exam_log and
 * schedule_slot_lock; reads schedule_rule and device.
 */
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { hasPermission } from '../identity/access';
import { requireHospital, scopeSql } from '../identity/scope';
import { clock } from '../lib/clock';
import { AppError } from '../lib/errors';
import { ok, replies } from '../lib/reply';
import { dropNulls } from '../lib/resource';
import { caller } from '../plugins/auth';
import { EXAM_STATE, examRow, inScope, writeLog } from '../exam/domain';
import { rowMasker } from '../identity/gradeSafety';
import { closed, common, pick } from '../lib/schemas';

/**
 * Rules are wall-clock times of the region (China Standard Time, lib/examRules.ts's
 * REGION_TIME_ZONE), which has kept one offset without daylight saving since 1991, so
 * a slot's instant is its date and time at that offset.
 */
const REGION_OFFSET = '+08:00';
const REGION_OFFSET_MS = 8 * 3600_000;

export interface RuleRow {
  id: number;
  device_id: number | null;
  modality: string | null;
  weekdays: number;
  start_time: string;
  end_time: string;
  slot_minutes: number;
  capacity: number;
}

export interface Slot {
  start: Date;
  end: Date;
  capacity: number;
  ruleId: number;
}

/** ISO weekday (1 Monday … 7 Sunday) of a calendar date "YYYY-MM-DD". */
function isoWeekday(date: string): number {
  const d = new Date(`${date}T00:00:00Z`).getUTCDay();
  return d === 0 ? 7 : d;
}

/** codes/scheduleDays.json: 0 every day, 8 Monday-Friday, 9 weekend, else that ISO weekday. */
export function ruleApplies(weekdays: number, date: string): boolean {
  const day = isoWeekday(date);
  if (weekdays === 0) return true;
  if (weekdays === 8) return day <= 5;
  if (weekdays === 9) return day >= 6;
  return weekdays === day;
}

/**
 * The slots the rules give on a date, by start. A slot must end by the rule's end;
 * where two rules offer the same start (overlapping configuration) the earlier-listed
 * rule's slot stands, so one start is one slot with one capacity.
 */
export function daySlots(rules: RuleRow[], date: string): Slot[] {
  const byStart = new Map<number, Slot>();
  for (const r of rules) {
    if (!ruleApplies(r.weekdays, date)) continue;
    const from = new Date(`${date}T${r.start_time}:00${REGION_OFFSET}`).getTime();
    const until = new Date(`${date}T${r.end_time}:00${REGION_OFFSET}`).getTime();
    const step = r.slot_minutes * 60_000;
    for (let t = from; t + step <= until; t += step) {
      if (!byStart.has(t))
        byStart.set(t, {
          start: new Date(t),
          end: new Date(t + step),
          capacity: r.capacity,
          ruleId: r.id,
        });
    }
  }
  return [...byStart.values()].sort((a, b) => a.start.getTime() - b.start.getTime());
}

/** The region's calendar date "YYYY-MM-DD" of an instant. */
export function regionDate(at: Date): string {
  return new Date(at.getTime() + REGION_OFFSET_MS).toISOString().slice(0, 10);
}

/**
 * The region's wall clock "YYYY-MM-DD HH:MM" of an instant: the screens show slots and
 * appointments as the hospital's clock reads, whatever zone the browser is in.
 */
export function regionClock(at: Date): string {
  return new Date(at.getTime() + REGION_OFFSET_MS).toISOString().slice(0, 16).replace('T', ' ');
}

/** What is booked: one device's slots, or a modality's (rules and exams without a device). */
type Target = { kind: 'device'; deviceId: number } | { kind: 'modality'; modality: string };

const targetKey = (t: Target) => (t.kind === 'device' ? `device:${t.deviceId}` : `modality:${t.modality}`);

/** SQL condition on exam `e` (or rule `r`) for a target, appending its parameter. */
function targetSql(t: Target, alias: 'e' | 'r', params: unknown[]): string {
  if (t.kind === 'device') {
    params.push(t.deviceId);
    return `${alias}.device_id = $${params.length}`;
  }
  params.push(t.modality);
  return `${alias}.device_id IS NULL AND ${alias}.modality = $${params.length}`;
}

/** Enabled rules of a hospital for a target. A device rule only counts while the device is the hospital's own. */
async function rulesOf(q: Queryable, hospitalId: number, target: Target): Promise<RuleRow[]> {
  const params: unknown[] = [hospitalId];
  const { rows } = await q.query<RuleRow>(
    `SELECT r.id, r.device_id, r.modality, r.weekdays, r.start_time, r.end_time, r.slot_minutes, r.capacity
       FROM schedule_rule r LEFT JOIN device d ON d.id = r.device_id
      WHERE r.hospital_id = $1 AND r.enabled AND (r.device_id IS NULL OR d.hospital_id = r.hospital_id) AND ${targetSql(target, 'r', params)}
      ORDER BY r.start_time, r.id`,
    params,
  );
  return rows;
}

interface BookingRow {
  examId: number;
  examCode: string;
  hisPatientName: string;
  patientId: string;
  sex: number;
  modality: string | null;
  deviceId: number | null;
  deviceName: string | null;
  itemNames: string;
  appointTime: Date;
  arrivedAt: Date | null;
  examState: number;
  hospitalId: number;
}

const BOOKING_SELECT = `e.id AS "examId", e.exam_code AS "examCode", e.his_patient_name AS "hisPatientName", e.patient_id AS "patientId",
  e.sex, e.modality, e.device_id AS "deviceId", e.device_name AS "deviceName", e.item_names AS "itemNames", e.appoint_time AS "appointTime",
  e.arrived_at AS "arrivedAt", e.exam_state AS "examState", e.hospital_id AS "hospitalId", e.phone`;

/** Live (not terminated) appointments of a target in [from, to), within the caller's scope. */
async function bookingsOf(q: Queryable, hospitalId: number, target: Target, from: Date, to: Date, me?: AuthContext): Promise<BookingRow[]> {
  const params: unknown[] = [hospitalId, from, to];
  const scope = me ? ` AND ${scopeSql(me.scope, inScope, params)}` : '';
  const { rows } = await q.query<BookingRow>(
    `SELECT ${BOOKING_SELECT} FROM exam e
      WHERE e.hospital_id = $1 AND e.appointment AND e.appoint_time >= $2 AND e.appoint_time < $3 AND e.exam_state <> ${EXAM_STATE.terminated}
        AND ${targetSql(target, 'e', params)}${scope}
      ORDER BY e.appoint_time, e.id`,
    params,
  );
  return rows;
}

/** The hospital asked about must be one the caller's data scope covers. */
function checkHospital(me: AuthContext, hospitalId: number): void {
  requireHospital(me.scope, hospitalId);
}

/** A device target must be a device of that hospital. */
async function targetOf(q: Queryable, hospitalId: number, query: { deviceId?: number; modality?: string }): Promise<Target> {
  if (query.deviceId) {
    const d = await q.query('SELECT 1 FROM device WHERE id = $1 AND hospital_id = $2', [query.deviceId, hospitalId]);
    if (!d.rowCount) throw new AppError('UAA421', { detailKey: 'validation.invalid', field: 'deviceId' }, { field: 'deviceId' });
    return { kind: 'device', deviceId: query.deviceId };
  }
  if (query.modality) return { kind: 'modality', modality: query.modality };
  throw new AppError('UAA421', { detailKey: 'validation.required', field: 'deviceId' }, { field: 'deviceId' });
}

const dayStart = (date: string) => new Date(`${date}T00:00:00${REGION_OFFSET}`);
const nextDay = (date: string) => new Date(dayStart(date).getTime() + 86400_000);
const inSlot = (s: Slot, at: Date) => at >= s.start && at < s.end;

const targetQuery = {
  hospitalId: common('id'),
  deviceId: common('id'),
  modality: { $ref: 'common.json#/definitions/modality' },
};
const dateString = {
  type: 'string',
  pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$',
};
/**
 * A booking as the screens show it: the exam's booking fields (phone never sent, the
 * rest masked under grade safety), its id as examId, and `appointAt`, the appointment
 * on the region's wall clock. `appointment` is there in the answer to a change.
 */
const BOOKING = pick(
  'entities/exam.json',
  ['examCode', 'hisPatientName', 'patientId', 'sex', 'modality', 'deviceId', 'deviceName', 'itemNames', 'appointTime', 'arrivedAt', 'examState', 'hospitalId', 'appointment'],
  {
    required: ['examId', 'examCode', 'examState', 'hospitalId'],
    extra: { examId: { $ref: 'entities/exam.json#/properties/id' }, appointAt: { type: 'string', description: 'YYYY-MM-DD HH:mm on the region\'s clock' } },
  },
);
/** A slot of a day: its instants, its times on the region's clock, how full it is, and its bookings. */
const SLOT = closed({
  start: { type: 'string', format: 'date-time' },
  end: { type: 'string', format: 'date-time' },
  time: { type: 'string' },
  endTime: { type: 'string' },
  capacity: { type: 'integer' },
  booked: { type: 'integer' },
  past: { type: 'boolean' },
  ruleId: { type: 'integer' },
  bookings: { type: 'array', items: BOOKING },
});
const CALENDAR_DAY = closed({ date: { type: 'string' }, slots: { type: 'integer' }, capacity: { type: 'integer' }, booked: { type: 'integer' } });
const examIdParams = {
  type: 'object',
  required: ['examId'],
  properties: { examId: common('id') },
};

type TargetQuery = { hospitalId: number; deviceId?: number; modality?: string };

export default async function scheduleRoutes(fastify: FastifyInstance) {
  /** Rows as the caller may see them: patient identifiers masked when grade safety is on, as in the exam list. */
  const shown = async (me: AuthContext) => {
    const mask = await rowMasker(fastify.db, me);
    return (row: BookingRow) => {
      const { phone: _phone, ...rest } = mask(row as unknown as Record<string, unknown>);
      return dropNulls({
        ...rest,
        appointAt: row.appointTime ? regionClock(new Date(row.appointTime)) : null,
      });
    };
  };

  fastify.get<{ Querystring: TargetQuery & { date: string } }>(
    '/schedule/slots',
    {
      config: { permission: 'schedule:view', audit: 'none' },
      schema: {
        tags: ['ris'],
        summary: "A day's slots of a device (or a modality) with capacity, booked count and the bookings",
        querystring: {
          type: 'object',
          required: ['hospitalId', 'date'],
          properties: { ...targetQuery, date: dateString },
        },
        response: replies(closed({ date: { type: 'string' }, slots: { type: 'array', items: SLOT } })),
      },
    },
    async (request) => {
      const me = caller(request);
      const { hospitalId, date } = request.query;
      checkHospital(me, hospitalId);
      const target = await targetOf(fastify.db, hospitalId, request.query);
      const slots = daySlots(await rulesOf(fastify.db, hospitalId, target), date);
      const bookings = await bookingsOf(fastify.db, hospitalId, target, dayStart(date), nextDay(date), me);
      const show = await shown(me);
      // Past and today by the business clock (lib/clock.ts), as the workflow judges time.
      const now = clock.now().getTime();
      return ok({
        date,
        slots: slots.map((s) => {
          const mine = bookings.filter((b) => inSlot(s, new Date(b.appointTime)));
          return {
            start: s.start.toISOString(),
            end: s.end.toISOString(),
            time: regionClock(s.start).slice(11),
            endTime: regionClock(s.end).slice(11),
            capacity: s.capacity,
            booked: mine.length,
            past: s.start.getTime() <= now,
            ruleId: s.ruleId,
            bookings: mine.map(show),
          };
        }),
      });
    },
  );

  fastify.get<{ Querystring: TargetQuery & { month: string } }>(
    '/schedule/calendar',
    {
      config: { permission: 'schedule:view', audit: 'none' },
      schema: {
        tags: ['ris'],
        summary: 'Per day of a month: slots offered, capacity and bookings of a device (or a modality)',
        querystring: {
          type: 'object',
          required: ['hospitalId', 'month'],
          properties: {
            ...targetQuery,
            month: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$' },
          },
        },
        response: replies(closed({ month: { type: 'string' }, days: { type: 'array', items: CALENDAR_DAY } })),
      },
    },
    async (request) => {
      const me = caller(request);
      const { hospitalId, month } = request.query;
      checkHospital(me, hospitalId);
      const target = await targetOf(fastify.db, hospitalId, request.query);
      const rules = await rulesOf(fastify.db, hospitalId, target);
      const [y, m] = month.split('-').map(Number);
      const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
      const first = `${month}-01`;
      const bookings = await bookingsOf(fastify.db, hospitalId, target, dayStart(first), nextDay(`${month}-${String(daysInMonth).padStart(2, '0')}`), me);
      const days = [];
      for (let d = 1; d <= daysInMonth; d++) {
        const date = `${month}-${String(d).padStart(2, '0')}`;
        const slots = daySlots(rules, date);
        const booked = bookings.filter((b) => slots.some((s) => inSlot(s, new Date(b.appointTime)))).length;
        days.push({
          date,
          slots: slots.length,
          capacity: slots.reduce((n, s) => n + s.capacity, 0),
          booked,
        });
      }
      return ok({ month, days });
    },
  );

  fastify.get<{
    Querystring: {
      hospitalId: number;
      from?: string;
      to?: string;
      pending?: boolean;
    };
  }>(
    '/schedule/bookings',
    {
      config: { permission: 'schedule:view', audit: 'none' },
      schema: {
        tags: ['ris'],
        summary: "Appointments of a hospital from one date to another (inclusive; default the region's today), by time; pending: only those not checked in yet",
        querystring: {
          type: 'object',
          required: ['hospitalId'],
          properties: {
            hospitalId: common('id'),
            from: dateString,
            to: dateString,
            pending: { type: 'boolean' },
          },
        },
        response: replies(closed({ list: { type: 'array', items: BOOKING }, total: { type: 'integer' } })),
      },
    },
    async (request) => {
      const me = caller(request);
      // "Today" is the region's day, not the browser's: a screen may ask without dates.
      const today = regionDate(clock.now());
      const { hospitalId, from = today, to = from, pending } = request.query;
      checkHospital(me, hospitalId);
      // A list of appointments is for days or weeks, not years: 500 rows are plenty and keep the answer bounded.
      const params: unknown[] = [hospitalId, dayStart(from), nextDay(to)];
      const { rows } = await fastify.db.query<BookingRow>(
        `SELECT ${BOOKING_SELECT} FROM exam e
          WHERE e.hospital_id = $1 AND e.appointment AND e.appoint_time >= $2 AND e.appoint_time < $3 AND NOT e.hidden
            ${pending ? `AND e.arrived_at IS NULL AND e.exam_state = ${EXAM_STATE.registered}` : ''} AND ${scopeSql(me.scope, inScope, params)}
          ORDER BY e.appoint_time, e.id LIMIT 500`,
        params,
      );
      const show = await shown(me);
      return ok({ list: rows.map(show), total: rows.length });
    },
  );

  fastify.post<{ Body: { examId: number; deviceId?: number; start: string } }>(
    '/schedule/book',
    {
      // Booking an unbooked exam and moving a booking are separate rights; the handler checks the one that applies.
      config: { permission: ['schedule:book', 'schedule:modify'], audit: { action: 'update', object: 'exam', id: 'body.examId', patient: 'exam' } },
      schema: {
        tags: ['ris'],
        summary: "Book an exam into a slot, or move its booking (deviceId: that device's slots; without: the exam modality's slots)",
        body: {
          type: 'object',
          required: ['examId', 'start'],
          properties: {
            examId: common('id'),
            deviceId: common('id'),
            start: { $ref: 'common.json#/definitions/dateTime' },
          },
          additionalProperties: false,
        },
        response: replies(BOOKING),
      },
    },
    async (request) => {
      const me = caller(request);
      const { examId, deviceId } = request.body;
      const start = new Date(request.body.start);
      await fastify.db.tx(async (q) => {
        const exam = await examRow(q, examId, me, true);
        // Examined, terminated, or an appointment whose patient has checked in: nothing left to book.
        if (exam.exam_state !== EXAM_STATE.registered || exam.exam_time || (exam.appointment && exam.arrived_at)) throw new AppError('RIS102');
        const moving = exam.appointment;
        if (!hasPermission(me.permissions, moving ? 'schedule:modify' : 'schedule:book')) throw new AppError('UAA103');
        if (start.getTime() <= clock.now().getTime()) throw new AppError('RIS120');
        const modality = exam.modality as string | null;
        let device: { id: number; name: string; modality: string; ae_title: string } | undefined;
        if (deviceId) {
          device = (
            await q.query<{
              id: number;
              name: string;
              modality: string;
              ae_title: string;
            }>('SELECT id, name, modality, ae_title FROM device WHERE id = $1 AND hospital_id = $2', [deviceId, exam.hospital_id])
          ).rows[0];
          if (!device) throw new AppError('UAA421', { detailKey: 'validation.invalid', field: 'deviceId' }, { field: 'deviceId' });
        } else if (!modality) throw new AppError('UAA421', { detailKey: 'validation.required', field: 'deviceId' }, { field: 'deviceId' });
        const target: Target = device ? { kind: 'device', deviceId: device.id } : { kind: 'modality', modality: modality as string };
        const slot = daySlots(await rulesOf(q, exam.hospital_id, target), regionDate(start)).find((s) => s.start.getTime() === start.getTime());
        if (!slot) throw new AppError('RIS120');
        // Queue behind any other booking of this slot, then count with what they committed.
        await q.query(
          `INSERT INTO schedule_slot_lock (hospital_id, target, slot_start) VALUES ($1, $2, $3)
           ON CONFLICT (hospital_id, target, slot_start) DO UPDATE SET taken_at = now()`,
          [exam.hospital_id, targetKey(target), slot.start],
        );
        const others = (await bookingsOf(q, exam.hospital_id, target, slot.start, slot.end)).filter((b) => b.examId !== exam.id);
        if (others.length >= slot.capacity) throw new AppError('RIS119');
        // Worklist columns as registration sets them: the device is the scheduled station
        // and gives the modality; a modality slot names no station. The patient is not
        // here until check-in (a walk-in booked for later leaves the worklist until then).
        await q.query(
          `UPDATE exam SET appointment = true, appoint_time = $2, scheduled_start = $2, arrived_at = NULL,
                  device_id = $3, device_name = $4, scheduled_ae_title = $5, modality = $6, updated_at = now()
            WHERE id = $1`,
          [exam.id, slot.start, device?.id ?? null, device?.name ?? null, device?.ae_title ?? null, device?.modality ?? modality],
        );
        await writeLog(q, exam, moving ? 'modifyBooking' : 'appointExam', me, {
          from: moving ? exam.appoint_time : undefined,
          to: slot.start.toISOString(),
          deviceId: device?.id,
        });
      });
      return ok(await bookingOf(examId, me));
    },
  );

  fastify.post<{ Params: { examId: number } }>(
    '/schedule/cancel/:examId',
    {
      config: {
        permission: 'schedule:modify',
        scoped: { resource: 'exam', param: 'examId' },
        audit: { action: 'update', object: 'exam', id: 'params.examId', patient: 'exam' },
      },
      schema: {
        tags: ['ris'],
        summary: 'Cancel the booking of an exam not yet checked in; the exam stays registered, unbooked',
        params: examIdParams,
        response: replies(BOOKING),
      },
    },
    async (request) => {
      const me = caller(request);
      const { examId } = request.params;
      await fastify.db.tx(async (q) => {
        const exam = await examRow(q, examId, me, true);
        if (!exam.appointment || exam.arrived_at || exam.exam_state !== EXAM_STATE.registered) throw new AppError('RIS102');
        // Not arrived either: the exam waits for a new booking or a check-in, out of the worklist.
        await q.query('UPDATE exam SET appointment = false, appoint_time = NULL, scheduled_start = created_at, updated_at = now() WHERE id = $1', [exam.id]);
        await writeLog(q, exam, 'cancelBooking', me, {
          from: exam.appoint_time,
        });
      });
      return ok(await bookingOf(examId, me));
    },
  );

  /** The exam's booking fields after a change, as the caller may see them. */
  async function bookingOf(examId: number, me: AuthContext) {
    const params: unknown[] = [examId];
    const { rows } = await fastify.db.query<BookingRow>(
      `SELECT ${BOOKING_SELECT}, e.appointment FROM exam e WHERE e.id = $1 AND ${scopeSql(me.scope, inScope, params)}`,
      params,
    );
    return (await shown(me))(rows[0]);
  }
}
