/**
 * Account lock and SMS login in Chromium, against the platform running in this
 * process so the test can read captcha answers and the SMS outbox from the database
 * (as a demo operator reads the outbox):
 * - four wrong passwords (captcha solved each time after the first) lock 13800000002;
 *   the fifth attempt with the right password is refused with the lock message
 * - the SMS tab logs 13800000004 in with the code from the outbox
 * - after logout the old token is refused by the server
 */
import { translate } from '../../locales';
import { DEMO_PASSWORD } from '../../mock/identity';
import app from '../../config/app.json';
import { formatTime } from '../../src/shared/format';
import { openBrowser, type BrowserSession } from '../support/browser';
import { startInProcess, type InProcessPlatform } from '../support/inprocess';

describe('lock-out and SMS login in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;

  beforeAll(async () => {
    server = await startInProcess();
    b = await openBrowser({ locale: 'zh-CN' });
  }, 180_000);
  afterAll(async () => {
    await b?.close();
    await server?.close();
  });

  const captchaAnswer = async (key: string) => {
    const { rows } = await server.db.query<{ answer: string }>('SELECT answer FROM captcha WHERE key = $1', [key]);
    return rows[0].answer;
  };

  test('four wrong passwords lock the account; the right one is then refused with a clear message', async () => {
    const { page } = b;
    await page.goto(`${server.url}/login`);
    await page.getByTestId('login-tab-password').click();
    await page.getByTestId('login-mobile').fill('13800000002');
    let answered = '';
    for (let attempt = 1; attempt <= 5; attempt++) {
      await page.getByTestId('login-password').fill(attempt === 5 ? DEMO_PASSWORD : 'Wrong#2026');
      if (attempt > 1) {
        // A captcha is single use: the form shows a new one after each attempt; answer the one on screen.
        const shown = page.locator(`[data-testid=login-captcha-image][data-captcha-key]:not([data-captcha-key="${answered}"])`);
        await shown.waitFor();
        answered = (await shown.getAttribute('data-captcha-key'))!;
        await page.getByTestId('login-captcha-input').fill(await captchaAnswer(answered));
      }
      const reply = page.waitForResponse((r) => r.url().endsWith('/api/uaa/v1/login'));
      await page.getByTestId('login-submit').click();
      const body = await (await reply).json();
      expect(body.status).toBe(attempt < 4 ? 'UAA002' : 'UAA009');
      await page.getByTestId('login-error').waitFor();
    }
    const text = await page.getByTestId('login-error').textContent();
    // The lock message names when the lock ends.
    const { rows } = await server.db.query<{ until: Date }>("SELECT locked_until AS until FROM app_user WHERE mobile = '13800000002'");
    expect(text).toBe(translate('zh-CN', 'auth.login.lockedUntil', { time: formatTime(rows[0].until) }));
    expect(page.url()).toContain('/login');
    await b.shot('lockout-refused');
  });

  test('the SMS tab logs in with the code from the outbox, and logout makes the token useless', async () => {
    const { page } = b;
    await page.goto(`${server.url}/login`);
    await page.getByTestId('login-tab-sms').click();
    await page.getByTestId('login-mobile').fill('13800000004');
    const sent = page.waitForResponse((r) => r.url().includes('/api/uaa/v1/business-code/sms/'));
    await page.getByTestId('login-send-sms').click();
    expect((await (await sent).json()).status).toBe('0');
    const { rows } = await server.db.query<{ text: string }>("SELECT text FROM sms_outbox WHERE mobile = '13800000004' ORDER BY id DESC LIMIT 1");
    await page.getByTestId('login-sms-code').fill(/\d{6}/.exec(rows[0].text)![0]);
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/dashboard');
    await page.getByTestId('user-menu').waitFor();
    await b.shot('lockout-sms-login');

    const token = await page.evaluate((k) => localStorage.getItem(k), app.tokenStorageKey);
    expect(token).toBeTruthy();
    await page.getByTestId('user-menu').click();
    await page.getByTestId('logout').click();
    await page.waitForURL('**/login**');
    const r = await fetch(`${server.url}/api/uaa/v1/user/info`, { headers: { 'X-App-Id': app.clientAppId, 'X-Auth-Token': token! } });
    expect(r.status).toBe(401);
    expect((await r.json()).status).toBe('UAA005');
  });
});
