/**
 * A view's row actions (view.rowActions): which ones a row offers and the call each
 * makes. Whether one is offered is a pure function of the view, the row and the
 * permission map (session/access.ts `can`); the server still decides.
 */
import { request as defaultRequest, type RequestFn } from '../services/request';
import { can, type PermissionMap } from '../session/access';
import { fillPath } from './pathTemplate';
import type { RowAction, RowCondition, View } from './types';

/** Does the map grant the action's right in the view's module? */
export function rowActionAllowed(view: View, action: RowAction, map: PermissionMap | null | undefined): boolean {
  return can(map, `${view.permission}:${action.permission}`);
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);
}

/** Does one condition hold for the row: the field present (or absent), or its value one of `in`? */
export function rowConditionHolds(c: RowCondition, row: Record<string, unknown>): boolean {
  const v = row[c.field];
  if ('in' in c) return c.in.some((x) => x === v);
  return present(v) === c.present;
}

/** The path template of an action: its API call's, or the screen it opens. */
function pathOf(action: RowAction): string {
  const path = action.call?.path ?? action.open?.path;
  if (!path) throw new Error(`row action ${action.key}: neither call nor open`);
  return path;
}

/** Does the row meet every condition of the action's visibleWhen, and has it the values the path needs? */
export function rowActionApplies(action: RowAction, row: Record<string, unknown>): boolean {
  const w = action.visibleWhen;
  const conditions = w === undefined ? [] : Array.isArray(w) ? w : [w];
  if (!conditions.every((c) => rowConditionHolds(c, row))) return false;
  return fillPath(pathOf(action), row) !== undefined;
}

/** The screen an `open` action goes to for the row (query values URL-encoded), or undefined for a call or a row lacking a value. */
export function rowActionTarget(action: RowAction, row: Record<string, unknown>): string | undefined {
  return action.open ? fillPath(action.open.path, row) : undefined;
}

/** The row actions to show for `row`, in the view's order. */
export function visibleRowActions(view: View, row: Record<string, unknown>, map: PermissionMap | null | undefined): RowAction[] {
  return (view.rowActions ?? []).filter((a) => rowActionAllowed(view, a, map) && rowActionApplies(a, row));
}

export type RowActionText = '' | 'Confirm' | 'Done';

/** entity.<entity>.action.<key> (the link), …<key>Confirm (the question), …<key>Done (the success message). */
export function rowActionTextKey(view: View, action: RowAction, which: RowActionText = ''): string {
  return `entity.${view.entity}.action.${action.key}${which}`;
}

/** Calls the action for the row through the one request wrapper (a refusal is shown there). */
export async function runRowAction(action: RowAction, row: Record<string, unknown>, req: RequestFn = defaultRequest): Promise<unknown> {
  if (!action.call) throw new Error(`row action ${action.key} opens a screen; it makes no call`);
  const path = fillPath(action.call.path, row);
  if (!path) throw new Error(`row action ${action.key}: the row lacks a value for ${action.call.path}`);
  return req(path, { method: action.call.method });
}
