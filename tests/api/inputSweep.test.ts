/**
 * Schema-violating input on every route of the OpenAPI document, as the regional
 * administrator (every right, all data), so a request reaches as deep as bad input can:
 * - each path parameter as 2^31, 2^53, 1e308, -1, 0, a word and a NUL;
 * - each query parameter and each body property, one at a time in an otherwise
 *   plausible request, as the values its schema refuses (out-of-range and wrong-type
 *   numbers, NUL in a text, an oversized text, a malformed date, an object where a
 *   scalar goes), and the body without its required properties;
 * - each list call's filters (its view's query fields and the date fields) as
 *   malformed dates, NUL, 2^31 and 1e308;
 * Every answer is below 500, every 4xx carries a catalogue code, and the main tables'
 * row counts do not move around a route none of whose requests succeeded (nothing half
 * stored). Also: deleting a device still in use answers its in-use code.
 * One app per database; requests in small parallel batches to keep the sweep short.
 */
import fs from 'node:fs';
import path from 'node:path';
import { errorCatalogue } from '../../config/errors';
import { RESOURCE_REGISTRY as registry } from '../../config/declared';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

type Schema = Record<string, any>;
interface Case {
  method: string;
  url: string;
  payload?: unknown;
  what: string;
}

const INT_MAX = 2 ** 31 - 1;
const BAD_PATH = ['2147483648', String(2 ** 53), '1e308', '-1', '0', 'abc', 'a%00b'];
const BAD_NUMBER = [INT_MAX + 1, 2 ** 53, 1e308, -1, 0, 'abc', { x: 1 }];
const BAD_TEXT = ['a\u0000b', 'x'.repeat(70_000), { x: 1 }, ['a']];
const BAD_DATE = ['2026-13-45', 'not a date', '2026-02-30T10:00:00Z'];
const BAD_FILTER = [['2026-13-45', 'x'], 'a\u0000b', INT_MAX + 1, 1e308];
const DATE_FILTERS = ['createdAt', 'examTime', 'appointTime', 'reportedAt', 'acknowledgedAt', 'receivedAt', 'lastLoginAt', 'updatedAt'];
/** Calls that would end the sweep's own session or lock its account out of the sweep. */
const SKIP = [/\/logout$/, /\/password\/update$/];
/** Tables whose row counts must not move around a route that refused everything. */
const TABLES = ['app_user', 'user_membership', 'role', 'org', 'department', 'device', 'exam', 'exam_item', 'report', 'report_template', 'dictionary', 'dictionary_item', 'schedule_rule', 'dicom_study', 'dicom_instance', 'report_crisis', 'exam_log'];

const VIEWS_DIR = path.join(__dirname, '..', '..', 'schemas', 'views');
/** List path → the query fields of the views listing it. */
function viewQueryFields(): Map<string, Set<string>> {
  const bases = Object.fromEntries(Object.entries(registry).filter(([k]) => !k.startsWith('$')).map(([k, v]) => [k, (v as { base: string }).base]));
  const out = new Map<string, Set<string>>();
  for (const file of fs.readdirSync(VIEWS_DIR).filter((f) => !f.startsWith('_') && f.endsWith('.json'))) {
    const view = JSON.parse(fs.readFileSync(path.join(VIEWS_DIR, file), 'utf8'));
    const base = bases[view.resource];
    if (!base) continue;
    const set = out.get(`${base}/list`) ?? new Set<string>();
    for (const f of view.list?.query ?? []) set.add(f);
    out.set(`${base}/list`, set);
  }
  return out;
}

/**
 * $ref resolution over the OpenAPI document and the server's own schemas (by $id):
 * the document names a component "entities/device" or "common-page" and keeps the
 * schemas' relative references ("../common.json#/components/schemas/id").
 */
function resolver(components: Record<string, Schema>, raw: Record<string, Schema>) {
  const pointer = (root: Schema | undefined, frag: string) =>
    frag.split('/').filter(Boolean).reduce<Schema | undefined>((s, part) => s?.[decodeURIComponent(part)], root);
  const join = (base: string, file: string) => path.posix.normalize(path.posix.join(path.posix.dirname(base), file));
  return function deref(schema: Schema | undefined, base: string, depth = 0): { schema: Schema; base: string } {
    if (!schema || typeof schema !== 'object' || depth > 20) return { schema: schema ?? {}, base };
    if (typeof schema.$ref === 'string') {
      const [file, rawFrag = ''] = schema.$ref.split('#');
      let frag = rawFrag.replace('/components/schemas/', '/definitions/');
      let key = file ? join(base, file) : base;
      if (!file && frag.startsWith('/definitions/')) {
        const name = frag.slice('/definitions/'.length);
        if (components[name]) return deref(components[name], raw[`${name}.json`] ? `${name}.json` : `${name.split('-')[0]}.json`, depth + 1);
        const nested = /^(.+?)\/definitions\/(.+)$/.exec(name.replace('/components/schemas/', '/definitions/'));
        if (nested) {
          key = `${nested[1]}.json`;
          frag = `/definitions/${nested[2]}`;
        }
      }
      if (!key.endsWith('.json')) key = `${key}.json`;
      return deref(pointer(raw[key], frag), key, depth + 1);
    }
    if (Array.isArray(schema.allOf)) {
      const parts = schema.allOf.map((s: Schema) => deref(s, base, depth + 1).schema);
      const { allOf, ...rest } = schema;
      return { schema: Object.assign({}, ...parts, rest, { properties: Object.assign({}, ...parts.map((p: Schema) => p.properties ?? {}), rest.properties ?? {}) }), base };
    }
    return { schema, base };
  };
}

