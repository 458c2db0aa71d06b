/**
 * `npm run api`: the client's typed calls generated from the OpenAPI document the
 * server builds from its route declarations (server/plugins/docs.ts), one module per
 * service tag under src/services/generated/. Each operation answering the JSON
 * envelope becomes a function over src/services/request.ts with its path parameters,
 * query and body typed, resolving to the reply's `data` as the route's response schema
 * declares it; references to the files under schemas/ are the types
 * `npm run schemas` generated from them (src/shared/generated/). Nobody edits those
 * files; `npm run api:check` (part of `npm test`, and tests/unit/apiClient.test.ts)
 * fails when they are stale.
 *
 * The document comes from the app itself, built around a database it never opens (no
 * request runs): offline, on a fresh clone, in a few seconds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../server/app';
import { loadConfig } from '../server/config';
import type { Db } from '../server/db';
import { LocalFileStorage } from '../server/storage';

type Schema = Record<string, any>;
interface Operation {
  summary?: string;
  tags?: string[];
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: Schema }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const ROOT = path.resolve(__dirname, '..');
export const OUT_DIR = path.join(ROOT, 'src', 'services', 'generated');
const SCHEMAS_DIR = path.join(ROOT, 'schemas');
const COMPONENT = '#/components/schemas/';

/** The OpenAPI document of the routes as declared, from an app that is built and never serves. */
export async function buildDocument(): Promise<OpenApiDocument> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-api-'));
  const config = loadConfig({ DATA_DIR: dataDir, DIST_DIR: path.join(dataDir, 'no-dist'), LOG_LEVEL: 'silent', API_DOCS: 'false' });
  // The database is handed out only to requests and onReady hooks; none asks for it here.
  const app = await buildApp({ db: {} as Db, storage: new LocalFileStorage(config.filesDir, false), config, logger: false });
  try {
    await app.ready();
    return structuredClone(app.swagger()) as unknown as OpenApiDocument;
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The files under schemas/ that have a generated type, as component names ("entities/report"). */
function schemaFiles(): Set<string> {
  const out = new Set<string>();
  const walk = (dir: string, rel: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
      else if (e.name.endsWith('.json') && !/^(views|stats)\//.test(r)) out.add(r.replace(/\.json$/, ''));
    }
  };
  walk(SCHEMAS_DIR, '');
  return out;
}

/** The name scripts/schemas.mjs gives a file's type (entities/reportAction → ReportAction). */
const generatedTypeName = (file: string) =>
  path
    .basename(file)
    .replace(/^_/, '')
    .replace(/(^|[^A-Za-z0-9])([a-z])/g, (_, __, c: string) => c.toUpperCase())
    .replace(/^[a-z]/, (c) => c.toUpperCase());
/** The name it is imported under here: its folder too, so codes/aiResult and entities/aiResult stay apart. */
const importName = (file: string) => file.split('/').map(generatedTypeName).join('');

const camel = (words: string[]) => words.map((w, i) => (i ? w[0].toUpperCase() + w.slice(1) : w.toLowerCase() === w ? w : w[0].toLowerCase() + w.slice(1))).join('');
const ident = (s: string) => s.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''));
const key = (k: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k));

/** Types joined by `sep`, in parentheses when there are several. */
const parenthesised = (parts: string[], sep: string) => (parts.length > 1 ? `(${parts.join(sep)})` : parts[0]);
/**
 * A union of `parts` (null added when `nullable`), each alternative once and a nested
 * union's members lifted into it, so a nullable `null` or `A | null` reads `null`, `(A | null)`.
 */
