/**
 * The consultation's adapters to the generic workflow engine (../workflow/engine.ts):
 * config/workflows/consultation.json moves the consultation's status,
 * config/workflows/consultationReport.json its report's status, both on the
 * consultation's row (one version for both: a report step and a review do not cross).
 * Guards read how the caller stands to the consultation (./domain.ts standingOf);
 * effects notify the experts; every step writes consultation_log. Touches
 * consultation, consultation_log, consultation_notice (through ./domain.ts).
 */
import consultationTable from '../../config/workflows/consultation.json';
import reportTable from '../../config/workflows/consultationReport.json';
import type { Db, Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { AppError, refusal } from '../lib/errors';
import * as engine from '../workflow/engine';
import type { Change, EngineContext } from '../workflow/engine';
import { checkTable, type Workflow } from '../workflow/table';
import { checkTimes, consultationRow, isParty, notifyExperts, standingOf, writeLog, type ConsultRow, type Standing } from './domain';
import type { ConsultationApply } from '../../src/shared/generated/entities/consultationApply';

export interface ConsultInput extends engine.BaseInput {
  findings?: string;
  opinion?: string;
  /** The edit of a revoked application (action edit: entities/consultationApply.json#/definitions/edit, validated by the route). */
  form?: ConsultationEdit;
}

/** The fields of the edit's form (the schema's definition; the route validates the body against it). */
export type ConsultationEdit = Pick<ConsultationApply, 'patientName' | 'sex' | 'birthDate' | 'clinicalDiagnosis' | 'topic' | 'clinicalQuestion' | 'startTime' | 'endTime'>;

interface Ctx extends EngineContext<StandingRow, ConsultInput> {}

/** The row with how the caller stands to it (read when the row is loaded, so guards stay synchronous). */
export type StandingRow = ConsultRow & { standing: Standing };

const GUARDS: Record<string, engine.Guard<Ctx>> = {
  applicant: { check: ({ row }) => allowIf(row.standing.applicant) },
  manages: { check: ({ row }) => allowIf(row.standing.manages) },
  party: { check: ({ row }) => allowIf(isParty(row.standing)) },
  expert: { check: ({ row }) => allowIf(row.standing.expertIds.length > 0) },
  /** Findings and opinion, sent or stored, before the report goes for review. */
  reportComplete: {
    input: true,
    check({ row, input }) {
      if (!(input.findings ?? row.report_findings)) throw new AppError('UAA421', { detailKey: 'validation.required', field: 'findings' }, { field: 'findings' });
      if (!(input.opinion ?? row.report_opinion)) throw new AppError('UAA421', { detailKey: 'validation.required', field: 'opinion' }, { field: 'opinion' });
    },
  },
  /** The edit carries its form, whose meeting starts after now and ends not before it starts. */
  editTimes: {
    input: true,
    check({ input, now }) {
      if (!input.form) throw new AppError('UAA421', { detailKey: 'validation.required', field: 'form' }, { field: 'form' });
      checkTimes(input.form, now);
    },
  },
};

const DENIED = refusal('UAA103');
const allowIf = (standing: boolean) => (standing ? undefined : DENIED);

const EFFECTS: Record<string, engine.Effect<Ctx>> = {
  notifyInvited: (ctx) => void ctx.after.push(() => notifyExperts(ctx.q, ctx.row, 'invited')),
  notifyStarted: (ctx) => void ctx.after.push(() => notifyExperts(ctx.q, ctx.row, 'started')),
  notifyReportReady: (ctx) => void ctx.after.push(() => notifyExperts(ctx.q, ctx.row, 'reportReady')),
  /** The report's text as the expert sends it; the writer is whoever wrote last. */
  content(ctx) {
    if (ctx.input.findings !== undefined) ctx.set.report_findings = ctx.input.findings;
    if (ctx.input.opinion !== undefined) ctx.set.report_opinion = ctx.input.opinion;
    ctx.set.report_author_id = ctx.me.userId;
    ctx.set.report_author_name = ctx.me.name;
  },
  reviewer(ctx) {
    ctx.set.report_reviewer_name = ctx.me.name;
  },
  /** The meeting and patient details as the applicant edited them (the form is sent whole: an absent optional field is cleared). */
  applyEdit(ctx) {
    const f = ctx.input.form!;
    Object.assign(ctx.set, {
      // The consultation's title is its topic, as when it was applied for.
      title: f.topic.slice(0, 150),
      topic: f.topic,
      clinical_question: f.clinicalQuestion,
      patient_name: f.patientName,
      sex: f.sex ?? null,
      birth_date: f.birthDate,
      clinical_diagnosis: f.clinicalDiagnosis ?? null,
      start_time: f.startTime,
      end_time: f.endTime ?? null,
    });
  },
};

export const CONSULTATION_WORKFLOW = checkTable(consultationTable, 'config/workflows/consultation.json', { guards: GUARDS, effects: EFFECTS });
export const REPORT_WORKFLOW = checkTable(reportTable, 'config/workflows/consultationReport.json', { guards: GUARDS, effects: EFFECTS });

const COLUMN = /^[a-z_][a-z0-9_]*$/;

function writer(stateColumn: 'status' | 'report_status') {
  return async (q: Queryable, ctx: Ctx, change: Change): Promise<void> => {
    const set: Record<string, unknown> = { ...ctx.set };
    if (change.to !== change.from) set[stateColumn] = change.to;
    const columns = Object.keys(set);
    if (!columns.every((c) => COLUMN.test(c))) throw new Error(`bad column in ${columns.join(',')}`);
    const assignments = columns.map((c, i) => `${c} = $${i + 2}`);
    const version = change.versioned ? ['version = version + 1'] : [];
    await q.query(`UPDATE consultation SET ${[...assignments, ...version, 'updated_at = now()'].join(', ')} WHERE id = $1`, [ctx.row.id, ...columns.map((c) => set[c])]);
    if (change.log) {
      // The log keeps the consultation's states; a report step names its own action.
      const status = stateColumn === 'status' ? [change.from, change.to] : [ctx.row.status, ctx.row.status];
      await writeLog(q, ctx.row, ctx.me, change.log.type, status[0], status[1], ctx.input.reason);
    }
  };
}

function adapter(workflow: Workflow, stateColumn: 'status' | 'report_status', gate?: (row: StandingRow) => string | undefined): engine.Adapter<StandingRow, ConsultInput, Ctx> {
  return {
    workflow,
    guards: GUARDS,
    effects: EFFECTS,
    async lockRow(q, id, me) {
      const row = await consultationRow(q, id, me, true);
      return { ...row, standing: await standingOf(q, row, me) };
    },
    state: (row) => row[stateColumn],
    version: (row) => row.version,
    gate,
    context: (base) => base,
    write: writer(stateColumn),
  };
}

export const CONSULTATION_ADAPTER = adapter(CONSULTATION_WORKFLOW, 'status');
// The report is written once the consultation runs, and may be finished after it ended.
export const REPORT_ADAPTER = adapter(REPORT_WORKFLOW, 'report_status', (row) => (row.status === 6 || row.status === 7 ? undefined : 'CONSULT304'));

/** Which table an action name belongs to (names are unique across the two). */
export function adapterOf(name: string) {
  if (engine.actionOf(CONSULTATION_WORKFLOW, name)) return CONSULTATION_ADAPTER;
  if (engine.actionOf(REPORT_WORKFLOW, name)) return REPORT_ADAPTER;
  return undefined;
}

export const ACTION_NAMES = [...Object.keys(CONSULTATION_WORKFLOW.actions), ...Object.keys(REPORT_WORKFLOW.actions)];

/** Performs action `name` of either table on consultation `id` for the caller. */
export function performConsultAction(db: Db, me: AuthContext, id: number, name: string, input: ConsultInput, key?: string): Promise<engine.PerformResult> {
  const a = adapterOf(name);
  if (!a) throw new AppError('UAA421', { detailKey: 'validation.enum', field: 'action' }, { field: 'action' });
  return engine.perform(db, a, me, id, name, input, key);
}

/** The actions of both tables the caller may take now on a consultation (rows and the detail carry them). */
export async function consultActions(q: Queryable, row: ConsultRow, me: AuthContext): Promise<string[]> {
  const standing: StandingRow = { ...row, standing: await standingOf(q, row, me) };
  return [...engine.allowedActions(CONSULTATION_ADAPTER, standing, me), ...engine.allowedActions(REPORT_ADAPTER, standing, me)];
}
