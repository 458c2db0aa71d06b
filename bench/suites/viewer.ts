/**
 * Issue #7, the diagnostic viewer in headless Chromium on loopback (playwright-core,
 * Debian's /usr/bin/chromium as the browser tests use), on a 300-slice synthetic CT
 * (512x512, 16-bit, mock/dicom.ts) stored for hospital A in an in-process platform
 * serving the built UI. Each round opens a new tab, as the viewer opens in its own
 * window by default (the browser's cache keeps the viewer's code, as for a returning
 * user: one round more than asked warms it; the images and their metadata are never
 * cacheable, which each round checks):
 * - the viewer: /viewer?studies=<uid> opened as the radiologist. Timed from the moment
 *   the viewer asks for the first series' WADO-RS metadata and its first image (User
 *   Timing mark viewer:open: the page has the server's answer on what to show, in the
 *   same task) to
 *   the first image drawn on the viewport's canvas (viewer:first-image: Cornerstone's
 *   IMAGE_RENDERED) and to every image of the series fetched and decoded
 *   (viewer:series-loaded). What the page does before (its code, the API call, the
 *   screen, Cornerstone and the viewport starting while the API answers) is in the first
 *   image from navigation start, also printed, with when the controls (toolbar, panels,
 *   drawn after the first image) are up and whether the images were drawn by the GPU or
 *   the CPU (headless Chromium's WebGL has no GPU: the viewer draws on the CPU there);
 * - the limit, in the same tab right after, timed from its own start the same way: the
 *   same WADO-RS metadata and frames, fetched with plain fetch() (same Accept, no-store):
 *   the metadata, then the first frame alone (the first image's limit: the least time
 *   the network and the server need for it), then the other frames 6 at a time, as
 *   many as the browser sends per host (the whole series' limit).
 * Ratios viewer/limit; goal: first image under 1.5x the limit. The viewer is told the
 * instance a series opens on with the studies (POST study/viewer), so its first image
 * does not wait for the series' metadata, which the limit reads first: also printed,
 * for comparison, plain fetch() of that instance's metadata and frame side by side (the
 * least a client that knows the instance needs). BENCH_VIEWER_SLICES
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
import { authed, login } from '../../tests/support/auth';
import { median, type BenchContext } from '../lib';

export const name = 'viewer';

const SLICES = Number(process.env.BENCH_VIEWER_SLICES || 300);
const FRAME_ACCEPT = 'multipart/related; type=application/octet-stream; transfer-syntax=*';

/**
 * The limit, run in the page (as source text: the bench's compiler would wrap named
 * functions in a helper the page does not have): metadata, the first frame alone, then
 * the other frames of the series with 6 requests in flight.
 */
const PLAIN_FETCH = `async ({ studyUid, seriesUid, token, accept }) => {
  const headers = { 'X-Auth-Token': token };
  const root = location.origin + '/dicom-web/studies/' + studyUid + '/series/' + seriesUid;
  const frame = async (uid) => (await fetch(root + '/instances/' + uid + '/frames/1', { headers: { ...headers, Accept: accept }, cache: 'no-store' })).arrayBuffer();
  const t0 = performance.now();
  const meta = await (await fetch(root + '/metadata', { headers: { ...headers, Accept: 'application/dicom+json' }, cache: 'no-store' })).json();
  const uids = meta
    .map((m) => ({ uid: String(m['00080018'].Value[0]), n: Number((m['00200013'] && m['00200013'].Value && m['00200013'].Value[0]) || 0) }))
    .sort((a, b) => a.n - b.n)
    .map((m) => m.uid);
  const metadata = performance.now() - t0;
  await frame(uids[0]);
  const first = performance.now() - t0;
  let next = 1;
  const pull = async () => {
    while (next < uids.length) await frame(uids[next++]);
  };
  await Promise.all(Array.from({ length: 6 }, pull));
  return { metadata, first, all: performance.now() - t0 };
}`;

/** The first instance's metadata and frame side by side, when the client knows the instance (run in the page, as PLAIN_FETCH). */
const KNOWN_FIRST = `async ({ studyUid, seriesUid, uid, token, accept }) => {
  const headers = { 'X-Auth-Token': token };
  const root = location.origin + '/dicom-web/studies/' + studyUid + '/series/' + seriesUid + '/instances/' + uid;
  const t0 = performance.now();
  await Promise.all([
    fetch(root + '/metadata', { headers: { ...headers, Accept: 'application/dicom+json' }, cache: 'no-store' }).then((r) => r.json()),
    fetch(root + '/frames/1', { headers: { ...headers, Accept: accept }, cache: 'no-store' }).then((r) => r.arrayBuffer()),
  ]);
  return performance.now() - t0;
}`;