function alternatives(parts: string[], nullable: boolean): string {
  const members = parts.flatMap((p) => (p.startsWith('(') && closing(p) === p.length - 1 ? topLevel(p.slice(1, -1)) : [p]));
  return parenthesised([...new Set([...members, ...(nullable ? ['null'] : [])])], ' | ');
}
/** Each character of `text` outside string literals with the bracket depth before it. */
function* scan(text: string): Generator<{ i: number; c: string; depth: number }> {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      // A JSON-quoted literal ("a(b"): its brackets and bars are text.
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      continue;
    }
    if (')>}]'.includes(c)) depth--;
    yield { i, c, depth };
    if ('(<{['.includes(c)) depth++;
  }
}
/** Where the bracket opening `text` closes. */
function closing(text: string): number {
  for (const { i, c, depth } of scan(text)) if (depth === 0 && i > 0 && ')>}]'.includes(c)) return i;
  return -1;
}
/** The members of a union written `A | B | C`, split at its own bars only (not those inside brackets); an intersection is one member. */
function topLevel(union: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const { i, depth } of scan(union)) {
    if (depth === 0 && union.startsWith(' | ', i)) {
      out.push(union.slice(start, i));
      start = i + 3;
    }
  }
  out.push(union.slice(start));
  return out.length > 1 || !out[0].includes(' & ') ? out : [`(${union})`];
}

/** One module's types: schemas → TypeScript expressions, collecting the generated types they import. */
class TypeWriter {
  readonly imports = new Set<string>();
  constructor(
    private readonly components: Record<string, Schema>,
    private readonly files: Set<string>,
  ) {}

  /**
   * A reference as the document writes it (the schemas' own relative references are kept
   * inside components: "../common.json#/components/schemas/id" from entities/report) →
   * the file and the path inside it.
   */
  private target(ref: string, base: string): { file: string; pointer: string[] } {
    let file: string;
    let fragment: string;
    if (ref.startsWith(COMPONENT)) {
      const rest = ref.slice(COMPONENT.length).split('/');
      // A whole file ("entities/exam", "workflow"), or one of its definitions named "file-def", then a pointer into it.
      let n = rest.length;
      while (n > 0 && !this.files.has(rest.slice(0, n).join('/')) && !this.components[rest.slice(0, n).join('/')]) n--;
      if (n === 0) throw new Error(`api-client: unknown reference ${ref}`);
      file = rest.slice(0, n).join('/');
      fragment = rest.slice(n).join('/');
      if (!this.files.has(file)) {
        const [f, def] = [file.slice(0, file.lastIndexOf('-')), file.slice(file.lastIndexOf('-') + 1)];
        file = f;
        fragment = `definitions/${def}${fragment ? `/${fragment}` : ''}`;
      }
    } else if (ref.startsWith('#')) {
      file = base;
      fragment = ref.slice(1);
    } else {
      const [rel, frag = ''] = ref.split('#');
      file = path.posix.normalize(path.posix.join(path.posix.dirname(base), rel)).replace(/\.json$/, '');
      fragment = frag;
    }
    const pointer = fragment
      .split('/')
      .filter(Boolean)
      .map((p) => (p === 'schemas' ? 'definitions' : p))
      .filter((p, i, all) => !(p === 'components' && all[i + 1] === 'definitions'));
    return { file, pointer };
  }

  private ref(ref: string, base: string, depth: number): string {
    const { file, pointer } = this.target(ref, base);
    if (!this.files.has(file)) throw new Error(`api-client: ${ref} names no file under schemas/`);
    if (pointer.length === 0) {
      this.imports.add(file);
      return importName(file);
    }
    // A property of a file's type: that type's, as generated.
    if (pointer.length === 2 && pointer[0] === 'properties') {
      this.imports.add(file);
      return `Exclude<${importName(file)}[${JSON.stringify(pointer[1])}], undefined>`;
    }
    // A definition (common.json's primitives): its schema, written out.
    const component = this.components[`${file}-${pointer[1]}`];
    if (pointer[0] === 'definitions' && pointer.length === 2 && component) return this.type(component, `${file}.json`, depth + 1);
    throw new Error(`api-client: cannot type ${ref}`);
  }

