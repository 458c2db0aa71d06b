/**
 * Smoke test of the platform as `npm start` runs it: one real process (database opened
 * asynchronously, fresh DATA_DIR, demo seed), the regional administrator logged in,
 * and every GET and list route of the OpenAPI document called once. Any 5xx fails the
 * test, naming the route. Catches what `app.inject` on an already open database cannot:
 * a route that kept a handle taken while it was registered.
 */
import { DEMO_PASSWORD } from '../../mock/identity';
import { createTestDatabase, dbKindsBoth, type TestDatabase } from '../support/db';
import { startPlatformProcess, type RunningPlatform } from '../support/server';

const ADMIN = '13800000001';
const headers = (token: string) => ({ 'x-app-id': 'rcloud-doctor', 'x-auth-token': token });
/** Calls in flight at once: enough to be quick, few enough for a shared 2-core machine. */
const CONCURRENCY = 4;

type Schema = { $ref?: string; enum?: unknown[]; type?: string };
type Parameter = { in: string; name: string; required?: boolean; schema?: Schema };
type Operation = { parameters?: Parameter[]; requestBody?: unknown };
type OpenApi = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
interface Call {
  method: 'GET' | 'POST';
  path: string;
}

async function login(url: string): Promise<string> {
  const body = new URLSearchParams({ loginType: 'password', mobile: ADMIN, password: Buffer.from(DEMO_PASSWORD).toString('base64') });
  const r = await fetch(`${url}/api/uaa/v1/login`, { method: 'POST', headers: { 'x-app-id': 'rcloud-doctor' }, body });
  const reply = await r.json();
  if (reply.status !== '0') throw new Error(`login failed: ${JSON.stringify(reply)}`);
  return reply.data.token;
}

