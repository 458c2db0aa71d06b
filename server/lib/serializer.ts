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

/**
 * A copy of `node` (a schema whose $id is `baseId`, '' for a route's) with its $id and
 * every reference to another file made absolute URLs under BASE. fast-json-stringify
 * cannot resolve a relative reference ("../common.json#/definitions/id" in
 * entities/report.json) against a relative $id when it meets that schema through
 * another (an entity a reply refers to); against absolute ones it can.
 */
function absolute(node: unknown, baseId: string): unknown {
  if (Array.isArray(node)) return node.map((n) => absolute(n, baseId));
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => {
      if (k === '$id' && typeof v === 'string') return [k, new URL(v, BASE).href];
      if (k === '$ref' && typeof v === 'string' && !v.startsWith('#')) return [k, new URL(v, BASE + baseId).href];
      return [k, absolute(v, baseId)];
    }),
  );
}

/** The files (absolute ids, no fragment) the references under `node` name. */
function refsOf(node: unknown, out: Set<string>): void {
  if (Array.isArray(node)) {
    for (const n of node) refsOf(n, out);
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string' && !v.startsWith('#')) out.add(v.split('#')[0]);
    else refsOf(v, out);
  }
}

/**
 * Serializers already built, for every app of the process: the shared schemas are the
 * files under schemas/, the same for each (loadSchemas), so a route schema's serializer
 * is too. Building all of them (closed replies, entities by reference) takes about a second,
 * which every test platform and every instance's start paid again.
 */
const built = new Map<string, Serializer>();

export function serializerCompiler(shared: Schema[]) {
  const byId = new Map(shared.filter((s) => s.$id).map((s) => [new URL(s.$id as string, BASE).href, absolute(s, s.$id as string) as Schema]));

  /** The shared schemas `schema` needs, following their own references. */
  const needed = (schema: unknown): Record<string, Schema> => {
    const ids = new Set<string>();
    refsOf(schema, ids);
    const out: Record<string, Schema> = {};
    const queue = [...ids];
    while (queue.length) {
      const id = queue.pop() as string;
      const s = byId.get(id);
      if (!s || out[id]) continue;
      out[id] = s;
      const more = new Set<string>();
      refsOf(s, more);
      queue.push(...more);
    }
    return out;
  };

  return ({ schema }: { schema: unknown }): Serializer => {
    const key = JSON.stringify(schema);
    let fn = built.get(key);
    if (!fn) {
      const rooted = absolute(schema, '');
      fn = fastJson(rooted as Parameters<typeof fastJson>[0], { schema: needed(rooted) as never }) as Serializer;
      built.set(key, fn);
    }
    return fn;
  };
}
