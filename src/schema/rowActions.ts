/**
 * A view's row actions (view.rowActions): which ones a row offers and the call each
 * makes (or the list it loads, or the row it picks first, or the values it asks for),
 * and the toolbar's calls on the selected rows. Whether one is offered is a pure
 * function of the view, the row and the permission map (session/access.ts `can`); the
 * server still decides.
 */
import { request as defaultRequest, type QueryValue, type RequestFn } from '../services/request';
import { can, type PermissionMap } from '../session/access';
import { fillPath, type PathContext } from '../shared/schema/pathTemplate';
import type { ActionCall, ActionMenu, RowAction, RowCondition, ToolbarAction, View } from '../shared/schema/types';

/** The permission key of an action's right: "module:action" as written, else an action of the view's module. */
export function actionPermissionKey(view: Pick<View, 'permission'>, permission: string): string {
  return permission.includes(':') ? permission : `${view.permission}:${permission}`;
}

/** Does the map grant the action's right (in the view's module, or the module it names)? */
export function rowActionAllowed(view: View, action: Pick<RowAction, 'permission'>, map: PermissionMap | null | undefined): boolean {
  return can(map, actionPermissionKey(view, action.permission));
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

/** Does every condition hold for the row (none: yes)? */
export function rowConditionsHold(w: RowCondition | RowCondition[] | undefined, row: Record<string, unknown>): boolean {
  const conditions = w === undefined ? [] : Array.isArray(w) ? w : [w];
  return conditions.every((c) => rowConditionHolds(c, row));
}

/** The path template of an action: its API call's, the screen it opens, its list's or its pick's call; none for a dialog. */
function pathOf(action: RowAction): string | undefined {
  const path = action.call?.path ?? action.open?.path ?? action.list?.call.path ?? action.pick?.call.path;
  if (!path && !action.dialog) throw new Error(`row action ${action.key}: neither call, open, list, pick nor dialog`);
  return path;
}

const WHOLE_PLACEHOLDER = /^\{(picked\.)?([A-Za-z][A-Za-z0-9]*)\}$/;

/**
 * A body (or filters) from a template: a value "{field}" is the row's value as it is
 * (an id stays a number), "{picked.field}" the picked row's, others as written;
 * undefined while a value is missing. "{picked.…}" without a picked row is left out.
 */
export function fillBody(
  template: Record<string, unknown> | undefined,
  row: Record<string, unknown>,
  picked?: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(template ?? {})) {
    const m = typeof v === 'string' ? WHOLE_PLACEHOLDER.exec(v) : null;
    if (m?.[1] && !picked) continue;
    const value = !m ? v : (m[1] ? picked : row)?.[m[2]];
    if (value === undefined || value === null || value === '') return undefined;
    body[k] = value;
  }
  return body;
}

/** A list action's request body for the row (see fillBody); undefined while the row lacks a value. */
export function rowListBody(action: RowAction, row: Record<string, unknown>): Record<string, unknown> | undefined {
  return fillBody(action.list?.call.body, row);
}

/** A pick action's fixed filters of the list to pick from, for the row; undefined while the row lacks a value. */
export function pickFilters(action: RowAction, row: Record<string, unknown>): Record<string, unknown> | undefined {
  return fillBody(action.pick?.filters, row);
}

/**
 * Does the server offer the action's workflow action on the row (its `actions`: state,
 * rights and guards judged there, never restated here), does the row meet every
 * condition of the action's visibleWhen, and has it the values the path (and a body or
 * filters) need? `context`: the screen's values ({$kind}).
 */
export function rowActionApplies(action: RowAction, row: Record<string, unknown>, context: PathContext = {}): boolean {
  if (action.workflow !== undefined && !(Array.isArray(row.actions) && row.actions.includes(action.workflow))) return false;
  if (!rowConditionsHold(action.visibleWhen, row)) return false;
  if (action.list && !rowListBody(action, row)) return false;
  if (action.call?.body && !fillBody(action.call.body, row)) return false;
  if (action.pick && (!pickFilters(action, row) || !fillBody(action.pick.call.body, row))) return false;
  const path = pathOf(action);
  return path === undefined || fillPath(path, row, context) !== undefined;
}

/** The screen an `open` action goes to for the row (query values URL-encoded), or undefined for a call or a row lacking a value. */
export function rowActionTarget(action: RowAction, row: Record<string, unknown>, context: PathContext = {}): string | undefined {
  return action.open ? fillPath(action.open.path, row, context) : undefined;
}

/** The row actions to show for `row`, in the view's order. */
export function visibleRowActions(view: View, row: Record<string, unknown>, map: PermissionMap | null | undefined, context: PathContext = {}): RowAction[] {
  return (view.rowActions ?? []).filter((a) => rowActionAllowed(view, a, map) && rowActionApplies(a, row, context));
}

/** Links an action column shows before its "more" dropdown when the view does not say (list.actionMenu.inline). */
export const DEFAULT_INLINE_ACTIONS = 4;

/**
 * A row's action keys (in the column's order: detail, edit, the view's row actions,
 * delete) split into the links shown and those under "more": the first `inline` in the
 * order of the menu's `primary`, then the rest of the column's order. All are links
 * when they fit.
 */
export function splitRowActions(keys: readonly string[], menu: ActionMenu | undefined): { inline: string[]; more: string[] } {
  const max = menu?.inline ?? DEFAULT_INLINE_ACTIONS;
  if (keys.length <= max) return { inline: [...keys], more: [] };
  const primary = menu?.primary ?? [];
  const rank = (key: string) => {
    const at = primary.indexOf(key);
    return at < 0 ? primary.length + keys.indexOf(key) : at;
  };
  const inline = [...keys].sort((a, b) => rank(a) - rank(b)).slice(0, max);
  return { inline, more: keys.filter((key) => !inline.includes(key)) };
}

