/**
 * What a row action asks before its call (view rowActions[].input), pure: the limits
 * of a reason as the workflow table declares them for the action (the server checks
 * the same definition), and the choices a call answers for the row. Texts are the
 * caller's; calls go through the injected request function.
 */
import { request as defaultRequest, type RequestFn } from '../services/request';
import { fillPath } from '../shared/schema/pathTemplate';
import { schemaAt } from '../shared/schema/schemas';
import { WORKFLOWS } from '../shared/workflows';
import type { InputSpec, RowAction, Translate } from '../shared/schema/types';

export interface TextLimits {
  minLength: number;
  maxLength: number;
}

/** The limits of the reason `spec` names: the common.json text definition its workflow action declares; throws when it declares none. */
export function reasonLimits(spec: NonNullable<InputSpec['reason']>): TextLimits {
  const definition = WORKFLOWS[spec.workflow]?.actions[spec.action]?.reason;
  if (!definition) throw new Error(`config/workflows/${spec.workflow}.json: action ${spec.action} declares no reason`);
  const { minLength = 1, maxLength } = schemaAt(`common.json#/definitions/${definition}`);
  if (maxLength === undefined) throw new Error(`common.json#/definitions/${definition} has no maxLength`);
  return { minLength, maxLength };
}

/** A reason (or any text with limits, a new name) as the server will judge it: trimmed, then within the limits (an empty one is "required"). */
export function reasonProblem(value: string | undefined, limits: TextLimits): 'required' | 'minLength' | 'maxLength' | undefined {
  const text = (value ?? '').trim();
  if (!text) return 'required';
  if (text.length < limits.minLength) return 'minLength';
  if (text.length > limits.maxLength) return 'maxLength';
  return undefined;
}

/** A form rule (antd's validator) holding a text to `limits`, with the validation.* words naming the field `label`. */
export function textRule(limits: TextLimits, label: string, t: Translate) {
  return {
    validator: async (_rule: unknown, value: string | undefined) => {
      const problem = reasonProblem(value, limits);
      if (problem) throw new Error(t(`validation.${problem}`, { field: label, limit: problem === 'minLength' ? limits.minLength : limits.maxLength }));
    },
  };
}

export interface Choice {
  value: number | string;
  label: string;
}

/** The choices of an action's `choose` for the row: data.list (or the answer itself when a list) of {id, name}. */
export async function loadChoices(action: RowAction, row: Record<string, unknown>, req: RequestFn = defaultRequest): Promise<Choice[]> {
  const choose = action.input?.choose;
  if (!choose) throw new Error(`row action ${action.key} chooses nothing`);
  const path = fillPath(choose.call.path, row);
  if (!path) throw new Error(`row action ${action.key}: the row lacks a value for ${choose.call.path}`);
  const data = await req<{ list?: Array<{ id: number | string; name: string }> } | Array<{ id: number | string; name: string }>>(path);
  const list = Array.isArray(data) ? data : (data?.list ?? []);
  return list.map((r) => ({ value: r.id, label: r.name }));
}
