/**
 * The platform listening on a port inside the test process (same preparePlatform as
 * npm start, serving the built UI), for browser tests that also need the database
 * handle: captcha answers and SMS codes are read from it, as an operator would read
 * the outbox.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../server/config';
import { preparePlatform } from '../../server/start';
import type { Db } from '../../server/db';
import { openDb } from '../../server/db';

export interface InProcessPlatform {
  url: string;
  app: FastifyInstance;
  db: Db;
  close(): Promise<void>;
}

export async function startInProcess(): Promise<InProcessPlatform> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-inproc-'));
  // No session limit: the tests log the same demo users in many times (tests/api/login.test.ts tests it).
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SESSION_MAX_PER_USER: '0' });
  const db = await openDb({});
  const { app } = await preparePlatform(config, { db, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    db,
    async close() {
      await app.close();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
