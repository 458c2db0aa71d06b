/**
 * The nested half of toFormily: arrays of objects, and fields switched by a
 * discriminator. Pure (no React), called by ./toFormily for each such field.
 *
 * - an array of objects is an ArrayTable (one column per item field), or with the
 *   view's `array: "cards"` an ArrayCards (one card per row, its fields stacked, for
 *   rows with longer texts); rows are added and removed, and moved up and down with the
 *   view's `orderable`; a row's `id` is kept in the value and never shown (the store
 *   keeps the row by it)
 * - a field of a discriminator's case (./discriminator) shows only while the
 *   discriminator has one of its values, and is required while it has one that
 *   requires it: a hidden field is neither validated nor sent (Formily's display
 *   "none"), as the server clears it
 */
import type { ISchema } from '@formily/json-schema';
import type { Discriminator } from '../shared/schema/discriminator';
import type { FieldInfo } from '../shared/schema/model';
import type { FieldHint, Translate } from '../shared/schema/types';
import type { FormMode } from '../shared/schema/views';

/** What ./toFormily has worked out for the array field itself. */
export interface ArrayBase {
  title?: string;
  index: number;
  span: number;
  validator: Array<Record<string, unknown>>;
  readPretty: boolean;
  reactions: unknown;
  required: boolean;
}

export interface NestedCtx {
  t: Translate;
  mode: FormMode;
  /** Label of a (dotted) field of the entity. */
  label: (name: string) => string;
  /** An item field's own schema (no label: the column or card names it), or undefined when the mode leaves it out. */
  cell: (f: FieldInfo, bare: boolean) => ISchema | undefined;
}

function clean<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (v === undefined || (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0)) delete o[k];
  }
  return o;
}

const shortName = (name: string) => name.slice(name.lastIndexOf('.') + 1);

/** Item fields a row shows: not its id (kept in the value), not a read-only structure (the server's word on the row). */
function shown(items: FieldInfo[]): FieldInfo[] {
  return items.filter((p) => shortName(p.name) !== 'id' && !(p.readOnly && p.type === 'object'));
}

/** An array of objects as an ArrayTable or, with `array: "cards"`, an ArrayCards. */
export function arraySchema(ctx: NestedCtx, f: FieldInfo, h: FieldHint, base: ArrayBase): ISchema {
  const cards = h.array === 'cards';
  const editing = ctx.mode !== 'detail' && !base.readPretty;
  const component = cards ? 'ArrayCards' : 'ArrayTable';
  return clean({
    type: 'array',
    title: base.title,
    'x-index': base.index,
    'x-decorator': 'FormItem',
    'x-decorator-props': clean({ gridSpan: base.span > 1 ? base.span : undefined, 'data-testid': `field-${f.name}` }),
    'x-component': component,
    'x-component-props': cards ? { size: 'small', title: base.title } : { pagination: false, size: 'small', bordered: true },
    'x-validator': base.validator.length ? base.validator : undefined,
    'x-pattern': base.readPretty ? 'readPretty' : undefined,
    'x-reactions': base.reactions,
    required: base.required || undefined,
    items: {
      type: 'object',
      properties: cards ? cardFields(ctx, f.items?.properties ?? [], editing, h.orderable) : tableColumns(ctx, f.items?.properties ?? [], editing, h.orderable),
    },
    properties: editing ? { add: { type: 'void', title: ctx.t('entity.action.addRow'), 'x-component': `${component}.Addition` } } : undefined,
  } as Record<string, unknown>) as ISchema;
}

/** One column per item field, and the row operations: remove, and move up and down when the rows' order means something (`orderable`). */
function tableColumns(ctx: NestedCtx, items: FieldInfo[], editing: boolean, orderable = false): Record<string, ISchema> {
  const out: Record<string, ISchema> = {};
  shown(items).forEach((p, i) => {
    const cell = ctx.cell(p, true);
    if (!cell) return;
    const key = shortName(p.name);
    out[`column_${key}`] = {
      type: 'void',
      'x-index': i,
      'x-component': 'ArrayTable.Column',
      'x-component-props': { title: ctx.label(p.name), dataIndex: key },
      properties: { [key]: cell },
    };
  });
  if (!editing) return out;
  out.column_operations = {
    type: 'void',
    'x-index': items.length,
    'x-component': 'ArrayTable.Column',
    'x-component-props': { title: ctx.t('entity.action.operation'), width: orderable ? 130 : 90, align: 'center' },
    properties: {
      remove: { type: 'void', 'x-component': 'ArrayTable.Remove' },
      ...(orderable ? { moveUp: { type: 'void', 'x-component': 'ArrayTable.MoveUp' }, moveDown: { type: 'void', 'x-component': 'ArrayTable.MoveDown' } } : {}),
    },
  };
  return out;
}

/**
 * A card per row: its number in the title, the item fields labelled in a grid, and in
 * the card's extra (ArrayCards puts the Remove/Move members there) the row operations.
 */
function cardFields(ctx: NestedCtx, items: FieldInfo[], editing: boolean, orderable = false): Record<string, ISchema> {
  const fields: Record<string, ISchema> = {};
  shown(items).forEach((p, i) => {
    const s = ctx.cell(p, false);
    if (s) fields[shortName(p.name)] = { ...s, 'x-index': i };
  });
  return {
    index: { type: 'void', 'x-component': 'ArrayCards.Index' },
    // Labels above the inputs as in the rest of the form: the card does not pass the form's layout on.
    layout: {
      type: 'void',
      'x-component': 'FormLayout',
      'x-component-props': { layout: 'vertical', colon: false },
      properties: {
        grid: {
          type: 'void',
          'x-component': 'FormGrid',
          'x-component-props': { maxColumns: 2, minColumns: 1, columnGap: 16, strictAutoFit: true },
          properties: fields,
        },
      },
    },
    ...(editing
      ? {
          remove: { type: 'void', 'x-component': 'ArrayCards.Remove' },
          ...(orderable ? { moveUp: { type: 'void', 'x-component': 'ArrayCards.MoveUp' }, moveDown: { type: 'void', 'x-component': 'ArrayCards.MoveDown' } } : {}),
        }
      : {}),
  };
}

/**
 * The reaction of a field switched by the discriminator: shown while the
 * discriminator's value is one of the field's cases, required while it is one that
 * requires it (absent when the field is no switched one).
 */
export function caseReaction(d: Discriminator | undefined, name: string): Record<string, unknown> | undefined {
  const f = d?.fields.get(name);
  if (!d || !f) return undefined;
  const state: Record<string, string> = { visible: `{{${JSON.stringify(f.when)}.includes($deps[0])}}` };
  if (f.requiredWhen.length) state.required = `{{${JSON.stringify(f.requiredWhen)}.includes($deps[0])}}`;
  return { dependencies: [d.field], fulfill: { state } };
}
