/**
 * Entity schema + view → a Formily ISchema for SchemaForm. Pure (no React): the texts
 * come through `t`, so snapshots and the browser share one output.
 *
 * - groups become sections (Section) holding a FormGrid of `form.columns` (default 2)
 * - titles are entity.<entity>.field.<field>; section titles entity.group.<key>
 * - required, lengths, pattern, format, bounds and item counts become x-validator rules
 *   with validation.* messages naming the field (every string format, the schemas' own
 *   such as id-card and the standard ones such as uri, runs config/formats.ts like the server); a requirement from the entity's
 *   if/then applies when the view's fixed values and the mode decide it, and follows
 *   the field it depends on when the user picks that field (role: custom scope)
 * - code-table values become Select options labelled code.<table>.<value>
 * - readOnly fields: left out on create, read-pretty on edit; writeOnly (password):
 *   left out of the detail view, optional on edit
 * - arrays of objects become an ArrayTable or ArrayCards, and fields of a discriminator's
 *   case show only under its values (./toFormilyNested)
 * - a view's `fill` on a field becomes a reaction that fills other fields from it
 *   (./fillers: pinyin of a name, age from a birth date); `money` a CNY amount (Money);
 *   `dicom` a DICOM date or person name read as people read them (DicomText);
 *   `sum` a read-only total the form keeps up to date (./totals), shown on create too;
 *   date fields a DatePicker
 * - a view's virtual field (not in the entity) is its component with the hint's props,
 *   in every mode; its value is never saved (formData.toPayload sends entity fields)
 * - every field's FormItem carries data-testid field-<name> (page objects find it)
 */
import type { ISchema } from '@formily/json-schema';
import { formatTest } from '../../config/formats';
import { conditionallyRequired, entityModel, field as fieldOf, requiredWhen, virtualField, type EntityModel, type FieldInfo } from '../shared/schema/model';
import { codeOptions } from '../shared/schema/schemas';
import type { FieldHint, SumSpec, Translate, View } from '../shared/schema/types';
import { viewForm, type FormMode } from '../shared/schema/views';
import { discriminatorOf, type Discriminator } from '../shared/schema/discriminator';
import { arraySchema, caseReaction } from './toFormilyNested';
import { asSteps } from './toSteps';
import { uploadControl } from './toUpload';

export interface FormilyOptions {
  t: Translate;
  mode: FormMode;
}

const DEFAULT_COLUMNS = 2;

/** Formats whose values come from a picker (DatePicker, DateTime), which writes them as the server reads them. */
const PICKED_FORMATS = new Set(['date', 'time', 'date-time']);

/**
 * A rule for a string format, the test the server's ajv runs too (config/formats.ts):
 * the schemas' own (an identity number's checksum) and the standard ones as ajv-formats
 * defines them. Formily's own format rules differ (its url refuses private IP hosts
 * such as http://10.1.1.5:8080/his, which the server accepts), so none is used. Empty
 * is not its business: `required` says that.
 */
function formatRule(format: string, message: string): Record<string, unknown> | undefined {
  const test = PICKED_FORMATS.has(format) ? undefined : formatTest(format);
  if (!test) return undefined;
  return { validator: (value: unknown) => value === undefined || value === null || value === '' || (typeof value === 'string' && test(value)), message };
}

export function fieldLabelKey(entity: string, name: string): string {
  return `entity.${entity}.field.${name}`;
}

export function groupLabelKey(key: string): string {
  return `entity.group.${key}`;
}

interface Ctx {
  view: View;
  model: EntityModel;
  t: Translate;
  mode: FormMode;
  required: Set<string>;
  /** Required while another field has a value (the entity's if/then on a field the user picks). */
  requiredWhen: Map<string, { when: string; equals: unknown }>;
  columns: number;
  discriminator?: Discriminator;
}

function hintOf(ctx: Ctx, name: string): FieldHint {
  return ctx.view.fields?.[name] ?? {};
}

/** A field a view's form names: the entity's, or one the view declares virtual. */
export function formField(view: View, model: EntityModel, name: string): FieldInfo {
  return view.fields?.[name]?.virtual ? virtualField(name) : fieldOf(model, name);
}

function isChoice(f: FieldInfo, h: FieldHint): boolean {
  return Boolean(h.options || f.code || f.items?.code || f.type === 'boolean');
}

