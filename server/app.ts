/**
 * Builds the Fastify application around an open database and file storage.
 * Layers load in order: external plugins (platform: ids, language, errors; security
 * headers; docs; UI)
 * → domain plugins → the routes of each service under its versioned prefix.
 * Tests call buildApp and use app.inject; main.ts adds the listener and signals.
 */
import crypto from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import type { Db } from './db';
import type { FileStorage } from './storage';
import type { ServerConfig } from './config';
import { loadSchemas } from './lib/schemas';
import { clock } from './lib/clock';
import { AJV_OPTIONS } from './lib/ajv';
import platform from './plugins/platform';
import docs from './plugins/docs';
import ui, { inlineScriptHashes } from './plugins/ui';
import security from './plugins/security';
import auth from './plugins/auth';
import audit from './plugins/audit';
import { SERVICES } from './routes/services';
import tableResources from './lib/tableResource';
import { serializerCompiler } from './lib/serializer';
import { Archive } from './pacs/archive';
import { Background } from './lib/background';
import dicomweb, { DICOMWEB_PREFIX } from './dicomweb';
import videoRoutes from './routes/video';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    storage: FileStorage;
    config: ServerConfig;
    /** The image archive: every received DICOM instance goes through it. */
    archive: Archive;
    /** Jobs started once the database is migrated (not at onReady). */
    background: Background;
  }
}

export interface BuildOptions {
  /** The database, or the promise of it while it still opens (it is in place before the app is ready). */
  db: Db | Promise<Db>;
  storage: FileStorage;
  config: ServerConfig;
  /** Pino options, or false for silent tests. */
  logger?: boolean | object;
}

export async function buildApp(opts: BuildOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? { level: opts.config.logLevel },
    // Per-request lines cost throughput and say little; errors are always logged.
    logController: new LogController({ disableRequestLogging: !opts.config.logRequests }),
    genReqId: () => crypto.randomUUID(),
    trustProxy: opts.config.trustProxy,
    bodyLimit: 10 * 1024 * 1024,
    // Options and custom formats live in lib/ajv.ts, where the schema tests read them too.
    ajv: AJV_OPTIONS,
  });
  // The database is handed out only from onReady on, even when it is already open: a
  // handle kept while routes register is null under `npm start` (the embedded database
  // is still opening then), so taking one at registration fails in every test too.
  let db: Db | undefined;
  app.decorate('db', {
    getter(): Db {
      if (!db) throw new Error('fastify.db asked for before the app is ready: take it when a request or hook runs, not while routes register');
      return db;
    },
  });
  const opening = Promise.resolve(opts.db);
  // The first onReady hook, so the hooks of every plugin after it may use the database.
  app.addHook('onReady', async () => {
    db = await opening;
  });
  app.decorate('storage', opts.storage);
  app.decorate('background', new Background());
  app.decorate('config', opts.config);
  clock.setOffset(opts.config.clockOffsetSeconds * 1000);
  app.decorate('archive', new Archive(() => app.db, opts.storage));
  const schemas = loadSchemas();
  for (const schema of schemas) app.addSchema(schema);
  app.setSerializerCompiler(serializerCompiler(schemas));

  await app.register(platform, { appIds: opts.config.appIds });
  await app.register(security, { scriptHashes: inlineScriptHashes(opts.config.distDir), connectOrigins: opts.config.connectOrigins });
  await app.register(auth);
  await app.register(audit);
  await app.register(formbody);
  await app.register(docs);
  await app.register(ui, { distDir: opts.config.distDir });

  for (const service of SERVICES) {
    if (service.routes) await app.register(service.routes, { prefix: service.prefix });
  }
  // The video room beside the consultation routes (same prefix, its own plugin: WebSocket support stays in it).
  await app.register(videoRoutes, { prefix: '/api/consult/v1' });
  // Resources of config/resources.json served from their schemas alone, each under its base path.
  await app.register(tableResources);
  await app.register(dicomweb, { prefix: DICOMWEB_PREFIX });
  return app;
}
