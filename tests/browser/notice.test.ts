/**
 * Notifications and critical values in Chromium (issue #8 items 3 and 7). Scenarios:
 * 1. the radiologist of hospital A (13800000004) opens the exam-upload notification
 *    settings from the navbar: a frequency of 0 or -3 minutes is refused on the field
 *    (nothing saved), restore defaults puts 5 back; notices on, every minute, shown 30 s: saved, and the top-left
 *    pop-up of the report centre shows the unwritten count the notice call answers;
 *    clicking it opens /report and closes it
 * 2. the remote centre (the senior doctor of the central hospital, notices set through
 *    the API): with an unwritten report sent up, the remote pop-up loops its alert
 *    (WebAudio, counted by a probe installed before the page loads); closing the pop-up
 *    stops it
 * 3. a clinician of hospital A's 内科 (report:view and crisisAcknowledge): a critical
 *    value saved by the radiologist shows in the report pop-up; its line opens
 *    /crisisValue, where the notice is acknowledged with the row action
 * Screenshots: tests/.artifacts/C/ and tests/.artifacts/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import app from '../../config/app.json';
import { translate } from '../../locales';
import { DEMO_PASSWORD } from '../../mock/identity';
import { authed, login } from '../support/auth';
import { signInBrowser, openBrowser, startSignedIn, stopSignedIn, type BrowserSession, shotsDir } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { ResourceListPage, settled } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);
const SHOTS = shotsDir('C');
const R = '/api/report/v1';

/** Counts the alert sound's audio contexts made and closed (installed before any page script). */
const AUDIO_PROBE = `(() => {
  window.__audio = { made: 0, closed: 0 };
  const Native = window.AudioContext;
  window.AudioContext = class extends Native {
    constructor(...args) { super(...args); window.__audio.made += 1; }
    close() { window.__audio.closed += 1; return super.close(); }
  };
})();`;

/** The exam-upload notification settings dialog, by field name. */
class NoticeSettingsPage {
  constructor(private readonly page: Page) {}
  dialog() {
    return this.page.getByTestId('notice-settings-dialog');
  }
  field(name: string) {
    return this.dialog().getByTestId(`field-examNotice.${name}`);
  }
  async open() {
    await this.page.getByTestId('notice-settings-open').click();
    await this.dialog().waitFor();
    await settled(this.page);
  }
  async number(name: string, value: string) {
    const input = this.field(name).locator('input');
    await input.fill(value);
    await input.blur();
  }
  async switchOn(name: string) {
    const sw = this.field(name).locator('button[role="switch"]');
    if ((await sw.getAttribute('aria-checked')) !== 'true') await sw.click();
  }
  save() {
    return this.page.getByTestId('notice-settings-save').click();
  }
}

