/**
 * View + entity → ProTable columns and query-bar fields, and the list call's body from
 * what ProTable hands over. Pure (no React): texts through `t`, option loading injected.
 *
 * - columns are list.columns in order; list.query fields not among them are search-only
 * - only list.query fields are searchable; sorting only on list.sortable (server-side)
 * - code tables and booleans are select filters with translated labels
 * - date-time query fields get a day-range picker with the quick ranges of
 *   ./dateRanges (today, yesterday, last 3 / 7 days, custom ending the day after)
 * - fields with view options load them (RemoteSelect's source) and show labels
 * - a view's suffixField shows another field's text after the value (age and unit), in
 *   the counted form of the language when the unit has one ("1 год", "78 лет");
 *   money shows a CNY amount; progress shows the state with a bar of done of total
 *   through the injected renderProgress; tone draws a code's text with a coloured badge
 * - image shows the picture at the row's path through the injected renderImage (the
 *   app's fetches it with the session's headers); dicom DA shows YYYY-MM-DD and is
 *   searched by days, TM HH:MM:SS, PN the ideographic name with the alphabetic one after it
 * - multiple lets a code-table query field take several values (the filter a list)
 */
import type { ProColumns } from '@ant-design/pro-components';
import dayjs from 'dayjs';
import type { ReactNode } from 'react';
import { valueWithUnit } from '../../locales';
import { dicomText } from '../utils/dicom';
import { formatMoney } from '../shared/format';
import { QUICK_RANGES, quickRangeDays, toDayFilterRange, toFilterRange, type DayInput } from '../shared/dateRanges';
import { entityModel, field as fieldOf, type FieldInfo } from '../shared/schema/model';
import { codeOptions } from '../shared/schema/schemas';
import { fieldLabelKey } from './toFormily';
import type { FieldHint, Option, OptionSource, ProgressHint, Scalar, SortSpec, Translate, View } from '../shared/schema/types';

export type Row = Record<string, unknown>;
export type Column = ProColumns<Row>;

export interface ColumnsOptions {
  t: Translate;
  /** Options of a view's `options` source (RemoteSelect's loader in the app). */
  loadOptions?: (source: OptionSource) => Promise<Option[]>;
  /** The language numbers are formatted in (money columns); zh-CN when absent. */
  locale?: string;
  /** The cell of an image column for a picture's path (src/schema/components/AuthImage in the app); none: the cell stays empty. */
  renderImage?: (path: string, alt: string) => ReactNode;
  /** The cell of a progress column (src/schema/components/ProgressCell in the app); none: the state's label only. */
  renderProgress?: (cell: { label: string; status?: ProgressHint['status'][string]; done: number; total: number; error?: string }) => ReactNode;
}

/** Suffix of the search-only column that holds a date-time field's range picker. */
export const RANGE_SUFFIX = 'Range';

function valueEnum(options: Array<{ value: Scalar; label: string }>, tone?: FieldHint['tone']): Map<Scalar, { text: string; status?: string }> {
  // Pro-table draws a value's `status` as a coloured badge before its text.
  return new Map(options.map((o) => [o.value, tone?.[String(o.value)] ? { text: o.label, status: tone[String(o.value)] } : { text: o.label }]));
}

/** A row's value as its cell reads: a code's text in the language, else the value. */
function textOf(view: View, name: string, row: Row, t: Translate): string {
  const v = row[name];
  if (v === undefined || v === null || v === '') return '';
  const code = entityModel(view.entity).byName.get(name)?.code;
  return code ? t(`code.${code}.${String(v)}`) : String(v);
}