  /** `schema` (from the file `base`, for its relative references) as a TypeScript type. */
  type(schema: Schema | undefined, base = '', depth = 0): string {
    if (!schema || depth > 30) return 'unknown';
    // OpenAPI 3 writes a JSON Schema "null" as `nullable: true` (with `enum: [null]` for a bare null): one `null` among the alternatives.
    const nullable = schema.nullable === true;
    if (schema.$ref) return alternatives([this.ref(schema.$ref, base.replace(/\.json$/, ''), depth)], nullable);
    if (schema.allOf) return alternatives([parenthesised(schema.allOf.map((s: Schema) => this.type(s, base, depth + 1)), ' & ')], nullable);
    const union = schema.anyOf ?? schema.oneOf;
    if (union) return alternatives(union.map((s: Schema) => this.type(s, base, depth + 1)), nullable);
    if (schema.const !== undefined) return JSON.stringify(schema.const);
    if (schema.enum) return alternatives(schema.enum.map((v: unknown) => JSON.stringify(v)), nullable);
    const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : schema.properties ? ['object'] : [];
    if (types.length === 0) return 'unknown';
    const one = types.map((t) => {
      switch (t) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array':
          return `Array<${this.type(schema.items, base, depth + 1)}>`;
        case 'object':
          return this.object(schema, base, depth);
        default:
          return 'unknown';
      }
    });
    return alternatives(one, nullable);
  }

  private object(schema: Schema, base: string, depth: number): string {
    const props = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
    const required = new Set<string>(schema.required ?? []);
    const extra = schema.additionalProperties;
    if (props.length === 0) return extra === false ? 'Record<string, never>' : `Record<string, ${extra && extra !== true ? this.type(extra, base, depth + 1) : 'unknown'}>`;
    const lines = props.map(([k, v]) => `${key(k)}${required.has(k) ? '' : '?'}: ${this.type(v, base, depth + 1)};`);
    if (extra !== undefined && extra !== false) lines.push(`[k: string]: unknown;`);
    return `{ ${lines.join(' ')} }`;
  }
}