function rules(ctx: Ctx, f: FieldInfo, h: FieldHint, title: string, required: boolean | 'reactive'): Array<Record<string, unknown>> {
  const msg = (key: string, limit?: number) => ctx.t(`validation.${key}`, limit === undefined ? { field: title } : { field: title, limit });
  const choice = isChoice(f, h);
  const out: Array<Record<string, unknown>> = [];
  // A reactive requirement starts off; the reaction switches it, keeping this message.
  if (required) out.push({ required: required === true, message: msg(choice ? 'select' : 'required') });
  if (f.type === 'string' && !choice) {
    // minLength 1 is "not empty": empty inputs are dropped before saving, so only required says it.
    if (f.minLength !== undefined && f.minLength > 1) out.push({ minLength: f.minLength, message: msg('minLength', f.minLength) });
    if (f.maxLength !== undefined) out.push({ maxLength: f.maxLength, message: msg('maxLength', f.maxLength) });
    if (f.pattern) out.push({ pattern: f.pattern, message: msg('pattern') });
    const format = f.format ? formatRule(f.format, msg('format')) : undefined;
    if (format) out.push(format);
  }
  if ((f.type === 'integer' || f.type === 'number') && !choice) {
    if (f.minimum !== undefined) out.push({ minimum: f.minimum, message: msg('minimum', f.minimum) });
    if (f.maximum !== undefined) out.push({ maximum: f.maximum, message: msg('maximum', f.maximum) });
    // e.g. a price to the fen; compared on the scaled value, since 1.1 % 0.01 is not 0 in floating point
    const step = f.multipleOf;
    if (step) out.push({ validator: (v: unknown) => typeof v !== 'number' || Math.abs(v / step - Math.round(v / step)) < 1e-9, message: msg('invalid') });
  }
  if (f.type === 'array') {
    if (f.minItems !== undefined && (f.minItems > 1 || (f.minItems === 1 && !required))) {
      out.push({ minItems: f.minItems, message: msg('minItems', f.minItems) });
    }
    if (f.maxItems !== undefined) out.push({ maxItems: f.maxItems, message: msg('maxItems', f.maxItems) });
    if (h.uniqueBy) out.push({ uniqueBy: h.uniqueBy, message: msg('uniqueItems') });
    else if (f.uniqueItems && !choice) out.push({ uniqueItems: true, message: msg('uniqueItems') });
  }
  return out;
}

interface Control {
  component: string;
  props?: Record<string, unknown>;
  options?: Array<{ value: unknown; label: string }>;
}

function control(ctx: Ctx, f: FieldInfo, h: FieldHint): Control {
  const code = f.code ?? f.items?.code;
  const multiple = f.type === 'array' ? { mode: 'multiple' } : undefined;
  const options = code ? codeOptions(code, ctx.t) : undefined;
  if (h.component) {
    // An object value with a `mode` property (the user's data scope) gets the mode switch.
    const withMode = f.properties?.some((p) => p.name.endsWith('.mode')) ? { withMode: true } : undefined;
    return { component: h.component, props: { ...multiple, ...withMode, ...h.props }, options };
  }
  // An attachment (file ids of the file service): the upload control (./toUpload).
  const upload = uploadControl(f, h);
  if (upload) return upload;
  // A list with a limit offers no more than it takes (the consultation's exams: at most 20).
  const choose = multiple && f.maxItems !== undefined ? { ...multiple, maxCount: f.maxItems } : multiple;
  if (h.options) return { component: 'RemoteSelect', props: { source: h.options, ...choose } };
  if (code) return { component: 'Select', props: choose, options };
  if (f.type === 'boolean') return { component: 'Switch' };
  // An amount is CNY whatever the language (spec section 3: price in CNY).
  if (h.money) return { component: 'Money' };
  if (h.dicom) return { component: 'DicomText', props: { vr: h.dicom } };
  if (f.type === 'integer' || f.type === 'number')
    return { component: 'NumberPicker', props: f.type === 'integer' ? { precision: 0 } : undefined };
  if (f.type === 'array') return { component: 'Select', props: { mode: 'tags', open: false, tokenSeparators: [',', '，'] } };
  if (f.format === 'date-time') return { component: 'DateTime' };
  // Formily's DatePicker keeps the value as the YYYY-MM-DD string the schema's format wants.
  if (f.format === 'date') return { component: 'DatePicker' };
  if (f.writeOnly) return { component: 'Password', props: { autoComplete: 'new-password' } };
  // Long free text gets a text area; a formatted string (a URL, an e-mail) is one token, so one line whatever its limit.
  if ((f.maxLength ?? 0) >= 200 && !f.format) return { component: 'Input.TextArea', props: { rows: 3, showCount: true, maxLength: f.maxLength } };
  return { component: 'Input' };
}

