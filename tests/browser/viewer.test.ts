/**
 * The diagnostic viewer in Chromium (issue #7), as the radiologist of hospital A
 * (13800000004), with a 300-slice synthetic CT (512x512, PixelSpacing 0.7) stored for an
 * exam of hospital A and more studies of the same patient:
 * 1. the login page and the exam list download no Cornerstone code; /viewer does; its
 *    first image, drawn alone before the series' metadata is in, counts all 300 already
 * 2. from the exam list, "view images" opens the viewer (default settings: a new window):
 *    the first image is drawn (the canvas has non-black pixels)
 * 3. the mouse wheel and the arrow keys move the slice shown in the overlay
 * 4. a window preset changes the window values in the overlay and the picture
 * 5. a length measurement reads in mm, as long as PixelSpacing 0.7 makes it; the whole
 *    series loads
 * 6. rotate, flip, invert, reset show in the overlay; cine plays and stops; then
 *    settings → single screen: the viewer opens in the list's own tab
 * 7. 20 open/close cycles leave no live WebGL context and no worker (counted by
 *    wrapping getContext and Worker before the page loads), with the viewer forced to
 *    draw with WebGL (headless Chromium's WebGL has no GPU: the viewer would draw on the
 *    CPU, with no context to leak)
 * 8. comparison from the exam list: 1 and 17 studies are refused with the spec's words,
 *    3 open side by side, scrolling one scrolls them all
 * 9. compressed studies (dcmtk: RLE, JPEG lossless, JPEG-LS, JPEG 12-bit; img2dcm: an
 *    8-bit baseline JPEG) decode with Cornerstone's codecs and are drawn
 * 10. with grade safety on, the overlay shows the masked name and ID, not DICOM's
 * Screenshots: /tmp/viewer-*.png (and tests/.artifacts).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { translate } from '../../locales';
import { syntheticSeries, type SyntheticSeriesOptions } from '../../mock/dicom';
import { encodeJpeg } from '../../server/lib/jpeg';
import { RENDER_OVERRIDE_KEY } from '@/viewer/backend';
import { authed, login } from '../support/auth';
import { openBrowser, startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { clickRowAction, ResourceListPage, settled } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);
/** A string only Cornerstone's code holds (an event name, kept by the minifier). */
const CORNERSTONE_MARK = 'CORNERSTONE_STACK_NEW_IMAGE';
const SLICES = 300;

/** Counts live WebGL contexts and web workers of the page (installed before any page script). */
const LEAK_PROBE = `(() => {
  const contexts = [];
  const getContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
    const ctx = getContext.call(this, type, ...rest);
    if (ctx && /webgl/i.test(String(type)) && !contexts.includes(ctx)) contexts.push(ctx);
    return ctx;
  };
  let created = 0;
  let ended = 0;
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) { super(...args); created += 1; }
    terminate() { if (!this.__ended) { this.__ended = true; ended += 1; } return super.terminate(); }
  };
  window.__viewerProbe = () => ({ webgl: contexts.filter((c) => !c.isContextLost()).length, webglCreated: contexts.length, workers: created - ended, workersCreated: created });
})();`;

/**
 * Every image count the page's viewports have shown (data-total), in order: the series'
 * first image is drawn before its metadata is in, and must count the series already.
 */
const TOTALS_PROBE = `(() => {
  const seen = (window.__viewerTotals = []);
  const note = (el) => el.dataset && el.dataset.testid === 'viewport' && seen.push(el.getAttribute('data-total'));
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes') note(r.target);
      for (const added of r.addedNodes) if (added.querySelectorAll) [added, ...added.querySelectorAll('[data-testid=viewport]')].forEach(note);
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-total'] });
})();`;

type Probe = { webgl: number; webglCreated: number; workers: number; workersCreated: number };

