/**
 * An acknowledged instance survives kill -9 (issue #6: Success only after the index
 * is written): storescu sends a series to the platform process, the process is killed
 * with SIGKILL mid-series, restarted on the same DATA_DIR (and database), and every
 * instance storescu got Success for is indexed with a readable file; sending the whole
 * series again afterwards stores the rest, each instance once.
 * Runs on PGlite under DATA_DIR, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openDb } from '../../server/db';
import { readDicomHeader } from '../../server/pacs/dicomFile';
import { syntheticSeries } from '../../mock/dicom';
import { createTestDatabase, dbKindsBoth, type TestDatabase } from '../support/db';
import { freePort, makeDataDir, startPlatformProcess, type RunningPlatform } from '../support/server';

const COUNT = 120;
const UID_ROOT = '1.2.826.0.1.3680043.10.1082.71';

/**
 * storescu -v over the files; calls `onSuccess` with the number acknowledged so far
 * after each Success. Resolves with the files acknowledged, in order, and the exit code.
 */
function storescu(port: number, files: string[], onSuccess: (n: number) => void = () => undefined): Promise<{ acknowledged: string[]; code: number | null }> {
  return new Promise((resolve) => {
    const proc = spawn('storescu', ['-v', '-aet', 'A_CT1', '-aec', 'RCLOUD', '127.0.0.1', String(port), ...files], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acknowledged: string[] = [];
    let sending: string | undefined;
    let pending = '';
    const onOutput = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const file = /Sending file: (.+)$/.exec(line);
        if (file) sending = file[1].trim();
        if (/Received Store Response \(Success\)/.test(line) && sending) {
          acknowledged.push(sending);
          sending = undefined;
          onSuccess(acknowledged.length);
        }
      }
    };
    proc.stdout.on('data', onOutput);
    proc.stderr.on('data', onOutput);
    proc.once('exit', (code) => resolve({ acknowledged, code }));
  });
}

describe.each(dbKindsBoth)('DICOM store durability across kill -9 on %s', (kind) => {
  let database: TestDatabase | undefined;
  const dataDir = makeDataDir();
  // No UI needed here: the process starts without building it.
  const env: Record<string, string> = { SKIP_UI_BUILD: 'true' };
  let running: RunningPlatform | undefined;

  beforeAll(async () => {
    if (kind === 'postgres') {
      database = await createTestDatabase('postgres');
      env.DATABASE_URL = database.url!;
    }
    env.DICOM_PORT = String(await freePort());
  });
  /** The series' instances in the index (the platform stopped): SOP Instance UID → file key and row count. */
  const readIndex = async () => {
    const db = kind === 'postgres' ? await database!.open() : await openDb({ dataDir });
    try {
      const { rows } = await db.query<{ sop_instance_uid: string; file_key: string; n: number }>(
        `SELECT sop_instance_uid, min(file_key) AS file_key, count(*)::int AS n FROM dicom_instance
          WHERE sop_instance_uid LIKE $1 GROUP BY sop_instance_uid`,
        [`${UID_ROOT}.%`],
      );
      return new Map(rows.map((r) => [r.sop_instance_uid, r]));
    } finally {
      await db.close();
    }
  };

  afterAll(async () => {
    await running?.stop('SIGKILL');
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('every acknowledged instance is indexed and readable after a restart', async () => {
    const series = syntheticSeries({ uidRoot: UID_ROOT, count: COUNT, rows: 256, columns: 256 });
    const dir = path.join(dataDir, 'outgoing');
    fs.mkdirSync(dir);
    const files = series.instances.map((instance, i) => {
      const file = path.join(dir, `${String(i + 1).padStart(4, '0')}.dcm`);
      fs.writeFileSync(file, instance.bytes);
      return file;
    });
    const uidOf = new Map(files.map((file, i) => [file, series.instances[i].sopInstanceUid]));
    const port = Number(env.DICOM_PORT);

    running = await startPlatformProcess({ dataDir, env });
    expect(running.output()).toMatch(/dicom listener ready/);
    const first = running;
    // Killed as soon as a fifth of the series is acknowledged, with the rest in flight.
    let killed = false;
    const sent = await storescu(port, files, (n) => {
      if (n >= COUNT / 5 && !killed) {
        killed = true;
        first.proc.kill('SIGKILL');
      }
    });
    await first.stop('SIGKILL');
    expect(sent.acknowledged.length).toBeGreaterThanOrEqual(COUNT / 5);
    expect(sent.code).not.toBe(0);

    // Restarted on the same data, then stopped so the index can be read directly.
    running = await startPlatformProcess({ dataDir, env });
    expect((await running.stop('SIGTERM')).code).toBe(0);
    const indexed = await readIndex();
    for (const file of sent.acknowledged) {
      const row = indexed.get(uidOf.get(file)!);
      expect({ file, indexed: Boolean(row) }).toEqual({ file, indexed: true });
      const header = await readDicomHeader(path.join(dataDir, 'files', row!.file_key));
      expect(header.sopInstanceUid).toBe(uidOf.get(file));
    }
    expect([...indexed.values()].every((r) => r.n === 1)).toBe(true);

    // The platform takes the whole series again: what it has is acknowledged, not stored twice.
    running = await startPlatformProcess({ dataDir, env });
    const again = await storescu(port, files);
    expect({ code: again.code, acknowledged: again.acknowledged.length }).toEqual({ code: 0, acknowledged: COUNT });
    expect((await running.stop('SIGTERM')).code).toBe(0);
    running = undefined;
    const all = await readIndex();
    expect(all.size).toBe(COUNT);
    expect([...all.values()].every((r) => r.n === 1)).toBe(true);
  }, 240_000);
});