/** GET routes and list routes (`…/list`, `…/list/<kind>`), in document order. */
function routesOf(doc: OpenApi): Call[] {
  const calls: Call[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (ops.get) calls.push({ method: 'GET', path });
    if (ops.post && /\/list(\/[^/{]+)?$/.test(path)) calls.push({ method: 'POST', path });
  }
  return calls;
}

/** A `$ref` to a component schema (`#/components/schemas/codes/templateScope`; its keys hold slashes). */
function resolve(doc: OpenApi, schema: Schema | undefined): Schema | undefined {
  const prefix = '#/components/schemas/';
  if (!schema?.$ref?.startsWith(prefix)) return schema;
  return doc.components.schemas[schema.$ref.slice(prefix.length)];
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function bounded<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(lanes);
}

describe.each(dbKindsBoth)('every GET and list route under npm start on %s', (kind) => {
  let database: TestDatabase | undefined;
  let platform: RunningPlatform;
  let token: string;
  let doc: OpenApi;

  beforeAll(async () => {
    const env: Record<string, string> = {};
    if (kind === 'postgres') {
      database = await createTestDatabase('postgres');
      env.DATABASE_URL = database.url!;
    }
    platform = await startPlatformProcess({ env });
    token = await login(platform.url);
    // The API document is for administrators (plugins/auth.ts): asked for with the admin's session.
    doc = await (await fetch(`${platform.url}/api/docs/json`, { headers: headers(token) })).json();
  }, 180_000);
  afterAll(async () => {
    await platform?.stop('SIGTERM');
    await database?.drop();
  });

  const get = async (path: string) => {
    const r = await fetch(`${platform.url}${path}`, { headers: headers(token) });
    return { status: r.status, body: await r.text() };
  };
  const list = async (path: string) => {
    const r = await fetch(`${platform.url}${path}`, {
      method: 'POST',
      headers: { ...headers(token), 'content-type': 'application/json' },
      body: JSON.stringify({ page: 1, pageSize: 5 }),
    });
    return { status: r.status, body: await r.text() };
  };

  test('none answers 5xx', async () => {
    const calls = routesOf(doc);
    const failures: string[] = [];
    const record = (call: Call, url: string, reply: { status: number; body: string }) => {
      if (reply.status >= 500) failures.push(`${call.method} ${call.path} (${url}) → ${reply.status} ${reply.body.slice(0, 200)}`);
    };

    // The list routes first: their first rows are the seeded ids the other routes are called with.
    const firstId = new Map<string, number>();
    const lists = calls.filter((c) => c.method === 'POST');
    await bounded(lists, CONCURRENCY, async (call) => {
      const reply = await list(call.path);
      record(call, call.path, reply);
      const id = reply.status === 200 ? JSON.parse(reply.body).data?.list?.[0]?.id : undefined;
      if (typeof id === 'number') firstId.set(call.path.replace(/\/list(\/[^/]+)?$/, ''), id);
    });
    const exam = JSON.parse((await list('/api/ris/v1/exam/list')).body).data.list[0];
    expect(exam).toBeDefined();
    const dictionaryId = firstId.get('/api/bdt/v1/dictionary');
    expect(dictionaryId).toBeDefined();

    // A seeded study, series and instance for the DICOMweb routes.
    const tag = (json: Record<string, { Value?: string[] }>, t: string) => json[t]?.Value?.[0];
    const studies = JSON.parse((await get('/dicom-web/studies?limit=1')).body);
    const study = tag(studies[0], '0020000D')!;
    const series = tag(JSON.parse((await get(`/dicom-web/studies/${study}/series`)).body)[0], '0020000E')!;
    const instance = tag(JSON.parse((await get(`/dicom-web/studies/${study}/series/${series}/instances`)).body)[0], '00080018')!;
    expect([study, series, instance].every(Boolean)).toBe(true);

    const today = new Date().toISOString().slice(0, 10);
    const known: Record<string, string | number> = {
      study,
      series,
      instance,
      frames: '1',
      examId: exam.id,
      hospitalId: exam.hospitalId,
      patientId: exam.patientId,
      dictionaryId: dictionaryId!,
      mobile: ADMIN,
      date: today,
      month: today.slice(0, 7),
      token: '0'.repeat(32),
      // A screen's settings by view name.
      module: 'exam',
      // A wizard's saved draft by its view name.
      form: 'consultationApply',
      // A seeded consultation (its video room answers "none" until one is started), and a file it does not hold.
      consultationId: firstId.get('/api/consult/v1/consultation') ?? exam.id,
      fileId: 1,
    };
    const unfilled: string[] = [];
    const valueOf = (path: string, p: Parameter): string | number | undefined => {
      if (p.name in known) return known[p.name];
      const schema = resolve(doc, p.schema);
      if (schema?.enum?.length) return String(schema.enum[0]);
      if (p.name === 'id') {
        // The id of the longest list base the path lies under, else a seeded exam (report routes take the exam's id).
        const bases = [...firstId.keys()].filter((b) => path.startsWith(`${b}/`)).sort((a, b) => b.length - a.length);
        return bases.length ? firstId.get(bases[0]) : exam.id;
      }
      return undefined;
    };
    const urlOf = (call: Call): string | undefined => {
      const op = doc.paths[call.path].get!;
      let url = call.path;
      const query = new URLSearchParams();
      for (const p of op.parameters ?? []) {
        if (p.in !== 'path' && !(p.in === 'query' && p.required)) continue;
        const value = valueOf(call.path, p);
        if (value === undefined) {
          unfilled.push(`${call.path}: ${p.in} ${p.name}`);
          return undefined;
        }
        if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(String(value)));
        else query.set(p.name, String(value));
      }
      return query.toString() ? `${url}?${query}` : url;
    };

    const gets = calls.filter((c) => c.method === 'GET');
    expect(gets.length).toBeGreaterThan(50);
    await bounded(gets, CONCURRENCY, async (call) => {
      const url = urlOf(call);
      if (url) record(call, url, await get(url));
    });
    // A new route with a parameter this test cannot fill must say so, not go untested.
    expect(unfilled).toEqual([]);
    expect(failures).toEqual([]);
  }, 120_000);
});
