/**
 * The Content-Security-Policy in Chromium: the login page (with the captcha shown after
 * a wrong password) and the application after login work under the policy the server
 * sends, and the browser reports no violation of it. The platform runs in this process
 * so the test can read the captcha's answer from the database.
 */
import { DEMO_PASSWORD } from '../../mock/identity';
import { loginInBrowser, openBrowser, type BrowserSession } from '../support/browser';
import { startInProcess, type InProcessPlatform } from '../support/inprocess';

describe('the Content-Security-Policy in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  const violations: string[] = [];

  beforeAll(async () => {
    server = await startInProcess();
    b = await openBrowser({ locale: 'zh-CN' });
    // Every violation the page sees, by the event the browser fires for it and by its console report.
    await b.context.exposeBinding('reportCspViolation', (_source, text: string) => violations.push(text));
    await b.context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) =>
        (window as unknown as { reportCspViolation(t: string): void }).reportCspViolation(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    b.page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
  }, 180_000);
  afterAll(async () => {
    await b?.close();
    await server?.close();
  });

  test('login with the captcha after a wrong password, then the application, without a violation', async () => {
    const { page } = b;
    const doc = await page.goto(`${server.url}/login`);
    const csp = doc!.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("'unsafe-inline'; script");
    expect(doc!.headers()['x-frame-options']).toBe('DENY');

    // A retried run starts again from an account without failures.
    await server.db.query("UPDATE app_user SET failed_attempts = 0, locked_until = NULL WHERE mobile = '13800000003'");
    await page.getByTestId('login-tab-password').click();
    await page.getByTestId('login-mobile').fill('13800000003');
    await page.getByTestId('login-password').fill('Wrong#2026');
    const refused = page.waitForResponse((r) => r.url().endsWith('/api/uaa/v1/login'));
    // The form asks for a captcha as soon as the refusal arrives.
    const captchaShown = page.waitForResponse((r) => r.url().endsWith('/api/uaa/v1/captcha'));
    await page.getByTestId('login-submit').click();
    expect((await (await refused).json()).status).toBe('UAA002');
    const image = page.getByTestId('login-captcha-image').locator('img');
    await image.waitFor();
    const { captchaKey } = (await (await captchaShown).json()).data;
    // The image decoded (an image blocked by the policy has no natural width).
    await page.waitForFunction((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0, await image.elementHandle());
    await b.shot('security-login-captcha');

    const { rows } = await server.db.query<{ answer: string }>('SELECT answer FROM captcha WHERE key = $1', [captchaKey]);
    await page.getByTestId('login-password').fill(DEMO_PASSWORD);
    await page.getByTestId('login-captcha-input').fill(rows[0].answer.toLowerCase());
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/dashboard');
    await page.getByTestId('user-menu').waitFor();
    await page.goto(`${server.url}/examination`);
    await page.locator('.ant-table-row').first().waitFor();
    await b.shot('security-app');
    expect(violations).toEqual([]);
  });

  test('the API documentation page shows the API to a signed-in administrator, without a violation', async () => {
    const { page } = b;
    await page.evaluate(() => localStorage.clear());
    await loginInBrowser(page, server.url, '13800000001', DEMO_PASSWORD);
    const documentAnswer = page.waitForResponse((r) => r.url().endsWith('/api/docs/json'));
    await page.goto(`${server.url}/api/docs`);
    expect((await documentAnswer).status()).toBe(200);
    await page.locator('.opblock-tag').first().waitFor();
    await b.shot('security-api-docs');
    expect(violations).toEqual([]);
  });

  test('a violation would be seen: an inline script is blocked and the event the test listens to fires', async () => {
    const { page } = b;
    await page.goto(`${server.url}/login`);
    const directive = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          document.addEventListener('securitypolicyviolation', (e) => resolve(e.effectiveDirective), { once: true });
          const s = document.createElement('script');
          s.textContent = 'window.inlineRan = true';
          document.body.appendChild(s);
        }),
    );
    expect(directive).toMatch(/^script-src/);
    expect(await page.evaluate(() => (window as unknown as { inlineRan?: boolean }).inlineRan)).toBeUndefined();
  });
});
