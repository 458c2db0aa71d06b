/**
 * The guards and effects the report workflow table (config/workflows/report.json)
 * names. A guard refuses an action with a catalogue code (the Refusal it returns; one
 * judging what the call carries may throw its AppError); an effect says what the
 * action writes beyond the new state. The engine (./engine.ts) runs them in the
 * table's order inside the action's transaction; a name the table uses that is not
 * here stops the server at start-up (./workflow.ts). Touches report_assignee and
 * reads org, app_user, user_membership, role and the print layout mapping.
 */
import type { Queryable } from '../db';
import { superiorsSql } from '../identity/orgTree';
import type { AuthContext } from '../identity/sessions';
import { AppError, refusal } from '../lib/errors';
import { hospitalLayout } from './printLayouts';
import { CLOCK_EFFECTS } from './turnaround';
import type { ActionContext, Effect, Guard, ReportRow } from './types';

export type { ActionContext, ActionInput, Effect, Guard, ReportContent, ReportRow } from './types';

function invalid(field: string, detailKey = 'validation.invalid'): AppError {
  return new AppError('UAA421', { detailKey, field }, { field });
}

const lockedByOther = (r: ReportRow, me: AuthContext) => r.lock_live && r.lock_holder_id !== me.userId;
/** A live claim of the remote centre by someone else (claims only mean something while the report is sent upward). */
const claimedByOther = (r: ReportRow, me: AuthContext) => r.sent_to_superior && r.claim_live && Number(r.remote_claimed_by) !== me.userId;
const claimedByCaller = (r: ReportRow, me: AuthContext) => r.sent_to_superior && r.claim_live && Number(r.remote_claimed_by) === me.userId;

/** A content field after the call's changes: what contentComplete judges. */
function merged(ctx: ActionContext, field: string): unknown {
  const v = ctx.set[field];
  return v === undefined ? (ctx.report as unknown as Record<string, unknown>)[field] : v;
}

/** The right a doctor needs for the next step of a report in each state (assignment): write, review or recheck. */
const WORK_RIGHT: Record<number, 'write' | 'verify' | 'recheck'> = { [-1]: 'write', 1: 'write', 3: 'write', 7: 'write', 8: 'write', 2: 'verify', 6: 'verify', 5: 'recheck' };

/**
 * The higher-level hospitals a report may be sent to: those above the exam's hospital
 * and the superior registered on the exam (never the exam's own hospital). The guard
 * superiorHospital picks from them; the detail page offers them as the choice.
 */
export async function superiorChoices(q: Queryable, report: Pick<ReportRow, 'exam_hospital_id' | 'exam_superior_hospital_id'>): Promise<Array<{ id: number; name: string }>> {
  const { rows } = await q.query<{ id: number; name: string }>(
    `SELECT o.id, o.name FROM org o WHERE (o.id IN (SELECT id FROM (${superiorsSql('$1')}) s) OR o.id = $2) AND o.id <> $1 ORDER BY o.id`,
    [report.exam_hospital_id, report.exam_superior_hospital_id],
  );
  return rows;
}

/**
 * Active doctors who may take the report's next step (`ids`: only those of them): a
 * member of the exam's hospital (or of the superior it was sent to, or with the exam's
 * hospital in their role's regional authorization) whose role grants write, verify or
 * recheck as the state needs, in the report, myReport or remote module. None in a
 * state without a next step.
 */
export async function qualifiedDoctors(
  q: Queryable,
  report: Pick<ReportRow, 'report_state' | 'exam_hospital_id' | 'sent_to_superior' | 'superior_hospital_id'>,
  ids?: number[],
): Promise<Array<{ id: number; name: string }>> {
  const right = WORK_RIGHT[report.report_state];
  if (!right) return [];
  const hospitals = [report.exam_hospital_id, ...(report.sent_to_superior && report.superior_hospital_id ? [report.superior_hospital_id] : [])];
  const { rows } = await q.query<{ id: number; name: string }>(
    `SELECT DISTINCT u.id, u.name FROM app_user u
       JOIN user_membership m ON m.user_id = u.id
       JOIN role ro ON ro.id = m.role_id
      WHERE ($1::int[] IS NULL OR u.id = ANY($1::int[])) AND u.status = 1
        AND (m.hospital_id = ANY($2::int[]) OR ro.region_org_ids @> to_jsonb($3::int))
        AND (ro.permissions -> 'report' ? $4 OR ro.permissions -> 'myReport' ? $4 OR ro.permissions -> 'remote' ? $4)
      ORDER BY u.name, u.id LIMIT 500`,
    [ids ?? null, hospitals, report.exam_hospital_id, right],
  );
  return rows;
}