function display(f: FieldInfo, view: View, opts: ColumnsOptions): Partial<Column> {
  const hint = view.fields?.[f.name];
  if (hint?.image) {
    const alt = opts.t(fieldLabelKey(view.entity, f.name));
    return { valueType: 'text', width: 64, render: (_dom: unknown, row: Row) => (row[f.name] && opts.renderImage ? opts.renderImage(String(row[f.name]), alt) : null) };
  }
  const progress = hint?.progress;
  if (progress) {
    return {
      valueType: 'text',
      render: (_dom: unknown, row: Row) => {
        const label = textOf(view, f.name, row, opts.t);
        if (!label) return '-';
        const cell = {
          label,
          status: progress.status[String(row[f.name])],
          done: Number(row[progress.done] ?? 0),
          total: Number(row[progress.total] ?? 0),
          error: progress.error && row[progress.error] ? String(row[progress.error]) : undefined,
        };
        return opts.renderProgress ? opts.renderProgress(cell) : label;
      },
    };
  }
  const vr = hint?.dicom;
  if (vr) return { valueType: 'text', renderText: (v: unknown) => dicomText(vr, v) };
  // A number with its unit in another field (age and ageUnit): one cell, "45岁", "78 лет".
  const suffix = hint?.suffixField;
  if (suffix) {
    const table = entityModel(view.entity).byName.get(suffix)?.code;
    return {
      valueType: 'text',
      renderText: (v: unknown, row: Row) => (v === undefined || v === null || v === '' ? v : valueWithUnit(opts.t, table, row[suffix], v)),
    };
  }
  // The cell is rendered here (a digit column would reformat the text); searching stays numeric.
  if (hint?.money) return { valueType: 'digit', render: (_dom: unknown, row: Row) => formatMoney(row[f.name] as number, opts.locale) || '-' };
  const source = hint?.options;
  if (source) {
    const load = opts.loadOptions;
    // A column shows every row's label, so it asks for all options in scope, not those
    // of one parent (a department column lists departments of every hospital).
    const all = 'resource' in source && source.dependsOn ? { ...source, dependsOn: undefined } : source;
    return {
      valueType: 'select',
      request: load ? () => load(all) : undefined,
      // Pro-table fetches a column's options once per `params`: keyed on the language,
      // a language switch fetches them again, so dictionary labels follow it at once.
      params: load ? { locale: opts.locale } : undefined,
      fieldProps: { showSearch: true, optionFilterProp: 'label', ...(f.type === 'array' ? { mode: 'multiple' } : {}) },
    };
  }
  const code = f.code ?? f.items?.code;
  if (code) return { valueType: 'select', valueEnum: valueEnum(codeOptions(code, opts.t), hint?.tone), ...(hint?.multiple ? { fieldProps: { mode: 'multiple' } } : {}) };
  if (f.type === 'boolean') {
    return {
      valueType: 'select',
      valueEnum: valueEnum([
        { value: true, label: opts.t('entity.value.yes') },
        { value: false, label: opts.t('entity.value.no') },
      ]),
    };
  }
  if (f.format === 'date-time') return { valueType: 'dateTime' };
  if (f.type === 'integer' || f.type === 'number') return { valueType: 'digit' };
  return { valueType: 'text', ellipsis: (f.maxLength ?? 0) >= 150 || undefined };
}

/** Is the field searched with the day-range picker: a date-time, or a DICOM date? */
function searchedByDays(f: FieldInfo, view: View): boolean {
  return f.format === 'date-time' || view.fields?.[f.name]?.dicom === 'DA';
}

function rangeColumn(f: FieldInfo, title: string, order: number, opts: ColumnsOptions, hint: FieldHint['range']): Column {
  // A date-time is compared as instants; a DICOM date (no time, no zone) as days.
  const toRange = f.format === 'date-time' ? toFilterRange : toDayFilterRange;
  return {
    title,
    key: `${f.name}${RANGE_SUFFIX}`,
    dataIndex: `${f.name}${RANGE_SUFFIX}`,
    valueType: 'dateRange',
    hideInTable: true,
    order,
    ...(hint?.required ? { formItemProps: { rules: [{ required: true, message: opts.t('validation.required', { field: title }) }] } } : {}),
    fieldProps: {
      presets: QUICK_RANGES.map((key) => ({
        label: opts.t(`entity.range.${key}`),
        value: () => quickRangeDays(key).map((d) => dayjs(d)),
      })),
    },
    search: {
      transform: (value: unknown) => {
        const [first, last] = Array.isArray(value) ? (value as DayInput[]) : [];
        return first && last ? { [f.name]: toRange(first, last) } : {};
      },
    },
  };
}