/** Grid columns a field takes: the view's span, else the full width for structured values. */
function spanOf(ctx: Ctx, f: FieldInfo): number {
  const h = hintOf(ctx, f.name);
  return h.span ?? (f.type === 'object' || f.items?.type === 'object' ? ctx.columns : 1);
}

function clean<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (v === undefined || (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0)) delete o[k];
  }
  return o;
}

/**
 * One field, or undefined when the mode leaves it out. `bare`: no label (a cell of an
 * ArrayTable, or the only field of its group, which the group title names).
 */
function fieldSchema(ctx: Ctx, f: FieldInfo, index: number, bare = false): ISchema | undefined {
  const h = hintOf(ctx, f.name);
  // A total the form works out is shown while the user chooses, read-only, even on create.
  if (f.readOnly && ctx.mode === 'create' && !h.sum) return undefined;
  if (f.writeOnly && ctx.mode === 'detail') return undefined;
  const title = ctx.t(fieldLabelKey(ctx.model.name, f.name));
  const readPretty = f.readOnly || h.readPrettyOnly;
  const required = !readPretty && !(f.writeOnly && ctx.mode === 'edit') && (f.required || ctx.required.has(f.name));
  const reactive = !readPretty && !required ? ctx.requiredWhen.get(f.name) : undefined;
  // A field of a discriminator's case: shown (and required) only under its values.
  const switched = caseReaction(ctx.discriminator, f.name);
  const validator = readPretty ? [] : rules(ctx, f, h, title, required || (reactive || ctx.discriminator?.fields.get(f.name)?.requiredWhen.length ? 'reactive' : false));
  const span = spanOf(ctx, f);
  const reactionList = [
    ...(h.visibleWhen ? [visibleWhen(h.visibleWhen)] : []),
    ...(switched ? [switched] : []),
    ...(reactive ? [requiredReaction(reactive.when, reactive.equals)] : []),
    ...(h.fill && !readPretty && ctx.mode !== 'detail' ? [fillReaction(ctx, f.name, h)] : []),
    ...(h.sum && ctx.mode !== 'detail' ? [sumReaction(ctx, h.sum)] : []),
  ];
  const reactions = reactionList.length > 1 ? reactionList : reactionList[0];

  if (f.type === 'array' && f.items?.type === 'object' && !h.component) {
    const nested = { t: ctx.t, mode: ctx.mode, label: (n: string) => ctx.t(fieldLabelKey(ctx.model.name, n)), cell: (p: FieldInfo, b: boolean) => fieldSchema(ctx, p, 0, b) };
    return arraySchema(nested, f, h, { title: bare ? undefined : title, index, span, validator, readPretty: Boolean(readPretty), reactions, required });
  }

  const c = control(ctx, f, h);
  const placeholder = f.writeOnly && ctx.mode === 'edit' ? ctx.t('entity.placeholder.keepPassword') : undefined;
  return clean({
    type: f.type === 'integer' ? 'number' : f.type === 'unknown' ? 'string' : f.type,
    title: bare ? undefined : title,
    'x-index': index,
    'x-decorator': 'FormItem',
    'x-decorator-props': clean({ gridSpan: span > 1 ? span : undefined, 'data-testid': `field-${f.name}` }),
    'x-component': c.component,
    'x-component-props': clean({ ...c.props, placeholder }),
    enum: c.options,
    'x-validator': validator.length ? validator : undefined,
    'x-pattern': readPretty ? 'readPretty' : undefined,
    'x-reactions': reactions,
    required: required || undefined,
  } as Record<string, unknown>) as ISchema;
}

/** Required only while `when` equals `equals`. */
function requiredReaction(when: string, equals: unknown): Record<string, unknown> {
  return { dependencies: [when], fulfill: { state: { required: `{{$deps[0] === ${JSON.stringify(equals)}}}` } } };
}

