/**
 * What the detail page reads of the report workflow table (config/workflows/report.json,
 * the one the server executes) and of the report schema: which of the actions the
 * server allows need a dialog first (a reason and its limits, doctors to assign, a
 * higher-level hospital: the action's declared `reason` and `input`), which carry the
 * report's content and which content they require, and the content's limits. Never a
 * guard's name: guards are the server's. The limits mirror schemas/ for the user's
 * comfort; the server decides. Pure.
 */
import { reasonLimits, type TextLimits } from '../schema/inputs';
import { entityModel } from '../shared/schema/model';
import type { Action, Workflow } from '../shared/generated/workflow';
import { WORKFLOWS } from '../shared/workflows';

/** The report's table, with the sections its adapter needs (the server refuses to start without them). */
export const WORKFLOW = WORKFLOWS.report as Workflow & Required<Pick<Workflow, 'lockSeconds'>>;

/** Actions the page runs by itself (the lock's heartbeat), never offered as buttons. */
export const AUTOMATIC_ACTIONS: readonly string[] = ['renew'];

/** Actions performed through a registered dialog rather than a direct call (helper P's print preview). */
export const DIALOG_ACTIONS: Readonly<Record<string, string>> = { print: 'ReportPrint' };

export type Needs =
  | { kind: 'none' }
  | { kind: 'reason'; limit: TextLimits }
  | { kind: 'assign'; maxDoctors: number }
  | { kind: 'superior' };

const reportModel = () => entityModel('report');
const field = (name: string) => {
  const f = reportModel().byName.get(name);
  if (!f) throw new Error(`entities/report.json has no ${name}`);
  return f;
};

export function actionOf(name: string): Action | undefined {
  return Object.prototype.hasOwnProperty.call(WORKFLOW.actions, name) ? WORKFLOW.actions[name] : undefined;
}

/** What the user supplies before `name` is sent: read from the action's declared reason and input. */
export function needsOf(name: string): Needs {
  const action = actionOf(name);
  if (!action) return { kind: 'none' };
  if (action.reason) return { kind: 'reason', limit: reasonLimits({ workflow: WORKFLOW.name, action: name }) };
  if (action.input?.includes('doctorIds')) {
    const doctors = entityModel('reportAction').byName.get('doctorIds');
    return { kind: 'assign', maxDoctors: doctors?.maxItems ?? 10 };
  }
  if (action.input?.includes('hospitalId')) return { kind: 'superior' };
  return { kind: 'none' };
}

/** The action carries the report's content (save, submit, review pass, modify). */
export function carriesContent(name: string): boolean {
  return Boolean(actionOf(name)?.content);
}

/** The action refuses without the content it declares it `requires` (findings and diagnosis). */
export function needsContent(name: string): boolean {
  return Boolean(actionOf(name)?.requires?.length);
}

/** Whether the action changes the report's state (versioned ones do; the lock calls do not). */
export function versioned(name: string): boolean {
  return actionOf(name)?.versioned !== false;
}

/** The content's limits (entities/report.json). */
export function contentLimits() {
  const limit = (name: string): TextLimits => {
    const f = field(name);
    return { minLength: f.minLength ?? 0, maxLength: f.maxLength ?? Number.MAX_SAFE_INTEGER };
  };
  return {
    see: limit('see'),
    diagnosis: limit('diagnosis'),
    remark: limit('remark'),
    recorder: limit('crisisValue.recorder'),
    description: limit('crisisValue.description'),
  };
}
