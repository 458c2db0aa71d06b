/**
 * Stored screen settings merged with a view, for the generic screens (pure, no React):
 * a user's list columns and query-bar fields (entities/screenSetting.json) and a
 * hospital's form layout (entities/formLayout.json), plus the moves the two settings
 * dialogs make. The view stays the authority on what exists: a stored key the view no
 * longer has is ignored, and a field or column the setting does not know yet keeps its
 * place next to its view neighbour (or the end of its form group), so a later change of
 * a view never hides anything.
 */
import type { FormLayout, FormLayoutGroup } from '../shared/generated/entities/formLayout';
import type { ScreenSetting } from '../shared/generated/entities/screenSetting';
import type { View, ViewForm } from '../shared/schema/types';
import { viewForm } from '../shared/schema/views';

export type { FormLayout, FormLayoutGroup, ScreenSetting };
export type ColumnSetting = NonNullable<ScreenSetting['columns']>[number];
export type QuerySetting = NonNullable<ScreenSetting['query']>[number];

/** One entry of ProTable's column-settings map (its ColumnsState, without `disable`). */
export interface ColumnState {
  show?: boolean;
  fixed?: 'left' | 'right';
  order?: number;
}
export type ColumnsStateMap = Record<string, ColumnState>;

/** What applyColumnSetting reads of a ProTable column. */
export interface ColumnLike {
  key?: unknown;
  fixed?: unknown;
  hideInTable?: boolean;
}

/**
 * `stored` (keys the view knows, first occurrence) with the view's other keys put
 * back right after their nearest earlier view neighbour, or first when none is placed.
 */
export function mergeOrder(viewKeys: readonly string[], stored: readonly string[]): string[] {
  const known = new Set(viewKeys);
  const out: string[] = [];
  for (const k of stored) if (known.has(k) && !out.includes(k)) out.push(k);
  viewKeys.forEach((k, i) => {
    if (out.includes(k)) return;
    let at = 0;
    for (let j = i - 1; j >= 0; j--) {
      const p = out.indexOf(viewKeys[j]);
      if (p >= 0) {
        at = p + 1;
        break;
      }
    }
    out.splice(at, 0, k);
  });
  return out;
}

const fixedOf = (v: unknown): ColumnState['fixed'] => (v === 'left' || v === 'right' ? v : undefined);

function tableColumns(columns: readonly ColumnLike[]): Array<{ key: string; fixed?: ColumnState['fixed'] }> {
  return columns.filter((c) => !c.hideInTable && typeof c.key === 'string').map((c) => ({ key: c.key as string, fixed: fixedOf(c.fixed) }));
}

function clean(state: ColumnState): ColumnState {
  return Object.fromEntries(Object.entries(state).filter(([, v]) => v !== undefined)) as ColumnState;
}

/**
 * ProTable's column-settings map for the table's columns: the stored setting where it
 * names a column, else the view's default (`hidden`: view fields marked hideInList; a
 * column's own `fixed`). Every column gets an order (from 1: ProTable treats 0 as none).
 */
export function applyColumnSetting(
  columns: readonly ColumnLike[],
  setting: readonly ColumnSetting[] | undefined,
  hidden: ColumnsStateMap = {},
): ColumnsStateMap {
  const cols = tableColumns(columns);
  const stored = new Map((setting ?? []).map((s) => [s.key, s]));
  const order = mergeOrder(
    cols.map((c) => c.key),
    (setting ?? []).map((s) => s.key),
  );
  const byKey = new Map(cols.map((c) => [c.key, c]));
  const out: ColumnsStateMap = {};
  order.forEach((key, i) => {
    const s = stored.get(key);
    out[key] = s
      ? clean({ show: s.show, fixed: s.fixed, order: i + 1 })
      : clean({ show: hidden[key]?.show ?? true, fixed: byKey.get(key)?.fixed, order: i + 1 });
  });
  return out;
}

/**
 * The setting to store from ProTable's map: the table's columns in the order shown
 * (a missing order, as after the popover's reset, keeps the view's place).
 */
