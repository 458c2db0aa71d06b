/**
 * Response serializers, built once per distinct schema and with only the shared
 * schemas that schema refers to. Fastify's default builds one serializer per route
 * and status (every route has nine: success and eight error replies) and hands each
 * build every schema under schemas/, which fast-json-stringify checks again each time:
 * with 65 schemas and a hundred-odd routes that was most of the start-up time.
 */
import fastJson from 'fast-json-stringify';

type Serializer = (data: unknown) => string;
type Schema = { $id?: string } & Record<string, unknown>;

const BASE = 'http://schemas.invalid/';

/** The $id part of every $ref under `node`, resolved against `baseId` ("../common.json#/x" from entities/a.json → common.json). */
function refsOf(node: unknown, baseId: string, out: Set<string>): void {
  if (Array.isArray(node)) {
    for (const n of node) refsOf(n, baseId, out);
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string' && !v.startsWith('#')) {
      out.add(decodeURIComponent(new URL(v, BASE + baseId).pathname.slice(1)));
    } else refsOf(v, baseId, out);
  }
}

export function serializerCompiler(shared: Schema[]) {
  const byId = new Map(shared.filter((s) => s.$id).map((s) => [s.$id as string, s]));
  const built = new Map<string, Serializer>();

  /** The shared schemas `schema` needs, following their own references. */
  const needed = (schema: unknown): Record<string, Schema> => {
    const ids = new Set<string>();
    refsOf(schema, '', ids);
    const out: Record<string, Schema> = {};
    const queue = [...ids];
    while (queue.length) {
      const id = queue.pop() as string;
      const s = byId.get(id);
      if (!s || out[id]) continue;
      out[id] = s;
      const more = new Set<string>();
      refsOf(s, id, more);
      queue.push(...more);
    }
    return out;
  };

  return ({ schema }: { schema: unknown }): Serializer => {
    const key = JSON.stringify(schema);
    let fn = built.get(key);
    if (!fn) {
      fn = fastJson(schema as Parameters<typeof fastJson>[0], { schema: needed(schema) as never }) as Serializer;
      built.set(key, fn);
    }
    return fn;
  };
}
