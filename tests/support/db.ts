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

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A name no other run uses: test databases live side by side on the shared server. */
export function newDatabaseName(): string {
  return `rcloud_t_${crypto.randomBytes(6).toString('hex')}`;
}

export async function createTestDatabase(kind: DbKind): Promise<TestDatabase> {
  if (kind === 'pglite') {
    return { kind, open: () => openDb({}), drop: async () => undefined };
  }
  const admin = process.env.TEST_DATABASE_URL!;
  const name = newDatabaseName();
  const c = new Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  return postgresDatabase(admin, name);
}

/** The database `name` on the server of `admin`: opened by its own URL, dropped through `admin`. */
export function postgresDatabase(admin: string, name: string): TestDatabase {
  const url = withDatabase(admin, name);
  return {
    kind: 'postgres',
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
