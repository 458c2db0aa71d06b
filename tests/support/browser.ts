/**
 * Debian's Chromium driven by playwright-core, with the flags this closed network
 * needs, a fresh profile per launch, and screenshots under tests/.artifacts/.
 * The browser asks for reduced motion, which turns antd's motion off (AppRoot): a
 * dialog or dropdown is there at once, so no click lands mid-animation. While open, a
 * session keeps its pages' console for a failure (tests/support/failures.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import app from '../../config/app.json';
import { DEMO_PASSWORD } from '../../mock/identity';
import { login } from './auth';
import { keepOnFailure, LogTail } from './failures';
import { startInProcess, type InProcessPlatform } from './inprocess';

export const ARTIFACTS = path.resolve(__dirname, '..', '.artifacts');

/**
 * Where a test keeps the screenshots a person looks at: tests/.artifacts/<name>/, or
 * <RCLOUD_SHOTS>/<name>/ when that is set (a folder outside the checkout).
 */
export function shotsDir(name: string): string {
  return path.join(process.env.RCLOUD_SHOTS || ARTIFACTS, name);
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  shot(name: string): Promise<string>;
  close(): Promise<void>;
}

let opened = 0;

/** `args`: more Chromium flags (the video room's fake camera and microphone). */
export async function openBrowser(opts: { locale?: string; args?: string[] } = {}): Promise<BrowserSession> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    locale: opts.locale ?? 'zh-CN',
    viewport: { width: 1440, height: 900 },
    reducedMotion: 'reduce',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(opts.args ?? []),
    ],
  });
  const consoleLog = new LogTail();
  context.on('console', (msg) => consoleLog.push(`${new Date().toISOString()} [${msg.type()}] ${msg.page()?.url() ?? ''} ${msg.text()}`));
  context.on('weberror', (e) => consoleLog.push(`${new Date().toISOString()} [pageerror] ${e.page()?.url() ?? ''} ${e.error().stack ?? e.error().message}`));
  const page = context.pages()[0] ?? (await context.newPage());
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const name = `browser-${++opened}`;
  const forget = keepOnFailure({
    async keep(dir) {
      fs.writeFileSync(path.join(dir, `${name}-console.log`), consoleLog.text());
      for (const [i, p] of context.pages().entries()) {
        await p.screenshot({ path: path.join(dir, `${name}-page-${i + 1}.png`), fullPage: true, timeout: 10_000 }).catch(() => undefined);
      }
    },
  });
  return {
    context,
    page,
    async shot(name) {
      const file = path.join(ARTIFACTS, `${name}.png`);
      await page.screenshot({ path: file });
      return file;
    },
    async close() {
      forget();
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Logs in through the login page (password tab) and waits for the landing route. */
export async function loginInBrowser(page: Page, baseUrl: string, mobile: string, password: string, landing = '**/dashboard'): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByTestId('login-tab-password').click();
  await page.getByTestId('login-mobile').fill(mobile);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL(landing);
}

/**
 * Signs `mobile` in without the login screen and opens `landing`: the token of a real
 * login call goes into the origin's localStorage, where the login screen leaves it, and
 * the page starts from it as after a reload. One full page load instead of two (the
 * login screen's, then the app's). The login screen itself is driven by the tests of
 * identity, lockout, security and the shell; every other test starts here.
 */
export async function signInBrowser(page: Page, server: Pick<InProcessPlatform, 'app' | 'url'>, mobile: string, password = DEMO_PASSWORD, landing = '/dashboard'): Promise<void> {
  const token = await login(server.app, mobile, password);
  await page.context().setStorageState({ cookies: [], origins: [{ origin: server.url, localStorage: [{ name: app.tokenStorageKey, value: token }] }] });
  await page.goto(`${server.url}${landing}`);
  // The signed-in layout's user menu: a refused token would have gone to /login instead.
  await page.getByTestId('user-menu').waitFor();
}

/**
 * The platform in this process and a browser signed in as `mobile` (demo password):
 * what the admin-screen tests start from. Pair with stopSignedIn in afterAll.
 */
export async function startSignedIn(mobile: string, locale = 'zh-CN'): Promise<{ server: InProcessPlatform; b: BrowserSession }> {
  const server = await startInProcess();
  const b = await openBrowser({ locale });
  await signInBrowser(b.page, server, mobile);
  return { server, b };
}

export async function stopSignedIn(server: InProcessPlatform | undefined, b: BrowserSession | undefined): Promise<void> {
  await b?.close();
  await server?.close();
}
