/**
 * Reads an entity schema into field descriptions the renderers share: $ref and allOf
 * merged, "anyOf [X, null]" read as a nullable X, a reference to codes/<table>.json
 * remembered as the field's code table. Also evaluates the entity's top-level if/then
 * against what a screen already knows (create vs edit, the view's fixed values), so a
 * conditional requirement such as "a subordinate hospital needs its parent" is shown
 * in the form from the same schema the server validates with. Pure.
 */
import { entitySchema, schemaAt } from './schemas';
import type { JsonSchema, Scalar } from './types';

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'unknown';

export interface FieldInfo {
  /** Dotted path from the entity root; array items add no segment ("memberships.roleId"). */
  name: string;
  type: FieldType;
  nullable: boolean;
  /** Code table the value comes from (a $ref to codes/<table>.json). */
  code?: string;
  enum?: Scalar[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  /** The schema's `default`: what a new record starts with. */
  default?: unknown;
  readOnly: boolean;
  writeOnly: boolean;
  /** Listed in the parent's `required`. */
  required: boolean;
  items?: FieldInfo;
  properties?: FieldInfo[];
}

export interface EntityModel {
  name: string;
  schema: JsonSchema;
  fields: FieldInfo[];
  /** Every field, nested ones included, by dotted name. */
  byName: Map<string, FieldInfo>;
}

type Flat = JsonSchema & { nullable?: boolean; code?: string };

function merge(a: Flat, b: Flat): Flat {
  const out: Flat = { ...a, ...b };
  if (a.properties || b.properties) out.properties = { ...a.properties, ...b.properties };
  if (a.required || b.required) out.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
  return out;
}

/** One schema node with its references and combinators folded in. */
export function flatten(node: JsonSchema): Flat {
  let out: Flat = {};
  if (node.$ref) {
    out = flatten(schemaAt(node.$ref));
    const code = /^codes\/([A-Za-z0-9]+)\.json$/.exec(node.$ref);
    if (code) out.code = code[1];
  }
  for (const part of node.allOf ?? []) out = merge(out, flatten(part));
  if (node.anyOf) {
    const nonNull = node.anyOf.filter((s) => s.type !== 'null');
    if (nonNull.length === 1) out = merge(out, { ...flatten(nonNull[0]), nullable: nonNull.length < node.anyOf.length });
  }
  const { $ref: _ref, allOf: _allOf, anyOf: _anyOf, $id: _id, $schema: _schema, ...own } = node;
  return merge(out, own);
}

function typeOf(flat: Flat): FieldType {
  const types = (Array.isArray(flat.type) ? flat.type : flat.type ? [flat.type] : []).filter((t) => t !== 'null');
  const t = types[0];
  if (t === 'string' || t === 'integer' || t === 'number' || t === 'boolean' || t === 'array' || t === 'object') return t;
  if (flat.enum?.length) return typeof flat.enum[0] === 'number' ? 'integer' : 'string';
  return 'unknown';
}

function describe(name: string, node: JsonSchema, required: boolean): FieldInfo {
  const flat = flatten(node);
  const info: FieldInfo = {
    name,
    type: typeOf(flat),
    nullable: Boolean(flat.nullable) || (Array.isArray(flat.type) && flat.type.includes('null')),
    readOnly: Boolean(flat.readOnly),
    writeOnly: Boolean(flat.writeOnly),
    required,
  };
  if (flat.code) info.code = flat.code;
  if (flat.enum) info.enum = flat.enum.filter((v): v is Scalar => v !== null);
  for (const k of [
    'format',
    'pattern',
    'minLength',
    'maxLength',
    'minimum',
    'maximum',
    'multipleOf',
    'minItems',
    'maxItems',
    'uniqueItems',
    'default',
  ] as const) {
    if (flat[k] !== undefined) (info as unknown as Record<string, unknown>)[k] = flat[k];
  }
  if (info.type === 'array' && flat.items) info.items = describe(name, flat.items, false);
  if (info.type === 'object' && flat.properties) {
    const req = new Set(flat.required ?? []);
    info.properties = Object.entries(flat.properties).map(([k, s]) => describe(name ? `${name}.${k}` : k, s, req.has(k)));
  }
  return info;
}

function index(fields: FieldInfo[], into: Map<string, FieldInfo>): void {
  for (const f of fields) {
    if (!into.has(f.name)) into.set(f.name, f);
    if (f.properties) index(f.properties, into);
    if (f.items?.properties) index(f.items.properties, into);
  }
}

const cache = new Map<string, EntityModel>();

export function entityModel(name: string): EntityModel {
  const hit = cache.get(name);
  if (hit) return hit;
  const schema = entitySchema(name);
  const fields = describe('', { ...schema, if: undefined, then: undefined, else: undefined }, false).properties ?? [];
  const byName = new Map<string, FieldInfo>();
  index(fields, byName);
  const model = { name, schema, fields, byName };
  cache.set(name, model);
  return model;
}

/**
 * A field a view adds to its form that the entity does not have (a view hint with
 * `virtual`): a control with a value of no type the server knows, never saved.
 */
export function virtualField(name: string): FieldInfo {
  return { name, type: 'unknown', nullable: true, readOnly: false, writeOnly: false, required: false };
}

export function field(model: EntityModel, name: string): FieldInfo {
  const f = model.byName.get(name);
  if (!f) throw new Error(`entities/${model.name}.json has no field ${name}`);
  return f;
}

/**
 * Does `schema` hold for `known`, the record as far as a screen has decided it (a key
 * it lacks is absent: no id on create)? Understands type, const, enum, required,
 * properties and not; any other keyword makes the answer "unknown" (false), so the
 * client never demands more than the schema does.
 */
export function holds(schema: JsonSchema, known: Record<string, unknown>): boolean {
  return check(schema, known) === true;
}

function check(schema: JsonSchema, value: unknown): boolean | undefined {
  for (const key of Object.keys(schema)) {
    if (!['type', 'const', 'enum', 'required', 'properties', 'not', 'description', '$comment'].includes(key)) return undefined;
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
    if (!types.some((t) => t === actual || (t === 'number' && actual === 'integer'))) return false;
  }
  if (schema.const !== undefined && value !== schema.const) return false;
  if (schema.enum && !schema.enum.includes(value as Scalar)) return false;
  const obj = value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  if (schema.required && (!obj || schema.required.some((k) => !(k in obj)))) return false;
  if (schema.properties && obj) {
    for (const [k, s] of Object.entries(schema.properties)) {
      if (!(k in obj)) continue;
      const r = check(s, obj[k]);
      if (r !== true) return r;
    }
  }
  if (schema.not) {
    const r = check(schema.not, value);
    if (r === undefined) return undefined;
    if (r) return false;
  }
  return true;
}

/**
 * The entity's if/then when its condition is "field X equals v" and X is not known
 * yet (the user picks it): the form makes `then.required` follow X as it changes.
 */
export function requiredWhen(model: EntityModel, known: Record<string, unknown>): Array<{ field: string; when: string; equals: Scalar }> {
  const { if: cond, then } = model.schema;
  if (!cond?.properties || !then?.required) return [];
  const entries = Object.entries(cond.properties);
  const keys = Object.keys(cond).filter((k) => !['type', 'properties', 'required'].includes(k));
  if (keys.length || entries.length !== 1) return [];
  const [when, test] = entries[0];
  if (when in known || test.const === undefined || test.const === null || Object.keys(test).length !== 1) return [];
  return then.required.map((field) => ({ field, when, equals: test.const as Scalar }));
}

/** Fields the entity's top-level if/then/else requires, given what is known of the record. */
export function conditionallyRequired(model: EntityModel, known: Record<string, unknown>): string[] {
  const { if: cond, then, else: otherwise } = model.schema;
  if (!cond) return [];
  const r = check(cond, known);
  if (r === undefined) return [];
  return (r ? then : otherwise)?.required ?? [];
}