/** Shown only while every named field has its value (fields by form path). */
function visibleWhen(conditions: Record<string, unknown>): Record<string, unknown> {
  const names = Object.keys(conditions);
  const test = names.map((n, i) => `$deps[${i}] === ${JSON.stringify(conditions[n])}`).join(' && ');
  return { dependencies: names, fulfill: { state: { visible: `{{${test}}}` } } };
}

/**
 * The view's `fill`: $fill (./fillers, in the SchemaField scope) sets `into` from this
 * field's value; the option filler also gets the field's own option source.
 */
function fillReaction(ctx: Ctx, name: string, h: FieldHint): Record<string, unknown> {
  const { with: filler, into } = h.fill!;
  if (filler !== 'option') return { fulfill: { run: `{{$fill($self, ${JSON.stringify(filler)}, ${JSON.stringify(into)})}}` } };
  if (!h.options || !('resource' in h.options)) throw new Error(`${ctx.view.$id}: ${name} fills from its option, so it needs resource options`);
  return { fulfill: { run: `{{$fill($self, "option", ${JSON.stringify(into)}, ${JSON.stringify(h.options)})}}` } };
}

/**
 * The view's `sum`: $sum (./totals, in the SchemaField scope) keeps this field at the
 * total of the chosen options, whose source is the hint of "<of>.<option>".
 */
function sumReaction(ctx: Ctx, sum: SumSpec): Record<string, unknown> {
  const source = ctx.view.fields?.[`${sum.of}.${sum.option}`]?.options;
  if (!source || !('resource' in source)) throw new Error(`${ctx.view.$id}: sum over ${sum.of}.${sum.option} needs that field's resource options`);
  return { fulfill: { run: `{{$sum($self, ${JSON.stringify({ ...sum, source })})}}` } };
}

/** Values a screen knows before the user types: the view's fixed values, and an id unless creating. */
export function knownValues(view: View, mode: FormMode): Record<string, unknown> {
  return { ...view.fixedFilters, ...(mode === 'create' ? {} : { id: 1 }) };
}

export function toFormily(view: View, options: FormilyOptions): ISchema {
  const model = entityModel(view.entity);
  const known = knownValues(view, options.mode);
  const ctx: Ctx = {
    view,
    model,
    t: options.t,
    mode: options.mode,
    required: new Set(conditionallyRequired(model, known)),
    requiredWhen: new Map(requiredWhen(model, known).map((r) => [r.field, r])),
    columns: viewForm(view).columns ?? DEFAULT_COLUMNS,
    discriminator: discriminatorOf(model),
  };
  const properties: Record<string, ISchema> = {};
  const { groups, steps: wizard } = viewForm(view);
  // A wizard's steps (./toSteps): each group's grid becomes a pane, titled by the group.
  const panes: Array<{ key: string; title: string; grid: ISchema }> = [];
  const single = groups.length === 1 && !wizard;
  groups.forEach((group, g) => {
    const fields: Record<string, ISchema> = {};
    const lone = group.fields.length === 1 && !single;
    group.fields.forEach((name, i) => {
      const f = formField(view, model, name);
      const s = fieldSchema(ctx, f, i, lone && spanOf(ctx, f) >= ctx.columns);
      if (s) fields[name] = s;
    });
    if (!Object.keys(fields).length) return;
    const grid: ISchema = {
      type: 'void',
      'x-index': g,
      'x-component': 'FormGrid',
      // strictAutoFit: a wide field starts a new row instead of shrinking into the last column.
      'x-component-props': { maxColumns: ctx.columns, minColumns: 1, columnGap: 24, strictAutoFit: true },
      properties: fields,
    };
    if (wizard) {
      panes.push({ key: group.key, title: ctx.t(groupLabelKey(group.key)), grid });
      return;
    }
    // One group needs no section title: the page or dialog title says it.
    properties[single ? 'grid' : `group_${group.key}`] = single
      ? grid
      : {
          type: 'void',
          'x-index': g,
          'x-component': 'Section',
          'x-component-props': { title: ctx.t(groupLabelKey(group.key)), 'data-testid': `group-${group.key}` },
          properties: { grid },
        };
  });
  return wizard ? asSteps(panes) : { type: 'object', properties };
}

/** Every field a view's form may show, by dotted name (for the save payload and error paths). */
export function formFieldNames(view: View): string[] {
  return viewForm(view).groups.flatMap((g) => g.fields);
}
