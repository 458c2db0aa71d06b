/**
 * Platform conventions through app.inject on each test database:
 * - GET /api/health answers without headers, naming the database kind
 * - /api without (or with an unknown) X-App-Id → 403 UAA008, localized by cookie > Accept-Language > zh-CN
 * - unknown /api path → 404 UAA102 in the envelope
 * - a crash → 500 UAA511 with a request id, no stack and no SQL
 * - a validation failure → 400 UAA421 naming the field
 * - body over the limit → 413 UAA413; malformed JSON → 400 UAA421
 * - OpenAPI document lists the routes
 */
import type { FastifyInstance } from 'fastify';
import { translate } from '../../locales';
import { dbKinds } from '../support/db';
import { appHeaders, startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

describe.each(dbKinds)('platform conventions on %s', (kind) => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await startTestPlatform(kind, {}, (app: FastifyInstance) => {
      app.get('/api/test/boom', { config: { public: true, audit: 'none' } }, async () => {
        throw new Error('relation "secret_table" does not exist: SELECT * FROM secret_table');
      });
      app.post(
        '/api/test/echo',
        {
          config: { public: true, audit: 'none' },
          schema: {
            body: {
              type: 'object',
              required: ['mobile'],
              properties: { mobile: { type: 'string', pattern: '^1[3-9]\\d{9}$' }, name: { type: 'string', maxLength: 4 } },
            },
          },
        },
        async (req) => ({ status: '0', data: req.body }),
      );
    });
  });
  afterAll(() => p.close());

  test('health answers without headers and names the database', async () => {
    const r = await p.app.inject({ method: 'GET', url: '/api/health' });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.status).toBe('0');
    expect(body.data.db).toBe(kind);
    expect(body.data.dbOk).toBe(true);
    expect(typeof body.data.version).toBe('string');
    expect(body.data.uptime).toBeGreaterThan(0);
  });

  test('missing X-App-Id is refused with UAA008 in Chinese by default', async () => {
    const r = await p.app.inject({ method: 'GET', url: '/api/ris/v1/exam/list' });
    expect(r.statusCode).toBe(403);
    expect(r.json()).toEqual({ status: 'UAA008', message: translate('zh-CN', 'error.UAA008') });
    expect(r.json().message).toMatch(/[\u4e00-\u9fff]/);
  });

  test('the language follows Accept-Language, and the lang cookie wins over it', async () => {
    const en = await p.app.inject({ method: 'GET', url: '/api/ris/v1/exam/list', headers: { 'accept-language': 'en' } });
    expect(en.json().message).toBe(translate('en-US', 'error.UAA008'));
    expect(en.json().message).not.toMatch(/[\u4e00-\u9fff]/);
    const ru = await p.app.inject({
      method: 'GET',
      url: '/api/ris/v1/exam/list',
      headers: { 'accept-language': 'en-GB,en;q=0.9', cookie: 'theme=dark; lang=ru-RU' },
    });
    expect(ru.json().message).toBe(translate('ru-RU', 'error.UAA008'));
    const unknown = await p.app.inject({ method: 'GET', url: '/api/x', headers: { 'accept-language': 'fr-FR' } });
    expect(unknown.json().message).toBe(translate('zh-CN', 'error.UAA008'));
  });

  test('an unknown X-App-Id is refused like a missing one', async () => {
    const r = await p.app.inject({ method: 'GET', url: '/api/ris/v1/exam/list', headers: { 'x-app-id': 'someone-else' } });
    expect(r.statusCode).toBe(403);
    expect(r.json().status).toBe('UAA008');
  });

  test('an unknown /api path is a 404 in the envelope', async () => {
    const r = await p.app.inject({ method: 'GET', url: '/api/nothing/v1/here', headers: appHeaders });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ status: 'UAA102', message: translate('zh-CN', 'error.UAA102') });
  });

  test('a crash answers 500 with a request id and no internals', async () => {
    const r = await p.app.inject({ method: 'GET', url: '/api/test/boom', headers: { ...appHeaders, 'accept-language': 'en' } });
    expect(r.statusCode).toBe(500);
    const body = r.json();
    expect(body.status).toBe('UAA511');
    expect(body.requestId).toBe(r.headers['x-request-id']);
    expect(body.message).toContain(body.requestId);
    expect(r.body).not.toMatch(/secret_table|SELECT|stack|at Object/i);
  });

  test('a validation failure names the field with the catalogue field message', async () => {
    const missing = await p.app.inject({ method: 'POST', url: '/api/test/echo', headers: { ...appHeaders, 'accept-language': 'en' }, payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().status).toBe('UAA421');
    expect(missing.json().field).toBe('mobile');
    expect(missing.json().message).toContain(translate('en-US', 'validation.required', { field: 'mobile' }));

    const bad = await p.app.inject({ method: 'POST', url: '/api/test/echo', headers: appHeaders, payload: { mobile: '12345' } });
    expect(bad.json().field).toBe('mobile');
    expect(bad.json().message).toContain(translate('zh-CN', 'validation.pattern', { field: 'mobile' }));

    const long = await p.app.inject({ method: 'POST', url: '/api/test/echo', headers: appHeaders, payload: { mobile: '13800000001', name: '长长长长长' } });
    expect(long.json().field).toBe('name');
    expect(long.json().message).toContain(translate('zh-CN', 'validation.maxLength', { field: 'name', limit: 4 }));

    const good = await p.app.inject({ method: 'POST', url: '/api/test/echo', headers: appHeaders, payload: { mobile: '13800000001' } });
    expect(good.json()).toEqual({ status: '0', data: { mobile: '13800000001' } });
  });

  test('malformed JSON and oversized bodies are client errors in the envelope', async () => {
    const malformed = await p.app.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { ...appHeaders, 'content-type': 'application/json' },
      payload: '{"mobile": ',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().status).toBe('UAA421');
    const big = await p.app.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { ...appHeaders, 'content-type': 'application/json' },
      payload: JSON.stringify({ mobile: '13800000001', pad: 'x'.repeat(11 * 1024 * 1024) }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().status).toBe('UAA413');
  });

  test('the OpenAPI document is generated from the routes (for its permission: tests/api/login.test.ts)', async () => {
    const r = await p.app.inject({ method: 'GET', url: '/api/docs/json', headers: authed(await login(p.app, '13800000001')) });
    expect(r.statusCode).toBe(200);
    const doc = r.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toContain('/api/health');
    expect(doc.tags.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['uaa', 'ris', 'report', 'pacs']));
    const ui = await p.app.inject({ method: 'GET', url: '/api/docs' });
    expect([200, 302]).toContain(ui.statusCode);
  });

  test('without a UI build, a non-API path is a plain 404, not a crash', async () => {
    const r = await p.app.inject({ method: 'GET', url: '/dashboard' });
    expect(r.statusCode).toBe(404);
  });
});