/** Resource entries of the viewer's metadata and frames that did not come over the network (none may). */
const CACHED = `performance.getEntriesByType('resource').filter((e) => /\\/dicom-web\\/.*\\/(metadata|frames\\/\\d+)$/.test(e.name) && e.transferSize === 0).length`;

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
    // The instance the viewer opens the series on, as the server names it to the viewer.
    const opened = await server.inject({ method: 'POST', url: '/api/pacs/v1/study/viewer', headers: authed(token), payload: { studyUids: [series.studyUid] } });
    const firstUid = opened.json().data?.list?.[0]?.series?.[0]?.firstInstanceUid as string | undefined;
    if (!firstUid) throw new Error(`study/viewer named no first instance: ${opened.body}`);

    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    await context.addInitScript(([key, value]) => localStorage.setItem(key, value), [app.tokenStorageKey, token] as const);
    // Room for every frame's resource entry (the default keeps 250), so that the cache check below sees them all.
    await context.addInitScript((size) => performance.setResourceTimingBufferSize(size), 2 * SLICES + 100);
    let render = '';
    const figures = { first: [] as number[], all: [] as number[], nav: [] as number[], limitMetadata: [] as number[], limitFirst: [] as number[], limitAll: [] as number[], known: [] as number[], metadata: [] as number[], decoded: [] as number[], controls: [] as number[] };
    // One round more than asked: the first warms Chromium's caches of the viewer's code.
    for (let r = 0; r <= ctx.rounds; r++) {
      const page = await context.newPage();
      await page.goto(`${base}/viewer?studies=${series.studyUid}`);
      // Polled on a timer: the default polls in every animation frame, on the page's main thread while the viewer is timed.
      await page.waitForFunction(() => performance.getEntriesByName('viewer:series-loaded').length > 0, undefined, { timeout: 300_000, polling: 100 });
      await page.waitForFunction(() => performance.getEntriesByName('viewer:controls').length > 0, undefined, { polling: 100 });
      const marks = (await page.evaluate(`Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]))`)) as Record<string, number>;
      render = (await page.evaluate(`performance.getEntriesByName('viewer:open')[0].detail?.render`)) as string;
      const cached = (await page.evaluate(CACHED)) as number;
      if (cached) throw new Error(`the viewer got ${cached} DICOMweb answers from the browser's cache: the figures would not be a first load`);
      const limit = (await page.evaluate(`(${PLAIN_FETCH})(${JSON.stringify({ studyUid: series.studyUid, seriesUid: series.seriesUid, token, accept: FRAME_ACCEPT })})`)) as {
        metadata: number;
        first: number;
        all: number;
      };
      const known = (await page.evaluate(`(${KNOWN_FIRST})(${JSON.stringify({ studyUid: series.studyUid, seriesUid: series.seriesUid, uid: firstUid, token, accept: FRAME_ACCEPT })})`)) as number;
      await page.close();
      if (r === 0) continue;
      figures.known.push(known);
      const open = marks['viewer:open'];
      figures.first.push(marks['viewer:first-image'] - open);
      figures.all.push(marks['viewer:series-loaded'] - open);
      figures.nav.push(marks['viewer:first-image']);
      figures.metadata.push(marks['viewer:metadata'] - open);
      figures.decoded.push(marks['viewer:first-decoded'] - open);
      figures.controls.push(marks['viewer:controls'] - open);
      figures.limitMetadata.push(limit.metadata);
      figures.limitFirst.push(limit.first);
      figures.limitAll.push(limit.all);
    }
    await context.close();
    const [first, all, nav, limitMetadata, limitFirst, limitAll, metadata, decoded, controls, known] = [
      figures.first,
      figures.all,
      figures.nav,
      figures.limitMetadata,
      figures.limitFirst,
      figures.limitAll,
      figures.metadata,
      figures.decoded,
      figures.controls,
      figures.known,
    ].map(median);
    const what = `${SLICES}-slice CT 512x512`;
    ctx.report({ bench: `viewer first image ms (${what}, from the viewer opening: its first instance's metadata and frame, decode, draw; drawn by the ${render.toUpperCase()})`, value: round(first), reference: round(limitFirst), ratio: round(first / limitFirst, 2), goal: '< 1.5' });
    ctx.report({ bench: `viewer whole series loaded ms (${what}, fetched and decoded)`, value: round(all), reference: round(limitAll), ratio: round(all / limitAll, 2) });
    ctx.report({ bench: `viewer first image ms from navigation start (${what}: page, viewer chunk, start-up, API, image)`, value: round(nav), reference: round(limitFirst), ratio: round(nav / limitFirst, 2) });
    ctx.report({ bench: `viewer first image ms against plain fetch() of its instance's metadata and frame side by side (the instance known, as the viewer is told it)`, value: round(first), reference: round(known), ratio: round(first / known, 2) });
    ctx.report({ bench: `plain fetch() of the same metadata and frames (reference), ms: metadata read / first frame / all ${SLICES}`, value: `${round(limitMetadata)} / ${round(limitFirst)} / ${round(limitAll)}` });
    // Where the viewer's first image goes: metadata read (the page's main thread free to parse it), first frame decoded, drawn; then the controls.
    ctx.report({ bench: `viewer, ms from opening: metadata read / first frame decoded / first image drawn / controls up`, value: `${round(metadata)} / ${round(decoded)} / ${round(first)} / ${round(controls)}` });
  } finally {
    await browser.close();
    await server.close();
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
