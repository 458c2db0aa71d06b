/**
 * The databases API tests run on. Without TEST_DATABASE_URL: PGlite (in memory).
 * With it (CI): PostgreSQL, the database a deployment runs. PGlite, which `npm start`
 * embeds, is then still what every browser test drives the screens on, and what the
 * files of dbKindsBoth (the database layer, the process as `npm start` runs it) run on
 * beside PostgreSQL; RCLOUD_TEST_DBS=both runs every file on both, as CI did until the
 * suite outgrew its 20 minutes on 2 cores. Each PostgreSQL use gets a fresh database of
 * its own, dropped afterwards, so runs never see each other's rows.
 */
import crypto from 'node:crypto';
import { Client } from 'pg';
import { openDb, type Db } from '../../server/db';

export type DbKind = 'pglite' | 'postgres';

/** Both databases when the run has PostgreSQL: for tests of what differs between them. */
export const dbKindsBoth: DbKind[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export const dbKinds: DbKind[] = !process.env.TEST_DATABASE_URL ? ['pglite'] : process.env.RCLOUD_TEST_DBS === 'both' ? dbKindsBoth : ['postgres'];

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
