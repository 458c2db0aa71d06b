/**
 * Identity in Chromium against the platform started like `npm start` (demo accounts,
 * password Demo@2026). Scenarios, each with its own account so login counters never
 * meet:
 * - without a token any screen goes to /login?redirect=…; the page speaks zh-CN and,
 *   after the switch, en-US
 * - a wrong password shows the text with the attempts left and the graphic captcha
 * - a clerk (13800000002) lands back on the screen asked for, sees only registration
 *   menus, gets /401 for an admin screen; Remember-Me is stored; a logged-in user
 *   opening /login goes to /; logout calls the server and clears the token
 * - the admin (13800000001) sees every menu group
 * - a user of two hospitals (13800000007) chooses one after login and can change it
 *   from the navbar
 * - change password: client rules first, then success logs out; the new (weak)
 *   password brings the reminder once; forgotten password is reset by SMS code
 * - a token the server refuses ends the session without a logout call; /authredirect
 *   takes a token hand-off and ignores a foreign redirect
 */
import type { Locator, Page } from 'playwright-core';
import { translate } from '../../locales';
import { DEMO_PASSWORD } from '../../mock/identity';
import app from '../../config/app.json';
import { openBrowser, type BrowserSession } from '../support/browser';
import { startPlatformProcess, type RunningPlatform } from '../support/server';

/** The login screen as the tests drive it (data-testid only). */
class LoginPage {
  constructor(private readonly page: Page, private readonly base: string) {}
  async open(path = '/login') {
    await this.page.goto(`${this.base}${path}`);
    await this.page.getByTestId('login-submit').waitFor();
  }
  async withPassword(mobile: string, password = DEMO_PASSWORD, opts: { remember?: boolean } = {}) {
    await this.page.getByTestId('login-tab-password').click();
    await this.page.getByTestId('login-mobile').fill(mobile);
    await this.page.getByTestId('login-password').fill(password);
    if (opts.remember) await this.page.getByTestId('login-remember').check();
    await this.page.getByTestId('login-submit').click();
  }
  error() {
    return this.page.getByTestId('login-error');
  }
}

const token = (page: Page) => page.evaluate((key) => localStorage.getItem(key), app.tokenStorageKey);