describe.each(dbKinds)('schema-violating input on every route, on %s', (kind) => {
  let p: TestPlatform;
  let token: string;

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    token = await login(p.app, '13800000001');
  });
  afterAll(() => p.close());

  const counts = async () => {
    const { rows } = await p.db.query<Record<string, number>>(`SELECT ${TABLES.map((t) => `(SELECT count(*)::int FROM ${t}) AS ${t}`).join(', ')}`);
    return rows[0];
  };

  test('no 5xx, a catalogue code on each 4xx, nothing half-stored', async () => {
    const doc = p.app.swagger() as unknown as { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema> } };
    const raw = Object.fromEntries(Object.values(p.app.getSchemas() as Record<string, Schema>).map((s) => [s.$id, s]));
    const deref = resolver(doc.components.schemas, raw);
    const filtersOf = viewQueryFields();

    /** A value the schema accepts, as far as a generator can tell (enough to get past the other fields). */
    const sample = (s0: Schema | undefined, base: string, depth = 0): unknown => {
      const { schema: s, base: b } = deref(s0, base);
      if (depth > 6) return undefined;
      if (s.const !== undefined) return s.const;
      if (s.default !== undefined) return s.default;
      if (Array.isArray(s.enum)) return s.enum[0];
      const alt = s.anyOf ?? s.oneOf;
      if (Array.isArray(alt)) return sample(alt[0], b, depth + 1);
      const type = Array.isArray(s.type) ? s.type[0] : s.type;
      if (type === 'object' || s.properties) {
        const out: Record<string, unknown> = {};
        for (const k of s.required ?? []) out[k] = sample(s.properties?.[k], b, depth + 1);
        return out;
      }
      if (type === 'array') return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items, b, depth + 1));
      if (type === 'integer' || type === 'number') return Math.max(1, s.minimum ?? 1);
      if (type === 'boolean') return false;
      if (type === 'string') {
        if (s.format === 'date-time') return new Date().toISOString();
        if (s.format === 'date') return '2026-01-01';
        if (s.format === 'ipv4') return '10.0.0.9';
        if (s.format === 'email') return 'a@example.cn';
        if (s.format === 'mobile-cn' || /\\d\{9\}/.test(s.pattern ?? '')) return '13900000009';
        return 'x'.repeat(Math.max(1, s.minLength ?? 1));
      }
      return undefined;
    };
    /** Values `s` refuses, by its type. */
    const badValues = (s0: Schema | undefined, base: string): unknown[] => {
      const { schema: s } = deref(s0, base);
      const alt = s.anyOf ?? s.oneOf;
      const types = new Set<string>([...(Array.isArray(s.type) ? s.type : [s.type]), ...(alt ?? []).map((a: Schema) => deref(a, base).schema.type)].filter(Boolean));
      if (types.has('integer') || types.has('number')) return BAD_NUMBER;
      if (s.format === 'date-time' || s.format === 'date') return [...BAD_DATE, 'a\u0000b'];
      if (types.has('string')) return BAD_TEXT;
      if (types.has('boolean')) return ['a\u0000b', 2, { x: 1 }];
      return ['a\u0000b', INT_MAX + 1, 1e308];
    };

    const cases: Array<{ route: string; list: Case[] }> = [];
    for (const [template, ops] of Object.entries(doc.paths)) {
      if (!template.startsWith('/api/') || SKIP.some((re) => re.test(template))) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
        const params = (op.parameters ?? []) as Array<{ in: string; name: string; schema: Schema; required?: boolean }>;
        const pathParams = params.filter((x) => x.in === 'path');
        const queryParams = params.filter((x) => x.in === 'query');
        const fill = (bad?: { name: string; value: string }) =>
          template.replace(/\{(\w+)\}/g, (_, name) => (bad?.name === name ? bad.value : String(sample(pathParams.find((x) => x.name === name)?.schema, 'common.json') ?? 1)));
        const query = (q: Record<string, unknown>) => {
          const qs = new URLSearchParams();
          for (const [k, v] of Object.entries(q)) if (v !== undefined) qs.append(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
          const s = qs.toString();
          return s ? `?${s}` : '';
        };
        const baseQuery = Object.fromEntries(queryParams.filter((x) => x.required).map((x) => [x.name, sample(x.schema, 'common.json')]));
        const bodySchema = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
        const body = bodySchema ? deref(bodySchema, 'common.json') : undefined;
        const baseBody = body ? sample(body.schema, body.base) : undefined;
        const list: Case[] = [];
        const add = (url: string, payload: unknown, what: string) => list.push({ method: method.toUpperCase(), url, payload, what });
        const plainUrl = fill() + query(baseQuery);

        for (const x of pathParams) for (const value of BAD_PATH) add(fill({ name: x.name, value }) + query(baseQuery), baseBody, `path ${x.name}=${value}`);
        for (const x of queryParams) for (const value of badValues(x.schema, 'common.json')) add(fill() + query({ ...baseQuery, [x.name]: value }), baseBody, `query ${x.name}=${String(value).slice(0, 20)}`);
        if (body && typeof baseBody === 'object' && baseBody && !Array.isArray(baseBody)) {
          const props = (body.schema.properties ?? {}) as Record<string, Schema>;
          if ((body.schema.required ?? []).length) add(plainUrl, {}, 'body without its required properties');
          add(plainUrl, ['not', 'an', 'object'], 'body of the wrong type');
          for (const [name, prop] of Object.entries(props)) {
            if (deref(prop, body.base).schema.readOnly) continue;
            for (const value of badValues(prop, body.base)) add(plainUrl, { ...baseBody, [name]: value }, `body ${name}=${JSON.stringify(value).slice(0, 20)}`);
          }
          if (template.endsWith('/list') && props.filters) {
            const fields = new Set([...(filtersOf.get(template) ?? []), ...DATE_FILTERS]);
            for (const field of fields) for (const value of BAD_FILTER) add(plainUrl, { ...baseBody, filters: { [field]: value } }, `filter ${field}=${JSON.stringify(value).slice(0, 20)}`);
          }
        }
        if (list.length) cases.push({ route: `${method.toUpperCase()} ${template}`, list });
      }
    }
    expect(cases.length).toBeGreaterThan(100);

    const codes = errorCatalogue.codes as Record<string, { http: number }>;
    const wrong: string[] = [];
    const halfStored: string[] = [];
    let sent = 0;
    const send = async (c: Case) => {
      const run = () =>
        p.app.inject({
          method: c.method as 'GET',
          url: c.url,
          headers: authed(token),
          payload: c.method === 'GET' ? undefined : (c.payload as object),
        });
      sent++;
      return run();
    };
    for (const { route, list } of cases) {
      const before = await counts();
      let succeeded = false;
      // A few at a time: PGlite serialises anyway, PostgreSQL gets a little concurrency.
      for (let i = 0; i < list.length; i += 4) {
        const replies = await Promise.all(list.slice(i, i + 4).map(async (c) => ({ c, r: await send(c) })));
        for (const { c, r } of replies) {
          const status = (() => {
            try {
              return r.json().status as string | undefined;
            } catch {
              return undefined;
            }
          })();
          if (r.statusCode < 300) succeeded = true;
          if (r.statusCode >= 500) wrong.push(`${route} ${c.what} → ${r.statusCode} ${status}`);
          else if (r.statusCode >= 400 && !(status && codes[status] && codes[status].http === r.statusCode)) wrong.push(`${route} ${c.what} → ${r.statusCode} without a catalogue code: ${r.body.slice(0, 100)}`);
        }
      }
      if (!succeeded) {
        const after = await counts();
        if (JSON.stringify(after) !== JSON.stringify(before)) halfStored.push(`${route}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
      }
    }
    expect(sent).toBeGreaterThan(1000);
    expect(wrong).toEqual([]);
    expect(halfStored).toEqual([]);
  }, 600_000);

  test('deleting a device still in use answers its in-use code', async () => {
    const { rows } = await p.db.query<{ id: number }>('SELECT d.id FROM device d WHERE EXISTS (SELECT 1 FROM exam e WHERE e.device_id = d.id) LIMIT 1');
    expect(rows).toHaveLength(1);
    const r = await p.app.inject({ method: 'POST', url: `/api/ris/v1/device/delete/${rows[0].id}`, headers: authed(token), payload: {} });
    expect(r.statusCode).toBe(409);
    expect(r.json().status).toBe('BDT106');
    const still = await p.db.query('SELECT 1 FROM device WHERE id = $1', [rows[0].id]);
    expect(still.rowCount).toBe(1);
  });
});
