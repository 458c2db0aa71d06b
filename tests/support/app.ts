/** Builds the platform for API tests exactly as main.ts does, on a test database. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../server/config';
import { preparePlatform } from '../../server/start';
import type { Db } from '../../server/db';
import { createTestDatabase, type DbKind, type TestDatabase } from './db';
import { SEED_ENV, seededCopy, testDemoNow } from './template';

export const APP_ID = 'rcloud-doctor';
export const appHeaders = { 'x-app-id': APP_ID };

export interface TestPlatform {
  app: FastifyInstance;
  db: Db;
  dataDir: string;
  close(): Promise<void>;
}

export async function startTestPlatform(
  kind: DbKind,
  env: Record<string, string> = {},
  /** Adds test-only routes before the app is sealed. */
  beforeReady?: (app: FastifyInstance) => void | Promise<void>,
): Promise<TestPlatform> {
  // The seeded template, copied, unless `env` changes what the first start seeds: then
  // this platform migrates and seeds an empty database itself.
  const fromTemplate = !SEED_ENV.some((key) => key in env);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-test-'));
  let database: TestDatabase;
  if (fromTemplate) {
    const copy = await seededCopy(kind);
    copy.copyFiles(dataDir);
    database = copy;
  } else database = await createTestDatabase(kind);
  // SESSION_MAX_PER_USER=0: test files log the same demo users in many times and keep
  // each token; the limit itself is tested where it is set (tests/api/login.test.ts).
  const config = loadConfig({ DATA_DIR: dataDir, DIST_DIR: path.join(dataDir, 'no-dist'), LOG_LEVEL: 'silent', SESSION_MAX_PER_USER: '0', DEMO_NOW: testDemoNow(), ...env });
  const db = await database.open();
  const { app } = await preparePlatform(config, { db, logger: false, beforeReady });
  return {
    app,
    db,
    dataDir,
    async close() {
      await app.close();
      await db.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
