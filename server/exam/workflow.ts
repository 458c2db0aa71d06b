/**
 * The exam's adapter to the generic workflow engine (../workflow/engine.ts), which
 * executes config/workflows/exam.json (checked here when the server starts): the exam
 * row locked within the caller's scope, its state and the state it had before a
 * termination, the guards and effects the table names, and what an action writes —
 * the exam's columns and state, and the operation-log entry in exam_log. Exams keep no
 * version and no lock. Touches exam and exam_log.
 */
import table from '../../config/workflows/exam.json';
import type { Db, Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { refusal } from '../lib/errors';
import { examRow } from './domain';
import * as engine from '../workflow/engine';
import type { Change, EngineContext } from '../workflow/engine';
import { checkTable, stateValue } from '../workflow/table';

/** What the exam's guards and effects read of an exam (columns as stored). */
export interface ExamStateRow {
  id: number;
  hospital_id: number;
  exam_code: string;
  exam_state: number;
  state_before_termination?: number | null;
  arrived_at: Date | string | null;
  exam_time: Date | string | null;
  appointment: boolean;
  hidden: boolean;
  /** 1 once a study is linked (../pacs/matching.ts keeps it). */
  image_status?: number;
}

type Ctx = EngineContext<ExamStateRow>;

const GUARDS: Record<string, engine.Guard<Ctx>> = {
  /** Checked in once: an arrived or examined patient is not checked in again. */
  notArrived: {
    check({ row }) {
      if (row.arrived_at || row.exam_time) return refusal('RIS102');
    },
  },
  notHidden: {
    check({ row }) {
      if (row.hidden) return refusal('RIS102');
    },
  },
  /** Registered again only when no study is left on the exam. */
  noImages: {
    check({ row }) {
      if (row.image_status) return refusal('RIS102');
    },
  },
};

const EFFECTS: Record<string, engine.Effect<Ctx>> = {
  /** Arrived now; a walk-in is scheduled when it arrives (the worklist's step date), an appointment keeps its slot. */
  arrive(ctx) {
    ctx.set.arrived_at = ctx.now;
    if (!ctx.row.appointment) ctx.set.scheduled_start = ctx.now;
  },
  /** A termination remembers the state it ends, for a restore. */
  keepState(ctx) {
    ctx.set.state_before_termination = ctx.row.exam_state;
  },
  forgetState(ctx) {
    ctx.set.state_before_termination = null;
  },
  hide(ctx) {
    ctx.set.hidden = true;
  },
  /** Examined: the time the modality or the first images gave, else now. */
  examinedNow(ctx) {
    ctx.set.exam_time = ctx.row.exam_time ?? ctx.now;
  },
  notExamined(ctx) {
    ctx.set.exam_time = null;
  },
};

export const EXAM_WORKFLOW = checkTable(table, 'config/workflows/exam.json', { guards: GUARDS, effects: EFFECTS });

const REGISTERED = stateValue(EXAM_WORKFLOW, 'registered');
const COLUMN = /^[a-z_][a-z0-9_]*$/;

async function write(q: Queryable, ctx: Ctx, change: Change): Promise<void> {
  const set: Record<string, unknown> = { ...ctx.set };
  if (change.to !== change.from) set.exam_state = change.to;
  const columns = Object.keys(set);
  if (!columns.every((c) => COLUMN.test(c))) throw new Error(`bad column in ${columns.join(',')}`);
  const assignments = columns.map((c, i) => `${c} = $${i + 2}`);
  await q.query(`UPDATE exam SET ${[...assignments, 'updated_at = now()'].join(', ')} WHERE id = $1`, [ctx.row.id, ...columns.map((c) => set[c])]);
  if (change.log) {
    await q.query('INSERT INTO exam_log (exam_id, hospital_id, action, user_id, user_name, detail) VALUES ($1, $2, $3, $4, $5, $6::jsonb)', [
      ctx.row.id,
      ctx.row.hospital_id,
      change.log.type,
      ctx.me.userId,
      ctx.me.name,
      JSON.stringify({ examCode: ctx.row.exam_code, fromState: change.from, ...change.log.detail }),
    ]);
  }
}

/** The exam table as the generic engine reaches it. */
export const EXAM_ADAPTER: engine.Adapter<ExamStateRow, engine.BaseInput, Ctx> = {
  workflow: EXAM_WORKFLOW,
  guards: GUARDS,
  effects: EFFECTS,
  lockRow: (q, id, me) => examRow(q, id, me, true) as Promise<ExamStateRow>,
  state: (row) => row.exam_state,
  // Older terminations kept no state: they go back to registered.
  previousState: (row) => row.state_before_termination ?? REGISTERED,
  context: (base) => base,
  write,
};

/** What the platform tells the exam's workflow, in the transaction that did it (../pacs/matching.ts, ../dicom/mpps.ts). */
export type ExamEvent = 'imagesMatched' | 'imagesGone' | 'procedureCompleted';

/**
 * Event `event` happened to exam `id` in transaction `q`: the platform takes the exam
 * actions declared `on` it (examine, unexamine) where they apply. The actions done.
 */
export function raiseExamEvent(q: Queryable, id: number, event: ExamEvent): Promise<string[]> {
  return engine.raise(q, EXAM_ADAPTER, engine.PLATFORM, id, event, (tx, examId) => examRow(tx, examId, engine.PLATFORM).catch(() => undefined) as Promise<ExamStateRow | undefined>);
}

/** Performs exam action `name` (config/workflows/exam.json) on exam `id` for the caller. */
export function performExamAction(db: Db, me: AuthContext, id: number, name: string): Promise<engine.PerformResult> {
  return engine.perform(db, EXAM_ADAPTER, me, id, name, {});
}

/** The exam actions the caller may take now on an exam as the list and detail answer it (field names). */
export function examActions(row: Record<string, unknown>, me: AuthContext): string[] {
  return engine.allowedActions(
    EXAM_ADAPTER,
    {
      id: row.id as number,
      hospital_id: row.hospitalId as number,
      exam_code: row.examCode as string,
      exam_state: row.examState as number,
      arrived_at: (row.arrivedAt as Date | null) ?? null,
      exam_time: (row.examTime as Date | null) ?? null,
      appointment: row.appointment === true,
      hidden: row.hidden === true,
    },
    me,
  );
}
