/**
 * A view's list columns as spreadsheet columns: the header is the field's label in the
 * requester's language and each cell the text the list shows (a code's label, the name
 * behind an id, a value with its unit, a CNY amount). Read from the same view and
 * entity schema the client's table is built from, so the file and the screen agree.
 * Pure apart from the locale dictionaries; no I/O.
 */
import { translate, valueWithUnit } from '../../locales';
import { entityModel } from '../../src/shared/schema/model';
import type { View } from '../../src/shared/schema/types';

export interface SheetColumn {
  field: string;
  header: string;
  /** Excel column width in characters. */
  width: number;
  /** Excel number format, for numeric cells. */
  numFmt?: string;
  cell(row: Record<string, unknown>): string | number | null;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A timestamp as the region reads it: the instance's local time (TZ of the process, the
 * region's), as text, because an Excel date has no time zone and exceljs writes UTC.
 */
export function localDateTime(v: unknown): string | null {
  if (v === undefined || v === null || v === '') return null;
  const d = v instanceof Date ? v : new Date(String(v));
  if (Number.isNaN(d.getTime())) return String(v);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const empty = (v: unknown) => v === undefined || v === null || v === '';

export function sheetColumns(view: View, lang: string): SheetColumn[] {
  const model = entityModel(view.entity);
  const t = (key: string, params?: Record<string, unknown>) => translate(lang, key, params);
  const codeText = (field: string, v: unknown) => {
    const code = model.byName.get(field)?.code;
    return empty(v) ? '' : code ? t(`code.${code}.${String(v)}`) : String(v);
  };
  return view.list.columns.map((field) => {
    const f = model.byName.get(field);
    const hint = view.fields?.[field];
    const header = t(`entity.${view.entity}.field.${field}`);
    const base = { field, header, width: Math.max(10, Math.min(40, header.length * 2 + 4)) };
    if (hint?.suffixField) {
      const suffix = hint.suffixField;
      const table = model.byName.get(suffix)?.code;
      return { ...base, cell: (r) => (empty(r[field]) ? null : valueWithUnit(t, table, r[suffix], r[field])) };
    }
    if (hint?.money) return { ...base, numFmt: '0.00', cell: (r) => (typeof r[field] === 'number' ? (r[field] as number) : null) };
    // A reference shows the name the list query selects beside it (hospitalId → hospitalName).
    if (hint?.options && 'resource' in hint.options && field.endsWith('Id')) {
      const nameField = `${field.slice(0, -2)}Name`;
      return { ...base, width: 24, cell: (r) => (empty(r[nameField]) ? (empty(r[field]) ? null : String(r[field])) : String(r[nameField])) };
    }
    if (f?.code) return { ...base, cell: (r) => codeText(field, r[field]) || null };
    if (f?.type === 'boolean') return { ...base, cell: (r) => (typeof r[field] === 'boolean' ? t(`entity.value.${r[field] ? 'yes' : 'no'}`) : null) };
    if (f?.format === 'date-time') return { ...base, width: 20, cell: (r) => localDateTime(r[field]) };
    if (f?.type === 'integer' || f?.type === 'number') return { ...base, cell: (r) => (typeof r[field] === 'number' ? (r[field] as number) : null) };
    return { ...base, width: Math.max(base.width, 16), cell: (r) => (empty(r[field]) ? null : String(r[field])) };
  });
}
