/**
 * What the generic screens may offer: the current user's permissionMap from the
 * session (src/session). The decision itself is session/access.ts's `can`, the one
 * place that reads a permission map; a hidden button is a convenience, the refusal
 * is the server's.
 */
import { can, type PermissionMap } from '../session/access';
import { useSession } from '../session/store';
import { rowConditionsHold } from './rowActions';
import type { RowCondition, View, ViewAction } from '../shared/schema/types';

export type { PermissionMap };

/** The map of the logged-in user, or null while user info is loading. */
export function usePermissionMap(): PermissionMap | null {
  return useSession().user?.permissionMap ?? null;
}

/** May `action` of `module` be offered? Nothing is offered until the map is known. */
export function allows(map: PermissionMap | null, module: string, action: string): boolean {
  return can(map, `${module}:${action}`);
}

export interface ViewRights {
  add: boolean;
  edit: boolean;
  remove: boolean;
  view: boolean;
}

/** The right of the view's module that gates a generic action: the view's `actions` name, else the action's own. */
export function actionRight(view: Pick<View, 'actions'>, action: ViewAction): string {
  return view.actions?.[action] ?? action;
}

/**
 * What a view's buttons may offer, as a pure function of the view and the map. A view
 * without a form (a list whose rows open a screen of their own, the report centre's)
 * offers no detail, create or edit.
 */
export function viewRights(view: Pick<View, 'permission' | 'actions' | 'form'>, map: PermissionMap | null): ViewRights {
  const has = (action: ViewAction) => allows(map, view.permission, actionRight(view, action));
  const form = view.form !== undefined;
  return { add: form && has('add'), edit: form && has('edit'), remove: has('delete'), view: form && has('view') };
}

/**
 * What the server says on top of the rights: a list answered `readOnly` (the region's
 * rows, to a caller without region scope) offers no add, edit, delete or import; a row
 * marked `readOnly` (a role above the caller) no edit or delete; a row failing the
 * view's `removeWhen` (a user the caller does not govern wholly) no delete.
 */
export function ownedRights(rights: ViewRights, listReadOnly: boolean, row?: Record<string, unknown>, removeWhen?: RowCondition | RowCondition[]): ViewRights {
  const fixed = listReadOnly || row?.readOnly === true;
  const removable = !row || rowConditionsHold(removeWhen, row);
  return { ...rights, add: rights.add && !listReadOnly, edit: rights.edit && !fixed, remove: rights.remove && !fixed && removable };
}

/** The actions a view's buttons need, in the view's module. */
export function useActions(view: Pick<View, 'permission' | 'actions' | 'form'>): ViewRights {
  return viewRights(view, usePermissionMap());
}
