/**
 * The app shell in Chromium against the platform started like `npm start`:
 * - / goes to /dashboard, in Chinese by default, with the server's health on it
 * - switching to English re-renders without a reload, sets the lang cookie and survives a reload;
 *   the server then answers in English too
 * - the sidebar lists the route groups; a screen not built yet says so with its name
 * - an unknown path shows /404
 * - theme and sidebar choices survive a reload
 * - a script error lands in the error log page
 * The shell sits behind the login: the suite logs in as the demo admin first
 * (tests/browser/identity.test.ts covers the login itself).
 */
import { translate } from '../../locales';
import { DEMO_PASSWORD } from '../../mock/identity';
import { loginInBrowser, openBrowser, type BrowserSession } from '../support/browser';
import { startPlatformProcess, type RunningPlatform } from '../support/server';

describe('app shell in Chromium', () => {
  let server: RunningPlatform;
  let b: BrowserSession;

  beforeAll(async () => {
    server = await startPlatformProcess();
    b = await openBrowser({ locale: 'zh-CN' });
    await loginInBrowser(b.page, server.url, '13800000001', DEMO_PASSWORD);
  }, 180_000);
  afterAll(async () => {
    await b?.close();
    await server?.stop();
  });

  test('opens on /dashboard in Chinese with the server health', async () => {
    const { page } = b;
    await page.goto(`${server.url}/`);
    await page.waitForURL('**/dashboard');
    await page.getByTestId('dashboard').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('zh-CN');
    await expect(page.getByText(translate('zh-CN', 'menu.group.registration')).first().isVisible()).resolves.toBe(true);
    await page.getByTestId('health-db').getByText('pglite').waitFor();
    await b.shot('shell-dashboard-zh');
  });

  test('switching to English needs no reload and survives one', async () => {
    const { page } = b;
    await page.evaluate(() => ((window as unknown as { __marker: number }).__marker = 42));
    await page.getByTestId('lang-switch').click();
    await page.getByTestId('lang-en-US').click();
    await page.waitForFunction(() => document.documentElement.lang === 'en-US');
    // Same document: the marker set before the switch is still there.
    expect(await page.evaluate(() => (window as unknown as { __marker?: number }).__marker)).toBe(42);
    await page.getByText(translate('en-US', 'menu.group.registration')).first().waitFor();
    const cookies = await b.context.cookies(server.url);
    expect(cookies.find((c) => c.name === 'lang')?.value).toBe('en-US');

    await page.reload();
    await page.getByTestId('dashboard').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('en-US');
    await page.getByText(translate('en-US', 'menu.group.registration')).first().waitFor();
    await b.shot('shell-dashboard-en');

    // The server localizes by the same cookie.
    const reply = await page.evaluate(async () => (await fetch('/api/ris/v1/exam/list')).json());
    expect(reply).toEqual({ status: 'UAA008', message: translate('en-US', 'error.UAA008') });
  });

  test('a screen not built yet says so, with its name and path', async () => {
    const { page } = b;
    // A client-side navigation keeps the language chosen above.
    await page.goto(`${server.url}/shareLog`);
    const notYet = page.getByTestId('not-yet-available');
    await notYet.waitFor();
    expect(await notYet.textContent()).toContain(translate('en-US', 'menu.shareLog'));
    expect(await notYet.textContent()).toContain('/shareLog');
    await b.shot('shell-not-yet-available');
  });

  test('an unknown path shows the 404 page', async () => {
    const { page } = b;
    await page.goto(`${server.url}/no/such/screen`);
    await page.waitForURL('**/404');
    await page.getByTestId('page-404').waitFor();
    await b.shot('shell-404');
  });

  test('theme and sidebar state are remembered', async () => {
    const { page } = b;
    await page.goto(`${server.url}/dashboard`);
    await page.getByTestId('dashboard').waitFor();
    const toggle = page.getByTestId('theme-toggle');
    const before = await toggle.getAttribute('data-theme');
    await toggle.click();
    await page.waitForFunction((b4) => document.querySelector('[data-testid="theme-toggle"]')?.getAttribute('data-theme') !== b4, before);
    const after = await toggle.getAttribute('data-theme');
    await page.getByTestId('sidebar-toggle').click();
    const collapsed = await page.evaluate(() => localStorage.getItem('rcloud-sidebar-collapsed'));
    await page.reload();
    await page.getByTestId('dashboard').waitFor();
    expect(await page.getByTestId('theme-toggle').getAttribute('data-theme')).toBe(after);
    expect(await page.evaluate(() => localStorage.getItem('rcloud-sidebar-collapsed'))).toBe(collapsed);
    await b.shot('shell-theme-toggled');
  });

  test('script errors are collected in the error log', async () => {
    const { page } = b;
    await page.goto(`${server.url}/dashboard`);
    await page.getByTestId('dashboard').waitFor();
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('probe error 7731');
      });
    });
    // Recorded in this browser's storage (src/errorLog): wait for it before leaving the page.
    await page.waitForFunction(() => (localStorage.getItem('rcloud-error-log') ?? '').includes('probe error 7731'));
    await page.goto(`${server.url}/errorLog`);
    await page.getByTestId('error-log').getByText('probe error 7731').first().waitFor();
    await b.shot('shell-error-log');
  });
});
