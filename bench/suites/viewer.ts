/**
 * Issue #7, the diagnostic viewer in headless Chromium on loopback (playwright-core,
 * Debian's /usr/bin/chromium as the browser tests use), on a 300-slice synthetic CT
 * (512x512, 16-bit, mock/dicom.ts) stored for hospital A in an in-process platform
 * serving the built UI:
 * - the viewer: /viewer?studies=<uid> opened as the radiologist; from the moment the
 *   viewer opens on the studies (User Timing mark viewer:open: the page knows what to
 *   show) to the first image drawn (viewer:first-image) and to every image of the
 *   series fetched and decoded (viewer:series-loaded); also the first image from
 *   navigation start (page, chunks and the API call too);
 * - the limit, in the same page right after: the same WADO-RS metadata and frames
 *   fetched with plain fetch() (no-store, 6 at a time as the browser allows per host):
 *   the first frame, and all 300.
 * Ratios viewer/limit; goal: first image under 1.5x the limit. BENCH_VIEWER_SLICES
 * shrinks the series for a quick try (the labels say what was used); DIST_DIR serves
 * another build.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import app from '../../config/app.json';
import { syntheticSeries } from '../../mock/dicom';
import { openDb } from '../../server/db';
import { loadConfig } from '../../server/config';
import { preparePlatform } from '../../server/start';
import { login } from '../../tests/support/auth';
import { median, type BenchContext } from '../lib';

export const name = 'viewer';

const SLICES = Number(process.env.BENCH_VIEWER_SLICES || 300);
const FRAME_ACCEPT = 'multipart/related; type=application/octet-stream; transfer-syntax=*';

/**
 * The limit, run in the page (as source text: the bench's compiler would wrap named
 * functions in a helper the page does not have): metadata, then every frame of the
 * series with 6 requests in flight, first frame first.
 */
const PLAIN_FETCH = `async ({ studyUid, seriesUid, token, accept }) => {
  const headers = { 'X-Auth-Token': token };
  const root = location.origin + '/dicom-web/studies/' + studyUid + '/series/' + seriesUid;
  const t0 = performance.now();
  const meta = await (await fetch(root + '/metadata', { headers: { ...headers, Accept: 'application/dicom+json' }, cache: 'no-store' })).json();
  const uids = meta
    .map((m) => ({ uid: String(m['00080018'].Value[0]), n: Number((m['00200013'] && m['00200013'].Value && m['00200013'].Value[0]) || 0) }))
    .sort((a, b) => a.n - b.n)
    .map((m) => m.uid);
  let first = 0;
  let next = 0;
  const pull = async () => {
    while (next < uids.length) {
      const k = next++;
      const res = await fetch(root + '/instances/' + uids[k] + '/frames/1', { headers: { ...headers, Accept: accept }, cache: 'no-store' });
      await res.arrayBuffer();
      if (k === 0) first = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: 6 }, pull));
  return { first, all: performance.now() - t0 };
}`;

const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

export async function run(ctx: BenchContext): Promise<void> {
  if (!process.env.DIST_DIR) {
    const { ensureUiBuild } = await import('../../scripts/ui-build.mjs');
    ensureUiBuild();
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-bench-viewer-'));
  const db = await openDb({});
  const { app: server } = await preparePlatform(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', DIST_DIR: process.env.DIST_DIR }), { db, logger: false });
  await server.listen({ port: 0, host: '127.0.0.1' });
  const address = server.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const device = (await db.query<{ id: number; hospital_id: number }>("SELECT id, hospital_id FROM device WHERE ae_title = 'A_CT1'")).rows[0];
    const series = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.77', count: SLICES, rows: 512, columns: 512, patientId: 'BENCHV1', accessionNumber: 'BENCHV1' });
    for (const inst of series.instances) await server.archive.storeBuffer(inst.bytes, { hospitalId: device.hospital_id, deviceId: device.id, sender: 'A_CT1' });
    const token = await login(server, '13800000004');

    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    await context.addInitScript(([key, value]) => localStorage.setItem(key, value), [app.tokenStorageKey, token] as const);
    const page = await context.newPage();
    const figures = { first: [] as number[], all: [] as number[], nav: [] as number[], limitFirst: [] as number[], limitAll: [] as number[], metadata: [] as number[], decoded: [] as number[] };
    // One round more than asked: the first warms Chromium's caches of the viewer's code.
    for (let r = 0; r <= ctx.rounds; r++) {
      await page.goto(`${base}/viewer?studies=${series.studyUid}`);
      await page.waitForFunction(() => performance.getEntriesByName('viewer:series-loaded').length > 0, undefined, { timeout: 300_000 });
      const marks = (await page.evaluate(`Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]))`)) as Record<string, number>;
      const limit = (await page.evaluate(`(${PLAIN_FETCH})(${JSON.stringify({ studyUid: series.studyUid, seriesUid: series.seriesUid, token, accept: FRAME_ACCEPT })})`)) as {
        first: number;
        all: number;
      };
      if (r === 0) continue;
      figures.first.push(marks['viewer:first-image'] - marks['viewer:open']);
      figures.all.push(marks['viewer:series-loaded'] - marks['viewer:open']);
      figures.nav.push(marks['viewer:first-image']);
      figures.metadata.push(marks['viewer:metadata'] - marks['viewer:open']);
      figures.decoded.push(marks['viewer:first-decoded'] - marks['viewer:open']);
      figures.limitFirst.push(limit.first);
      figures.limitAll.push(limit.all);
    }
    await context.close();
    const [first, all, nav, limitFirst, limitAll, metadata, decoded] = [figures.first, figures.all, figures.nav, figures.limitFirst, figures.limitAll, figures.metadata, figures.decoded].map(median);
    const what = `${SLICES}-slice CT 512x512`;
    ctx.report({ bench: `viewer first image ms (${what}, from the viewer opening: Cornerstone start-up, metadata, frame, decode, draw)`, value: round(first), reference: round(limitFirst), ratio: round(first / limitFirst, 2), goal: '< 1.5' });
    ctx.report({ bench: `viewer whole series loaded ms (${what}, fetched and decoded)`, value: round(all), reference: round(limitAll), ratio: round(all / limitAll, 2) });
    ctx.report({ bench: `viewer first image ms from navigation start (${what}: page, viewer chunk, start-up, API, image)`, value: round(nav), reference: round(limitFirst), ratio: round(nav / limitFirst, 2) });
    ctx.report({ bench: `plain fetch() of the same metadata + frames (reference): first frame ms / all ${SLICES} ms`, value: `${round(limitFirst)} / ${round(limitAll)}` });
    // Where the viewer's first image goes: metadata read (the page's main thread free to parse it), first frame decoded, drawn.
    ctx.report({ bench: `viewer first image, ms from opening: metadata read / first frame decoded / drawn`, value: `${round(metadata)} / ${round(decoded)} / ${round(first)}` });
  } finally {
    await browser.close();
    await server.close();
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
