/**
 * Turnaround limits of reports sent to a superior hospital (issue #19 item 4): the
 * workflow effects that start, pause, resume and stop a report's clock (named by
 * config/workflows/report.json, registered in ./guards.ts's EFFECTS), the one SQL rule
 * of a row's due state the lists read, and the overdue sweep, a database job every
 * instance runs safely side by side (FOR UPDATE SKIP LOCKED): an overdue report is
 * noted once in its operation record, released from its claim back to the pool, and
 * counted in the remote notice (`overdue`) the centre lead sees. The arithmetic is
 * src/shared/turnaround.ts. Touches report (its clock columns) and exam_log; reads
 * exam, turnaround_limit and work_calendar.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from '../db';
import { clock } from '../lib/clock';
import { QueueWorker } from '../lib/queueWorker';
import {
  DEFAULT_CALENDAR,
  dueTimes,
  minutesBetween,
  pickLimit,
  priorityOf,
  type Calendar,
  type LimitRule,
} from '../../src/shared/turnaround';
import type { ActionContext } from './types';

/** A hospital's calendar, or the default one. */
async function calendarOf(q: Queryable, hospitalId: number): Promise<Calendar> {
  const { rows } = await q.query<Calendar>(
    `SELECT day_start AS "dayStart", day_end AS "dayEnd", work_days AS "workDays", near_percent AS "nearPercent" FROM work_calendar WHERE hospital_id = $1`,
    [hospitalId],
  );
  return rows[0] ?? DEFAULT_CALENDAR;
}

interface Clock {
  priority: number | null;
  exam_priority: number | null;
  patient_source: number | null;
  modality: string | null;
  item_names: string | null;
  limit_minutes: number | null;
  limit_working: boolean | null;
  due_at: Date | null;
  clock_paused_at: Date | null;
  clock_left_minutes: number | null;
  superior_send_time: Date | null;
  first_claimed_at: Date | null;
  final_at: Date | null;
}

async function clockOf(q: Queryable, id: number): Promise<Clock> {
  const { rows } = await q.query<Clock>(
    `SELECT r.priority, e.priority AS exam_priority, e.patient_source, e.modality, e.item_names, r.limit_minutes, r.limit_working,
            r.due_at, r.clock_paused_at, r.clock_left_minutes, r.superior_send_time, r.first_claimed_at, r.final_at
       FROM exam e JOIN report r ON r.id = e.id WHERE e.id = $1`,
    [id],
  );
  return rows[0];
}

const seconds = (from: Date | null, to: Date) => (from ? Math.max(0, Math.round((to.getTime() - from.getTime()) / 1000)) : null);

/**
 * The clock of report `id` sent up to `hospitalId` at `now`: started on that hospital's
 * limits and calendar, or resumed with what was left when a return paused it. The
 * columns to set on the report (the startClock effect's, and the demo seed's).
 */
export async function clockStart(q: Queryable, id: number, hospitalId: number, now: Date): Promise<Record<string, unknown>> {
  const c = await clockOf(q, id);
  const cal = await calendarOf(q, hospitalId);
  const resumed = c.clock_paused_at !== null && c.limit_minutes !== null && c.clock_left_minutes !== null;
  const set: Record<string, unknown> = {};
  let limit: { minutes: number; workingHours: boolean };
  let left: number;
  if (resumed) {
    limit = { minutes: c.limit_minutes!, workingHours: c.limit_working === true };
    left = c.clock_left_minutes!;
  } else {
    const priority = priorityOf(c.exam_priority, c.patient_source);
    const { rows } = await q.query<LimitRule>(
      `SELECT priority, modality, body_part AS "bodyPart", minutes, working_hours AS "workingHours" FROM turnaround_limit WHERE hospital_id = $1`,
      [hospitalId],
    );
    limit = pickLimit(rows, { priority, modality: c.modality, itemNames: c.item_names });
    left = limit.minutes;
    Object.assign(set, { priority, first_claimed_at: null, claim_seconds: null, final_at: null, final_seconds: null, within_limit: null, overdue_at: null });
  }
  const { dueAt, nearAt } = dueTimes(now, left, limit.minutes, limit.workingHours, cal);
  return Object.assign(set, { limit_minutes: limit.minutes, limit_working: limit.workingHours, due_at: dueAt, near_at: nearAt, clock_paused_at: null, clock_left_minutes: null });
}

