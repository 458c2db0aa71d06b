/**
 * The platform as a process, started like `npm start`:
 * - serves the UI (index.html for app routes, never cached; its hashed bundles cached for
 *   a year) and the API on one port
 * - SIGTERM exits cleanly (code 0) within 5 s and the database is left consistent
 * - a restart keeps the data and does not seed again
 * Runs on PGlite under DATA_DIR, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
import fs from 'node:fs';
import { openDb, type Db } from '../../server/db';
import { DEMO_ORGS } from '../../mock/region';
import { createTestDatabase, dbKindsBoth, type TestDatabase } from '../support/db';
import { makeDataDir, startPlatformProcess } from '../support/server';

async function snapshot(db: Db) {
  const orgs = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM org');
  const seeded = await db.query<{ value: string }>("SELECT value FROM app_meta WHERE key = 'demo_seeded_at'");
  return { orgs: orgs.rows[0].n, seededAt: seeded.rows[0]?.value };
}

describe.each(dbKindsBoth)('platform process on %s', (kind) => {
  let database: TestDatabase | undefined;
  const dataDir = makeDataDir();
  const env: Record<string, string> = {};
  const openDirect = () => (kind === 'postgres' ? database!.open() : openDb({ dataDir }));

  beforeAll(async () => {
    if (kind === 'postgres') {
      database = await createTestDatabase('postgres');
      env.DATABASE_URL = database.url!;
    }
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('serves UI and API, stops cleanly on SIGTERM, and keeps its data across a restart', async () => {
    const first = await startPlatformProcess({ dataDir, env });
    const health = await (await fetch(`${first.url}/api/health`)).json();
    expect(health.data.db).toBe(kind);
    const page = await fetch(`${first.url}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    expect(html).toContain('<div id="root">');
    const bundle = html.match(/src="(\/umi\.[0-9a-f]+\.js)"/)![1];
    const script = await fetch(`${first.url}${bundle}`);
    expect([script.status, script.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
    // Read to its end: a response still streaming holds the stop below.
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(0);
    const api = await fetch(`${first.url}/api/ris/v1/exam/list`);
    expect(api.status).toBe(403);
    expect((await api.json()).status).toBe('UAA008');
    const stopped = await first.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(5000);

    let db = await openDirect();
    const before = await snapshot(db);
    await db.close();
    expect(before.orgs).toBe(DEMO_ORGS.length);
    expect(before.seededAt).toBeTruthy();

    const second = await startPlatformProcess({ dataDir, env });
    expect((await fetch(`${second.url}/api/health`)).status).toBe(200);
    expect((await second.stop('SIGINT')).code).toBe(0);

    db = await openDirect();
    const after = await snapshot(db);
    await db.close();
    expect(after).toEqual(before);
    // Two cold starts of a real process (migrations and demo seed on the first): 15 s on a
    // quiet CI machine, 45-55 s on a busy 2-core one, so more than jest's default minute.
  }, 180_000);
});
