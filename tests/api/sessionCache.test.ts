/**
 * The session cache (server/identity/sessionCache.ts) on each test database, with
 * entries kept a minute (AUTH_CACHE_MS=60000) so that only invalidation can explain a
 * refusal:
 * - a repeated call is answered without a session lookup; AUTH_CACHE_MS=0 looks every call up
 * - on the instance that made it, a change holds on the very next call: logout, password
 *   change, a role's permissions edited (user/info shows them), a user disabled through
 *   the API or by a statement on the database
 * - an entry never outlives its session
 * - a hit does not touch the session; the next miss does
 * - PostgreSQL: two instances on one database: a logout and a role edit on A reach B's
 *   cache through NOTIFY (polled with a generous bound); after its listening connection
 *   is killed, B listens again and still hears
 * - which statements count as writes to what a session lookup reads
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Client } from 'pg';
import { loadConfig } from '../../server/config';
import type { Db } from '../../server/db';
import { isAuthWrite } from '../../server/identity/sessionCache';
import { preparePlatform } from '../../server/start';
import { DEMO_PASSWORD } from '../../mock/identity';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, b64, login } from '../support/auth';
import { createTestDatabase, dbKindsBoth } from '../support/db';

const LONG = { AUTH_CACHE_MS: '60000' };
const hashOf = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** Counts the session lookups made through `db` from now on. */
function countLookups(db: Db): () => number {
  const query = db.query;
  let n = 0;
  db.query = ((sql: string, params?: unknown[]) => {
    if (sql.includes('auth_session(')) n += 1;
    return query(sql, params);
  }) as Db['query'];
  return () => n;
}