export const CLOCK_EFFECTS = {
  /**
   * Sent up (after sendToSuperior chose the hospital): the clock starts on the limits and
   * calendar of the hospital it goes to; a clock paused by a return resumes with what
   * was left of it.
   */
  async startClock(ctx: ActionContext): Promise<void> {
    Object.assign(ctx.set, await clockStart(ctx.q, ctx.report.id, ctx.target!.id, ctx.now));
    ctx.log.dueAt = (ctx.set.due_at as Date).toISOString();
  },

  /** Returned: the clock waits with what is left of the limit (negative once overdue). */
  async pauseClock(ctx: ActionContext): Promise<void> {
    const c = await clockOf(ctx.q, ctx.report.id);
    if (!c?.due_at || c.clock_paused_at || c.final_at) return;
    const cal = await calendarOf(ctx.q, ctx.report.superior_hospital_id ?? ctx.report.exam_hospital_id);
    Object.assign(ctx.set, { clock_paused_at: ctx.now, clock_left_minutes: minutesBetween(ctx.now, c.due_at, c.limit_working === true, cal) });
  },

  /** Approved at the superior hospital: the time to final and whether it was within the limit. */
  async stopClock(ctx: ActionContext): Promise<void> {
    if (!ctx.report.sent_to_superior) return;
    const c = await clockOf(ctx.q, ctx.report.id);
    if (!c?.due_at || c.final_at) return;
    Object.assign(ctx.set, { final_at: ctx.now, final_seconds: seconds(c.superior_send_time, ctx.now), within_limit: ctx.now <= c.due_at });
  },

  /** A central doctor takes the report on (opens it to work, or claims it): the first time is the time to claim. */
  async noteClaim(ctx: ActionContext): Promise<void> {
    const r = ctx.report;
    if (!r.sent_to_superior || ctx.me.hospitalId !== r.superior_hospital_id) return;
    const c = await clockOf(ctx.q, r.id);
    if (!c?.due_at || c.first_claimed_at) return;
    Object.assign(ctx.set, { first_claimed_at: ctx.now, claim_seconds: seconds(c.superior_send_time, ctx.now) });
  },
};

/**
 * A list row's due state at `now` (a bound parameter): the SQL twin of
 * src/shared/turnaround.ts dueState, in one place for every list and filter.
 */
export function dueStateSql(now: string): string {
  return `CASE WHEN r.due_at IS NULL THEN NULL WHEN r.final_at IS NOT NULL THEN 'done' WHEN r.clock_paused_at IS NOT NULL THEN 'paused'
    WHEN r.due_at <= ${now} THEN 'overdue' WHEN r.near_at <= ${now} THEN 'near' ELSE 'ok' END`;
}

/** Rows the sweep released in one pass. */
export interface Overdue {
  id: number;
  hospital_id: number;
  superior_hospital_id: number;
  released: number | null;
}

/**
 * One pass of the overdue sweep at `now`: up to `batch` running clocks past their due
 * time, each noted once (overdue_at), released from its claim and logged. Rows another
 * instance holds are skipped, not waited for.
 */
export async function sweepOverdue(db: Db, now: Date, batch = 100): Promise<Overdue[]> {
  return db.tx(async (q) => {
    const { rows } = await q.query<Overdue>(
      `WITH late AS (
         SELECT r.id, r.remote_claimed_by FROM report r
          WHERE r.sent_to_superior AND r.overdue_at IS NULL AND r.clock_paused_at IS NULL AND r.final_at IS NULL AND r.due_at <= $1
          ORDER BY r.due_at LIMIT $2 FOR UPDATE OF r SKIP LOCKED),
       released AS (
         UPDATE report r SET overdue_at = $1, remote_claimed_by = NULL, remote_claimed_at = NULL
           FROM late WHERE r.id = late.id
         RETURNING r.id, r.superior_hospital_id, late.remote_claimed_by AS released)
       SELECT x.id, e.hospital_id, x.superior_hospital_id, x.released::int AS released FROM released x JOIN exam e ON e.id = x.id`,
      [now, batch],
    );
    if (rows.length) {
      await q.query(
        `INSERT INTO exam_log (exam_id, hospital_id, action, created_at, detail)
         SELECT x.id, x.hospital_id, 'overdue', $4, jsonb_build_object('releasedUserId', x.released, 'superiorHospitalId', x.superior)
           FROM unnest($1::int[], $2::int[], $3::int[], $5::int[]) AS x(id, hospital_id, released, superior)`,
        [rows.map((r) => r.id), rows.map((r) => r.hospital_id), rows.map((r) => r.released), now, rows.map((r) => r.superior_hospital_id)],
      );
    }
    return rows;
  });
}

/** The sweep as a worker of each instance: a pass whenever the last one found a full batch, else every `pollMs`. */
export class OverdueSweeper extends QueueWorker<Overdue[]> {
  constructor(
    private readonly db: () => Db,
    pollMs: number,
    private readonly logger?: FastifyBaseLogger,
  ) {
    super('overdue sweep', pollMs, logger);
  }

  async claim(): Promise<Overdue[] | undefined> {
    const rows = await sweepOverdue(this.db(), clock.now());
    return rows.length ? rows : undefined;
  }

  protected async execute(rows: Overdue[]): Promise<void> {
    this.logger?.info({ overdue: rows.length, released: rows.filter((r) => r.released !== null).length }, 'overdue reports noted');
  }
}

