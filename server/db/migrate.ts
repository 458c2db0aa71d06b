/**
 * Ordered SQL migrations, the same files for PGlite and PostgreSQL.
 * Files are server/migrations/NNNN_name.sql, applied in name order, each in its own
 * transaction and recorded in schema_migrations, under an advisory lock so that two
 * instances starting together apply each file exactly once. An applied file that was
 * edited afterwards is refused: migrations are append-only.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from './types';
import { MIGRATIONS_DIR } from '../paths';

/** Advisory-lock key shared by migrations and the first-run seed. */
export const STARTUP_LOCK_KEY = 7_302_026;

export { MIGRATIONS_DIR };

export interface Migration {
  version: string;
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const sql = fs.readFileSync(path.join(dir, file), 'utf8');
      return {
        version: file.slice(0, 4),
        name: file.slice(5, -4),
        sql,
        checksum: crypto.createHash('sha256').update(sql).digest('hex'),
      };
    });
}

/** Applies what is missing; returns the versions applied by this call. */
export async function migrate(locked: Db, migrations = readMigrations()): Promise<string[]> {
  await locked.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version text PRIMARY KEY,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const { rows } = await locked.query<{ version: string; checksum: string }>(
    'SELECT version, checksum FROM schema_migrations',
  );
  const applied = new Map(rows.map((r) => [r.version, r.checksum]));
  const done: string[] = [];
  for (const m of migrations) {
    const known = applied.get(m.version);
    if (known) {
      if (known !== m.checksum) {
        throw new Error(`migration ${m.version}_${m.name} was changed after it was applied; add a new migration instead`);
      }
      continue;
    }
    await locked.tx(async (q) => {
      // Multi-statement files go through exec on the same connection inside the transaction.
      for (const statement of splitStatements(m.sql)) await q.query(statement);
      await q.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        m.checksum,
      ]);
    });
    done.push(m.version);
  }
  return done;
}

/**
 * Splits a migration into statements at semicolons outside quotes, comments and
 * dollar-quoted bodies, so each runs as one parameterless query in the transaction.
 */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let current = '';
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    const next = sql[i + 1];
    if (ch === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
      current += '\n';
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
      continue;
    }
    if (ch === "'" || ch === '"') {
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] === ch && sql[j + 1] === ch) j += 2;
        else if (sql[j] === ch) break;
        else j += 1;
      }
      current += sql.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (ch === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        const stop = end === -1 ? sql.length : end + tag[0].length;
        current += sql.slice(i, stop);
        i = stop;
        continue;
      }
    }
    if (ch === ';') {
      if (current.trim()) out.push(current.trim());
      current = '';
      i += 1;
      continue;
    }
    current += ch;
    i += 1;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}
