/**
 * The migrated and seeded starting point of every test platform, built once instead of
 * once per test file: migrating, seeding the demo region (password hashes, a few
 * hundred exams) and storing the demo images took most of a small API file's time.
 *
 * A template is named by a hash of what it is built from (migrations, mock data, the
 * seed code, the demo clock below), so an edit to any of them builds a new one, and an
 * unchanged tree reuses it across runs. Its parts:
 * - PGlite: a dump of a seeded data directory (dumpDataDir), loaded into each file's
 *   in-memory database (loadDataDir);
 * - PostgreSQL: a database `rcloud_tpl_<hash>`, cloned per file with CREATE DATABASE …
 *   TEMPLATE; built under an advisory lock so parallel workers (and other runs on the
 *   same server) build it once;
 * - the demo images the seed stored through the archive (DATA_DIR/files), copied into
 *   each file's DATA_DIR so the archive's index and its files agree.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';
import { loadConfig } from '../../server/config';
import { openDb, type Db } from '../../server/db';
import { dayKey } from '../../server/lib/examRules';
import { preparePlatform } from '../../server/start';
import { newDatabaseName, postgresDatabase, withDatabase, type DbKind, type TestDatabase } from './db';

const root = path.resolve(__dirname, '..', '..');

/** What the template is built from: an edit to any of these builds a new one. */
const SOURCES = [
  'server/migrations',
  'server/db/migrate.ts',
  'mock',
  'server/seed.ts',
  'server/report/seed.ts',
  'server/report/printLayouts.ts',
  'server/pacs',
  'server/storage',
  'server/identity/passwords.ts',
  'server/routes/screenSettings.ts',
];

/**
 * The demo clock of the tests (DEMO_NOW): the start of the current day in region time.
 * Every run of a day seeds the same rows whatever the hour, and none is dated in the
 * future or later today, so today's lists hold only what a test registers or books
 * itself (the schedule and worklist tests count on that, not on demo rows).
 */
export function testDemoNow(): string {
  const day = dayKey(new Date());
  return `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}T00:00:00+08:00`;
}

/** Env keys that change what the first start seeds: a platform given one of them migrates and seeds its own database. */
export const SEED_ENV = ['SEED_DEMO', 'DEMO_NOW', 'ADMIN_MOBILE', 'ADMIN_PASSWORD', 'DATABASE_URL', 'DATA_DIR'];

function filesUnder(p: string): string[] {
  const full = path.join(root, p);
  if (!fs.existsSync(full)) return [];
  if (!fs.statSync(full).isDirectory()) return [p];
  return fs
    .readdirSync(full)
    .sort()
    .flatMap((name) => filesUnder(path.join(p, name)));
}

let hashOnce: string | undefined;
export function templateHash(): string {
  if (hashOnce) return hashOnce;
  const h = crypto.createHash('sha256').update(testDemoNow());
  for (const file of SOURCES.flatMap(filesUnder)) h.update(file).update(fs.readFileSync(path.join(root, file)));
  hashOnce = h.digest('hex').slice(0, 16);
  return hashOnce;
}

/** Where a kind's template keeps its files (and, for PGlite, its dump). */
function templateDir(kind: DbKind): string {
  return path.join(os.tmpdir(), `rcloud-tpl-${kind}-${templateHash()}`);
}

const READY = 'ready';
/** A template not rebuilt or built for this long belongs to an older tree: it is removed. */
const STALE_MS = 24 * 3600_000;

/**
 * Removes the templates of older trees (every edit of a source builds a new one, so
 * they pile up): folders of this kind whose ready mark is older than STALE_MS, and for
 * PostgreSQL their databases, and those left without a folder. Runs after a build,
 * under its lock; a concurrent run on another tree uses a template younger than that.
 */
async function pruneTemplates(kind: DbKind, admin?: Client): Promise<void> {
  const prefix = `rcloud-tpl-${kind}-`;
  const current = templateHash();
  const live = new Set<string>([current]);
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(prefix) || name.endsWith('.lock')) continue;
    const hash = name.slice(prefix.length);
    if (hash === current) continue;
    // A folder without its mark may be another run's build in progress: judged by its own age.
    const mark = fs.statSync(path.join(os.tmpdir(), name, READY), { throwIfNoEntry: false }) ?? fs.statSync(path.join(os.tmpdir(), name));
    if (Date.now() - mark.mtimeMs < STALE_MS) live.add(hash);
    else fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
  }
  if (!admin) return;
  const dbs = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'rcloud\\_tpl\\_%'");
  for (const { datname } of dbs.rows) {
    if (!live.has(datname.slice('rcloud_tpl_'.length))) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  }
}