/**
 * Active doctors of the hospital the report was sent to whose role there grants, in the
 * remote module, the right the report's next step needs and whose remote-centre
 * authorization covers the exam's hospital (`ids`: only those of them).
 */
export async function centreDoctors(
  q: Queryable,
  report: Pick<ReportRow, 'report_state' | 'exam_hospital_id' | 'superior_hospital_id'>,
  ids?: number[],
): Promise<Array<{ id: number; name: string }>> {
  const right = WORK_RIGHT[report.report_state];
  if (!right || report.superior_hospital_id === null) return [];
  const { rows } = await q.query<{ id: number; name: string }>(
    `SELECT DISTINCT u.id, u.name FROM app_user u
       JOIN user_membership m ON m.user_id = u.id AND m.hospital_id = $2
       JOIN role ro ON ro.id = m.role_id
      WHERE ($1::int[] IS NULL OR u.id = ANY($1::int[])) AND u.status = 1
        AND ro.permissions -> 'remote' ? $4 AND ro.remote_org_ids @> to_jsonb($3::int)
      ORDER BY u.name, u.id LIMIT 500`,
    [ids ?? null, report.superior_hospital_id, report.exam_hospital_id, right],
  );
  return rows;
}

export const GUARDS: Record<string, Guard> = {
  /** Opening a report (its lock) is for who may work on it in its state: a writer's lock would only keep the reviewer out. */
  mayWork: {
    check({ mayWork }) {
      if (!mayWork) return refusal('UAA103');
    },
  },
  /** Someone else has it open (REPORT101 names them). */
  notLockedByOthers: {
    check({ report, me }) {
      if (lockedByOther(report, me)) return refusal('REPORT101', { name: report.lock_holder_name }, { lockedBy: report.lock_holder_name });
    },
  },
  /** The caller's own lock, live or lapsed but not taken over: renewing or releasing it. */
  lockHeldByCaller: {
    check({ report, me }) {
      if (report.lock_holder_id === me.userId) return;
      if (report.lock_live) return refusal('REPORT101', { name: report.lock_holder_name }, { lockedBy: report.lock_holder_name });
      // Unlocked by someone with the right, or lapsed and taken by another meanwhile.
      return refusal('REPORT508');
    },
  },
  /** There is a live lock to undo (someone else's, or the caller's own). */
  locked: {
    check({ report }) {
      if (!report.lock_live) return refusal('REPORT102');
    },
  },
  /** A report sent to a higher-level hospital is worked on there: others (the sending hospital included) wait for it to come back. */
  notSentAway: {
    check({ report, me }) {
      if (!report.sent_to_superior || me.hospitalId === report.superior_hospital_id) return;
      // Approved upstairs the report is shared: the primary hospital's own reviewers may work on it too (spec section 4).
      if (report.remote_recalled) return refusal('REPORT603');
      if (!report.remote_approved) return refusal('REPORT007');
    },
  },
  /**
   * Trusteeship (codes/businessMode.json): a hospital run externally (2) has its reports
   * written by the superior hospital: it sends them up, and writes itself only what it
   * took back (withdrawn).
   */
  writtenHere: {
    check({ report, me }) {
      if (report.exam_business_mode === 2 && me.hospitalId === report.exam_hospital_id && !report.sent_to_superior && report.report_state !== 8) return refusal('REPORT007');
    },
  },
  /** Trusteeship (codes/businessMode.json): the exam's hospital is run externally (2), its reports read by the superior hospital. */
  externallyRun: {
    check({ report }) {
      if (report.exam_business_mode !== 2) return refusal('REPORT007');
    },
  },
  /** Only the hospital the report was sent to works as the remote centre (claims). */
  atSuperior: {
    check({ report, me }) {
      if (!report.sent_to_superior || me.hospitalId !== report.superior_hospital_id) return refusal('REPORT007');
    },
  },
  /** Another doctor of the centre has claimed it (REPORT121 names them) until the claim lapses. */
  notClaimedByOthers: {
    check({ report, me }) {
      if (claimedByOther(report, me)) return refusal('REPORT121', { name: report.claimant_name }, { claimedBy: report.claimant_name });
    },
  },
  /** Claiming: nobody else holds it, and the caller does not already. */
  claimFree: {
    check({ report, me }) {
      if (claimedByOther(report, me)) return refusal('REPORT121', { name: report.claimant_name }, { claimedBy: report.claimant_name });
      if (claimedByCaller(report, me)) return refusal('REPORT102');
    },
  },
  /** Releasing: the caller's own live claim (a lapsed or reassigned one is no longer theirs to give back). */
  claimedByCaller: {
    check({ report, me }) {
      if (claimedByOther(report, me)) return refusal('REPORT121', { name: report.claimant_name }, { claimedBy: report.claimant_name });
      if (!claimedByCaller(report, me)) return refusal('REPORT102');
    },
  },
  /** Withdrawn by the primary hospital: the superior hospital may no longer submit it (REPORT010). */
  notWithdrawnFromCaller: {
    check({ report, me }) {
      if (report.report_state === 8 && me.hospitalId !== report.exam_hospital_id) return refusal('REPORT010');
    },
  },
  /** Only the exam's own hospital sends upward or takes back. */
  callerAtExamHospital: {
    check({ report, me }) {
      if (me.hospitalId !== report.exam_hospital_id) return refusal('REPORT007');
    },
  },
  sentToSuperior: {
    check({ report }) {
      if (!report.sent_to_superior) return refusal('REPORT008');
    },
  },
  notSentToSuperior: {
    check({ report }) {
      if (report.sent_to_superior) return refusal('REPORT102');
    },
  },
  /** Submit-to-write needs a report nobody has written in (spec section 5). */
  unedited: {
    check({ report }) {
      if (report.see || report.diagnosis) return refusal('REPORT102');
    },
  },
  /** The content the action `requires` (findings and diagnosis to submit or pass, spec section 5), after the call's own changes. */
  contentComplete: {
    input: true,
    check(ctx) {
      for (const field of ctx.action.requires ?? []) if (!merged(ctx, field)) throw invalid(field, 'validation.required');
    },
  },
  /** Recalling a printed report needs the extra confirmation (REPORT011 asks for it). */
  printedNeedsConfirm: {
    input: true,
    check({ report, input }) {
      if (report.print_state === 1 && input.confirm !== true) throw new AppError('REPORT011');
    },
  },
  notReturnedToCollector: {
    check({ report }) {
      if (report.return_state) return refusal('REPORT102');
    },
  },
  /** Printing needs the layout of the report's hospital (REPORT301 when it has none); judged when sent, as it reads the mapping. */
  printLayout: {
    input: true,
    async check({ q, report }) {
      await hospitalLayout(q, report.exam_hospital_id);
    },
  },
  /**
   * The higher-level hospital to send to: the one chosen (hospitalId), else the exam's
   * registered superior, else the only one above the exam's hospital. Several and no
   * choice: the choice is asked for (UAA421 hospitalId).
   */
  superiorHospital: {
    input: true,
    async check(ctx) {
      const rows = await superiorChoices(ctx.q, ctx.report);
      const chosen = ctx.input.hospitalId ?? ctx.report.exam_superior_hospital_id ?? (rows.length === 1 ? rows[0].id : undefined);
      if (chosen === undefined) throw invalid('hospitalId', rows.length ? 'validation.required' : 'validation.invalid');
      const target = rows.find((r) => r.id === chosen);
      if (!target) throw invalid('hospitalId');
      ctx.target = target;
    },
  },
  /** Reassigning: exactly one doctor of the centre who may take the report's next step there (centreDoctors). */
  claimantQualified: {
    input: true,
    async check(ctx) {
      const ids = ctx.input.doctorIds;
      if (!ids?.length) throw invalid('doctorIds', 'validation.required');
      if (ids.length !== 1) throw invalid('doctorIds', 'validation.maxItems');
      const rows = await centreDoctors(ctx.q, ctx.report, ids);
      if (rows.length !== 1) throw invalid('doctorIds');
      ctx.assignees = rows;
    },
  },
  /** Every doctor to assign is active and may take the report's next step (qualifiedDoctors). */
  assigneesQualified: {
    input: true,
    async check(ctx) {
      const ids = ctx.input.doctorIds;
      if (!ids?.length) throw invalid('doctorIds', 'validation.required');
      const rows = await qualifiedDoctors(ctx.q, ctx.report, ids);
      if (rows.length !== ids.length) throw invalid('doctorIds');
      ctx.assignees = ids.map((id) => rows.find((r) => r.id === id)!);
    },
  },
};

