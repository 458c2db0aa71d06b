/**
 * The databases API tests run on: always PGlite (in memory), and the real
 * PostgreSQL when TEST_DATABASE_URL is set. Each PostgreSQL use gets a fresh
 * database of its own, dropped afterwards, so runs never see each other's rows.
 */
import crypto from 'node:crypto';
import { Client } from 'pg';
import { openDb, type Db } from '../../server/db';

export type DbKind = 'pglite' | 'postgres';

export const dbKinds: DbKind[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export interface TestDatabase {
  kind: DbKind;
  /** Connection string of the fresh PostgreSQL database (postgres only). */
  url?: string;
  open(): Promise<Db>;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function createTestDatabase(kind: DbKind): Promise<TestDatabase> {
  if (kind === 'pglite') {
    return { kind, open: () => openDb({}), drop: async () => undefined };
  }
  const admin = process.env.TEST_DATABASE_URL!;
  const name = `rcloud_t_${crypto.randomBytes(6).toString('hex')}`;
  const c = new Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const url = withDatabase(admin, name);
  return {
    kind,
    url,
    open: () => openDb({ databaseUrl: url }),
    async drop() {
      const d = new Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}