/** Runs the first start (migrate, seed, print layouts, demo images) into `dataDir` on `db`. */
async function seedInto(db: Db, dataDir: string): Promise<void> {
  const config = loadConfig({ DATA_DIR: dataDir, DIST_DIR: path.join(dataDir, 'no-dist'), LOG_LEVEL: 'silent', DEMO_NOW: testDemoNow() });
  const { app } = await preparePlatform(config, { db, logger: false });
  await app.close();
  await db.close();
}

/**
 * One builder at a time for a PGlite template: the first process to create the lock
 * directory builds; the others wait for it to go. A lock left by a killed process
 * (older than any build takes) is taken over.
 */
async function withDirLock<T>(lock: string, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) fs.rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds the PGlite template once (dump and files); returns its directory. */
async function pgliteTemplate(): Promise<string> {
  const dir = templateDir('pglite');
  if (fs.existsSync(path.join(dir, READY))) return dir;
  await withDirLock(`${dir}.lock`, async () => {
    if (fs.existsSync(path.join(dir, READY))) return;
    fs.rmSync(dir, { recursive: true, force: true });
    const dataDir = path.join(dir, 'data');
    const pgdata = path.join(dir, 'pgdata');
    await seedInto(await openDb({ dataDir: pgdata }), dataDir);
    const pg = await PGlite.create(pgdata);
    const dump = await pg.dumpDataDir('none');
    await pg.close();
    fs.writeFileSync(path.join(dir, 'pglite.tar'), Buffer.from(await dump.arrayBuffer()));
    fs.rmSync(pgdata, { recursive: true, force: true });
    fs.writeFileSync(path.join(dir, READY), new Date().toISOString());
    await pruneTemplates('pglite');
  });
  return dir;
}

export function templateDatabaseName(): string {
  return `rcloud_tpl_${templateHash()}`;
}

/** Builds the PostgreSQL template once (database and files); returns the files' directory. */
async function postgresTemplate(admin: string): Promise<string> {
  const dir = templateDir('postgres');
  const name = templateDatabaseName();
  const c = new Client({ connectionString: admin });
  await c.connect();
  try {
    // Session-level, on this connection: released when it ends, even if the build throws.
    await c.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    const exists = (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount! > 0;
    if (exists && fs.existsSync(path.join(dir, READY))) return dir;
    // A build that died half-way leaves a database without the ready mark: start again.
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    fs.rmSync(dir, { recursive: true, force: true });
    // The folder first: another run's pruning keeps a database whose folder is young.
    fs.mkdirSync(dir, { recursive: true });
    await c.query(`CREATE DATABASE ${name}`);
    await seedInto(await openDb({ databaseUrl: withDatabase(admin, name) }), path.join(dir, 'data'));
    fs.writeFileSync(path.join(dir, READY), new Date().toISOString());
    await pruneTemplates('postgres', c);
    return dir;
  } finally {
    await c.end();
  }
}

/** A fresh copy of the seeded template: a database to open and the demo files to put in DATA_DIR. */
export interface SeededCopy extends TestDatabase {
  /** Copies the template's stored files into `dataDir` (its `files` folder). */
  copyFiles(dataDir: string): void;
}

function filesCopier(dir: string): (dataDir: string) => void {
  return (dataDir) => {
    const files = path.join(dir, 'data', 'files');
    if (fs.existsSync(files)) fs.cpSync(files, path.join(dataDir, 'files'), { recursive: true });
  };
}

export async function seededCopy(kind: DbKind): Promise<SeededCopy> {
  if (kind === 'pglite') {
    const dir = await pgliteTemplate();
    const tar = fs.readFileSync(path.join(dir, 'pglite.tar'));
    return { kind, open: () => openDb({ loadDataDir: new Blob([tar]) }), drop: async () => undefined, copyFiles: filesCopier(dir) };
  }
  const admin = process.env.TEST_DATABASE_URL!;
  const dir = await postgresTemplate(admin);
  const name = newDatabaseName();
  const c = new Client({ connectionString: admin });
  await c.connect();
  try {
    // Two clones at once are fine; a clone while a builder still holds a connection to
    // the template is refused (55006): wait for it.
    for (let attempt = 0; ; attempt++) {
      try {
        await c.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabaseName()}`);
        break;
      } catch (e) {
        if ((e as { code?: string }).code !== '55006' || attempt >= 50) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  } finally {
    await c.end();
  }
  return { ...postgresDatabase(admin, name), copyFiles: filesCopier(dir) };
}
