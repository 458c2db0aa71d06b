/**
 * Route schema helpers. The schemas themselves (every file under schemas/ but the
 * views) and the checks made with them outside a request are ./ajv.ts's: one loader,
 * one ajv; re-exported here for the modules that import them from this file.
 */
import { SCHEMAS_DIR } from '../paths';

export { SCHEMAS_DIR };
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
