/**
 * Benchmark helpers. Benchmarks are not tests: they print figures and ratios
 * against a reference measured in the same run (machines are shared and noisy),
 * using the median of several rounds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../tests/support/server';

export const root = path.resolve(__dirname, '..');

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export interface LoadResult {
  rps: number;
  p99ms: number;
  errors: number;
  non2xx: number;
}

export async function load(url: string, opts: { connections: number; seconds: number; headers?: Record<string, string>; method?: string; body?: string }): Promise<LoadResult> {
  const r = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    headers: opts.headers,
    method: (opts.method ?? 'GET') as 'GET',
    body: opts.body,
  });
  return { rps: r.requests.average, p99ms: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
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
  stop(): Promise<void>;
}

export async function startChild(cmd: string, args: string[], env: Record<string, string>, port?: number): Promise<Child> {
  const p = port ?? (await freePort());
  const proc = spawn(cmd, args, { cwd: root, env: { ...process.env, PORT: String(p), HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    proc,
    port: p,
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

export interface BenchContext {
  rounds: number;
  seconds: number;
  report(line: Record<string, string | number>): void;
}
