/**
 * Issue #16, a small hospital on the embedded database (PGlite, no DATABASE_URL): the
 * demo region plus REPORTS examined exams with their reports (the report suite's
 * seedReports, in this process, then closed), served by the platform as `npm start`
 * runs it (a child process on that folder) next to a bare Fastify route. Per round:
 * - the bare route under POLLERS connections (the reference);
 * - the notice call alone under POLLERS connections (what the polling costs by itself);
 * - GET /api/report/v1/notice?model=report under POLLERS connections (hospital A's
 *   radiologist) while WRITERS radiologists of hospital A each write their own
 *   unwritten reports (lock → save → submit) all the time: notice p99 (goal under
 *   500 ms) and errors (timeouts after TIMEOUT_S, non-2xx; goal 0), and the reports
 *   written per second with the writers' failures.
 * Children run in process groups of their own and are stopped as groups; the folder is
 * removed afterwards.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_PASSWORD } from '../../mock/identity';
import { loadConfig } from '../../server/config';
import { preparePlatform } from '../../server/start';
import { freePort } from '../../tests/support/server';
import { load, median, root, waitFor, type BenchContext } from '../lib';
import { seedReports } from './report';

export const name = 'embedded';

const REPORTS = 20_000;
const POLLERS = 200;
const WRITERS = 10;
/** A poll not answered in this long counts as an error (a page's poll gives up). */
const TIMEOUT_S = 5;

/** A child in a process group of its own, stopped with everything it started. */
async function groupChild(args: string[], env: Record<string, string>) {
  const port = await freePort();
  const proc = spawn(process.execPath, args, { cwd: root, detached: true, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    port,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) process.kill(-proc.pid!, 'SIGTERM');
      await exited;
    },
  };
}

const round = (v: number, digits = 1) => +v.toFixed(digits);

