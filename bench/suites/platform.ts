/**
 * Issue "platform foundation":
 * - GET /api/health throughput vs a bare Fastify route (autocannon, 100 connections); goal ratio >= 0.8
 * - time from `npm start` on an existing build (and existing PGlite database) to the first 200 from
 *   /api/health vs the time a bare Fastify process takes to answer; goal under 3 s
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load, median, root, startChild, waitFor, type BenchContext } from '../lib';

export const name = 'platform';

export async function run(ctx: BenchContext) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-bench-'));
  const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
  try {
    // Throughput: both servers up at once, measured alternately so noise hits both.
    const platform = await startChild(process.execPath, [path.join(root, 'scripts', 'start.mjs')], { DATA_DIR: dataDir, LOG_LEVEL: 'warn', SKIP_UI_BUILD: 'true' });
    const bare = await startChild(tsx, [path.join(root, 'bench', 'bare-server.ts')], {});
    await waitFor(`http://127.0.0.1:${platform.port}/api/health`);
    await waitFor(`http://127.0.0.1:${bare.port}/hello`);
    const health: number[] = [];
    const hello: number[] = [];
    let failures = 0;
    for (let i = 0; i < ctx.rounds; i++) {
      const b = await load(`http://127.0.0.1:${bare.port}/hello`, { connections: 100, seconds: ctx.seconds });
      const h = await load(`http://127.0.0.1:${platform.port}/api/health`, { connections: 100, seconds: ctx.seconds });
      hello.push(b.rps);
      health.push(h.rps);
      failures += h.errors + h.non2xx;
    }
    await platform.stop();
    await bare.stop();
    ctx.report({ bench: 'GET /api/health req/s (100 conn)', value: Math.round(median(health)), reference: Math.round(median(hello)), ratio: +(median(health) / median(hello)).toFixed(2), goal: '>= 0.8', failures });

    // Start-up: the database and the build exist now (the first start above made them).
    const starts: number[] = [];
    const bareStarts: number[] = [];
    for (let i = 0; i < ctx.rounds; i++) {
      const t0 = Date.now();
      const p = await startChild('npm', ['start', '--silent'], { DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
      await waitFor(`http://127.0.0.1:${p.port}/api/health`);
      starts.push(Date.now() - t0);
      await p.stop();
      const t1 = Date.now();
      const b = await startChild(tsx, [path.join(root, 'bench', 'bare-server.ts')], {});
      await waitFor(`http://127.0.0.1:${b.port}/hello`);
      bareStarts.push(Date.now() - t1);
      await b.stop();
    }
    ctx.report({ bench: 'npm start -> first 200 /api/health (ms, PGlite)', value: median(starts), reference: median(bareStarts), ratio: +(median(starts) / median(bareStarts)).toFixed(2), goal: '< 3000 ms' });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