/** Resolves once `check` holds; fails after `ms` (far beyond what a notification takes, far below the cache's minute). */
async function eventually(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const info = (app: FastifyInstance, token: string) => app.inject({ method: 'GET', url: '/api/uaa/v1/user/info', headers: authed(token) });
const statusOf = async (app: FastifyInstance, token: string) => (await info(app, token)).json().status as string;

/**
 * Whether two calls with `token` took one lookup at most: the second was a hit. The
 * cache starts with an app's first authenticated call and stores nothing until it
 * listens for other instances' changes, so the first calls may all look up.
 */
const cachedOn = async (app: FastifyInstance, lookups: () => number, token: string) => {
  const before = lookups();
  return (await statusOf(app, token)) === '0' && (await statusOf(app, token)) === '0' && lookups() - before <= 1;
};

describe.each(dbKindsBoth)('session cache on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let lookups: () => number;
  let orgs: Record<string, number>;
  const call = (method: 'GET' | 'POST', url: string, payload?: object, token = admin) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => r.json());

  beforeAll(async () => {
    p = await startTestPlatform(kind, LONG);
    lookups = countLookups(p.db);
    admin = await login(p.app, '13800000001');
    await eventually('the cache is on', () => cachedOn(p.app, lookups, admin));
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
  });
  afterAll(() => p.close());

  test('a repeated call is answered from the cache; a logout holds on the very next call', async () => {
    const token = await login(p.app, '13800000002');
    const before = lookups();
    expect(await statusOf(p.app, token)).toBe('0');
    expect(await statusOf(p.app, token)).toBe('0');
    expect(lookups() - before).toBe(1);
    expect((await call('POST', '/api/uaa/v1/logout', undefined, token)).status).toBe('0');
    const after = await info(p.app, token);
    expect(after.statusCode).toBe(401);
    expect(after.json().status).toBe('UAA005');
  });

  test('a password change ends the cached sessions at once', async () => {
    const token = await login(p.app, '13800000003');
    const other = await login(p.app, '13800000003');
    expect(await statusOf(p.app, other)).toBe('0');
    const change = await call('POST', '/api/uaa/v1/password/update', { oldPassword: b64(DEMO_PASSWORD), newPassword: b64('Cache#2026x'), confirmPassword: b64('Cache#2026x') }, token);
    expect(change.status).toBe('0');
    expect(await statusOf(p.app, other)).toBe('UAA005');
  });

  test('a role edited and a user disabled hold on the next call', async () => {
    const role = await call('POST', '/api/ucenter/v1/role/save', { name: '缓存角色', dataScope: 'own', permissions: { registration: ['view'] } });
    expect(role.status).toBe('0');
    const user = { mobile: '13600000101', name: '缓存用户', status: 1, memberships: [{ hospitalId: orgs.HOSP_A, roleId: role.data.id }], password: 'Cache#2026' };
    const created = await call('POST', '/api/ucenter/v1/user/save', user);
    expect(created.status).toBe('0');
    const token = await login(p.app, user.mobile, user.password);
    expect((await info(p.app, token)).json().data.permissionMap.registration).toEqual(['view']);

    const edited = await call('POST', '/api/ucenter/v1/role/save', { id: role.data.id, name: '缓存角色', dataScope: 'own', permissions: { registration: ['view', 'add'] } });
    expect(edited.status).toBe('0');
    expect((await info(p.app, token)).json().data.permissionMap.registration).toEqual(['view', 'add']);

    // By a statement on the database (as an operator or another tool would): disabled, not revoked.
    await p.db.query('UPDATE app_user SET status = 0 WHERE mobile = $1', [user.mobile]);
    expect(await statusOf(p.app, token)).toBe('UAA003');
    await p.db.query('UPDATE app_user SET status = 1 WHERE mobile = $1', [user.mobile]);
    expect(await statusOf(p.app, token)).toBe('0');
    // Through the API: disabling also ends the sessions.
    const disabled = await call('POST', '/api/ucenter/v1/user/save', { ...user, id: created.data.id, password: undefined, status: 0 });
    expect(disabled.status).toBe('0');
    expect(await statusOf(p.app, token)).toBe('UAA005');
  });

  test('an entry never outlives its session', async () => {
    const token = await login(p.app, '13800000004');
    // Ending in two seconds (the call below takes a fraction of one); the cache keeps entries a minute.
    await p.db.query("UPDATE session SET expires_at = now() + interval '2 seconds' WHERE token_hash = $1", [hashOf(token)]);
    expect(await statusOf(p.app, token)).toBe('0');
    await eventually('refused once the session ended', async () => (await statusOf(p.app, token)) === 'UAA005', 30_000);
  });

  test('a hit does not touch the session; the next miss does', async () => {
    const token = await login(p.app, '13800000005');
    expect(await statusOf(p.app, token)).toBe('0');
    const lastSeenRecently = async () =>
      (await p.db.query<{ recent: boolean }>("SELECT last_seen_at > now() - interval '1 minute' AS recent FROM session WHERE token_hash = $1", [hashOf(token)])).rows[0].recent;
    // The same statement as the touch's beginning, which the cache does not watch.
    await p.db.query("UPDATE session SET last_seen_at = now() - interval '5 minutes' WHERE token_hash = $1", [hashOf(token)]);
    expect(await statusOf(p.app, token)).toBe('0');
    expect(await lastSeenRecently()).toBe(false);
    // Any write the cache watches empties it; the next call looks the session up and touches it.
    await p.db.query('UPDATE session SET hospital_id = hospital_id WHERE token_hash = $1', [hashOf(token)]);
    expect(await statusOf(p.app, token)).toBe('0');
    expect(await lastSeenRecently()).toBe(true);
  });

  test('AUTH_CACHE_MS=0 looks every call up', async () => {
    const q = await startTestPlatform(kind, { AUTH_CACHE_MS: '0' });
    try {
      const count = countLookups(q.db);
      const token = await login(q.app, '13800000002');
      for (let i = 0; i < 3; i++) expect(await statusOf(q.app, token)).toBe('0');
      expect(count()).toBe(3);
    } finally {
      await q.close();
    }
  });

  if (kind === 'postgres') {
    test('two instances on one database: a change on A reaches B, also after B listens again', async () => {
      const database = await createTestDatabase('postgres');
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-test-'));
      const instances: Array<{ app: FastifyInstance; db: Db }> = [];
      const instance = async () => {
        const config = loadConfig({ DATA_DIR: dataDir, DIST_DIR: path.join(dataDir, 'no-dist'), LOG_LEVEL: 'silent', ...LONG });
        const it = await preparePlatform(config, { db: await database.open(), logger: false });
        instances.push(it);
        return it;
      };
      const sql = new Client({ connectionString: database.url });
      try {
        const a = await instance();
        const b = await instance();
        const bLookups = countLookups(b.db);
        await sql.connect();
        const cachedOnB = (token: string) => cachedOn(b.app, bLookups, token);

        const token = await login(a.app, '13800000002');
        await eventually('B caches the session', () => cachedOnB(token));
        expect((await a.app.inject({ method: 'POST', url: '/api/uaa/v1/logout', headers: authed(token) })).json().status).toBe('0');
        await eventually('B refuses the logged-out token', async () => (await statusOf(b.app, token)) === 'UAA005');

        const adminA = await login(a.app, '13800000001');
        const clerk = await login(a.app, '13800000002');
        const roleId = (await a.db.query<{ id: number }>("SELECT id FROM role WHERE name = '登记员'")).rows[0].id;
        const role = (await a.app.inject({ method: 'GET', url: `/api/ucenter/v1/role/detail/${roleId}`, headers: authed(adminA) })).json().data;
        await eventually('B caches the clerk', () => cachedOnB(clerk));
        expect((await info(b.app, clerk)).json().data.permissionMap.report).toBeUndefined();
        const saved = await a.app.inject({
          method: 'POST',
          url: '/api/ucenter/v1/role/save',
          headers: authed(adminA),
          payload: { id: roleId, name: role.name, dataScope: role.dataScope, permissions: { ...role.permissions, report: ['view'] } },
        });
        expect(saved.json().status).toBe('0');
        await eventually('B shows the role edited on A', async () => (await info(b.app, clerk)).json().data.permissionMap.report?.[0] === 'view');

        // The listening connections dropped: each instance listens again on a new one.
        const listening = async () => (await sql.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN auth_changed'")).rows.map((r) => r.pid);
        const killed = await listening();
        expect(killed).toHaveLength(2);
        await sql.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) pid', [killed]);
        await eventually('both listen again', async () => {
          const now = await listening();
          return now.length === 2 && !now.some((pid) => killed.includes(pid));
        });
        const again = await login(a.app, '13800000002');
        await eventually('B caches again', () => cachedOnB(again));
        expect((await a.app.inject({ method: 'POST', url: '/api/uaa/v1/logout', headers: authed(again) })).json().status).toBe('0');
        await eventually('B refuses after listening again', async () => (await statusOf(b.app, again)) === 'UAA005');
      } finally {
        await sql.end().catch(() => undefined);
        for (const it of instances) {
          await it.app.close();
          await it.db.close();
        }
        await database.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});

describe('writes the session cache watches', () => {
  test.each([
    'UPDATE session SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL',
    'UPDATE session SET hospital_id = $2 WHERE token_hash = $1',
    "update session set expires_at = now() - interval '1 second'",
    'DELETE FROM session WHERE expires_at < now()',
    'UPDATE app_user SET status = 0 WHERE mobile = $1',
    'WITH made AS (INSERT INTO app_user (mobile) SELECT 1 RETURNING id) INSERT INTO user_membership (user_id) SELECT id FROM made',
    'DELETE FROM user_membership m WHERE m.user_id = $1',
    'UPDATE role SET permissions = $2::jsonb WHERE id = $1',
    'DELETE FROM org WHERE id = $1',
    'TRUNCATE TABLE "role" CASCADE',
  ])('%s', (sql) => expect(isAuthWrite(sql)).toBe(true));

  test.each([
    "UPDATE session SET last_seen_at = now(), expires_at = now() + $2::interval WHERE token_hash = $1",
    'INSERT INTO session (token_hash, user_id) VALUES ($1, $2)',
    'SELECT * FROM auth_session($1, $2::interval)',
    'SELECT o.name FROM org o JOIN role r ON true',
    'UPDATE org_setting SET value = $2 WHERE org_id = $1',
    'INSERT INTO report (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET version = 2',
    'UPDATE exam SET updated_at = now() WHERE id = $1',
  ])('not %s', (sql) => expect(isAuthWrite(sql)).toBe(false));
});
