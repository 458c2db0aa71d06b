/**
 * Issue "identity and access": throughput of POST /api/uaa/v1/login (scrypt on every
 * call, by design) and of GET /api/uaa/v1/user/info (one session query) against a
 * bare Fastify route in the same run, on the embedded database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_PASSWORD } from '../../mock/identity';
import { load, median, root, startChild, waitFor, type BenchContext } from '../lib';

export const name = 'identity';

export async function run(ctx: BenchContext) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-bench-'));
  const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
  const platform = await startChild(process.execPath, [path.join(root, 'scripts', 'start.mjs')], { DATA_DIR: dataDir, LOG_LEVEL: 'warn', SKIP_UI_BUILD: 'true' });
  const bare = await startChild(tsx, [path.join(root, 'bench', 'bare-server.ts')], {});
  try {
    const base = `http://127.0.0.1:${platform.port}`;
    await waitFor(`${base}/api/health`);
    await waitFor(`http://127.0.0.1:${bare.port}/hello`);
    const form = `loginType=password&mobile=13800000002&password=${encodeURIComponent(Buffer.from(DEMO_PASSWORD).toString('base64'))}`;
    const headers = { 'X-App-Id': 'rcloud-doctor', 'Content-Type': 'application/x-www-form-urlencoded' };
    const first = await (await fetch(`${base}/api/uaa/v1/login`, { method: 'POST', headers, body: form })).json();
    const token = first.data.token as string;
    const loginRps: number[] = [];
    const infoRps: number[] = [];
    const bareRps: number[] = [];
    let failures = 0;
    for (let i = 0; i < ctx.rounds; i++) {
      bareRps.push((await load(`http://127.0.0.1:${bare.port}/hello`, { connections: 100, seconds: ctx.seconds })).rps);
      const l = await load(`${base}/api/uaa/v1/login`, { connections: 20, seconds: ctx.seconds, method: 'POST', headers, body: form });
      const u = await load(`${base}/api/uaa/v1/user/info`, { connections: 100, seconds: ctx.seconds, headers: { 'X-App-Id': 'rcloud-doctor', 'X-Auth-Token': token } });
      loginRps.push(l.rps);
      infoRps.push(u.rps);
      failures += l.errors + l.non2xx + u.errors + u.non2xx;
    }
    const ref = median(bareRps);
    ctx.report({ bench: 'POST /api/uaa/v1/login req/s (20 conn, scrypt N=16384)', value: Math.round(median(loginRps)), reference: Math.round(ref), ratio: +(median(loginRps) / ref).toFixed(3), failures });
    ctx.report({ bench: 'GET /api/uaa/v1/user/info req/s (100 conn)', value: Math.round(median(infoRps)), reference: Math.round(ref), ratio: +(median(infoRps) / ref).toFixed(2), failures });
  } finally {
    await platform.stop();
    await bare.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
