/**
 * Every JSON Schema under schemas/, registered once with the server's ajv (addSchema).
 * schemas/views/ holds screen descriptions (columns, query options, form groups) for
 * the client, and schemas/stats/ the declared statistics views, not schemas of API
 * payloads, so neither is registered.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { SCHEMAS_DIR } from '../paths';

export { SCHEMAS_DIR };

export function loadSchemas(dir = SCHEMAS_DIR): Array<{ $id: string }> {
  const out: Array<{ $id: string }> = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) {
        if (!(d === dir && (entry.name === 'views' || entry.name === 'stats'))) walk(full);
      }
      else if (entry.name.endsWith('.json')) {
        const schema = JSON.parse(fs.readFileSync(full, 'utf8'));
        if (!schema.$id) throw new Error(`${full} has no $id`);
        out.push(schema);
      }
    }
  };
  walk(dir);
  const seen = new Set<string>();
  for (const s of out) {
    if (seen.has(s.$id)) throw new Error(`two schemas share the $id ${s.$id}`);
    seen.add(s.$id);
  }
  return out;
}

/**
 * Checks a declared table of config/ (a workflow, the matching policy) against its
 * schema when the server starts: returns it typed, or throws one Error listing every
 * problem, naming the file and the schema.
 */
export function checkAgainstSchema<T>(candidate: unknown, schemaId: string, file: string): T {
  // Fastify's own validator library; formats are not what these tables are about.
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  for (const s of loadSchemas()) ajv.addSchema(s);
  const validate = ajv.getSchema(schemaId)!;
  if (!validate(candidate)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new Error(`${file} does not follow schemas/${schemaId}:\n  ${problems.join('\n  ')}`);
  }
  return candidate as T;
}

/**
 * A route schema's reference to a shared primitive of schemas/common.json (ids, pages,
 * texts without NUL, dates), so every route bounds its inputs the same way.
 */
export const common = (name: string) => ({ $ref: `common.json#/definitions/${name}` }) as const;

/** Path parameters `{id}` of a call on one row (an object here, not a $ref: OpenAPI lists path parameters one by one). */
export const idParams = { type: 'object', required: ['id'], properties: { id: common('id') } } as const;
