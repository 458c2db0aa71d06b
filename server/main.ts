/**
 * The platform process: UI, API and DICOMweb on one port, the DICOM listener on its
 * own (DICOM_PORT). SIGTERM/SIGINT stop accepting, let in-flight requests and DICOM
 * stores finish, close the database (PGlite checkpoints its WAL on close) and exit
 * within the time limit.
 */
import { loadConfig } from './config';
import { startDicomListener, type DicomListener } from './dicom/listener';
import { preparePlatform } from './start';

async function main() {
  const config = loadConfig();
  const { app, db } = await preparePlatform(config);
  let stopping = false;
  let dicom: DicomListener | undefined;
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
      // Before the app: a store under way still needs the database to be acknowledged.
      await dicom?.close();
    } catch (e) {
      app.log.error({ err: e }, 'error while closing the DICOM listener');
    }
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
  // The DICOM listener first: once /api/health answers (a load balancer's or a test's
  // readiness check), modalities can send too.
  if (config.dicom.enabled) {
    dicom = await startDicomListener(app, { aeTitle: config.dicom.aeTitle, port: config.dicom.port, host: config.host });
    app.log.info({ aeTitle: config.dicom.aeTitle, port: dicom.port }, 'dicom listener ready');
  }
  await app.listen({ port: config.port, host: config.host });
  app.log.info({ db: db.kind, dataDir: config.databaseUrl ? undefined : config.dataDir }, 'platform ready');
}

main().catch((err) => {
  // Startup failures (database unreachable, a changed migration) end the process with the reason.
  console.error(err);
  process.exit(1);
});
