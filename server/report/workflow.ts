/**
 * The report state machine: config/workflows/report.json, loaded once and checked
 * when the server starts (importing this module throws on a bad table, so the
 * server does not come up with one) by the generic checks of ../workflow/table.ts
 * against the report's guard and effect registry (./guards.ts) and the sections the
 * report's adapter reads (lock time, exam states, notice counts, work lists). Reads
 * no database.
 */
import table from '../../config/workflows/report.json';
import { actionKeys, allActionKeys as keysOf, checkTable, transitionFrom, type Workflow, type WorkflowAction } from '../workflow/table';
import { EFFECTS, GUARDS } from './guards';

export type Action = WorkflowAction;
export type ReportWorkflow = Workflow & Required<Pick<Workflow, 'lockSeconds' | 'claimSeconds' | 'examStates' | 'examStateError' | 'notice' | 'lists' | 'versionConflict'>>;
export { actionKeys, transitionFrom };

/**
 * Validates a workflow table; returns it typed, or throws one Error listing every
 * problem. Exported for the unit test, which feeds it broken tables.
 */
export function checkWorkflow(candidate: unknown): ReportWorkflow {
  return checkTable(candidate, 'config/workflows/report.json', {
    guards: GUARDS,
    effects: EFFECTS,
    requires: ['lockSeconds', 'claimSeconds', 'examStates', 'examStateError', 'notice', 'lists', 'versionConflict'],
  }) as ReportWorkflow;
}

export const WORKFLOW: ReportWorkflow = checkWorkflow(table);

/** Every key any action names: what the action routes as a whole let through before the engine decides. */
export function allActionKeys(): string[] {
  return keysOf(WORKFLOW);
}