export async function run(ctx: BenchContext) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-bench-embedded-'));
  let platform: Awaited<ReturnType<typeof groupChild>> | undefined;
  let bare: Awaited<ReturnType<typeof groupChild>> | undefined;
  try {
    // The data, in this process; the folder then belongs to the platform child alone.
    const t0 = performance.now();
    const config = loadConfig({ DATA_DIR: dataDir, DIST_DIR: path.join(dataDir, 'no-dist'), LOG_LEVEL: 'warn' });
    const seeded = await preparePlatform(config, { logger: false });
    const { firstId, orgs } = await seedReports(seeded.db, { reports: REPORTS, writers: WRITERS });
    const pool = (
      await seeded.db.query<{ id: number }>(`SELECT id FROM exam WHERE id >= $1 AND hospital_id = $2 AND report_state = -1 AND NOT sent_to_superior ORDER BY id`, [firstId, orgs.HOSP_A])
    ).rows.map((r) => r.id);
    await seeded.app.close();
    await seeded.db.close();
    ctx.report({ bench: `PGlite: demo region + ${REPORTS} exams and reports, seeded, s`, value: round((performance.now() - t0) / 1000) });

    const tsx = path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    platform = await groupChild([path.join(root, 'scripts', 'start.mjs')], { DATA_DIR: dataDir, DICOM_PORT: '0', LOG_LEVEL: 'warn', SKIP_UI_BUILD: 'true' });
    bare = await groupChild([tsx, path.join(root, 'bench', 'bare-server.ts')], {});
    const base = `http://127.0.0.1:${platform.port}`;
    await waitFor(`${base}/api/health`);
    await waitFor(`http://127.0.0.1:${bare.port}/hello`);

    const login = async (mobile: string) => {
      const body = `loginType=password&mobile=${mobile}&password=${encodeURIComponent(Buffer.from(DEMO_PASSWORD).toString('base64'))}`;
      const r = await fetch(`${base}/api/uaa/v1/login`, { method: 'POST', headers: { 'X-App-Id': 'rcloud-doctor', 'Content-Type': 'application/x-www-form-urlencoded' }, body });
      const json = await r.json();
      if (json.status !== '0') throw new Error(`login ${mobile}: ${JSON.stringify(json)}`);
      return json.data.token as string;
    };
    const radiologist = { 'X-App-Id': 'rcloud-doctor', 'X-Auth-Token': await login('13800000004') };
    const writers = await Promise.all(Array.from({ length: WRITERS }, (_, w) => login(`1370000${String(w + 1).padStart(4, '0')}`)));

    let next = 0;
    let written = 0;
    let writeFailures = 0;
    const call = async (token: string, url: string, body: object) => {
      const r = await fetch(url, { method: 'POST', headers: { 'X-App-Id': 'rcloud-doctor', 'X-Auth-Token': token, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      const json = await r.json();
      if (r.status !== 200 || json.status !== '0') {
        if (writeFailures++ < 3) console.log(`${url}: ${r.status} ${JSON.stringify(json).slice(0, 200)}`);
        return undefined;
      }
      return json.data as { version: number };
    };
    const R = `${base}/api/report/v1/report`;
    const content = { see: '双肺纹理增多，右下肺见小片状模糊影。心影不大，双膈面光整。', diagnosis: '右下肺炎症，建议治疗后复查。', positive: true };
    /** Each writer writes the next unwritten report of the pool until `until`. */
    const write = async (token: string, until: number) => {
      while (performance.now() < until && next < pool.length) {
        const id = pool[next++];
        const lock = await call(token, `${R}/lock/${id}`, {});
        const save = lock && (await call(token, `${R}/save/${id}`, { version: lock.version, ...content }));
        if (save && (await call(token, `${R}/submit/${id}`, { version: save.version }))) written++;
      }
    };

    const counts = (await (await fetch(`${base}/api/report/v1/notice?model=report`, { headers: radiologist })).json()).data as Record<string, number>;
    const bareRps: number[] = [];
    const bareP99: number[] = [];
    const aloneRps: number[] = [];
    const aloneP99: number[] = [];
    let aloneErrors = 0;
    let aloneTimeouts = 0;
    const noticeRps: number[] = [];
    const noticeP99: number[] = [];
    const writesPerSecond: number[] = [];
    let noticeErrors = 0;
    let noticeTimeouts = 0;
    const statuses = new Set<string>();
    for (let i = 0; i < ctx.rounds; i++) {
      const b = await load(`http://127.0.0.1:${bare.port}/hello`, { connections: POLLERS, seconds: ctx.seconds, timeout: TIMEOUT_S });
      bareRps.push(b.rps);
      bareP99.push(b.p99ms);
      const alone = await load(`${base}/api/report/v1/notice?model=report`, { connections: POLLERS, seconds: ctx.seconds, headers: radiologist, timeout: TIMEOUT_S });
      aloneRps.push(alone.rps);
      aloneP99.push(alone.p99ms);
      aloneErrors += alone.errors + alone.non2xx;
      aloneTimeouts += alone.timeouts;
      if (alone.statuses) statuses.add(alone.statuses);
      const before = written;
      const started = performance.now();
      const until = started + ctx.seconds * 1000;
      const [n] = await Promise.all([
        load(`${base}/api/report/v1/notice?model=report`, { connections: POLLERS, seconds: ctx.seconds, headers: radiologist, timeout: TIMEOUT_S }),
        ...writers.map((token) => write(token, until)),
      ]);
      writesPerSecond.push((written - before) / ((performance.now() - started) / 1000));
      noticeRps.push(n.rps);
      noticeP99.push(n.p99ms);
      noticeErrors += n.errors + n.non2xx;
      noticeTimeouts += n.timeouts;
      if (n.statuses) statuses.add(n.statuses);
    }
    const found = Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ');
    ctx.report({ bench: `PGlite: bare route req/s and p99 ms (${POLLERS} conn, reference)`, value: Math.round(median(bareRps)), p99: round(median(bareP99)) });
    ctx.report({ bench: `PGlite: GET notice?model=report p99 ms, ${POLLERS} polling conn, no writers`, value: round(median(aloneP99)), errors: aloneErrors, timeouts: aloneTimeouts, rps: Math.round(median(aloneRps)), reference: round(median(bareP99)), ratio: round(median(aloneP99) / Math.max(1, median(bareP99))) });
    ctx.report({
      bench: `PGlite: GET notice?model=report p99 ms, ${POLLERS} polling conn with ${WRITERS} writers saving reports (hospital A's radiologist: ${found})`,
      value: round(median(noticeP99)),
      goal: '< 500',
      errors: noticeErrors,
      errorsGoal: 0,
      timeouts: noticeTimeouts,
      // What the non-2xx answers were, if any (errors minus timeouts are refused connections).
      ...(statuses.size ? { statuses: [...statuses].join('; ') } : {}),
      rps: Math.round(median(noticeRps)),
      reference: round(median(bareP99)),
      ratio: round(median(noticeP99) / Math.max(1, median(bareP99))),
      reportsWrittenPerSecond: round(median(writesPerSecond)),
      writeFailures,
    });
  } finally {
    await bare?.stop();
    await platform?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
