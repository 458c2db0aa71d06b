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
import { seededCopy, testDemoNow } from './template';
import { keepOnFailure, LogTail } from './failures';

export interface InProcessPlatform {
  url: string;
  app: FastifyInstance;
  db: Db;
  close(): Promise<void>;
}

/** `env`: more settings, as the environment would give them (the video room's JANUS_URL). */
export async function startInProcess(env: Record<string, string> = {}): Promise<InProcessPlatform> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-inproc-'));
  // No session limit: the tests log the same demo users in many times (tests/api/login.test.ts tests it).
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SESSION_MAX_PER_USER: '0', DEMO_NOW: testDemoNow(), ...env });
  // The seeded template (tests/support/template.ts): its database and its stored files.
  const copy = await seededCopy('pglite');
  copy.copyFiles(dataDir);
  const db = await copy.open();
  // The server log at info (requests not logged: LOG_REQUESTS off), kept in memory for a failure.
  const log = new LogTail();
  const { app } = await preparePlatform(config, { db, logger: { level: 'info', stream: { write: (line: string) => log.push(line.trimEnd()) } } });
  const forget = keepOnFailure({ keep: async (dir) => fs.writeFileSync(path.join(dir, `server-${path.basename(dataDir)}.log`), log.text()) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    db,
    async close() {
      forget();
      await app.close();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
