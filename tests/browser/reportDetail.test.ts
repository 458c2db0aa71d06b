/**
 * The report detail page (/reportDetail, issue #8) in Chromium, on demo exams of
 * hospital A that have no report yet. Scenarios:
 * 1. the whole round: the radiologist of hospital A (13800000004) opens the report (the
 *    lock is theirs), appends a public template into findings and diagnosis, saves
 *    with Ctrl+S (the server's version grows), submits; the senior radiologist
 *    (13800000005) rejects it with a reason; the writer sees the reason, fixes the
 *    diagnosis and resubmits; the senior approves; the operation record shows save,
 *    submit, reject, submit, approve
 * 2. two browsers on one report: the second sees "locked by <the first's name>" and
 *    cannot save; once the first closes its page the lock is released and the second
 *    page takes it and may save
 * Screenshots (1920x1080): /work/shots/R/ when that folder exists, and tests/.artifacts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { translate } from '../../locales';
import { DEMO_PASSWORD } from '../../mock/identity';
import { signInBrowser, openBrowser, type BrowserSession } from '../support/browser';
import { startInProcess, type InProcessPlatform } from '../support/inprocess';
import { settled } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);
const SHOTS = '/work/shots/R';
const FULL_HD = { width: 1920, height: 1080 };

describe('the report detail page in Chromium', () => {
  let server: InProcessPlatform;
  let writer: BrowserSession;
  let senior: BrowserSession;
  /** Unwritten exams of hospital A, with images first. */
  let exams: number[];

  const url = (id: number, from = 'write') => `${server.url}/reportDetail?id=${id}&from=${from}&model=report`;
  const shot = async (page: Page, name: string) => {
    // The embedded viewer has drawn its first image (when the exam has images).
    if (await page.getByTestId('report-images').count()) await page.locator('[data-testid=viewport][data-rendered=true]').first().waitFor({ timeout: 60_000 });
    await settled(page);
    const file = path.join(__dirname, '..', '.artifacts', `reportDetail-${name}.png`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await page.screenshot({ path: file });
    if (fs.existsSync(SHOTS)) fs.copyFileSync(file, path.join(SHOTS, `${name}.png`));
  };
  /** Opens the report and waits for it (and for its lock, when `lock` says whose it should be). */
  const open = async (page: Page, id: number, lock?: 'mine' | 'other', from?: string) => {
    await page.goto(url(id, from));
    await page.getByTestId('report-detail').waitFor();
    if (lock) await page.locator(`[data-testid=report-lock][data-lock=${lock}]`).waitFor();
  };
  const state = (page: Page, value: number) => page.locator(`[data-testid=report-state][data-state="${value}"]`).waitFor();
  const version = async (id: number) => (await server.db.query<{ version: number }>('SELECT version FROM report WHERE id = $1', [id])).rows[0]?.version ?? 0;
  /** Resolves once `check` holds, asking every 200 ms; fails after `ms`. */
  const until = async (check: () => Promise<boolean>, ms: number) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`not within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const lockHolder = async (id: number) =>
    (await server.db.query<{ holder_name: string }>('SELECT holder_name FROM report_lock WHERE report_id = $1 AND expires_at > now()', [id])).rows[0]?.holder_name;

  beforeAll(async () => {
    server = await startInProcess();
    const { rows } = await server.db.query<{ id: number }>(
      `SELECT e.id FROM exam e JOIN org o ON o.id = e.hospital_id LEFT JOIN report r ON r.id = e.id
        WHERE o.code = 'HOSP_A' AND e.exam_state = 2 AND e.report_state = -1 AND NOT e.sent_to_superior AND NOT e.hidden AND r.id IS NULL
        ORDER BY e.image_status DESC, e.id DESC LIMIT 3`,
    );
    exams = rows.map((r) => r.id);
    expect(exams.length).toBe(3);
    writer = await openBrowser();
    senior = await openBrowser();
    await writer.page.setViewportSize(FULL_HD);
    await senior.page.setViewportSize(FULL_HD);
    await signInBrowser(writer.page, server, '13800000004', DEMO_PASSWORD);
    await signInBrowser(senior.page, server, '13800000005', DEMO_PASSWORD);
  }, 300_000);

  afterAll(async () => {
    await writer?.close();
    await senior?.close();
    await server?.close();
  });

  test('written from a template, saved with Ctrl+S, submitted, rejected with a reason, fixed, resubmitted, approved; every step in the record', async () => {
    const id = exams[0];
    const w = writer.page;
    await open(w, id, 'mine');
    await state(w, -1);

    // A public template, appended into the empty findings and diagnosis.
    const tpl = (await server.db.query<{ template_name: string; see: string; diagnosis: string }>(
      "SELECT template_name, see, diagnosis FROM report_template t JOIN org o ON o.id = t.hospital_id WHERE o.code = 'HOSP_A' AND t.scope = 'public' ORDER BY t.id LIMIT 1",
    )).rows[0];
    await w.getByTestId('template-node').filter({ hasText: tpl.template_name }).first().click();
    await w.getByTestId('template-preview').waitFor();
    await w.getByTestId('template-append').click();
    await expect(w.getByTestId('report-see').inputValue()).resolves.toBe(tpl.see);
    await expect(w.getByTestId('report-diagnosis').inputValue()).resolves.toBe(tpl.diagnosis);
    await shot(w, 'writing');

    // Ctrl+S: saved on the server, one version on.
    const before = await version(id);
    await w.keyboard.press('Control+s');
    await w.locator(`[data-testid=report-detail][data-version="${before + 1}"]`).waitFor();
    expect(await version(id)).toBe(before + 1);
    await state(w, 1);

    await w.getByTestId('report-action-submit').click();
    await state(w, 2);
    // Submitting gave up the lock; the writer may no longer change it.
    await w.locator('[data-testid=report-lock][data-lock=none]').waitFor();
    expect(await w.getByTestId('report-save').isDisabled()).toBe(true);

    // The senior reviews it: reject with a reason (the dialog asks for it).
    const s = senior.page;
    await open(s, id, 'mine', 'review');
    await state(s, 2);
    await shot(s, 'reviewing');
    await s.getByTestId('report-action-reviewReject').click();
    await s.getByTestId('report-reason').waitFor();
    await s.getByTestId('report-ask-ok').click();
    // Required: refused by the form before anything is sent.
    await s.getByText(zh('validation.required', { field: zh('entity.reportOperationLog.field.reason') })).waitFor();
    const reason = '诊断意见请补充心影大小描述。';
    await s.getByTestId('report-reason').fill(reason);
    await shot(s, 'reject-dialog');
    await s.getByTestId('report-ask-ok').click();
    await state(s, 3);

    // The writer reads the reason, fixes the diagnosis and resubmits.
    await open(w, id, 'mine');
    await state(w, 3);
    await expect(w.getByTestId('report-reject-reason').textContent()).resolves.toBe(reason);
    await w.getByTestId('report-diagnosis').fill(`${tpl.diagnosis}心影大小正常。`);
    await shot(w, 'rejected-fixing');
    await w.getByTestId('report-action-submit').click();
    await state(w, 2);

    // The senior approves.
    await open(s, id, 'mine', 'review');
    await s.getByTestId('report-action-reviewPass').click();
    await state(s, 4);
    const stored = (await server.db.query<{ diagnosis: string; report_state: number }>('SELECT diagnosis, report_state FROM report WHERE id = $1', [id])).rows[0];
    expect(stored).toEqual({ diagnosis: `${tpl.diagnosis}心影大小正常。`, report_state: 4 });

    // The operation record, newest first.
    await s.getByTestId('report-side').getByRole('tab', { name: zh('entity.report.detail.tab.record') }).click();
    const record = s.getByTestId('report-record');
    await record.locator('tr[data-type=reviewPass]').waitFor();
    const types = await record.locator('tbody tr[data-type]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-type')));
    const report = types.filter((x) => ['saveReport', 'submit', 'reviewReject', 'reviewPass'].includes(String(x)));
    expect(report).toEqual(['reviewPass', 'submit', 'reviewReject', 'submit', 'saveReport']);
    await expect(record.locator('tr[data-type=reviewReject]').textContent()).resolves.toContain(reason);
    await shot(s, 'record');
  }, 240_000);

  test('a second browser sees who holds the lock and cannot save; closing the first page releases it', async () => {
    const id = exams[1];
    const first = await writer.context.newPage();
    await first.setViewportSize(FULL_HD);
    await open(first, id, 'mine');
    expect(await lockHolder(id)).toBe('陈医生');

    const s = senior.page;
    await open(s, id, 'other');
    await expect(s.getByTestId('report-locked-by').textContent()).resolves.toContain(zh('error.REPORT101', { name: '陈医生' }));
    expect(await s.getByTestId('report-save').isDisabled()).toBe(true);
    expect(await s.getByTestId('report-write').getAttribute('data-editable')).toBe('false');
    // Ctrl+S does nothing either: the version stays.
    await s.keyboard.press('Control+s');
    await shot(s, 'locked-by-other');
    expect(await version(id)).toBe(0);

    // The first user closes the tab: the page frees the lock as it goes.
    await first.close({ runBeforeUnload: true });
    await until(async () => (await lockHolder(id)) !== '陈医生', 10_000);
    // The second page notices within its polling interval and takes the lock.
    await s.locator('[data-testid=report-lock][data-lock=mine]').waitFor({ timeout: 20_000 });
    expect(await s.getByTestId('report-save').isDisabled()).toBe(false);
    expect(await lockHolder(id)).toBe('林主任');
  }, 120_000);
});
