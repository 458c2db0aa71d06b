/**
 * Benchmark helpers. Benchmarks are not tests: they print figures and ratios
 * against a reference measured in the same run (machines are shared and noisy),
 * using the median of several rounds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import { Client } from 'pg';
import { loadConfig } from '../server/config';
import type { Db } from '../server/db';
import { preparePlatform } from '../server/start';
import { freePort } from '../tests/support/server';

export const root = path.resolve(__dirname, '..');

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** Mean latency in ms of sequential calls over `seconds` (after a short warm-up). */
export async function meanMs(seconds: number, call: () => Promise<void>): Promise<number> {
  for (let i = 0; i < 10; i++) await call();
  const until = performance.now() + seconds * 1000;
  let n = 0;
  const started = performance.now();
  while (performance.now() < until) {
    await call();
    n += 1;
  }
  return (performance.now() - started) / n;
}

export interface LoadResult {
  rps: number;
  p99ms: number;
  /** Requests without an answer: timeouts (also counted apart below) and connection errors. */
  errors: number;
  timeouts: number;
  non2xx: number;
  /** Count per status code other than 2xx ("503: 4"), for the report of what failed. */
  statuses: string;
}

/** `timeout`: seconds before a request counts as an error (autocannon's default 10). */
export async function load(url: string, opts: { connections: number; seconds: number; headers?: Record<string, string>; method?: string; body?: string; timeout?: number }): Promise<LoadResult> {
  const r = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    headers: opts.headers,
    method: (opts.method ?? 'GET') as 'GET',
    body: opts.body,
    ...(opts.timeout ? { timeout: opts.timeout } : {}),
  });
  // autocannon counts a timeout in `errors` too: adding `timeouts` counted each twice.
  const statuses = Object.entries(r.statusCodeStats ?? {})
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, { count }]) => `${code}: ${count}`)
    .join(', ');
  return { rps: r.requests.average, p99ms: r.latency.p99, errors: r.errors, timeouts: r.timeouts, non2xx: r.non2xx, statuses };
}

export async function waitFor(url: string, timeoutMs = 120_000, intervalMs = 20): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.status === 200) return Date.now() - started;
    } catch {
      /* not up yet */
    }
    if (Date.now() - started > timeoutMs) throw new Error(`${url} did not answer in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface Child {
  proc: ChildProcess;
  port: number;
  /** Stops the child's whole process group (npm and the server it runs, tsx and its node) and waits until none of it is left. */
  stop(): Promise<void>;
}

/** Process groups of the children still running: stopped if the bench itself ends first. */
const running = new Set<number>();
process.once('exit', () => {
  for (const pgid of running) signalGroup(pgid, 'SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.exit(130));
}

/** Sends `signal` to a process group; false when the group is gone. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * A child in a process group of its own, on free ports: PORT, and DICOM_PORT unless
 * `env` names one (the platform's default 11112 would outlive a stopped npm and refuse
 * the next start). Stopping signals the whole group, since `npm start` does not pass a
 * SIGTERM on to the server it runs.
 */
export async function startChild(cmd: string, args: string[], env: Record<string, string>, port?: number): Promise<Child> {
  const p = port ?? (await freePort());
  const dicomPort = String(await freePort());
  const proc = spawn(cmd, args, {
    cwd: root,
    env: { ...process.env, PORT: String(p), HOST: '127.0.0.1', DICOM_PORT: dicomPort, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const pgid = proc.pid!;
  running.add(pgid);
  return {
    proc,
    port: p,
    async stop() {
      // The server stops within SHUTDOWN_TIMEOUT_MS (4.5 s); after 10 s whatever is left is killed.
      signalGroup(pgid, 'SIGTERM');
      const deadline = Date.now() + 10_000;
      while (signalGroup(pgid, 0)) {
        if (Date.now() > deadline) signalGroup(pgid, 'SIGKILL');
        await new Promise((r) => setTimeout(r, 50));
      }
      running.delete(pgid);
    },
  };
}

export interface BenchContext {
  rounds: number;
  seconds: number;
  report(line: Record<string, string | number>): void;
}

export interface BenchDatabase {
  /** Connection string of the fresh database. */
  url: string;
  /** The platform in this process on it (migrated, demo region seeded), and its files' folder. */
  app: FastifyInstance;
  db: Db;
  dataDir: string;
  /** Closes the platform, drops the database and removes the folder. */
  drop(): Promise<void>;
}

/**
 * A fresh PostgreSQL database of its own for a suite, on the server of
 * BENCH_DATABASE_URL (else TEST_DATABASE_URL), migrated and seeded with the demo region
 * by the platform opened in this process. Without either URL the suite is reported
 * skipped (as `bench`) and undefined comes back.
 */
export async function benchDatabase(ctx: BenchContext, bench: string): Promise<BenchDatabase | undefined> {
  const adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    console.log('skipped: needs PostgreSQL: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a server where it may create a database');
    ctx.report({ bench, skipped: 'no BENCH_DATABASE_URL or TEST_DATABASE_URL' });
    return undefined;
  }
  const dbName = `rcloud_bench_${crypto.randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-bench-'));
  const drop = async (platform?: { app: FastifyInstance; db: Db }) => {
    await platform?.app.close().catch(() => undefined);
    await platform?.db.close().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const config = loadConfig({ DATABASE_URL: url.toString(), DATA_DIR: dataDir, DIST_DIR: path.join(dataDir, 'no-dist'), LOG_LEVEL: 'warn' });
    const platform = await preparePlatform(config, { logger: false });
    return { url: url.toString(), app: platform.app, db: platform.db, dataDir, drop: () => drop(platform) };
  } catch (e) {
    await drop();
    throw e;
  }
}
