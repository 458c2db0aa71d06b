/**
 * Opens the database, migrates and seeds under one advisory lock, and builds the
 * app. Shared by main.ts (the real process) and the tests, so both start the same way.
 */
import type { FastifyInstance } from 'fastify';
import { openDb, type Db } from './db';
import { migrate, STARTUP_LOCK_KEY } from './db/migrate';
import { LocalFileStorage } from './storage';
import { buildApp } from './app';
import { seedAdmin, seedDemo, seedDemoImages } from './seed';
import { seedPrintLayouts } from './report/printLayouts';
import type { ServerConfig } from './config';

export interface Platform {
  app: FastifyInstance;
  db: Db;
}

export async function preparePlatform(
  config: ServerConfig,
  options: { logger?: boolean | object; db?: Db; beforeReady?: (app: FastifyInstance) => void | Promise<void> } = {},
): Promise<Platform> {
  // The embedded database takes a while to boot: it opens while the app is built and
  // its schemas compiled; migrations and the seed run before anything listens.
  const opening = options.db
    ? Promise.resolve(options.db)
    : openDb({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir });
  let db: Db | undefined;
  try {
    const app = await buildApp({ db: opening, storage: new LocalFileStorage(config.filesDir, config.fileSync), config, logger: options.logger });
    if (options.beforeReady) await options.beforeReady(app);
    // Ready (its onReady hooks) once the database is open: the embedded one boots on a
    // worker thread for longer than a plugin may take (Fastify's pluginTimeout) on a
    // cold or busy machine; the main thread used to be blocked meanwhile, timers too.
    db = await opening;
    const ready = app.ready();
    let seeded = false;
    await db.withAdvisoryLock(STARTUP_LOCK_KEY, async (locked) => {
      await migrate(locked);
      if (config.seedDemo) seeded = await seedDemo(locked, config.demoNow);
      else await seedAdmin(locked, config.identity, (msg) => console.warn(`[rcloud] ${msg}`));
      // After the hospitals exist: the print layouts' mapping names them.
      await locked.tx((q) => seedPrintLayouts(q));
    });
    await ready;
    await app.background.start();
    // Through the archive (files and index), once the app and its database are ready.
    if (seeded) await seedDemoImages(db, app.archive);
    return { app, db };
  } catch (e) {
    if (!options.db) await (db ?? (await opening.catch(() => undefined)))?.close();
    throw e;
  }
}
