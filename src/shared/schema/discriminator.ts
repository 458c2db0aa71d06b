/**
 * Fields switched by a discriminator: an entity whose `allOf` holds cases of the shape
 *   { "if": { "properties": { "<field>": { "const": v } }, "required": ["<field>"] },
 *     "then": { "properties": { "<a>": {}, … }, "required": [ … ] } }
 * (all on the same field) has, for each value v, the fields that case's `then` names.
 * A field no case names is every record's. Read by the form (a switched field shows
 * and validates only while the discriminator has one of its values) and by the table
 * store (a switched field of another case is cleared on save), so both keep the same
 * fields of a record. Pure; the server's ajv runs the same allOf for the requirements.
 */
import type { EntityModel } from './model';
import type { JsonSchema, Scalar } from './types';

export interface Discriminator {
  /** The field whose value picks the case (a QC rule's type). */
  field: string;
  /** Switched field → the discriminator values under which it belongs to the record, and those under which it is required. */
  fields: Map<string, { when: Scalar[]; requiredWhen: Scalar[] }>;
}

/** The case value of one allOf entry, or undefined when the entry is not a case of `field === const`. */
function caseOf(entry: JsonSchema): { field: string; equals: Scalar } | undefined {
  const cond = entry.if;
  if (!cond?.properties || !entry.then || entry.else) return undefined;
  const names = Object.keys(cond.properties);
  if (names.length !== 1) return undefined;
  const test = cond.properties[names[0]];
  if (test.const === undefined || test.const === null || Object.keys(test).length !== 1) return undefined;
  return { field: names[0], equals: test.const };
}

const cache = new WeakMap<EntityModel, Discriminator | null>();

/** The entity's discriminator, or undefined when its allOf has no cases. Throws when cases switch on two fields (one discriminator per entity). */
export function discriminatorOf(model: EntityModel): Discriminator | undefined {
  const hit = cache.get(model);
  if (hit !== undefined) return hit ?? undefined;
  let out: Discriminator | undefined;
  for (const entry of model.schema.allOf ?? []) {
    const c = caseOf(entry);
    if (!c) continue;
    out ??= { field: c.field, fields: new Map() };
    if (out.field !== c.field) throw new Error(`entities/${model.name}.json: cases switch on ${out.field} and ${c.field}; one discriminator per entity`);
    const then = entry.then as JsonSchema;
    const required = new Set(then.required ?? []);
    for (const name of new Set([...Object.keys(then.properties ?? {}), ...required])) {
      if (!model.byName.has(name) || name.includes('.')) throw new Error(`entities/${model.name}.json: the case ${c.field} = ${c.equals} names ${name}, which is no top-level property`);
      const f = out.fields.get(name) ?? { when: [], requiredWhen: [] };
      f.when.push(c.equals);
      if (required.has(name)) f.requiredWhen.push(c.equals);
      out.fields.set(name, f);
    }
  }
  cache.set(model, out ?? null);
  return out;
}

/** Switched fields that do not belong to a record whose discriminator holds `value` (all of them when it holds none). */
export function foreignFields(d: Discriminator, value: unknown): string[] {
  return [...d.fields].filter(([, f]) => !f.when.includes(value as Scalar)).map(([name]) => name);
}