export const EFFECTS: Record<string, Effect> = {
  // The turnaround clock of a report sent up: start (or resume), pause, stop, time to claim.
  ...CLOCK_EFFECTS,
  /** Unlocking names whose lock it was in the log entry. */
  noteLockHolder(ctx) {
    ctx.log.lockedBy = ctx.report.lock_holder_name;
  },
  /** The submitter signs as the writer (the final signature is the actual operator). */
  signWriter(ctx) {
    Object.assign(ctx.set, {
      writer_id: ctx.me.userId,
      writer_name: ctx.me.name,
      first_trial_time: ctx.now,
      first_trial_hospital_id: ctx.me.hospitalId,
      first_trial_hospital_name: ctx.me.hospitalName,
    });
  },
  signReviewer(ctx) {
    Object.assign(ctx.set, { reviewer_id: ctx.me.userId, reviewer_name: ctx.me.name, retrial_time: ctx.now, retrial_back_reason: null });
  },
  signRechecker(ctx) {
    Object.assign(ctx.set, { recheck_doctor_id: ctx.me.userId, recheck_doctor_name: ctx.me.name, recheck_time: ctx.now });
  },
  rejectReason(ctx) {
    ctx.set.retrial_back_reason = ctx.input.reason;
  },
  sendToSuperior(ctx) {
    Object.assign(ctx.set, { sent_to_superior: true, superior_hospital_id: ctx.target!.id, superior_send_time: ctx.now });
    ctx.log.superiorHospitalName = ctx.target!.name;
  },
  /** Back in the exam's own hospital (withdrawn, or returned to be fixed): images may change again. */
  clearSuperior(ctx) {
    ctx.set.sent_to_superior = false;
  },
  assign(ctx) {
    const doctors = ctx.assignees!;
    ctx.log.doctors = doctors.map((d) => d.name);
    ctx.after.push(async () => {
      await ctx.q.query('DELETE FROM report_assignee WHERE report_id = $1', [ctx.report.id]);
      await ctx.q.query(
        `INSERT INTO report_assignee (report_id, user_id, user_name, assigned_by)
         SELECT $1, d.id, d.name, $4 FROM unnest($2::int[], $3::text[]) AS d(id, name)`,
        [ctx.report.id, doctors.map((d) => d.id), doctors.map((d) => d.name), ctx.me.userId],
      );
    });
  },
  claimForCaller(ctx) {
    Object.assign(ctx.set, { remote_claimed_by: ctx.me.userId, remote_claimed_at: ctx.now });
  },
  dropClaim(ctx) {
    Object.assign(ctx.set, { remote_claimed_by: null, remote_claimed_at: null });
  },
  /** The lead's choice holds the claim from now; the log names who had it and who has it. */
  claimForChosen(ctx) {
    const [doctor] = ctx.assignees!;
    Object.assign(ctx.set, { remote_claimed_by: doctor.id, remote_claimed_at: ctx.now });
    ctx.log.doctors = [doctor.name];
    if (ctx.report.claim_live) ctx.log.claimedBy = ctx.report.claimant_name;
  },
  /** Approved by the central hospital: from now on both hospitals may review or recheck it. */
  approvedByCentre(ctx) {
    if (ctx.report.sent_to_superior && ctx.me.hospitalId === ctx.report.superior_hospital_id) Object.assign(ctx.set, { remote_approved: true, remote_recalled: false });
  },
  /**
   * Trusteeship (codes/businessMode.json): a semi-externally run hospital (3) writes its
   * reports and the superior hospital reviews them: its submit sends the report up to
   * review, to the exam's registered superior or the only one above it (several and none
   * registered: it stays to be sent by hand).
   */
  async trusteeshipReview(ctx) {
    const { report, me } = ctx;
    if (report.exam_business_mode !== 3 || report.sent_to_superior || me.hospitalId !== report.exam_hospital_id) return;
    const rows = await superiorChoices(ctx.q, report);
    const target = rows.find((r) => r.id === report.exam_superior_hospital_id) ?? (rows.length === 1 ? rows[0] : undefined);
    if (!target) return;
    Object.assign(ctx.set, { sent_to_superior: true, superior_hospital_id: target.id, superior_send_time: ctx.now });
    ctx.log.superiorHospitalName = target.name;
  },
  /** The central hospital takes back what it approved: the primary hospital is told so (REPORT603) until it is approved again. */
  recalledByCentre(ctx) {
    if (ctx.report.sent_to_superior && ctx.me.hospitalId === ctx.report.superior_hospital_id) ctx.set.remote_recalled = true;
  },
  returnToCollector(ctx) {
    ctx.set.return_state = true;
  },
  /** Printed once more: the state stays; the print flag is set and the count goes up (recall then asks for confirmation). */
  markPrinted(ctx) {
    Object.assign(ctx.set, { print_state: 1, print_number: ctx.report.print_number + 1 });
    ctx.log.printNumber = ctx.report.print_number + 1;
  },
};