/** Room per link of the action column, and for the "more" dropdown (a short text and its arrow). */
const LINK_WIDTH = 56;
const MORE_WIDTH = 56;

/**
 * The action column's width for a user who may use `allowed` actions at most: room for
 * the links a row can show and, when some may not fit, for "more". A longer
 * translation wraps onto a second line rather than widening the column.
 */
export function actionColumnWidth(allowed: number, menu: ActionMenu | undefined): number {
  const max = menu?.inline ?? DEFAULT_INLINE_ACTIONS;
  return 16 + LINK_WIDTH * Math.min(allowed, max) + (allowed > max ? MORE_WIDTH : 0);
}

export type RowActionText = '' | 'Confirm' | 'Done' | 'Reason' | 'Choose';

/** entity.<entity>.action.<key> (the link), …<key>Confirm (the question), …<key>Done (the success message), …<key>Reason and …<key>Choose (an input dialog's fields). */
export function rowActionTextKey(view: View, action: Pick<RowAction, 'key'>, which: RowActionText = ''): string {
  return `entity.${view.entity}.action.${action.key}${which}`;
}

/**
 * Makes a call for the row (and a picked row) through the request wrapper; a GET sends
 * the body as its query. `input`: what the user gave in the action's dialog, added to the body.
 */
function callFor(
  key: string,
  call: ActionCall,
  row: Record<string, unknown>,
  picked: Record<string, unknown> | undefined,
  req: RequestFn,
  input?: Record<string, unknown>,
): Promise<unknown> {
  const path = fillPath(call.path, row);
  const filled = fillBody(call.body, row, picked);
  if (!path || !filled) throw new Error(`row action ${key}: the row lacks a value for ${call.path}`);
  if (!call.body && !input) return req(path, { method: call.method });
  const body = { ...filled, ...input };
  return req(path, call.method === 'POST' ? { method: 'POST', body } : { method: 'GET', query: body as Record<string, QueryValue> });
}

/** Calls the action for the row through the one request wrapper (a refusal is shown there), with the values its input dialog asked for. */
export async function runRowAction(action: RowAction, row: Record<string, unknown>, req: RequestFn = defaultRequest, input?: Record<string, unknown>): Promise<unknown> {
  if (!action.call) throw new Error(`row action ${action.key} opens a screen or shows a list; it makes no call`);
  return callFor(action.key, action.call, row, undefined, req, input);
}

const SELECTED_PLACEHOLDER = /^\{selected\.([A-Za-z][A-Za-z0-9]*)\}$/;

/**
 * A toolbar call's body for the selected rows: a value "{selected.field}" is the list
 * of their values of that field, others as written; undefined with no row selected or
 * a row lacking the value.
 */
export function selectionBody(template: Record<string, unknown> | undefined, rows: Array<Record<string, unknown>>): Record<string, unknown> | undefined {
  if (!rows.length) return undefined;
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(template ?? {})) {
    const m = typeof v === 'string' ? SELECTED_PLACEHOLDER.exec(v) : null;
    if (!m) {
      body[k] = v;
      continue;
    }
    const values = rows.map((r) => r[m[1]]);
    if (values.some((x) => x === undefined || x === null || x === '')) return undefined;
    body[k] = values;
  }
  return body;
}

/** Makes a toolbar action's call on the selected rows (none needed without `selection`) through the one request wrapper. */
export async function runToolbarCall(action: ToolbarAction, rows: Array<Record<string, unknown>>, req: RequestFn = defaultRequest): Promise<unknown> {
  if (!action.call) throw new Error(`toolbar action ${action.key} opens a dialog; it makes no call`);
  const body = action.selection ? selectionBody(action.call.body, rows) : action.call.body;
  if (!body) throw new Error(`toolbar action ${action.key}: no selected rows, or one lacks a value`);
  return req(action.call.path, { method: 'POST', body });
}

/**
 * The parameters of a call's success text, from its answer: each number as it is and
 * each list by its length ({unlocked: [3, 4], refused: []} → {unlocked: 2, refused: 0}).
 */
export function answerCounts(answer: unknown): Record<string, number> {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return {};
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(answer)) {
    if (typeof v === 'number') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.length;
  }
  return out;
}

/** Calls a pick action for the row with the row chosen in its dialog. */
export async function runPick(action: RowAction, row: Record<string, unknown>, picked: Record<string, unknown>, req: RequestFn = defaultRequest): Promise<unknown> {
  if (!action.pick) throw new Error(`row action ${action.key} picks nothing`);
  return callFor(action.key, action.pick.call, row, picked, req);
}

/** The rows of a list action for the row (the answer's `list`), through the one request wrapper. */
export async function loadRowList(action: RowAction, row: Record<string, unknown>, req: RequestFn = defaultRequest): Promise<Array<Record<string, unknown>>> {
  const list = action.list;
  if (!list) throw new Error(`row action ${action.key} shows no list`);
  const path = fillPath(list.call.path, row);
  const body = rowListBody(action, row);
  if (!path || !body) throw new Error(`row action ${action.key}: the row lacks a value for ${list.call.path}`);
  const data = await req<{ list?: Array<Record<string, unknown>> }>(
    path,
    list.call.method === 'POST' ? { method: 'POST', body } : { method: 'GET', query: body as Record<string, QueryValue> },
  );
  return data?.list ?? [];
}
