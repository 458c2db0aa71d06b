/**
 * The report text the write panel edits (findings, diagnosis, remark, positive, the
 * critical value), what an action sends of it, what the page can already tell is
 * wrong with it before sending (limits of entities/report.json; the server judges
 * again), and a template applied by replacing or appending. Pure.
 */
import { reasonProblem, type TextLimits } from '../schema/inputs';
import type { ReportAction } from '../shared/generated/entities/reportAction';
import type { ReportDetail } from './api';
import type { contentLimits } from './workflow';

export interface Draft {
  see: string;
  diagnosis: string;
  remark: string;
  /** Positive (true), negative (false) or not said. */
  positive?: boolean;
  enableCrisisValue: boolean;
  recorder: string;
  /** ISO date-time. */
  recordTime?: string;
  description: string;
}

export type DraftField = 'see' | 'diagnosis' | 'remark' | 'recorder' | 'description';

export function draftOf(d: Pick<ReportDetail, 'see' | 'diagnosis' | 'remark' | 'positive' | 'enableCrisisValue' | 'crisisValue'>): Draft {
  return {
    see: d.see ?? '',
    diagnosis: d.diagnosis ?? '',
    remark: d.remark ?? '',
    positive: d.positive,
    enableCrisisValue: Boolean(d.enableCrisisValue),
    recorder: d.crisisValue?.recorder ?? '',
    recordTime: d.crisisValue?.recordTime,
    description: d.crisisValue?.description ?? '',
  };
}

/** The two would send the same content (a critical value switched off again is no change, whatever its fields hold). */
export function sameDraft(a: Draft, b: Draft): boolean {
  return JSON.stringify(contentBody(a)) === JSON.stringify(contentBody(b));
}

/** The content fields of an action's body. Empty texts are left out: the schema's texts are at least one character. */
export function contentBody(d: Draft): Partial<ReportAction> {
  const body: Partial<ReportAction> = { enableCrisisValue: d.enableCrisisValue };
  if (d.see.trim()) body.see = d.see;
  if (d.diagnosis.trim()) body.diagnosis = d.diagnosis;
  if (d.remark.trim()) body.remark = d.remark;
  if (d.positive !== undefined) body.positive = d.positive;
  if (d.enableCrisisValue) {
    body.crisisValue = { description: d.description };
    if (d.recorder.trim()) body.crisisValue.recorder = d.recorder;
    if (d.recordTime) body.crisisValue.recordTime = d.recordTime;
  }
  return body;
}

export interface Problem {
  field: DraftField;
  /** validation.<key> */
  key: 'required' | 'minLength' | 'maxLength';
  limit?: number;
}

/**
 * What the page can tell is wrong before sending: texts over their limits, the
 * critical value's description, and (`complete`: submitting or passing) findings and
 * diagnosis required.
 */
export function draftProblems(d: Draft, limits: ReturnType<typeof contentLimits>, complete: boolean): Problem[] {
  const out: Problem[] = [];
  const length = (field: DraftField, value: string, limit: TextLimits, required: boolean) => {
    // An empty optional text is left out of the call (contentBody), so only a required one is a problem.
    const key = value.trim() || required ? reasonProblem(value, limit) : undefined;
    if (key) out.push({ field, key, limit: key === 'required' ? undefined : limit[key] });
  };
  length('see', d.see, limits.see, complete);
  length('diagnosis', d.diagnosis, limits.diagnosis, complete);
  length('remark', d.remark, limits.remark, false);
  if (d.enableCrisisValue) {
    length('recorder', d.recorder, limits.recorder, false);
    length('description', d.description, limits.description, true);
  }
  return out;
}

/** A template's text put into a field: replacing what is there, or after it on a new line. */
export function applyText(current: string, text: string | undefined, mode: 'replace' | 'append'): string {
  const added = text ?? '';
  if (mode === 'replace') return added;
  if (!added) return current;
  if (!current) return added;
  return current.endsWith('\n') ? current + added : `${current}\n${added}`;
}
