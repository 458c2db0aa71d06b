/**
 * Migrations and the first-run seed on each test database:
 * - every migration applied once and recorded; a second run applies nothing
 * - an applied migration whose file changed is refused
 * - two starts at once on one PostgreSQL database migrate and seed exactly once
 * - the demo region is seeded into an empty database only
 * - a transaction that throws leaves nothing behind
 */
import { migrate, readMigrations, splitStatements, STARTUP_LOCK_KEY } from '../../server/db/migrate';
import { seedDemo } from '../../server/seed';
import { DEMO_ORGS } from '../../mock/region';
import { createTestDatabase, dbKindsBoth } from '../support/db';

describe.each(dbKindsBoth)('database on %s', (kind) => {
  test('migrations apply once, are recorded, and refuse an edited file', async () => {
    const t = await createTestDatabase(kind);
    const db = await t.open();
    try {
      const all = readMigrations();
      expect(all.length).toBeGreaterThan(0);
      const first = await db.withAdvisoryLock(STARTUP_LOCK_KEY, (l) => migrate(l));
      expect(first).toEqual(all.map((m) => m.version));
      const again = await db.withAdvisoryLock(STARTUP_LOCK_KEY, (l) => migrate(l));
      expect(again).toEqual([]);
      const { rows } = await db.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(all.map((m) => m.version));
      const edited = all.map((m, i) => (i === 0 ? { ...m, checksum: 'changed' } : m));
      await expect(db.withAdvisoryLock(STARTUP_LOCK_KEY, (l) => migrate(l, edited))).rejects.toThrow(/changed after it was applied/);
    } finally {
      await db.close();
      await t.drop();
    }
  });

  test('the demo region is seeded into an empty database only', async () => {
    const t = await createTestDatabase(kind);
    const db = await t.open();
    try {
      await db.withAdvisoryLock(STARTUP_LOCK_KEY, async (l) => {
        await migrate(l);
        expect(await seedDemo(l)).toBe(true);
        expect(await seedDemo(l)).toBe(false);
      });
      const { rows } = await db.query<{ code: string; parent: string | null }>(
        'SELECT o.code, p.code AS parent FROM org o LEFT JOIN org p ON p.id = o.parent_id ORDER BY o.id',
      );
      expect(rows).toEqual(DEMO_ORGS.map((o) => ({ code: o.code, parent: o.parentCode ?? null })));
    } finally {
      await db.close();
      await t.drop();
    }
  });

  test('a failed transaction leaves nothing behind', async () => {
    const t = await createTestDatabase(kind);
    const db = await t.open();
    try {
      await db.exec('CREATE TABLE tx_probe (n integer)');
      await expect(
        db.tx(async (q) => {
          await q.query('INSERT INTO tx_probe VALUES (1)');
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      await db.tx((q) => q.query('INSERT INTO tx_probe VALUES (2)'));
      const { rows } = await db.query<{ n: number }>('SELECT n FROM tx_probe');
      expect(rows).toEqual([{ n: 2 }]);
    } finally {
      await db.close();
      await t.drop();
    }
  });

  if (kind === 'postgres') {
    test('two instances starting at once migrate and seed exactly once', async () => {
      const t = await createTestDatabase(kind);
      const [a, b] = await Promise.all([t.open(), t.open()]);
      try {
        const run = (db: typeof a) =>
          db.withAdvisoryLock(STARTUP_LOCK_KEY, async (l) => ({ applied: await migrate(l), seeded: await seedDemo(l) }));
        const [ra, rb] = await Promise.all([run(a), run(b)]);
        expect([ra.applied.length, rb.applied.length].sort()).toEqual([0, readMigrations().length]);
        expect([ra.seeded, rb.seeded].sort()).toEqual([false, true]);
        const { rows } = await a.query<{ n: number }>('SELECT count(*)::int AS n FROM org');
        expect(rows[0].n).toBe(DEMO_ORGS.length);
      } finally {
        await a.close();
        await b.close();
        await t.drop();
      }
    });
  }
});

describe('splitStatements', () => {
  test('splits at semicolons outside quotes, comments and dollar bodies', () => {
    const sql = `-- a comment; with a semicolon
      CREATE TABLE a (t text DEFAULT 'x;y');
      /* block; comment */ INSERT INTO a VALUES ('it''s; fine');
      CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;`;
    const parts = splitStatements(sql);
    expect(parts).toHaveLength(3);
    expect(parts[0]).toContain("'x;y'");
    expect(parts[1]).toContain("'it''s; fine'");
    expect(parts[2]).toContain('$$ SELECT 1; $$');
  });
});
