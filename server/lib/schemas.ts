/**
 * Route schema helpers. The schemas themselves (every file under schemas/ but the
 * views) and the checks made with them outside a request are ./ajv.ts's: one loader,
 * one ajv; re-exported here for the modules that import them from this file.
 */
import { SCHEMAS_DIR } from '../paths';

export { SCHEMAS_DIR };
import { schemaFiles } from '../../src/shared/generated/catalog';

export { checkAgainstSchema, loadSchemas } from './ajv';

/**
 * A route schema's reference to a shared primitive of schemas/common.json (ids, pages,
 * texts without NUL, dates), so every route bounds its inputs the same way.
 */
export const common = (name: string) => ({ $ref: `common.json#/definitions/${name}` }) as const;

/** Path parameters `{id}` of a call on one row (an object here, not a $ref: OpenAPI lists path parameters one by one). */
export const idParams = { type: 'object', required: ['id'], properties: { id: common('id') } } as const;

/**
 * An object of some of the properties of schema file `file` ("entities/exam.json"), each
 * by $ref to its declaration there, and `extra` ones of its own: a reply carrying part
 * of an entity is serialised and typed as the entity declares those fields, and sends
 * nothing else. (Null values are the handler's to drop: a declared string serialises
 * null as "".)
 */
export function pick(file: string, fields: readonly string[], options: { required?: readonly string[]; extra?: Record<string, object> } = {}) {
  return {
    type: 'object',
    ...(options.required?.length ? { required: [...options.required] } : {}),
    properties: { ...Object.fromEntries(fields.map((f) => [f, { $ref: `${file}#/properties/${f}` }])), ...options.extra },
    additionalProperties: false,
  } as const;
}

/**
 * A reply object of its own (no entity describes it) that always carries each of
 * `properties` and nothing else: typed in the generated client without optional marks.
 */
export function closed(properties: Record<string, object>, options: { optional?: readonly string[] } = {}) {
  return { type: 'object', required: Object.keys(properties).filter((k) => !options.optional?.includes(k)), properties, additionalProperties: false } as const;
}

/**
 * Every property schema file `file` declares, for a pick() of them all: a reply of the
 * entity as stored, without the rules of what may be saved (exam.json requires items and
 * an in- or outpatient number of a registration; a list row has neither).
 */
export function entityFields(file: string): string[] {
  // Only names are read: the catalogue itself, not loadSchemas()'s fresh copy of every file.
  const schema = (schemaFiles as Array<{ $id?: string }>).find((s) => s.$id === file) as { properties?: Record<string, unknown> } | undefined;
  if (!schema?.properties) throw new Error(`entityFields: ${file} declares no properties`);
  return Object.keys(schema.properties);
}