describe('the diagnostic viewer in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let list: ResourceListPage;
  let exam: { id: number; examCode: string };
  let ct: { studyUid: string; seriesUid: string };
  /** The CT's DICOM window as the overlay writes it. */
  let studyWindow: { width: string; center: string };
  const stamp = String(Date.now()).slice(-5);
  const patientId = `VWB${stamp}`;

  const viewport = (page: Page, n = 0) => page.getByTestId('viewport').nth(n);
  const cell = (page: Page, n = 0) => page.getByTestId('viewport-cell').nth(n);
  const overlay = (page: Page, key: string, n = 0) => cell(page, n).getByTestId(`overlay-${key}`);
  const rendered = (page: Page, n = 0) => page.locator('[data-testid=viewport][data-rendered=true]').nth(n).waitFor({ timeout: 60_000 });
  /**
   * The n-th viewport shows its whole series: its first image is drawn alone before the
   * series is known, and scrolling needs the rest, whose loading starts once it is in.
   */
  const wholeSeries = async (page: Page, n = 0) => {
    await rendered(page, n);
    await page.waitForFunction((k) => Number(document.querySelectorAll('[data-testid=viewport]')[k]?.getAttribute('data-loaded')) > 0, n, { timeout: 60_000 });
  };
  /** Share of the viewport canvas's pixels that are not black, and a fingerprint of the picture. */
  const picture = (page: Page, n = 0) =>
    viewport(page, n).evaluate((el) => {
      const canvas = el.querySelector('canvas') as HTMLCanvasElement;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let lit = 0;
      let sum = 0;
      for (let i = 0; i < data.length; i += 4) {
        const v = data[i] + data[i + 1] + data[i + 2];
        if (v > 30) lit += 1;
        sum = (sum + v * ((i >> 2) % 97)) % 1_000_000_007;
      }
      return { lit: lit / (data.length / 4), sum };
    });
  const examRow = async () => {
    await list.open('/examination');
    await list.search({ examCode: exam.examCode });
    return list.row(exam.examCode);
  };

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000004'));
    list = new ResourceListPage(b.page, server.url);
    const clerk = await login(server.app, '13800000002');
    const hospitalId = (await server.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'HOSP_A'")).rows[0].id;
    const device = (await server.db.query<{ id: number; hospital_id: number }>("SELECT id, hospital_id FROM device WHERE ae_title = 'A_CT1'")).rows[0];
    const item = (await server.db.query<{ id: number; organ_id: number }>("SELECT id, organ_id FROM exam_item WHERE hospital_id = $1 AND modality = 'CT' ORDER BY id LIMIT 1", [hospitalId])).rows[0];
    const saved = await server.app.inject({
      method: 'POST',
      url: '/api/ris/v1/exam/save',
      headers: authed(clerk),
      payload: { hospitalId, hisPatientName: '张三', sex: 1, age: 61, ageUnit: 4, patientSource: 1, outPatientNo: `MZ${stamp}`, patientId, deviceId: device.id, items: [{ itemId: item.id, organId: item.organ_id }] },
    });
    expect(saved.json().status).toBe('0');
    exam = saved.json().data;
    const store = async (opts: SyntheticSeriesOptions) => {
      // The registered patient's identifiers (the synthetic 张三, Zhang^San, male): the matching policy links only when all agree.
      const s = syntheticSeries({ patientId, ...opts });
      for (const inst of s.instances) await server.app.archive.storeBuffer(inst.bytes, { hospitalId: device.hospital_id, deviceId: device.id, sender: 'A_CT1' });
      return s;
    };
    // The exam's CT: matched on arrival by its accession number (the exam code).
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(new Date()).replace(/-/g, '');
    ct = await store({ uidRoot: `1.2.826.0.1.3680043.10.1082.5${stamp}`, count: SLICES, rows: 512, columns: 512, accessionNumber: exam.examCode, studyDate: today });
    // 16 earlier studies of the same patient, small: 17 in all to pick from.
    for (let i = 1; i <= 16; i++) {
      await store({ uidRoot: `1.2.826.0.1.3680043.10.1082.6${stamp}.${i}`, count: i <= 2 ? 20 : 1, rows: 128, columns: 128, studyDate: `2025${String(1 + (i % 12)).padStart(2, '0')}15`, studyDescription: `Earlier CT ${i}` });
    }
    const metadata = await server.app.inject({
      method: 'GET',
      url: `/dicom-web/studies/${ct.studyUid}/series/${ct.seriesUid}/metadata`,
      headers: { 'x-auth-token': await login(server.app, '13800000004'), accept: 'application/dicom+json' },
    });
    const first = (metadata.json() as Array<Record<string, { Value?: number[] }>>)[0];
    studyWindow = { width: String(first['00281051'].Value![0]), center: String(first['00281050'].Value![0]) };
    const status = await server.db.query<{ image_status: number }>('SELECT image_status FROM exam WHERE id = $1', [exam.id]);
    expect(status.rows[0].image_status).toBe(1);
  }, 300_000);
  afterAll(() => stopSignedIn(server, b));

  test('the login page and the exam list load no Cornerstone code; the viewer route does', async () => {
    const fresh = await openBrowser();
    try {
      const loaded: Array<Promise<string>> = [];
      fresh.page.on('response', (r) => {
        if (r.url().endsWith('.js')) loaded.push(r.text().catch(() => ''));
      });
      await fresh.page.goto(`${server.url}/login`);
      await fresh.page.getByTestId('login-submit').waitFor();
      await fresh.page.waitForLoadState('networkidle');
      const bodies = await Promise.all(loaded);
      expect(bodies.filter(Boolean).length).toBeGreaterThan(1);
      expect(bodies.some((t) => t.includes(CORNERSTONE_MARK))).toBe(false);
    } finally {
      await fresh.close();
    }
    const seen: Array<{ url: string; body: Promise<string> }> = [];
    const record = (r: { url(): string; text(): Promise<string> }) => {
      if (r.url().endsWith('.js')) seen.push({ url: r.url(), body: r.text().catch(() => '') });
    };
    b.page.on('response', record);
    try {
      await examRow();
      const listed = await Promise.all(seen.map((s) => s.body));
      expect(listed.some((t) => t.includes(CORNERSTONE_MARK))).toBe(false);
      seen.length = 0;
      await b.page.goto(`${server.url}/viewer?studies=${ct.studyUid}`);
      await rendered(b.page);
      const viewer = await Promise.all(seen.map((s) => s.body));
      // The check can fail: the viewer's own chunks do carry the mark.
      expect(viewer.some((t) => t.includes(CORNERSTONE_MARK))).toBe(true);
    } finally {
      b.page.off('response', record);
    }
  }, 120_000);

  test("the first image, drawn alone before the series' metadata is in, already counts the whole series", async () => {
    // A page of its own: a window.open popup keeps its first (about:blank) window, where an init script would run instead.
    const page = await b.context.newPage();
    try {
      await page.addInitScript(TOTALS_PROBE);
      await page.goto(`${server.url}/viewer?studies=${ct.studyUid}`);
      await wholeSeries(page);
      const totals = await page.evaluate(() => (window as unknown as { __viewerTotals: string[] }).__viewerTotals);
      expect(totals.filter((t) => t !== '0')).toEqual([String(SLICES)]);
    } finally {
      await page.close();
    }
  }, 120_000);

  let popup: Page;

  test('from the exam list, "view images" opens the viewer in a new window and the first image is drawn', async () => {
    const row = await examRow();
    const opened = b.context.waitForEvent('page');
    await clickRowAction(row, 'viewImages');
    popup = await opened;
    await popup.waitForURL(`**/viewer?exam=${exam.id}`);
    await wholeSeries(popup);
    await settled(popup);
    expect(await viewport(popup).getAttribute('data-total')).toBe(String(SLICES));
    const { lit } = await picture(popup);
    expect(lit).toBeGreaterThan(0.2);
    await expect(overlay(popup, 'slice').textContent()).resolves.toBe(zh('entity.viewer.overlay.image', { index: 1, total: SLICES }));
    await expect(overlay(popup, 'patientName').textContent()).resolves.toBe('张三 (Zhang San)');
    await popup.screenshot({ path: '/tmp/viewer-first.png' });
  }, 120_000);

  test('the mouse wheel and the arrow keys move the slice shown in the overlay', async () => {
    const box = (await viewport(popup).boundingBox())!;
    await popup.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 3; i++) await popup.mouse.wheel(0, 120);
    await overlay(popup, 'slice').filter({ hasText: zh('entity.viewer.overlay.image', { index: 4, total: SLICES }) }).waitFor();
    expect(await viewport(popup).getAttribute('data-index')).toBe('3');
    await popup.keyboard.press('ArrowDown');
    await popup.keyboard.press('ArrowDown');
    await overlay(popup, 'slice').filter({ hasText: zh('entity.viewer.overlay.image', { index: 6, total: SLICES }) }).waitFor();
    await popup.keyboard.press('ArrowUp');
    await overlay(popup, 'slice').filter({ hasText: zh('entity.viewer.overlay.image', { index: 5, total: SLICES }) }).waitFor();
    // Slice position follows: slice k of the synthetic series lies at k × 2.5 mm.
    await expect(overlay(popup, 'location').textContent()).resolves.toBe(zh('entity.viewer.overlay.location', { value: '12.5' }));
  });

  test('a window preset changes the window values in the overlay and the picture', async () => {
    // The study's own window first, as its DICOM attributes say (WindowCenter, WindowWidth).
    const dicomWindow = zh('entity.viewer.overlay.window', studyWindow);
    await expect(overlay(popup, 'window').textContent()).resolves.toBe(dicomWindow);
    const before = await picture(popup);
    await popup.getByTestId('viewer-presets').click();
    await popup.getByTestId('viewer-preset-lung').click();
    await overlay(popup, 'window').filter({ hasText: zh('entity.viewer.overlay.window', { width: '1500', center: '-600' }) }).waitFor();
    await popup.waitForFunction((sum) => {
      const canvas = document.querySelector('[data-testid=viewport] canvas') as HTMLCanvasElement;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let s = 0;
      for (let i = 0; i < data.length; i += 4) s = (s + (data[i] + data[i + 1] + data[i + 2]) * ((i >> 2) % 97)) % 1_000_000_007;
      return s !== sum;
    }, before.sum);
    await popup.getByTestId('viewer-presets').click();
    await popup.getByTestId('viewer-preset-brain').click();
    await overlay(popup, 'window').filter({ hasText: zh('entity.viewer.overlay.window', { width: '80', center: '40' }) }).waitFor();
    await popup.getByTestId('viewer-presets').click();
    await popup.getByTestId('viewer-preset-default').click();
    await overlay(popup, 'window').filter({ hasText: dicomWindow }).waitFor();
    await popup.screenshot({ path: '/tmp/viewer-preset.png' });
  });

  test('a length measurement reads in mm as PixelSpacing 0.7 makes it; the whole series loads', async () => {
    await popup.getByTestId('viewer-tool-length').click();
    const box = (await viewport(popup).boundingBox())!;
    // At zoom 1 the 512-pixel square image fills the viewport's shorter side.
    const mmPerScreenPixel = (0.7 * 512) / Math.min(box.width, box.height);
    const [x, y, dx] = [box.x + box.width / 2 - 160, box.y + box.height / 2 + 40, 320];
    await popup.mouse.move(x, y);
    await popup.mouse.down();
    await popup.mouse.move(x + dx / 2, y, { steps: 5 });
    await popup.mouse.move(x + dx, y, { steps: 5 });
    await popup.mouse.up();
    const measured = popup.getByTestId('measurement-length');
    await measured.waitFor();
    // The line as drawn (SVG, CSS pixels of the viewport): the drag may be picked up a step late.
    const drawn = await viewport(popup).evaluate((el) =>
      Math.max(...[...el.querySelectorAll('svg line')].map((l) => Math.hypot(Number(l.getAttribute('x2')) - Number(l.getAttribute('x1')), Number(l.getAttribute('y2')) - Number(l.getAttribute('y1'))))),
    );
    expect(drawn).toBeGreaterThan(dx * 0.75);
    const expected = drawn * mmPerScreenPixel;
    // Cornerstone recomputes a measurement's statistics a moment after the drag (throttled).
    const mm = () => measured.textContent().then((t) => Number(/([\d.]+)\s*mm$/.exec(t ?? '')?.[1]));
    await popup
      .waitForFunction(
        ([lo, hi]) => {
          const v = Number(/([\d.]+)\s*mm$/.exec(document.querySelector('[data-testid=measurement-length]')?.textContent ?? '')?.[1]);
          return v > lo && v < hi;
        },
        [expected * 0.97, expected * 1.03],
        { timeout: 10_000 },
      )
      .catch(() => undefined);
    expect(await mm()).toBeGreaterThan(expected * 0.97);
    expect(await mm()).toBeLessThan(expected * 1.03);
    // Drawn on the image too, in mm.
    expect((await popup.locator('[data-testid=viewport] svg text').allTextContents()).some((t) => /\d+(\.\d+)?\s*mm/.test(t))).toBe(true);
    await popup.waitForFunction((n) => document.querySelector('[data-testid=viewport]')?.getAttribute('data-loaded') === String(n), SLICES, { timeout: 120_000 });
    await popup.screenshot({ path: '/tmp/viewer-measure.png' });
  }, 180_000);

  test('rotate, flip, invert and reset show in the overlay; cine plays through the stack and stops', async () => {
    const transform = overlay(popup, 'transform');
    await popup.getByTestId('viewer-rotate').click();
    await transform.filter({ hasText: '90°' }).waitFor();
    await popup.getByTestId('viewer-flipH').click();
    await transform.filter({ hasText: zh('entity.viewer.overlay.flipH') }).waitFor();
    await popup.getByTestId('viewer-invert').click();
    await transform.filter({ hasText: zh('entity.viewer.overlay.inverted') }).waitFor();
    await popup.getByTestId('viewer-reset').click();
    await transform.waitFor({ state: 'detached' });
    const before = Number(await viewport(popup).getAttribute('data-index'));
    await popup.getByTestId('viewer-cine').click();
    await popup.waitForFunction((from) => Number(document.querySelector('[data-testid=viewport]')?.getAttribute('data-index')) >= from + 3, before);
    await popup.getByTestId('viewer-cine').click();
    // A frame already scheduled when the click lands may still be drawn: wait for the
    // index to hold still for 300 ms (a clip still playing at 10+ fps never does).
    const index = () => viewport(popup).getAttribute('data-index');
    let stopped = await index();
    for (let tries = 0; tries < 10; tries++) {
      await popup.waitForTimeout(300);
      const now = await index();
      if (now === stopped) break;
      stopped = now;
    }
    await popup.waitForTimeout(500);
    expect(await index()).toBe(stopped);
  });

  test('settings: single screen makes the exam list open the viewer in its own tab', async () => {
    await popup.getByTestId('viewer-settings').click();
    await popup.getByTestId('viewer-settings-single').click();
    await popup.getByTestId('viewer-settings-save').click();
    await popup.locator('.ant-message-notice').filter({ hasText: zh('entity.viewer.settings.saved') }).waitFor();
    await popup.close();
    // The list's tab reads the setting afresh with its user info.
    const row = await examRow();
    await clickRowAction(row, 'viewImages');
    await b.page.waitForURL(`**/viewer?exam=${exam.id}`);
    await rendered(b.page);
    expect(b.context.pages()).toHaveLength(1);
  }, 120_000);

  test('20 open/close cycles of the viewer leave no live WebGL context and no worker', async () => {
    const { page } = b;
    await b.context.addInitScript(LEAK_PROBE);
    // The WebGL path, whose contexts can leak, until the next test reloads the page.
    await page.evaluate((key) => localStorage.setItem(key, 'gpu'), RENDER_OVERRIDE_KEY);
    try {
      await leakCycles();
    } finally {
      await page.evaluate((key) => localStorage.removeItem(key), RENDER_OVERRIDE_KEY);
    }
  }, 300_000);

  async function leakCycles() {
    const { page } = b;
    await examRow();
    const probe = () => page.evaluate(() => (window as unknown as { __viewerProbe(): Probe }).__viewerProbe());
    /** The count once the workers are gone (a dispose lets images under way land first), or as it stands after 20 s. */
    const released = async () => {
      await page
        .waitForFunction(() => (window as unknown as { __viewerProbe(): Probe }).__viewerProbe().workers === 0, undefined, { timeout: 20_000 })
        .catch(() => undefined);
      return probe();
    };
    expect(await probe()).toEqual({ webgl: 0, webglCreated: 0, workers: 0, workersCreated: 0 });
    const row = list.row(exam.examCode);
    await clickRowAction(row, 'viewImages');
    await page.waitForURL('**/viewer?exam=*');
    await rendered(page);
    // The probe sees the viewer's context and its decode workers while it is open (the
    // workers start with the rest of the series, after the first image).
    await page.waitForFunction(() => (window as unknown as { __viewerProbe(): Probe }).__viewerProbe().workers > 0);
    const open = await probe();
    expect(open.webgl).toBeGreaterThan(0);
    expect(open.workers).toBeGreaterThan(0);
    let baseline: Probe | undefined;
    for (let cycle = 1; cycle <= 20; cycle++) {
      await page.goBack();
      await page.getByTestId('resource-list').waitFor();
      await page.getByTestId('viewer').waitFor({ state: 'detached' });
      // vtk.js probes 16-bit texture support once per page on a 4x4 canvas and, without
      // the extension (as here), keeps that context: it is the page's, not a viewer's.
      baseline ??= await released();
      if (cycle === 20) break;
      await page.goForward();
      await rendered(page);
    }
    expect(baseline!.webgl).toBeLessThanOrEqual(1);
    expect(baseline!.workers).toBe(0);
    const closed = await released();
    // A context per opening; workers come back when needed (a viewer opened while the last one's images land reuses them).
    expect(closed.webglCreated).toBeGreaterThanOrEqual(20);
    expect(closed.workersCreated).toBeGreaterThan(open.workersCreated);
    expect({ webgl: closed.webgl, workers: closed.workers }).toEqual({ webgl: baseline!.webgl, workers: 0 });
  }

  test('comparison from the exam list: 1 and 17 studies are refused in the spec’s words, 3 open side by side and scroll together', async () => {
    const { page } = b;
    const refusal = zh('error.PACS101', { min: 2, max: 16 });
    const row = await examRow();
    await clickRowAction(row, 'compareImages');
    const dialog = page.getByTestId('compare-dialog');
    await dialog.waitFor();
    const studies = dialog.getByTestId('compare-study');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=compare-study]').length === 17);
    // This exam's study is ticked: one alone is refused.
    await expect(dialog.getByTestId('compare-count').textContent()).resolves.toBe(zh('entity.viewer.compare.picked', { count: 1 }));
    const toast = page.locator('.ant-message-notice').filter({ hasText: refusal });
    await page.getByTestId('compare-open').click();
    await toast.first().waitFor();
    await toast.first().waitFor({ state: 'detached', timeout: 10_000 });
    // All 17 are too many.
    await dialog.locator('thead .ant-checkbox-input').check();
    await expect(dialog.getByTestId('compare-count').textContent()).resolves.toBe(zh('entity.viewer.compare.picked', { count: 17 }));
    await page.getByTestId('compare-open').click();
    await toast.first().waitFor();
    await settled(page);
    await page.screenshot({ path: '/tmp/viewer-compare-refused.png' });
    expect(page.url()).toContain('/examination');
    // Three: the exam's CT and the two earlier 20-slice ones.
    await dialog.locator('thead .ant-checkbox-input').uncheck();
    for (const text of [exam.examCode, 'Earlier CT 1', 'Earlier CT 2']) {
      await studies.filter({ has: page.getByText(text, { exact: true }) }).locator('.ant-checkbox-input').check();
    }
    await page.getByTestId('compare-open').click();
    await page.waitForURL('**/viewer?compare=*');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=viewport]').length === 3);
    for (let n = 0; n < 3; n++) await wholeSeries(page, n);
    expect(await page.getByTestId('viewer-grid').getAttribute('data-grid')).toBe('1x3');
    const descriptions = await Promise.all([0, 1, 2].map((n) => overlay(page, 'studyDescription', n).textContent()));
    expect(descriptions.sort()).toEqual(['Earlier CT 1', 'Earlier CT 2', 'Synthetic study']);
    // Synchronised: two wheel steps on the first viewport move all three.
    const box = (await viewport(page, 0).boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    // Three quick steps, none waiting for the partners to draw the one before: a partner
    // is sent on from where it was last told to go, so none is lost.
    // The partners follow the first viewport wherever it went: a wheel step the first one
    // drops under load (it happens in CI) must not read as a failure to follow.
    for (let step = 0; step < 3; step++) await page.mouse.wheel(0, 120);
    await page.waitForFunction(() => {
      const indexes = [...document.querySelectorAll('[data-testid=viewport]')].map((v) => Number(v.getAttribute('data-index')));
      return indexes.length === 3 && indexes[0] >= 2 && indexes.every((i) => i === indexes[0]);
    });
    await settled(page);
    await page.screenshot({ path: '/tmp/viewer-compare.png' });
  }, 180_000);

  test('compressed images decode in the browser: RLE, JPEG lossless, JPEG-LS, JPEG 12-bit and 8-bit baseline', async () => {
    // dcmtk compresses synthetic slices as modalities send them; the archive keeps them as received.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-codecs-'));
    const device = (await server.db.query<{ id: number; hospital_id: number }>("SELECT id, hospital_id FROM device WHERE ae_title = 'A_CT1'")).rows[0];
    const store = (file: string) => server.app.archive.storeBuffer(fs.readFileSync(file), { hospitalId: device.hospital_id, deviceId: device.id, sender: 'A_CT1' });
    const uids: string[] = [];
    try {
      const codecs: Array<[string, string, string[]]> = [
        ['RLE', 'dcmcrle', []],
        ['JPEG lossless', 'dcmcjpeg', []],
        ['JPEG-LS', 'dcmcjpls', []],
        ['JPEG 12-bit', 'dcmcjpeg', ['+ee']],
      ];
      for (const [k, [label, cmd, args]] of codecs.entries()) {
        const series = syntheticSeries({ uidRoot: `1.2.826.0.1.3680043.10.1082.8${stamp}.${k}`, count: 2, rows: 128, columns: 128, patientId, studyDescription: label });
        for (const [n, inst] of series.instances.entries()) {
          const [plain, packed] = [path.join(dir, `${k}-${n}.dcm`), path.join(dir, `${k}-${n}.${cmd}.dcm`)];
          fs.writeFileSync(plain, inst.bytes);
          const run = spawnSync(cmd, [...args, plain, packed], { encoding: 'utf8' });
          expect(run.stderr + run.status).toBe('0');
          await store(packed);
        }
        uids.push(series.studyUid);
      }
      // 8-bit baseline JPEG, as a secondary capture: a picture wrapped by img2dcm.
      const side = 128;
      const gray = new Uint8Array(side * side).map((_, i) => (Math.hypot((i % side) - 64, Math.floor(i / side) - 64) < 50 ? 200 : 20));
      fs.writeFileSync(path.join(dir, 'sc.jpg'), encodeJpeg(side, side, 1, gray, 90));
      const baselineUid = `1.2.826.0.1.3680043.10.1082.8${stamp}.9`;
      const wrap = spawnSync('img2dcm', ['-k', `PatientID=${patientId}`, '-k', `StudyInstanceUID=${baselineUid}`, '-k', 'StudyDescription=JPEG baseline', '-k', 'Modality=OT', path.join(dir, 'sc.jpg'), path.join(dir, 'sc.dcm')], { encoding: 'utf8' });
      expect(wrap.stderr + wrap.status).toBe('0');
      await store(path.join(dir, 'sc.dcm'));
      uids.push(baselineUid);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const { page } = b;
    await page.goto(`${server.url}/viewer?studies=${uids.join(',')}&side=1`);
    // Five studies side by side: a 2x3 grid, the sixth cell empty.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=viewport]').length === 6);
    expect(await page.getByTestId('viewer-grid').getAttribute('data-grid')).toBe('2x3');
    for (let n = 0; n < 5; n++) await rendered(page, n);
    expect(await page.getByTestId('viewport-error').count()).toBe(0);
    for (let n = 0; n < 5; n++) expect((await picture(page, n)).lit).toBeGreaterThan(0.1);
    const descriptions = await Promise.all([0, 1, 2, 3, 4].map((n) => overlay(page, 'studyDescription', n).textContent()));
    expect(descriptions.sort()).toEqual(['JPEG 12-bit', 'JPEG baseline', 'JPEG lossless', 'JPEG-LS', 'RLE']);
    await settled(page);
    await page.screenshot({ path: '/tmp/viewer-codecs.png' });
  }, 180_000);

  test('with grade safety on, the overlay shows the masked patient name and ID, not the DICOM ones', async () => {
    const admin = await login(server.app, '13800000001');
    const set = (enabled: boolean) => server.app.inject({ method: 'POST', url: '/api/ucenter/v1/config/gradeSafety', headers: authed(admin), payload: { enabled } });
    expect((await set(true)).json().status).toBe('0');
    try {
      const { page } = b;
      await page.goto(`${server.url}/viewer?exam=${exam.id}`);
      await rendered(page);
      expect(await page.getByTestId('viewer').getAttribute('data-masked')).toBe('true');
      await expect(overlay(page, 'patientName').textContent()).resolves.toBe('张*');
      await expect(overlay(page, 'patientId').textContent()).resolves.toBe('*'.repeat(patientId.length));
      expect(await page.getByTestId('viewer').textContent()).not.toContain('张三');
      await page.screenshot({ path: '/tmp/viewer-masked.png' });
    } finally {
      await set(false);
    }
  }, 120_000);
});
