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