/** The module of each tag: its file name → its text. */
export function renderClient(doc: OpenApiDocument): Map<string, string> {
  const files = schemaFiles();
  const byTag = new Map<string, Array<{ url: string; method: string; op: Operation }>>();
  for (const url of Object.keys(doc.paths).sort()) {
    for (const method of Object.keys(doc.paths[url]).sort()) {
      const op = doc.paths[url][method];
      const data = op.responses?.['200']?.content?.['application/json']?.schema;
      // Files, pictures, exports and DICOMweb answer bytes, not the envelope: fetched as URLs, not through request().
      if (!data?.properties?.status) continue;
      const tag = op.tags?.[0] ?? 'platform';
      byTag.set(tag, [...(byTag.get(tag) ?? []), { url, method, op }]);
    }
  }
  const out = new Map<string, string>();
  for (const tag of [...byTag.keys()].sort()) {
    const writer = new TypeWriter(doc.components.schemas, files);
    const names = new Set<string>();
    const body: string[] = [];
    for (const { url, method, op } of byTag.get(tag)!) {
      const local = url.replace(/^\/api(\/[a-z]+\/v\d+)?/, '');
      const words = local.split('/').filter(Boolean);
      const statics = words.filter((w) => !w.startsWith('{')).map(ident);
      const params = words.filter((w) => w.startsWith('{')).map((w) => w.slice(1, -1));
      const name = camel([method, ...statics]) + params.map((p) => `By${p[0].toUpperCase()}${p.slice(1)}`).join('');
      if (names.has(name)) throw new Error(`api-client: two operations of ${tag} are named ${name}`);
      names.add(name);
      const type = name[0].toUpperCase() + name.slice(1);

      const args: string[] = [];
      for (const p of params) {
        const decl = op.parameters?.find((x) => x.in === 'path' && x.name === p);
        args.push(`${p}: ${decl ? writer.type(decl.schema) : 'string | number'}`);
      }
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      const json = op.requestBody?.content?.['application/json']?.schema;
      const form = op.requestBody?.content?.['application/x-www-form-urlencoded']?.schema;
      const decls: string[] = [];
      if (query.length) {
        decls.push(`export type ${type}Query = { ${query.map((p) => `${key(p.name)}${p.required ? '' : '?'}: ${writer.type(p.schema)};`).join(' ')} };`);
        args.push(`query${query.some((p) => p.required) ? '' : '?'}: ${type}Query`);
      }
      if (json) {
        decls.push(`export type ${type}Body = ${writer.type(json)};`);
        args.push(`body${op.requestBody?.required ? '' : '?'}: ${type}Body`);
      }
      if (form && !json) {
        // Form-encoded (the login): its fields typed as the route reads them, sent as request()'s `form`.
        decls.push(`export type ${type}Form = ${writer.type(form)};`);
        args.push(`form${op.requestBody?.required ? '' : '?'}: ${type}Form`);
      }
      decls.push(`export type ${type}Data = ${writer.type(op.responses['200'].content!['application/json'].schema.properties.data)};`);
      args.push(`{ request: send = request, ...options }: CallOptions = {}`);
      const pathExpr = '`' + url.replace(/\{(\w+)\}/g, (_, p: string) => `\${encodeURIComponent(String(${p}))}`) + '`';
      const sent = [`method: ${JSON.stringify(method.toUpperCase())}`, ...(query.length ? ['query'] : []), ...(json && !form ? ['body'] : []), ...(form && !json ? ['form'] : [])];
      body.push(
        ...decls,
        `/** ${method.toUpperCase()} ${url}${op.summary ? `: ${op.summary.replace(/\*\//g, '*\\/')}` : ''} */`,
        `export function ${name}(${args.join(', ')}): Promise<${type}Data> {`,
        `  return send<${type}Data>(${pathExpr}, { ...options, ${sent.join(', ')} });`,
        '}',
        '',
      );
    }
    const imports = [...writer.imports].sort().map((f) => `import type { ${generatedTypeName(f)} as ${importName(f)} } from '../../shared/generated/${f}';`);
    out.set(
      `${tag}.ts`,
      [
        `/* Generated by scripts/api-client.ts from the OpenAPI document of the routes tagged ${tag}. Do not edit: change the route's schema and run \`npm run api\`. */`,
        `import { request, type RequestFn, type RequestOptions } from '../request';`,
        ...imports,
        '',
        '/** What a call may add: headers, quiet, a signal, raw bytes; `request` stands in for the wrapper (a test drives a service in node with its own). */',
        `export type CallOptions = Omit<RequestOptions, 'method' | 'query' | 'body'> & { request?: RequestFn };`,
        '',
        ...body,
      ].join('\n'),
    );
  }
  return out;
}

/** The generated files that differ from `expected`, are missing or have no operation left. */
export function staleFiles(expected: Map<string, string>, dir = OUT_DIR): string[] {
  const stale = [...expected].filter(([f, text]) => !fs.existsSync(path.join(dir, f)) || fs.readFileSync(path.join(dir, f), 'utf8') !== text).map(([f]) => f);
  const present = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  return [...stale, ...present.filter((f) => !expected.has(f)).map((f) => `${f} (no operation)`)];
}

async function main() {
  const expected = renderClient(await buildDocument());
  if (process.argv.includes('--check')) {
    const stale = staleFiles(expected);
    if (stale.length) {
      console.error(`api:check: the generated client is stale, run \`npm run api\`:\n  ${stale.join('\n  ')}`);
      process.exit(1);
    }
    console.log(`api:check: ${expected.size} generated client modules are current`);
    return;
  }
  fs.rmSync(OUT_DIR, { recursive: true, force: true });
  fs.mkdirSync(OUT_DIR, { recursive: true });
  for (const [f, text] of expected) fs.writeFileSync(path.join(OUT_DIR, f), text);
  console.log(`api: ${expected.size} client modules written to src/services/generated/`);
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
