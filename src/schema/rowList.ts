/**
 * The columns of a row action's read-only list (view rowActions[].list, shown by
 * ./RowListDialog): titles and cell texts from the list's entity schema and hints.
 * Pure: texts through `t`.
 * - a date-time shows as {y}-{m}-{d} {h}:{i}:{s}; a code-table value as its label
 * - a hint's textKey shows a value (each value of a list) as the text <textKey>.<value>
 * - a list shows its values joined; an object its present properties, in the schema's
 *   order, as "label: value", one per line, each formatted by the same rules
 */
import { formatTime } from '../shared/format';
import { entityModel, type FieldInfo } from '../shared/schema/model';
import { fieldLabelKey } from './toFormily';
import type { RowList, Translate } from '../shared/schema/types';

export interface RowListColumn {
  key: string;
  title: string;
  /** The cell's lines (one for a plain value; one per property for an object). */
  lines(row: Record<string, unknown>): string[];
}

const LIST_SEPARATOR = '、';
/** "label: value" as the language writes it (a full-width colon in Chinese). */
const LABELLED = 'entity.value.labelled';

function empty(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

function scalarText(f: FieldInfo, list: RowList, v: unknown, t: Translate): string {
  const textKey = list.fields?.[f.name]?.textKey;
  if (textKey) return t(`${textKey}.${String(v)}`);
  if (f.code) return t(`code.${f.code}.${String(v)}`);
  if (f.format === 'date-time') return formatTime(v as string);
  return String(v);
}

function valueText(f: FieldInfo, list: RowList, v: unknown, t: Translate): string {
  if (Array.isArray(v)) {
    // A textKey on the list applies to each of its values.
    const item = f.items ? { ...f.items, name: f.name } : f;
    return v.map((x) => scalarText(item, list, x, t)).join(LIST_SEPARATOR);
  }
  return scalarText(f, list, v, t);
}

export function rowListColumns(list: RowList, t: Translate): RowListColumn[] {
  const model = entityModel(list.entity);
  return list.columns.map((name) => {
    const f = model.byName.get(name);
    if (!f) throw new Error(`row list of entities/${list.entity}.json: no field ${name}`);
    const title = t(fieldLabelKey(list.entity, name));
    if (f.type === 'object') {
      const props = f.properties ?? [];
      return {
        key: name,
        title,
        lines: (row) => {
          const v = row[name] as Record<string, unknown> | undefined;
          if (!v || typeof v !== 'object') return [];
          return props
            .filter((p) => !empty(v[p.name.slice(name.length + 1)]))
            .map((p) => t(LABELLED, { label: t(fieldLabelKey(list.entity, p.name)), value: valueText(p, list, v[p.name.slice(name.length + 1)], t) }));
        },
      };
    }
    return { key: name, title, lines: (row) => (empty(row[name]) ? [] : [valueText(f, list, row[name], t)]) };
  });
}
