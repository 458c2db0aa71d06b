/**
 * The one list of views (schemas/views/*.json), imported statically by the generated
 * catalogue (`npm run schemas`). Also where a screen finds its view: the route's `view`
 * in config/routes.json, or `?view=` when a form route serves several views (the org
 * form serves regionOrg, centralHospital and hospital).
 */
import { ROUTE_TABLE as routes } from '../../../config/declared';
import { viewFiles } from '../generated/catalog';
import { pathFields } from './pathTemplate';
import type { RowCondition, View, ViewForm } from './types';

export const views: Readonly<Record<string, View>> = Object.freeze(viewFiles as unknown as Record<string, View>);

const NO_FORM: ViewForm = Object.freeze({ groups: [] }) as ViewForm;

/** The view's form; a view without one (a list whose rows open their own screen) has no groups. */
export function viewForm(view: Pick<View, 'form'>): ViewForm {
  return view.form ?? NO_FORM;
}

export function viewName(view: View): string {
  return view.$id.replace(/^views\//, '').replace(/\.json$/, '');
}

export function getView(name: string | undefined | null): View | undefined {
  return name && Object.prototype.hasOwnProperty.call(views, name) ? views[name] : undefined;
}

interface RouteWithView {
  path: string;
  view?: string;
  component?: string;
}

const allRoutes: RouteWithView[] = [...routes.public, ...routes.fullScreen, ...routes.layout];

/** The `view` of the route at `pathname` in config/routes.json. */
export function routeView(pathname: string): string | undefined {
  const clean = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return allRoutes.find((r) => r.path === clean)?.view;
}

/**
 * The view a screen at `pathname` shows: `?view=` if given and that view's list or form
 * route is this path (a URL cannot put a view on a screen it does not belong to),
 * else the route's own view.
 */
export function resolveView(pathname: string, requested?: string | null): View | undefined {
  const clean = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const asked = getView(requested);
  if (asked && (asked.routes.form === clean || asked.routes.list === clean)) return asked;
  return getView(routeView(clean));
}

export type FormMode = 'create' | 'edit' | 'detail';

/** URL of a view's form page: ?view= only when the route's own view is another one. */
export function formUrl(view: View, mode: FormMode, id?: number | string): string | undefined {
  const path = view.routes.form;
  if (!path) return undefined;
  const params = new URLSearchParams();
  if (routeView(path) !== viewName(view)) params.set('view', viewName(view));
  if (mode !== 'create' && id !== undefined) params.set('id', String(id));
  if (mode === 'detail') params.set('mode', 'detail');
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * The row fields a view's list reads: its key (id), its columns and the fields shown with
 * them (suffixField, a progress bar's counts), the fields deleting depends on
 * (removeWhen), and what its row actions name (templates in their calls and paths,
 * visibleWhen). A server may answer a list with these alone (and what it needs itself):
 * nothing on the screen reads any other.
 */
export function viewRowFields(view: View): string[] {
  const fields = new Set<string>(['id']);
  const conditions = (c: RowCondition | RowCondition[] | undefined) => (c === undefined ? [] : Array.isArray(c) ? c : [c]);
  for (const column of view.list.columns) {
    fields.add(column);
    const hint = view.fields?.[column];
    for (const with_ of [hint?.suffixField, hint?.progress?.done, hint?.progress?.total, hint?.progress?.error]) if (with_) fields.add(with_);
  }
  for (const condition of conditions(view.list.removeWhen)) fields.add(condition.field);
  for (const action of view.rowActions ?? []) {
    // Every "{field}" in its calls, paths and bodies ("{$kind}" is the screen's, "{picked.id}" another list's row).
    for (const name of pathFields(JSON.stringify(action))) fields.add(name);
    for (const condition of conditions(action.visibleWhen)) fields.add(condition.field);
  }
  return [...fields];
}
