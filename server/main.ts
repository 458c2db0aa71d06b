/**
 * The platform process: UI, API (and later DICOMweb and the DICOM listener) on one
 * port. SIGTERM/SIGINT stop accepting, let in-flight requests finish, close the
 * database (PGlite checkpoints its WAL on close) and exit within the time limit.
 */
import { loadConfig } from './config';
import { preparePlatform } from './start';

async function main() {
  const config = loadConfig();
  const { app, db } = await preparePlatform(config);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    try {
      await app.close();
    } catch (e) {
      app.log.error({ err: e }, 'error while closing the server');
    }
    try {
      await db.close();
    } catch (e) {
      app.log.error({ err: e }, 'error while closing the database');
    }
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
  app.log.info({ db: db.kind, dataDir: config.databaseUrl ? undefined : config.dataDir }, 'platform ready');
}

main().catch((err) => {
  // Startup failures (database unreachable, a changed migration) end the process with the reason.
  console.error(err);
  process.exit(1);
});
