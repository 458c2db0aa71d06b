/**
 * A declared workflow table (config/workflows/<name>.json) as the server loads it: the
 * schema (schemas/workflow.json) and what a schema cannot check — the states are the
 * code table's the table names, each once; log types are codes of its log table; every
 * permission key is declared; every guard and effect is in the entity's registry; every
 * reason names a text definition of common.json; every catalogue code exists; an
 * action's transitions never start from the same state twice; what versioned or locking
 * actions need is declared. Throws one Error listing every problem, so a server with a
 * bad table does not start. Pure: reads no database.
 */
import common from '../../schemas/common.json';
import type { Action, Workflow } from '../../src/shared/generated/workflow';
import { errorCatalogue } from '../../config/errors';
import { assertPermissionKey } from '../identity/access';
import { checkAgainstSchema, loadSchemas } from '../lib/schemas';

export type { Action, Workflow };
export type WorkflowAction = Action;

/** The names an entity's guard and effect registries hold, and the sections its adapter needs. */
export interface TableRules {
  guards: Record<string, unknown>;
  effects: Record<string, unknown>;
  /** Top-level sections that are optional in the schema but this entity's adapter reads. */
  requires?: Array<keyof Workflow>;
}

/** Everything a caller's right can come from, per action: the keys of all three kinds. */
export function actionKeys(action: Action): string[] {
  return [...new Set([...action.permission, ...(action.remotePermission ?? []), ...(action.assigneePermission ?? [])])];
}

/** The values of a code table of schemas/ by its $id (codes/<name>.json). */
function codeValues(ref: string): Array<string | number> | undefined {
  return (loadSchemas().find((s) => s.$id === ref) as { enum?: Array<string | number> } | undefined)?.enum;
}

export function checkTable(candidate: unknown, file: string, rules: TableRules): Workflow {
  const w = checkAgainstSchema<Workflow>(candidate, 'workflow.json', file);
  const problems: string[] = [];
  const codes = new Set(Object.keys(errorCatalogue.codes));
  const stateValues = w.states.map((s) => s.value);
  const known = new Set<number>(stateValues);
  if (stateValues.length !== known.size) problems.push('a state is listed twice');
  if (w.stateCodes) {
    const table = codeValues(w.stateCodes);
    if (!table) problems.push(`no code table ${w.stateCodes}`);
    for (const v of table ?? []) if (!known.has(v as number)) problems.push(`state ${v} of ${w.stateCodes} is not in the table`);
    for (const v of stateValues) if (table && !table.includes(v)) problems.push(`state ${v} is not a code of ${w.stateCodes}`);
  }
  const logTypes = w.logCodes ? codeValues(w.logCodes) : undefined;
  if (w.logCodes && !logTypes) problems.push(`no code table ${w.logCodes}`);
  for (const section of rules.requires ?? []) if (w[section] === undefined) problems.push(`section ${String(section)} is missing`);
  for (const code of [w.wrongState, w.versionConflict, w.examStateError]) if (code && !codes.has(code)) problems.push(`code ${code} is not in config/errors.json`);
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
    // The platform's own actions (on an event) are no user's: no right names them; every user's action needs one.
    if (action.on && action.permission.length) problems.push(`${at}: performed by the platform (on), so it names no permission`);
    if (!action.on && !action.permission.length) problems.push(`${at}: names no permission`);
    for (const g of action.guards ?? []) if (!rules.guards[g]) problems.push(`${at}: no guard named ${g}`);
    for (const f of action.effects ?? []) if (!rules.effects[f]) problems.push(`${at}: no effect named ${f}`);
    if (action.reason && definitions[action.reason]?.type !== 'string') problems.push(`${at}: reason ${action.reason} is not a text definition of common.json`);
    if (action.log && logTypes && !logTypes.includes(action.log)) problems.push(`${at}: log type ${action.log} is not a code of ${w.logCodes}`);
    if (action.versioned !== false && !w.versionConflict) problems.push(`${at}: versioned, but the table names no versionConflict code`);
    if ((action.lock === 'take' || action.lock === 'release') && w.lockSeconds === undefined) problems.push(`${at}: takes a lock, but the table has no lockSeconds`);
    const from = new Set<number>();
    for (const t of action.transitions) {
      for (const s of t.from) {
        if (from.has(s)) problems.push(`${at}: two transitions start from state ${s}`);
        from.add(s);
        if (!known.has(s)) problems.push(`${at}: unknown state ${s}`);
      }
      if (typeof t.to === 'number' && !known.has(t.to)) problems.push(`${at}: unknown state ${t.to}`);
    }
    for (const [state, code] of Object.entries(action.stateErrors ?? {})) {
      if (!codes.has(code)) problems.push(`${at}: code ${code} is not in config/errors.json`);
      if (from.has(Number(state))) problems.push(`${at}: stateErrors names state ${state}, which the action starts from`);
    }
  }
  if (problems.length) throw new Error(`${file}:\n  ${problems.join('\n  ')}`);
  return w;
}

/** Where `action` leads from `state`: the declared target (null: stays; "previous"), or undefined when it does not start there. */
export function transitionFrom(action: Action, state: number): { to: number | null | 'previous' } | undefined {
  const t = action.transitions.find((tr) => tr.from.includes(state));
  return t && { to: t.to };
}

/** The value of the state named `name` (the table's names are what code may refer to). */
export function stateValue(w: Workflow, name: string): number {
  const s = w.states.find((x) => x.name === name);
  if (!s) throw new Error(`workflow ${w.name} has no state ${name}`);
  return s.value;
}

/** Every key any action names: what the action routes as a whole let through before the engine decides. */
export function allActionKeys(w: Workflow): string[] {
  return [...new Set(Object.values(w.actions).flatMap(actionKeys))];
}
