/**
 * The regional BI cockpit (/bi) in Chromium at wall-screen size (1920×1080), as the
 * regional administrator: every section and panel of config/cockpit.json is drawn
 * (a figure panel's numbers, a chart panel's canvas), the overview's exam count of
 * this month is the one the declared statistics view answers the same user through
 * the API, and the refresh line names the common-settings refresh.duration.
 * BI_SHOTS=<folder> also saves a screenshot there to look at.
 */
import path from 'node:path';
import { translate } from '../../locales';
import { authed, login } from '../support/auth';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { SECTIONS, panelRequest, refreshMinutes } from '../../src/stats/cockpit';
import { formatMeasure, getStatsView } from '../../src/stats/model';

describe('BI cockpit in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000001'));
    await b.page.setViewportSize({ width: 1920, height: 1080 });
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('every panel renders, the month figure is the API answer', async () => {
    const { page } = b;
    await page.goto(`${server.url}/bi`);
    await page.getByTestId('bi-cockpit').waitFor();
    for (const section of SECTIONS) {
      await page.getByTestId(`bi-section-${section.key}`).waitFor();
      for (const panel of section.panels) {
        const box = page.getByTestId(`bi-panel-${panel.key}`);
        if (panel.figures) for (const m of panel.figures) await box.getByTestId(`bi-figure-${panel.key}-${m}`).waitFor();
        else await box.getByTestId(`bi-chart-${panel.key}`).locator('canvas').first().waitFor();
      }
    }
    await page.getByTestId('bi-updated').filter({ hasText: String(refreshMinutes(undefined)) }).waitFor();

    const month = SECTIONS[0].panels.find((p) => p.key === 'month')!;
    const call = panelRequest(month);
    const token = await login(server.app, '13800000001');
    const answer = (await server.app.inject({ method: 'POST', url: `/api/stat/v1/${call.view}`, headers: authed(token), payload: call.body })).json().data;
    expect(answer.totals.exams).toBeGreaterThan(0);
    const shown = formatMeasure(getStatsView(call.view)!, 'exams', answer.totals.exams, 'zh-CN');
    await expect(page.getByTestId('bi-figure-month-exams').textContent()).resolves.toBe(shown);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(translate('zh-CN', 'stats.bi.title'));
    if (process.env.BI_SHOTS) await page.screenshot({ path: path.join(process.env.BI_SHOTS, 'bi-cockpit-zh.png') });
  });
});