export function columnSettingOf(map: ColumnsStateMap, columns: readonly ColumnLike[]): ColumnSetting[] {
  const cols = tableColumns(columns);
  const rank = (key: string, i: number) => map[key]?.order ?? i + 1;
  return cols
    .map((c, i) => ({ c, i, r: rank(c.key, i) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map(({ c }, i) => {
      const s = map[c.key];
      const fixed = s ? fixedOf(s.fixed) : c.fixed;
      return { key: c.key, show: s?.show !== false, order: i + 1, ...(fixed ? { fixed } : {}) };
    });
}

/** The query dialog's rows: every query field of the view, in the stored order, with its flag. */
export function querySettingRows(view: View, setting: readonly QuerySetting[] | undefined): QuerySetting[] {
  const shown = new Map((setting ?? []).map((s) => [s.key, s.show]));
  return mergeOrder(
    view.list.query ?? [],
    (setting ?? []).map((s) => s.key),
  ).map((key) => ({ key, show: shown.get(key) ?? true }));
}

/** The view with its query bar as the user set it: reordered, hidden fields left out. */
export function applyQuerySetting(view: View, setting: readonly QuerySetting[] | undefined): View {
  if (!setting?.length || !view.list.query?.length) return view;
  const query = querySettingRows(view, setting)
    .filter((r) => r.show)
    .map((r) => r.key);
  return { ...view, list: { ...view.list, query } };
}

/**
 * Every form group of the view, in the layout's order, with the layout's fields where
 * it places them; fields it does not place go to the end of their view group. Groups
 * may come out empty (the dialog offers them as targets; the form leaves them out).
 */
export function mergeFormLayout(view: View, layout: FormLayout | null | undefined): FormLayoutGroup[] {
  const viewGroups = viewForm(view).groups;
  const home = new Map(viewGroups.flatMap((g) => g.fields.map((f) => [f, g.key] as const)));
  const known = new Set(viewGroups.map((g) => g.key));
  const placed = new Set<string>();
  const fields = new Map<string, string[]>(viewGroups.map((g) => [g.key, []]));
  for (const g of layout?.groups ?? []) {
    if (!known.has(g.key)) continue;
    for (const f of g.fields) {
      if (!home.has(f) || placed.has(f)) continue;
      fields.get(g.key)?.push(f);
      placed.add(f);
    }
  }
  for (const g of viewGroups) for (const f of g.fields) if (!placed.has(f)) fields.get(g.key)?.push(f);
  const order = mergeOrder(
    viewGroups.map((g) => g.key),
    (layout?.groups ?? []).map((g) => g.key),
  );
  return order.map((key) => ({ key, fields: fields.get(key) ?? [] }));
}

/** The view with its form groups as the hospital laid them out (empty groups left out). */
export function applyFormLayout(view: View, layout: FormLayout | null | undefined): View & { form: ViewForm } {
  // Nothing stored: the view itself (the same object, so memoised screens keep it).
  if (!layout) return view.form ? (view as View & { form: ViewForm }) : { ...view, form: viewForm(view) };
  const groups = mergeFormLayout(view, layout).filter((g) => g.fields.length > 0);
  return { ...view, form: { ...viewForm(view), groups } };
}

/** Swaps item `index` with its neighbour `delta` (-1 up, +1 down); unchanged at the ends. */
export function moveItem<T>(items: readonly T[], index: number, delta: -1 | 1): T[] {
  const to = index + delta;
  if (index < 0 || index >= items.length || to < 0 || to >= items.length) return [...items];
  const out = [...items];
  [out[index], out[to]] = [out[to], out[index]];
  return out;
}

/** A field moved to the end of another group. */
export function moveFieldToGroup(groups: readonly FormLayoutGroup[], field: string, target: string): FormLayoutGroup[] {
  if (!groups.some((g) => g.key === target)) return groups.map((g) => ({ ...g, fields: [...g.fields] }));
  return groups.map((g) => {
    const rest = g.fields.filter((f) => f !== field);
    return { key: g.key, fields: g.key === target ? [...rest, field] : rest };
  });
}

/** A field moved up or down within its group. */
export function moveFieldWithin(groups: readonly FormLayoutGroup[], field: string, delta: -1 | 1): FormLayoutGroup[] {
  return groups.map((g) => ({
    key: g.key,
    fields: g.fields.includes(field) ? moveItem(g.fields, g.fields.indexOf(field), delta) : [...g.fields],
  }));
}

/** The stored form of a dialog's groups (the schema wants at least one group). */
export function toFormLayout(groups: readonly FormLayoutGroup[]): FormLayout {
  const [first, ...rest] = groups.map((g) => ({ key: g.key, fields: [...g.fields] }));
  return { groups: [first, ...rest] };
}
