/**
 * Starts the platform the way `npm start` does (node scripts/start.mjs) in a child
 * process on a free port with its own DATA_DIR, for process and browser tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { keepOnFailure } from './failures';

const root = path.resolve(__dirname, '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface RunningPlatform {
  url: string;
  port: number;
  dataDir: string;
  proc: ChildProcess;
  output(): string;
  /** Sends the signal and resolves with the exit code and how long the exit took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

export function makeDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-e2e-'));
}

export async function startPlatformProcess(opts: { dataDir?: string; env?: Record<string, string> } = {}): Promise<RunningPlatform> {
  const port = await freePort();
  const dataDir = opts.dataDir ?? makeDataDir();
  // A DICOM port of its own too: test processes run side by side. No session limit: the
  // tests log the same demo users in on many pages (tests/api/login.test.ts tests the limit).
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DICOM_PORT: String(await freePort()), SESSION_MAX_PER_USER: '0', ...opts.env };
  if (!opts.env?.DATABASE_URL) delete env.DATABASE_URL;
  const proc = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  // Kept for the rest of the test file, stopped or not: a failure after a restart wants the log before it too.
  keepOnFailure({ keep: async (dir) => fs.writeFileSync(path.join(dir, `server-${path.basename(dataDir)}.log`), out) });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`platform exited during start (${proc.exitCode}):\n${out}`);
    try {
      const r = await fetch(`${url}/api/health`);
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`platform did not answer /api/health in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    dataDir,
    proc,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode !== null) return { code: proc.exitCode, ms: 0 };
      const started = Date.now();
      proc.kill(signal);
      const code = await exited;
      return { code, ms: Date.now() - started };
    },
  };
}
