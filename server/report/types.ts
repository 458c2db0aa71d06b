/**
 * The report domain's types: the row the engine reads, what an action carries, the
 * context guards and effects share, and the list models. Types only, so every module
 * of the domain can name them without importing another's code (guards.ts imports
 * turnaround.ts, whose clock effects take the same context).
 */
import type { EngineContext, Effect as EngineEffect, Guard as EngineGuard } from '../workflow/engine';

/** A report list's model: the hospital's own reports, or the remote centre's (sent to the caller's hospitals). */
export type Model = 'report' | 'remote';

/** The report as the engine reads it (joined with its exam and lock), columns as stored. */
export interface ReportRow {
  id: number;
  exam_hospital_id: number;
  exam_hospital_name: string;
  exam_code: string;
  exam_state: number;
  exam_superior_hospital_id: number | null;
  /** A report row exists (else the values are the exam's and the defaults). */
  stored: boolean;
  report_state: number;
  version: number;
  see: string | null;
  diagnosis: string | null;
  remark: string | null;
  positive: boolean | null;
  crisis: boolean;
  crisis_recorder: string | null;
  crisis_record_time: Date | null;
  crisis_description: string | null;
  writer_id: number | null;
  writer_name: string | null;
  first_trial_time: Date | null;
  first_trial_hospital_name: string | null;
  reviewer_id: number | null;
  reviewer_name: string | null;
  retrial_time: Date | null;
  retrial_back_reason: string | null;
  recheck_doctor_id: number | null;
  recheck_doctor_name: string | null;
  recheck_time: Date | null;
  sent_to_superior: boolean;
  superior_hospital_id: number | null;
  superior_hospital_name: string | null;
  superior_send_time: Date | null;
  print_state: number;
  print_number: number;
  return_state: boolean;
  last_operator_name: string | null;
  last_operate_time: Date | null;
  lock_holder_id: number | null;
  lock_holder_name: string | null;
  lock_expires_at: Date | null;
  lock_live: boolean;
  assignees: Array<{ userId: number; name: string }>;
  /** The remote centre's claim (migration 0031): who holds it, and whether it is still live (claimSeconds, judged in SQL). */
  remote_claimed_by: number | null;
  claimant_name: string | null;
  claim_live: boolean;
  /** Approved by the central hospital: both hospitals may review or recheck it from then on. */
  remote_approved: boolean;
  /** Recalled by the central hospital after its approval (REPORT603 to the primary hospital). */
  remote_recalled: boolean;
  /** The trusteeship (business) mode of the exam's hospital (codes/businessMode.json): 2 the superior writes, 3 it reviews. */
  exam_business_mode: number | null;
}

/** The report content an action may carry (entities/reportAction.json). */
export interface ReportContent {
  see?: string;
  diagnosis?: string;
  remark?: string;
  positive?: boolean;
  enableCrisisValue?: boolean;
  crisisValue?: { recorder?: string; recordTime?: string; description: string };
}

export interface ActionInput {
  version?: number;
  reason?: string;
  confirm?: boolean;
  doctorIds?: number[];
  hospitalId?: number;
  content?: ReportContent;
}

/** The engine's context (server/workflow/engine.ts) with what report guards and effects share. */
export interface ActionContext extends EngineContext<ReportRow, ActionInput> {
  /** The row, by its name here. */
  report: ReportRow;
  /** The higher-level hospital chosen (guard superiorHospital). */
  target?: { id: number; name: string };
  /** The doctors to assign (guard assigneesQualified). */
  assignees?: Array<{ id: number; name: string }>;
  /** The caller may take an action with content (write, review, recheck, modify) in the report's state: set by the adapter from the table. */
  mayWork: boolean;
}

export type Guard = EngineGuard<ActionContext>;
export type Effect = EngineEffect<ActionContext>;
