/**
 * The report state machine: config/workflows/report.json, loaded once and checked
 * when the server starts (importing this module throws on a bad table, so the
 * server does not come up with one). Checks the schema (schemas/reportWorkflow.json)
 * and what a schema cannot: every state is a code of codes/reportState.json, every
 * permission key is declared, every guard and effect has code, every reason names a
 * text definition of common.json, every code is in the catalogue, and an action's
 * transitions never start from the same state twice. Reads no database.
 */
import table from '../../config/workflows/report.json';
import reportStateCodes from '../../schemas/codes/reportState.json';
import common from '../../schemas/common.json';
import type { Action, ReportWorkflow } from '../../src/shared/generated/reportWorkflow';
import { assertPermissionKey } from '../identity/access';
import { errorCatalogue } from '../../config/errors';
import { checkAgainstSchema } from '../lib/schemas';
import { EFFECTS, GUARDS } from './guards';

export type { Action, ReportWorkflow };

/** Everything a caller's right can come from, per action: the keys of all three kinds. */
export function actionKeys(action: Action): string[] {
  return [...new Set([...action.permission, ...(action.remotePermission ?? []), ...(action.assigneePermission ?? [])])];
}

/**
 * Validates a workflow table; returns it typed, or throws one Error listing every
 * problem. Exported for the unit test, which feeds it broken tables.
 */
export function checkWorkflow(candidate: unknown): ReportWorkflow {
  const w = checkAgainstSchema<ReportWorkflow>(candidate, 'reportWorkflow.json', 'config/workflows/report.json');
  const problems: string[] = [];
  const codes = new Set(Object.keys(errorCatalogue.codes));
  const stateValues = w.states.map((s) => s.value);
  const known = new Set<number>(stateValues);
  if (stateValues.length !== known.size) problems.push('a state is listed twice');
  for (const v of reportStateCodes.enum) if (!known.has(v)) problems.push(`state ${v} of codes/reportState.json is not in the table`);
  for (const code of [w.wrongState, w.examStateError]) if (!codes.has(code)) problems.push(`code ${code} is not in config/errors.json`);
  const definitions = common.definitions as Record<string, { type?: string | string[] }>;

  for (const [name, action] of Object.entries(w.actions)) {
    const at = `action ${name}`;
    for (const key of actionKeys(action)) {
      try {
        assertPermissionKey(key);
      } catch (e) {
        problems.push(`${at}: ${(e as Error).message}`);
      }
    }
    for (const g of action.guards ?? []) if (!GUARDS[g]) problems.push(`${at}: no guard named ${g} (server/report/guards.ts)`);
    for (const f of action.effects ?? []) if (!EFFECTS[f]) problems.push(`${at}: no effect named ${f} (server/report/guards.ts)`);
    if (action.reason && definitions[action.reason]?.type !== 'string') problems.push(`${at}: reason ${action.reason} is not a text definition of common.json`);
    const from = new Set<number>();
    for (const t of action.transitions) {
      for (const s of t.from) {
        if (from.has(s)) problems.push(`${at}: two transitions start from state ${s}`);
        from.add(s);
        if (!known.has(s)) problems.push(`${at}: unknown state ${s}`);
      }
      if (t.to !== null && !known.has(t.to)) problems.push(`${at}: unknown state ${t.to}`);
    }
    for (const [state, code] of Object.entries(action.stateErrors ?? {})) {
      if (!codes.has(code)) problems.push(`${at}: code ${code} is not in config/errors.json`);
      if (from.has(Number(state))) problems.push(`${at}: stateErrors names state ${state}, which the action starts from`);
    }
  }
  if (problems.length) throw new Error(`config/workflows/report.json:\n  ${problems.join('\n  ')}`);
  return w;
}

export const WORKFLOW: ReportWorkflow = checkWorkflow(table);

/** Where `action` leads from `state`: the new state (null: stays), or undefined when it does not start there. */
export function transitionFrom(action: Action, state: number): { to: number | null } | undefined {
  const t = action.transitions.find((tr) => (tr.from as number[]).includes(state));
  return t && { to: t.to };
}

/** Every key any action names: what the action routes as a whole let through before the engine decides. */
export function allActionKeys(): string[] {
  return [...new Set(Object.values(WORKFLOW.actions).flatMap(actionKeys))];
}
