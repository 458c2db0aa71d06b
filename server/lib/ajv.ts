/**
 * The server's one schema loader and its ajv. Fastify's validator is built with
 * AJV_OPTIONS (tests compile the schemas exactly as the server does, with these
 * options); the schemas every validator knows are loadSchemas(), the generated
 * catalogue the client bundles too (src/shared/generated/catalog.ts), so both sides
 * hold the same files. Checks outside a request (declared config tables, print layout
 * files, a workflow action's reason) use the one `schemaCheck` instance below.
 * Imports nothing of the server itself.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import { customFormats } from '../../config/formats';
import { schemaFiles } from '../../src/shared/generated/catalog';

export const AJV_OPTIONS = {
  customOptions: {
    allErrors: false,
    coerceTypes: 'array' as const,
    removeAdditional: true,
    useDefaults: true,
    // multipleOfPrecision: a price of 0.29 is a multiple of 0.01 although 0.29 / 0.01 is not an integer in floating point.
    multipleOfPrecision: 9,
    // A filter value is a string, a number or a list of them (common.json's filterValue):
    // a union type on purpose; strict mode otherwise warns once per route that uses it.
    allowUnionTypes: true,
  },
  // The schemas' own formats (id-card, mobile-cn, letters, …): the functions the client validates with.
  // Fastify still adds ajv-formats (date-time, ipv4, email, …) because this plugin is not that one.
  plugins: [customFormats],
};

/**
 * Every JSON Schema under schemas/ but the views (screen descriptions for the client,
 * not schemas of API payloads), each with its $id; throws on a missing or repeated $id.
 * Fresh copies, as reading the files gave: Fastify and its OpenAPI plugin keep what
 * they are given, and one app must not see another's (tests build several).
 */
export function loadSchemas(): Array<{ $id: string }> {
  const out = structuredClone(schemaFiles) as Array<{ $id: string }>;
  const seen = new Set<string>();
  for (const s of out) {
    if (!s.$id) throw new Error(`a schema under schemas/ has no $id: ${JSON.stringify(s).slice(0, 80)}`);
    if (seen.has(s.$id)) throw new Error(`two schemas share the $id ${s.$id}`);
    seen.add(s.$id);
  }
  return out;
}

let checker: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

/**
 * A validator of `ref` ("entities/printLayout.json", "common.json#/definitions/text200")
 * from the one ajv for checks outside a request: every error listed, formats left to
 * the API (these are tables and texts, not user input), defaults filled in the data
 * as the API's bodies get them.
 */
export function schemaCheck(ref: string): ValidateFunction {
  let v = compiled.get(ref);
  if (!v) {
    if (!checker) {
      checker = new Ajv({ allErrors: true, strict: false, validateFormats: false, useDefaults: true });
      for (const s of loadSchemas()) checker.addSchema(s);
    }
    const found = ref.includes('#') ? checker.compile({ $ref: ref }) : checker.getSchema(ref);
    if (!found) throw new Error(`no schema ${ref} under schemas/`);
    v = found;
    compiled.set(ref, v);
  }
  return v;
}

/**
 * Checks a declared table of config/ (a workflow, the matching policy) against its
 * schema when the server starts: returns it typed and untouched (the check runs on a
 * copy, so no default is filled in), or throws one Error listing every problem,
 * naming the file and the schema.
 */
export function checkAgainstSchema<T>(candidate: unknown, schemaId: string, file: string): T {
  const validate = schemaCheck(schemaId);
  if (!validate(structuredClone(candidate))) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new Error(`${file} does not follow schemas/${schemaId}:\n  ${problems.join('\n  ')}`);
  }
  return candidate as T;
}