describe('identity in Chromium', () => {
  let server: RunningPlatform;
  let b: BrowserSession;
  let login: LoginPage;

  /** The last SMS code the demo (log) provider "sent" to a mobile. */
  const smsCode = (mobile: string) => {
    const found = [...server.output().matchAll(new RegExp(`"mobile":"(?:\\+86)?${mobile}","sms":"[^"]*?(\\d{6})`, 'g'))];
    return found.length ? found[found.length - 1][1] : undefined;
  };
  /** Picks an item of the navbar's user menu (no motion in tests: it opens at once) and waits for what it shows. */
  const fromUserMenu = async (item: string, shows: Locator) => {
    const { page } = b;
    await page.getByTestId('user-menu').click();
    await page.getByTestId(item).click();
    await shows.waitFor();
  };
  const logout = async () => {
    await fromUserMenu('logout', b.page.getByTestId('login-submit'));
    await b.page.waitForURL('**/login**');
  };

  // A test that failed signed in must not hand its session to the next one, or to its
  // own retry (the login page would send them on to the home screen).
  beforeEach(async () => {
    if (b.page.url().startsWith(server.url)) await b.page.evaluate((k) => localStorage.removeItem(k), app.tokenStorageKey);
  });

  beforeAll(async () => {
    server = await startPlatformProcess();
    b = await openBrowser({ locale: 'zh-CN' });
    login = new LoginPage(b.page, server.url);
  }, 180_000);
  afterAll(async () => {
    await b?.close();
    await server?.stop();
  });

  test('no token: any screen goes to the login page, in Chinese, then English', async () => {
    const { page } = b;
    await page.goto(`${server.url}/examination`);
    await page.waitForURL('**/login?redirect=%2Fexamination');
    await page.getByText(translate('zh-CN', 'auth.login.title')).waitFor();
    expect(await page.getByTestId('login-tab-sms').textContent()).toBe(translate('zh-CN', 'auth.login.tabSms'));
    await b.shot('identity-login-zh');
    await page.getByTestId('lang-switch').click();
    await page.getByTestId('lang-en-US').click();
    await page.getByText(translate('en-US', 'auth.login.title')).first().waitFor();
    await b.shot('identity-login-en');
    await page.getByTestId('lang-switch').click();
    await page.getByTestId('lang-zh-CN').click();
    await page.getByText(translate('zh-CN', 'auth.login.title')).waitFor();
  });

  test('a wrong password says how many attempts are left and asks for the captcha', async () => {
    await login.open();
    await login.withPassword('13800000003', 'Wrong@2026');
    await login.error().waitFor();
    const text = await login.error().textContent();
    expect(text).toContain(translate('zh-CN', 'error.UAA002'));
    expect(text).toMatch(/3/);
    await b.page.getByTestId('login-captcha-image').locator('img').waitFor();
    expect(await b.page.getByTestId('login-captcha-input').isVisible()).toBe(true);
    await b.shot('identity-login-failed-captcha');
  });

  test('a clerk returns to the screen asked for and sees only registration menus', async () => {
    const { page } = b;
    await page.goto(`${server.url}/examination`);
    await page.waitForURL('**/login?redirect=%2Fexamination');
    await login.withPassword('13800000002', DEMO_PASSWORD, { remember: true });
    await page.waitForURL('**/examination');
    await page.getByTestId('user-menu').waitFor();
    expect(await page.evaluate((k) => localStorage.getItem(k), app.rememberMeStorageKey)).toBe('true');
    const sider = page.locator('.ant-pro-sider');
    await sider.getByText(translate('zh-CN', 'menu.group.registration')).waitFor();
    expect(await sider.getByText(translate('zh-CN', 'menu.group.admin')).count()).toBe(0);
    expect(await sider.getByText(translate('zh-CN', 'menu.group.statistics')).count()).toBe(0);
    await b.shot('identity-sidebar-clerk');

    await page.goto(`${server.url}/user`);
    await page.waitForURL('**/401');
    await page.getByTestId('page-401').waitFor();

    await page.goto(`${server.url}/login`);
    await page.waitForURL('**/dashboard');

    const logoutCalls: string[] = [];
    page.on('request', (r) => r.url().endsWith('/api/uaa/v1/logout') && logoutCalls.push(r.method()));
    await logout();
    expect(logoutCalls).toEqual(['POST']);
    expect(await token(page)).toBeNull();
  });

  test('the admin sees every menu group', async () => {
    const { page } = b;
    await login.open();
    await login.withPassword('13800000001');
    await page.waitForURL('**/dashboard');
    const sider = page.locator('.ant-pro-sider');
    for (const group of ['registration', 'report', 'telemedicine', 'statistics', 'quality', 'admin', 'personal', 'system']) {
      await sider.getByText(translate('zh-CN', `menu.group.${group}`)).first().waitFor();
    }
    await b.shot('identity-sidebar-admin');
    await logout();
  });

  test('a user of two hospitals chooses one, then changes it from the navbar', async () => {
    const { page } = b;
    await login.open('/login?redirect=%2Fexamination');
    await login.withPassword('13800000007');
    await page.getByTestId('hospital-chooser').waitFor();
    const choices = page.locator('[data-testid^="hospital-choice-"]');
    expect(await choices.count()).toBe(2);
    await b.shot('identity-hospital-chooser');
    const chosen = (await choices.nth(0).textContent()) ?? '';
    await choices.nth(0).click();
    await page.waitForURL('**/examination');
    expect(await page.getByTestId('user-hospital').textContent()).toBe(chosen);

    const options = page.locator('[data-testid^="hospital-option-"]');
    await fromUserMenu('change-hospital', options.first());
    const other = options.filter({ hasNotText: chosen });
    const otherName = (await other.locator('.ant-list-item-meta-title').textContent()) ?? '';
    await other.click();
    await page.waitForURL('**/dashboard');
    await page.getByTestId('user-hospital').getByText(otherName).waitFor();
    await logout();
  });

  test('change password: client rules, then success logs out; a weak password is reminded once', async () => {
    const { page } = b;
    await login.open();
    await login.withPassword('13800000004');
    await page.waitForURL('**/dashboard');
    await fromUserMenu('change-password', page.getByTestId('pwd-old'));
    await page.getByTestId('pwd-old').fill(DEMO_PASSWORD);
    await page.getByTestId('pwd-new').fill(DEMO_PASSWORD);
    await page.getByTestId('pwd-confirm').fill('Other@2026');
    await page.getByTestId('pwd-submit').click();
    await page.getByText(translate('zh-CN', 'auth.rule.sameAsOld')).waitFor();
    await page.getByText(translate('zh-CN', 'auth.rule.mismatch')).waitFor();
    await b.shot('identity-change-password');

    await page.getByTestId('pwd-new').fill('weakpass1');
    await page.getByTestId('pwd-confirm').fill('weakpass1');
    await page.getByTestId('pwd-submit').click();
    await page.waitForURL('**/login**');
    await page.getByText(translate('zh-CN', 'auth.password.changed')).waitFor();
    expect(await token(page)).toBeNull();

    await login.withPassword('13800000004', 'weakpass1');
    await page.getByTestId('weak-password-reminder').waitFor();
    await page.getByTestId('weak-later').click();
    await page.reload();
    // The route guard renders the layout (with the user menu) and the reminder, when due,
    // together, and with no motion the dialog's content is there at once.
    await page.getByTestId('user-menu').waitFor();
    expect(await page.getByTestId('weak-password-reminder').count()).toBe(0);
    await logout();
  });

  test('a forgotten password is reset with an SMS code', async () => {
    const { page } = b;
    await login.open();
    await page.getByTestId('reset-password').click();
    await page.getByTestId('reset-mobile').fill('13800000005');
    await page.getByTestId('reset-send-sms').click();
    await page.getByTestId('reset-send-sms').getByText(/\d+/).waitFor();
    const code = smsCode('13800000005');
    expect(code).toMatch(/^\d{6}$/);
    await page.getByTestId('reset-sms-code').fill(code!);
    await page.getByTestId('reset-new').fill('Renewed#2027');
    await page.getByTestId('reset-confirm').fill('Renewed#2027');
    await page.getByTestId('reset-submit').click();
    await page.getByTestId('reset-password-dialog').waitFor({ state: 'detached' });
    expect(await page.getByTestId('login-mobile').inputValue()).toBe('13800000005');
    await login.withPassword('13800000005', 'Renewed#2027');
    await page.waitForURL('**/dashboard');
    await logout();
  });

  test('a refused token ends the session without a logout call; /authredirect hands a token over', async () => {
    const { page } = b;
    const logoutCalls: string[] = [];
    page.on('request', (r) => r.url().endsWith('/api/uaa/v1/logout') && logoutCalls.push(r.url()));
    await page.evaluate((k) => localStorage.setItem(k, 'not-a-token'), app.tokenStorageKey);
    await page.goto(`${server.url}/examination`);
    await page.waitForURL('**/login?redirect=%2Fexamination');
    expect(await token(page)).toBeNull();
    expect(logoutCalls).toEqual([]);

    const handed = await page.evaluate(async (password) => {
      const body = new URLSearchParams({ loginType: 'password', mobile: '13800000001', password: btoa(password) });
      const r = await fetch('/api/uaa/v1/login', { method: 'POST', headers: { 'X-App-Id': 'rcloud-doctor' }, body });
      return (await r.json()).data.token as string;
    }, DEMO_PASSWORD);
    await page.goto(`${server.url}/authredirect?token=${encodeURIComponent(handed)}&redirect=${encodeURIComponent('/user')}`);
    await page.waitForURL('**/user');
    expect(await token(page)).toBe(handed);
    await page.goto(`${server.url}/authredirect?token=${encodeURIComponent(handed)}&redirect=${encodeURIComponent('https://elsewhere.example/')}`);
    await page.waitForURL('**/dashboard');
  });
});