describe('notifications and critical values in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let orgs: Record<string, number>;
  let item: Record<string, { id: number; organ_id: number }>;

  const shot = async (page: Page, name: string) => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  };
  const inject = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    server.app.inject({ method, url, headers: authed(token), payload }).then((r) => r.json());
  /** A new examined exam of hospital A, requested by `dept` (registered by the administrator). */
  const examined = async (dept: string) => {
    const r = await inject('POST', '/api/ris/v1/exam/save', await login(server.app, '13800000001'), {
      hospitalId: orgs.HOSP_A, hisPatientName: '通知测试', sex: 2, age: 45, ageUnit: 4, patientSource: 1, outPatientNo: 'MZ31', hisDeptName: dept,
      items: [{ itemId: item.HOSP_A.id, organId: item.HOSP_A.organ_id }],
    });
    expect(r.status).toBe('0');
    await server.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [r.data.id]);
    return r.data.id as number;
  };
  const popup = (page: Page, model: string) => page.getByTestId(`notice-${model}`);

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000004'));
    orgs = Object.fromEntries((await server.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    item = Object.fromEntries(
      (
        await server.db.query<{ code: string; id: number; organ_id: number }>(
          `SELECT DISTINCT ON (o.code) o.code, i.id, i.organ_id FROM exam_item i JOIN org o ON o.id = i.hospital_id WHERE i.organ_id IS NOT NULL ORDER BY o.code, i.id`,
        )
      ).rows.map((r) => [r.code, r]),
    );
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('the radiologist turns notices on in the settings dialog; the report pop-up shows the unwritten count and opens /report', async () => {
    const { page } = b;
    const settings = new NoticeSettingsPage(page);
    await settings.open();
    const interval = zh('entity.commonSetting.field.examNotice.interval');
    for (const bad of ['0', '-3']) {
      await settings.number('interval', bad);
      await settings.save();
      await settings.field('interval').getByText(zh('validation.minimum', { field: interval, limit: 1 })).waitFor();
    }
    await shot(page, 'notice-settings-refused');
    // Restore defaults puts the schema's values back (5 minutes).
    await page.getByTestId('notice-settings-reset').click();
    expect(await settings.field('interval').locator('input').inputValue()).toBe('5');
    const stored = await server.db.query("SELECT 1 FROM user_setting s JOIN app_user u ON u.id = s.user_id WHERE u.mobile = '13800000004' AND s.module = 'examNotice'");
    expect(stored.rowCount).toBe(0);

    await settings.switchOn('noticeOpen');
    await settings.number('interval', '1');
    await settings.number('duration', '30');
    const saved = page.waitForResponse((r) => r.url().endsWith('/user/commonSetting/examNotice'));
    await settings.save();
    expect((await (await saved).json()).status).toBe('0');
    await settings.dialog().waitFor({ state: 'detached' });

    const report = popup(page, 'report');
    await report.waitFor({ timeout: 15_000 });
    const token = await page.evaluate((key) => localStorage.getItem(key), app.tokenStorageKey);
    const counts = await inject('GET', `${R}/notice?model=report`, token!);
    expect(await report.getByTestId('notice-report-unwritten-count').textContent()).toBe(String(counts.data.unwritten));
    expect(await popup(page, 'remote').count()).toBe(0);
    const box = (await page.locator('.ant-notification-topLeft .ant-notification-notice').first().boundingBox())!;
    expect(box.x).toBeLessThan(100);
    expect(box.y).toBeLessThan(150);
    await shot(page, 'notice-report-popup');

    await report.click();
    await page.waitForURL('**/report');
    await report.waitFor({ state: 'detached' });
  });

  test('the remote pop-up loops its alert while unwritten reports wait; closing it stops the sound', async () => {
    const senior = await login(server.app, '13800000005');
    const doctor = await login(server.app, '13800000004');
    const up = await examined('内科');
    expect((await inject('POST', `${R}/report/submitSuperiorWrite/${up}`, doctor, { version: 0, hospitalId: orgs.CENTRAL })).status).toBe('0');
    const set = await inject('POST', '/api/ucenter/v1/user/commonSetting/examNotice', senior, { examNotice: { noticeOpen: true, modelList: ['remote'], interval: 1, duration: 60 } });
    expect(set.status).toBe('0');

    const other = await openBrowser();
    try {
      await other.context.addInitScript(AUDIO_PROBE);
      await signInBrowser(other.page, server, '13800000005', DEMO_PASSWORD);
      const remote = popup(other.page, 'remote');
      await remote.waitFor({ timeout: 15_000 });
      expect(Number(await remote.getByTestId('notice-remote-unwritten-count').textContent())).toBeGreaterThan(0);
      expect(await remote.getAttribute('data-alert')).toBe('on');
      await other.page.waitForFunction(() => (window as unknown as { __audio: { made: number } }).__audio.made === 1);
      await shot(other.page, 'notice-remote-popup');
      await other.page.locator('.ant-notification-notice').filter({ has: remote }).locator('.ant-notification-notice-close').click();
      await remote.waitFor({ state: 'detached' });
      await other.page.waitForFunction(() => (window as unknown as { __audio: { closed: number } }).__audio.closed === 1);
      // Closing is not a click on the pop-up: the page stays.
      expect(new URL(other.page.url()).pathname).toBe('/dashboard');
    } finally {
      await other.close();
    }
  });

  test('a critical value reaches the requesting department: pop-up line, list, acknowledge', async () => {
    const admin = await login(server.app, '13800000001');
    const doctor = await login(server.app, '13800000004');
    const role = await server.db.query<{ id: number }>(
      `INSERT INTO role (name, explain, permissions, data_scope) VALUES ('临床医生', '危急值接收', '{"report": ["view", "crisisAcknowledge"]}', 'own') RETURNING id`,
    );
    const dept = await server.db.query<{ id: number }>("SELECT id FROM department WHERE hospital_id = $1 AND name = '内科'", [orgs.HOSP_A]);
    const made = await inject('POST', '/api/ucenter/v1/user/save', admin, {
      mobile: '13900000141', username: 'clinic141', name: '内科刘医生', status: 1, password: DEMO_PASSWORD,
      memberships: [{ hospitalId: orgs.HOSP_A, roleId: role.rows[0].id, departmentId: dept.rows[0].id }],
    });
    expect(made.status).toBe('0');
    const clinician = await login(server.app, '13900000141');
    expect((await inject('POST', '/api/ucenter/v1/user/commonSetting/examNotice', clinician, { examNotice: { noticeOpen: true, modelList: ['report'], interval: 1, duration: 60 } })).status).toBe('0');
    const id = await examined('内科');
    const saved = await inject('POST', `${R}/report/save/${id}`, doctor, {
      version: 0, see: '右肺大量气胸。', enableCrisisValue: true, crisisValue: { recorder: '陈医生', recordTime: new Date().toISOString(), description: '右侧张力性气胸，已电话通知' },
    });
    expect(saved.status).toBe('0');
    const examCode = (await server.db.query<{ code: string }>('SELECT exam_code AS code FROM exam WHERE id = $1', [id])).rows[0].code;

    const other = await openBrowser();
    try {
      const { page } = other;
      await signInBrowser(page, server, '13900000141', DEMO_PASSWORD);
      const line = page.getByTestId('notice-report-crisis');
      await line.waitFor({ timeout: 15_000 });
      expect(Number(await page.getByTestId('notice-report-crisis-count').textContent())).toBeGreaterThanOrEqual(1);
      await shot(page, 'notice-crisis-popup');
      // Critical values alone: anywhere on the pop-up (here its title) opens their list.
      await page.getByTestId('notice-report-title').click();
      await page.waitForURL('**/crisisValue');
      await popup(page, 'report').waitFor({ state: 'detached' });

      const list = new ResourceListPage(page, server.url);
      await page.getByTestId('resource-list').waitFor();
      await list.settled();
      const row = list.row(examCode);
      await row.waitFor();
      expect(await row.textContent()).toContain('右侧张力性气胸');
      await shot(page, 'crisis-list');
      await row.getByTestId('row-action-acknowledge').click();
      await page.getByTestId('row-action-acknowledge-ok').click();
      await page.locator('.ant-message-notice').filter({ hasText: zh('entity.crisisValue.action.acknowledgeDone') }).first().waitFor();
      await row.waitFor({ state: 'detached' });
      const stored = await server.db.query<{ by: string }>('SELECT acknowledged_by_name AS by FROM report_crisis WHERE report_id = $1 AND acknowledged_at IS NOT NULL', [id]);
      expect(stored.rows).toEqual([{ by: '内科刘医生' }]);
    } finally {
      await other.close();
    }
  });
});
