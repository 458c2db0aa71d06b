/**
 * The replay of a video consultation after it ended (issue #20 item 7), in Chromium:
 * the administrator's room on a 20-slice CT of the central hospital is driven over the
 * hub's socket (a chat line, three view states at different images, annotations, the
 * view again, a last chat line), then the consultation is ended (state 7).
 * - the invited expert's consultation detail offers "replay"; it opens /consultationReplay
 *   at the last step: the viewer shows the last view's image, the annotations are there,
 *   both chat lines and who presented show
 * - stepping back to the first view brings the viewer to its image, with only the chat
 *   said before it; the first step has no annotations and no view yet
 * Screenshots: <shotsDir>/consult-replay/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import app from '../../config/app.json';
import { syntheticSeries } from '../../mock/dicom';
import { authed, login } from '../support/auth';
import { openBrowser, shotsDir, type BrowserSession } from '../support/browser';
import { approvedConsultation } from '../support/consult';
import { startInProcess, type InProcessPlatform } from '../support/inprocess';
import { VideoClient } from '../support/videoClient';

const SHOTS = shotsDir('consult-replay');
const C = '/api/consult/v1';
const SLICES = 20;
/** The images the presenter shows in turn: the first view is VIEWS[0], the last VIEWS[2]. */
const VIEWS = [3, 9, 15];

describe('the replay of an ended video consultation', () => {
  let server: InProcessPlatform;
  let expert: BrowserSession;
  let consultationId: number;
  /** The kept events' kinds in order, and the steps of the first and the last view. */
  let kinds: string[];
  /** The presenter's name as the room knows it (the welcome's). */
  let presenterName: string;
  const stamp = Date.now() % 99999;

  const replay = (page: Page) => page.getByTestId('replay');
  const atStep = (page: Page, step: number) => page.locator(`[data-testid=replay][data-step="${step}"]`).waitFor({ timeout: 30_000 });
  const showsIndex = (page: Page, index: number) =>
    page.waitForFunction((i) => document.querySelector('[data-testid=viewport][data-rendered=true]')?.getAttribute('data-index') === String(i), index, { timeout: 60_000 });
  const chatLines = (page: Page) => page.getByTestId('replay-chat-line');

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    server = await startInProcess();
    const central = (await server.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'CENTRAL'")).rows[0].id;
    const series = syntheticSeries({ uidRoot: `1.2.826.0.1.3680043.10.1082.8${stamp}`, count: SLICES, rows: 64, columns: 64, studyDescription: 'Replay CT' });
    for (const inst of series.instances) await server.app.archive.storeBuffer(inst.bytes, { hospitalId: central, sender: 'CONSULT' });

    // The admin applied, 郑教授 (13800000006) invited; the room started on the CT.
    consultationId = await approvedConsultation(server.db, '13800000001', ['13800000006']);
    const admin = await login(server.app, '13800000001');
    const started = await server.app.inject({ method: 'POST', url: `${C}/video/room`, headers: authed(admin), payload: { consultationId, studyUids: [series.studyUid] } });
    expect(started.json().status).toBe('0');

    // The administrator presents (the first to join) over the hub's socket.
    const presenter = await VideoClient.open(server.url);
    try {
      const welcome = await presenter.join(admin, consultationId);
      expect(welcome.type).toBe('welcome');
      presenterName = welcome.user.name;
      const view = (index: number) => presenter.send({ type: 'view', state: { studyUid: series.studyUid, seriesUid: series.seriesUid, index } });
      presenter.send({ type: 'chat', text: '请看第 4 层' });
      view(VIEWS[0]);
      view(VIEWS[1]);
      presenter.send({ type: 'annotations', annotations: [{ annotationUID: 'replay-1', metadata: { toolName: 'Length', referencedImageId: 'wadors:none', FrameOfReferenceUID: '1.2.3.999' }, data: { handles: { points: [[0, 0, 0], [10, 0, 0]] } } }] });
      view(VIEWS[2]);
      presenter.send({ type: 'chat', text: '结论：未见异常' });
      // The hub takes a socket's messages in order: the last line's echo means all are kept.
      await presenter.next((m) => m.type === 'chat' && m.text === '结论：未见异常');
    } finally {
      presenter.ws.close();
    }
    await server.db.query('UPDATE consultation SET status = 7 WHERE id = $1', [consultationId]);
    const events = await server.app.inject({ method: 'GET', url: `${C}/video/room/${consultationId}/events`, headers: authed(admin) });
    kinds = (events.json().data as Array<{ kind: string }>).map((e) => e.kind);
    expect(kinds).toEqual(['presenter', 'chat', 'view', 'view', 'annotations', 'view', 'chat']);

    expert = await openBrowser();
    // Signed in through the API (as the room's tests do): the token where the app keeps it.
    const token = await login(server.app, '13800000006');
    await expert.context.addInitScript(({ key, value }) => window.localStorage.setItem(key, value), { key: app.tokenStorageKey, value: token });
  }, 300_000);
  afterAll(async () => {
    await expert?.close();
    await server?.close();
  });

  test('the detail offers the replay; it opens at the last step with the last view, annotations and chat', async () => {
    const page = expert.page;
    await page.goto(`${server.url}/consultationDetail?id=${consultationId}`);
    await page.locator('[data-testid=consult-detail][data-status="7"]').waitFor({ timeout: 60_000 });
    // What was said stays with the ended consultation.
    await page.getByTestId('consult-chat-line').filter({ hasText: '结论：未见异常' }).waitFor({ timeout: 30_000 });
    const toReplay = page.waitForURL((url) => url.pathname === '/consultationReplay' && url.searchParams.get('id') === String(consultationId), { waitUntil: 'commit' });
    await page.getByTestId('consult-replay').click({ timeout: 30_000 });
    await toReplay;
    await replay(page).waitFor({ timeout: 90_000 });
    expect(await replay(page).getAttribute('data-total')).toBe(String(kinds.length));
    await atStep(page, kinds.length - 1);
    await showsIndex(page, VIEWS[2]);
    expect(await replay(page).getAttribute('data-annotations')).toBe('1');
    await chatLines(page).filter({ hasText: '结论：未见异常' }).waitFor();
    expect(await chatLines(page).count()).toBe(2);
    expect(await page.getByTestId('replay-presenter').textContent()).toContain(presenterName);
  }, 180_000);

  test('stepping back to the first view brings the viewer to its image, with the chat said before it', async () => {
    const page = expert.page;
    const firstView = kinds.indexOf('view');
    // Back one step at a time, each landing before the next.
    for (let step = kinds.length - 2; step >= firstView; step--) {
      await page.locator(`[data-testid=replay-prev][data-step="${step}"]`).click();
      await atStep(page, step);
    }
    await showsIndex(page, VIEWS[0]);
    expect(await page.getByTestId('replay-kind').getAttribute('data-kind')).toBe('view');
    expect(await replay(page).getAttribute('data-annotations')).toBe('0');
    await chatLines(page).filter({ hasText: '请看第 4 层' }).waitFor();
    expect(await chatLines(page).count()).toBe(1);
    await page.screenshot({ path: path.join(SHOTS, 'first-view.png') });

    // The very first step: the presenter was chosen, nothing said yet.
    await page.getByTestId('replay-first').click();
    await atStep(page, 0);
    expect(await chatLines(page).count()).toBe(0);
    // And forward to the end again with the last-step button.
    await page.getByTestId('replay-last').click();
    await atStep(page, kinds.length - 1);
    await showsIndex(page, VIEWS[2]);
    await page.screenshot({ path: path.join(SHOTS, 'last-step.png') });
  }, 180_000);
});