export function toColumns(view: View, opts: ColumnsOptions): Column[] {
  const model = entityModel(view.entity);
  const query = view.list.query ?? [];
  const sortable = new Set(view.list.sortable ?? []);
  const names = [...view.list.columns, ...query.filter((q) => !view.list.columns.includes(q))];
  const out: Column[] = [];
  for (const name of names) {
    const f = fieldOf(model, name);
    const title = opts.t(fieldLabelKey(view.entity, name));
    const inTable = view.list.columns.includes(name);
    const q = query.indexOf(name);
    const order = q >= 0 ? query.length - q : undefined;
    const isRange = searchedByDays(f, view);
    const column: Column = {
      title,
      key: name,
      dataIndex: name,
      ...display(f, view, opts),
      sorter: sortable.has(name) || undefined,
      defaultSortOrder: view.list.defaultSort?.field === name ? view.list.defaultSort.order : undefined,
      hideInTable: !inTable || undefined,
      search: q >= 0 && !isRange ? undefined : false,
      order: isRange ? undefined : order,
    };
    out.push(Object.fromEntries(Object.entries(column).filter(([, v]) => v !== undefined)) as Column);
    if (q >= 0 && isRange) out.push(rangeColumn(f, title, order as number, opts, view.fields?.[name]?.range));
  }
  return out;
}

/**
 * The query bar's values when the list opens: each range field's preset quick range
 * (view hint range.initial), keyed as its range column; then what the address asks
 * for (a statistics drill-through: `?createdAt=2026-11-01,2026-11-07&modality=CT`):
 * a range field as first,last days, another query field as its value (numbers and
 * booleans as such, a multiple field as a list). Only list.query fields; days are
 * those of `now`.
 */
export function initialQueryValues(view: View, now: Date = new Date(), search?: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const model = entityModel(view.entity);
  for (const name of view.list.query ?? []) {
    const initial = view.fields?.[name]?.range?.initial;
    const asked = search?.get(name);
    const f = fieldOf(model, name);
    if (searchedByDays(f, view)) {
      const days = asked?.split(',') ?? [];
      if (days.length === 2 && days.every((d) => /^\d{4}-\d{2}-\d{2}$/.test(d))) out[`${name}${RANGE_SUFFIX}`] = days.map((d) => dayjs(d));
      else if (initial) {
        const [first, last] = quickRangeDays(initial, now);
        out[`${name}${RANGE_SUFFIX}`] = [dayjs(first), dayjs(last)];
      }
    } else if (asked !== undefined && asked !== null && asked !== '') {
      // A multiple field takes a comma-separated list ("reportState=-1,1,8").
      out[name] = view.fields?.[name]?.multiple ? asked.split(',').map((v) => coerce(f.items ?? f, v)) : coerce(f, asked);
    }
  }
  return out;
}

/** ProTable column-settings state: view fields marked hideInList start hidden. */
export function hiddenColumns(view: View): Record<string, { show: boolean }> {
  return Object.fromEntries(
    Object.entries(view.fields ?? {})
      .filter(([name, h]) => h.hideInList && view.list.columns.includes(name))
      .map(([name]) => [name, { show: false }]),
  );
}

export interface ListQuery {
  page: number;
  pageSize: number;
  sort?: SortSpec;
  filters: Record<string, unknown>;
}

function coerce(f: FieldInfo, v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => coerce(f.items ?? f, x));
  if (typeof v !== 'string') return v;
  if ((f.type === 'integer' || f.type === 'number') && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  if (f.type === 'boolean' && (v === 'true' || v === 'false')) return v === 'true';
  return v.trim();
}

/**
 * The list call's body from ProTable's request arguments: page and size, the clicked
 * sort (else the view's default), the query-bar values of list.query fields only, and
 * the view's fixed filters (which win).
 */
export function toListQuery(
  view: View,
  params: Record<string, unknown> & { current?: number; pageSize?: number },
  sort?: Record<string, 'ascend' | 'descend' | null | undefined>,
): ListQuery {
  const model = entityModel(view.entity);
  const query = new Set(view.list.query ?? []);
  const filters: Record<string, unknown> = {};
  for (const [k, raw] of Object.entries(params)) {
    if (!query.has(k)) continue;
    const v = coerce(fieldOf(model, k), raw);
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    filters[k] = v;
  }
  Object.assign(filters, view.fixedFilters);
  const clicked = Object.entries(sort ?? {}).find(([, order]) => order === 'ascend' || order === 'descend');
  const chosen: SortSpec | undefined = clicked ? { field: clicked[0], order: clicked[1] as SortSpec['order'] } : view.list.defaultSort;
  return {
    page: Math.max(1, Number(params.current) || 1),
    pageSize: Math.min(100, Math.max(1, Number(params.pageSize) || 20)),
    ...(chosen ? { sort: chosen } : {}),
    filters,
  };
}
