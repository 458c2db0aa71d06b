/**
 * Report printing in Chromium. Reports of hospital A are written by its radiologist
 * (陈医生) and approved by the senior (林主任) through the workflow's own calls; both
 * have a signature picture, drawn in the page and uploaded with the user as an
 * administrator would. Scenarios:
 * 1. the senior prints one from the exam list ("print report" on an approved row):
 *    the A4 sheet of hospital A's own layout (its heading, the patient, findings and
 *    diagnosis, both signatures as pictures); under print media only the sheet shows;
 *    Print calls the browser's print once and then the server: printed once, recorded
 *    as `print`; opened again it says how often it was printed
 * 2. batch print from the report centre's "to print" list: two ticked reports printed
 *    in one call; a hospital whose layout was taken away says so and its report does
 *    not print
 * 3. the regional administrator at /qualityControl: the layouts with the hospitals
 *    printing with each; hospital A's layout edited with its live A4 preview (a new
 *    title, the inpatient number hidden) and saved; the doctors' signatures dialog
 *    turns 陈医生's picture off; the senior's sheet then follows all three
 * Screenshots: tests/.artifacts/P/ (preview-A.png: hospital A's printed sheet).
 */
import fs from 'node:fs';
import path from 'node:path';
import { translate } from '../../locales';
import { authed, login } from '../support/auth';
import { signInBrowser, openBrowser, startSignedIn, stopSignedIn, type BrowserSession, shotsDir } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { clickRowAction, ResourceListPage, settled } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);
const R = '/api/report/v1';
const SHOTS = shotsDir('P');
const SCREEN = { width: 1920, height: 1080 };

describe('report printing in Chromium', () => {
  let server: InProcessPlatform;
  /** The senior (林主任): prints, one by one and in batches. */
  let b: BrowserSession;
  /** The regional administrator: report page settings. */
  let a: BrowserSession | undefined;
  let list: ResourceListPage;
  let admin: string;
  let docA: string;
  let senior: string;
  let orgs: Record<string, number>;
  let items: Record<string, { id: number; organ_id: number }>;
  const users: Record<string, number> = {};
  const stamp = String(Date.now()).slice(-6);

  const call = async (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    (await server.app.inject({ method, url, headers: authed(token), payload })).json() as { status: string; data: Record<string, any> };
  const shot = (session: BrowserSession, name: string) => session.page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  const toast = (session: BrowserSession, text: string) => session.page.locator('.ant-message-notice').filter({ hasText: text }).first();

  /** An exam of `hospital` examined (hospital A: on its CT), written by 陈医生 (hospital A) and approved by 林主任. */
  const approved = async (name: string, hospital = 'HOSP_A') => {
    const device = (await server.db.query<{ id: number }>("SELECT id FROM device WHERE ae_title = 'A_CT1'")).rows[0];
    const r = await call('POST', '/api/ris/v1/exam/save', admin, {
      hospitalId: orgs[hospital], hisPatientName: name, sex: 1, age: 58, ageUnit: 4, patientSource: 2, inPatientNo: `ZY${stamp}`, outPatientNo: `MZ${stamp}`,
      hisDeptName: '呼吸内科', ...(hospital === 'HOSP_A' ? { deviceId: device.id } : {}), items: [{ itemId: items[hospital].id, organId: items[hospital].organ_id }],
    });
    expect(r.status).toBe('0');
    const id = r.data.id as number;
    // Examined: the technician's step.
    await server.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [id]);
    const content = {
      see: '胸廓对称，气管居中。双肺纹理清晰，右肺下叶外基底段见一枚直径约 4 mm 的实性小结节，边界清楚。双肺门不大，纵隔内未见肿大淋巴结。心影大小形态未见异常。双侧胸膜无增厚，胸腔内未见积液。',
      diagnosis: '1. 右肺下叶微小实性结节，建议 12 个月后低剂量 CT 复查。\n2. 余胸部 CT 平扫未见明显异常。',
    };
    // Hospital B has no radiologist of its own in the demo: the senior (regional authorization) writes there.
    expect((await call('POST', `${R}/report/submit/${id}`, hospital === 'HOSP_A' ? docA : senior, { version: 0, ...content })).status).toBe('0');
    expect((await call('POST', `${R}/report/reviewPass/${id}`, senior, { version: 1 })).status).toBe('0');
    return { id, examCode: r.data.examCode as string };
  };
  /** A signature picture as a doctor would scan it: the name in ink on white, 200x130 PNG, drawn by Chromium. */
  const drawSignature = (name: string) =>
    b.page.evaluate((text) => {
      const c = document.createElement('canvas');
      c.width = 200;
      c.height = 130;
      const g = c.getContext('2d')!;
      g.fillStyle = '#fff';
      g.fillRect(0, 0, 200, 130);
      g.fillStyle = '#1a2f7a';
      g.strokeStyle = '#1a2f7a';
      g.font = 'italic 46px "WenQuanYi Micro Hei", cursive';
      g.textAlign = 'center';
      g.textBaseline = 'middle';
      g.setTransform(1, 0, -0.25, 1, 16, 0);
      g.fillText(text, 100, 60);
      g.setTransform(1, 0, 0, 1, 0, 0);
      g.lineWidth = 2.5;
      g.beginPath();
      g.moveTo(28, 104);
      g.bezierCurveTo(80, 88, 120, 120, 176, 96);
      g.stroke();
      return c.toDataURL('image/png');
    }, name);
  const stored = async (id: number) =>
    (await server.db.query<{ state: number; n: number }>('SELECT print_state AS state, print_number AS n FROM report WHERE id = $1', [id])).rows[0];
  /** Opens the print dialog from the exam list's row of `examCode`. */
  const printFromExamList = async (examCode: string) => {
    await list.open('/examination');
    await list.search({ examCode });
    await clickRowAction(list.row(examCode).filter({ hasText: stamp }), 'printReport');
    const dialog = b.page.getByTestId('print-dialog');
    await dialog.getByTestId('report-sheet').waitFor();
    await settled(b.page);
    return dialog;
  };
  /** Every <img> of the locator decoded (signatures are data URLs, yet decode asynchronously). */
  const imagesLoaded = (scope: ReturnType<BrowserSession['page']['getByTestId']>) =>
    scope.evaluate((el) => Promise.all([...el.querySelectorAll('img')].map((img) => img.decode().then(() => img.naturalWidth))));

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    ({ server, b } = await startSignedIn('13800000005'));
    await b.page.setViewportSize(SCREEN);
    list = new ResourceListPage(b.page, server.url);
    orgs = Object.fromEntries((await server.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    for (const r of (await server.db.query<{ mobile: string; id: number }>('SELECT mobile, id FROM app_user')).rows) users[r.mobile] = r.id;
    items = Object.fromEntries(
      (
        await server.db.query<{ code: string; id: number; organ_id: number }>(
          // The chest CT: what the findings below describe.
          "SELECT o.code, i.id, i.organ_id FROM exam_item i JOIN org o ON o.id = i.hospital_id WHERE i.code = 'CT002'",
        )
      ).rows.map((r) => [r.code, r]),
    );
    [admin, docA, senior] = await Promise.all(['13800000001', '13800000004', '13800000005'].map((m) => login(server.app, m)));
    for (const [mobile, name] of [['13800000004', '陈医生'], ['13800000005', '林主任']]) {
      // Through the file service, as the user form uploads it.
      const png = Buffer.from((await drawSignature(name)).replace(/^data:[^,]*,/, ''), 'base64');
      const up = await server.app.inject({ method: 'POST', url: `/api/file/v1/upload?purpose=signature&ownerId=${users[mobile]}&name=s.png`, headers: authed(admin, { 'content-type': 'image/png' }), payload: png });
      expect(up.json().status).toBe('0');
    }
  }, 180_000);
  afterAll(async () => {
    await a?.close();
    await stopSignedIn(server, b);
  });

  test("one report from the exam list: hospital A's own layout with both signatures, printed once and recorded", async () => {
    const { page } = b;
    const report = await approved(`王建国${stamp}`);
    const dialog = await printFromExamList(report.examCode);
    const sheet = dialog.getByTestId('report-sheet');
    expect(await sheet.getByTestId('sheet-hospital').textContent()).toBe('第一乡镇卫生院');
    expect(await sheet.getByTestId('sheet-title').textContent()).toBe('影像诊断报告单');
    const text = await sheet.textContent();
    for (const s of [`王建国${stamp}`, report.examCode, `ZY${stamp}`, '呼吸内科', '58岁', '右肺下叶微小实性结节', '远程影像诊断由县中心医院提供技术支持', '此报告仅供临床医师参考']) expect(text).toContain(s);
    expect(await imagesLoaded(sheet)).toEqual([200, 200]);
    await expect(sheet.getByTestId('sheet-signature-firstTrialDoctorName').getAttribute('alt')).resolves.toBe('陈医生');
    await expect(sheet.getByTestId('sheet-signature-retrialDoctorName').getAttribute('alt')).resolves.toBe('林主任');
    // A4: 210 mm wide at 96 dpi.
    expect(Math.round((await sheet.boundingBox())!.width)).toBe(794);
    await shot(b, 'print-dialog-A');
    // The whole sheet in view for its picture.
    await page.setViewportSize({ width: SCREEN.width, height: 1400 });
    await sheet.screenshot({ path: path.join(SHOTS, 'preview-A.png') });
    await page.setViewportSize(SCREEN);

    // On paper: only the sheet, the page and the dialog hidden by the print CSS.
    await page.emulateMedia({ media: 'print' });
    const shown = await page.evaluate(() => ({
      root: getComputedStyle(document.querySelector('#root')!).display,
      print: getComputedStyle(document.querySelector('.rc-print-root')!).display,
      sheets: document.querySelectorAll('.rc-print-root [data-testid="print-sheet"]').length,
    }));
    expect(shown).toEqual({ root: 'none', print: 'block', sheets: 1 });
    await shot(b, 'print-media-A');
    await page.emulateMedia({ media: 'screen' });

    await page.evaluate(() => {
      (window as unknown as { printed: number }).printed = 0;
      window.print = () => {
        (window as unknown as { printed: number }).printed += 1;
      };
    });
    await page.getByTestId('print-submit').click();
    await toast(b, zh('entity.report.print.done', { count: 1 })).waitFor();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
    expect(await stored(report.id)).toEqual({ state: 1, n: 1 });
    const record = (await call('GET', `${R}/report/logs/${report.id}`, senior)).data.list as Array<{ type: string; operatorName: string }>;
    expect(record[0]).toMatchObject({ type: 'print', operatorName: '林主任' });

    const again = await printFromExamList(report.examCode);
    expect(await again.getByTestId('print-number').textContent()).toBe(zh('entity.report.print.printCount', { count: 1 }));
    await page.keyboard.press('Escape');
    await again.waitFor({ state: 'detached' });
  }, 180_000);

  test('batch print from the report centre: the ticked reports in one call; a hospital without a layout says so', async () => {
    const { page } = b;
    const first = await approved(`李秀英${stamp}`);
    const second = await approved(`赵明${stamp}`);
    await list.open('/report?kind=print');
    await list.search({ examCode: first.examCode.slice(0, -3) });
    for (const r of [first, second]) await list.row(r.examCode).locator('.ant-checkbox-input').check();
    await page.getByTestId('toolbar-action-batchPrint').click();
    const dialog = page.getByTestId('print-dialog');
    await dialog.getByTestId('report-sheet').nth(1).waitFor();
    expect(await page.getByTestId('print-count').textContent()).toBe(zh('entity.report.print.printable', { count: 2 }));
    await shot(b, 'print-batch');
    await page.evaluate(() => {
      window.print = () => undefined;
    });
    const batch = page.waitForResponse((r) => r.url().endsWith('/report/batchPrint'));
    await page.getByTestId('print-submit').click();
    expect(((await (await batch).json()) as { data: { printed: number[] } }).data.printed.sort()).toEqual([first.id, second.id].sort());
    await toast(b, zh('entity.report.print.done', { count: 2 })).waitFor();
    for (const r of [first, second]) expect(await stored(r.id)).toEqual({ state: 1, n: 1 });

    // Hospital B without a layout: the dialog says why and nothing prints.
    const other = await approved(`孙丽${stamp}`, 'HOSP_B');
    expect((await call('POST', `${R}/printLayout/mapping`, admin, { hospitalId: orgs.HOSP_B, layoutId: null })).status).toBe('0');
    try {
      await list.open('/examination');
      await list.search({ examCode: other.examCode });
      // Exam codes are per hospital: the row of this patient.
      await clickRowAction(list.row(other.examCode).filter({ hasText: `孙丽${stamp}` }), 'printReport');
      const refused = page.getByTestId('print-dialog');
      await refused.getByTestId('print-problem').waitFor();
      expect(await refused.getByTestId('print-problem').textContent()).toContain(zh('error.REPORT301'));
      expect(await page.getByTestId('print-submit').isDisabled()).toBe(true);
      await shot(b, 'print-no-layout');
      await page.keyboard.press('Escape');
      expect(await stored(other.id)).toEqual({ state: 0, n: 0 });
    } finally {
      await call('POST', `${R}/printLayout/mapping`, admin, { hospitalId: orgs.HOSP_B, layoutId: (await server.db.query<{ id: number }>("SELECT id FROM print_layout WHERE name = 'default'")).rows[0].id });
    }
  }, 180_000);

  test("/qualityControl: hospital A's layout edited with its live preview, signatures switched; the printed sheet follows", async () => {
    const report = await approved(`周平${stamp}`);
    a = await openBrowser();
    await a.page.setViewportSize(SCREEN);
    await signInBrowser(a.page, server, '13800000001');
    const page = a.page;
    const layouts = new ResourceListPage(page, server.url);
    await layouts.open('/qualityControl');
    const row = layouts.row('townshipA');
    expect(await row.textContent()).toContain('第一乡镇卫生院');
    expect(await layouts.row('countyCentral').textContent()).toContain('县中心医院');
    await shot(a, 'quality-control-list');

    await row.getByTestId('row-edit').click();
    const modal = page.getByTestId('form-modal');
    const preview = modal.getByTestId('layout-preview');
    await preview.getByTestId('sheet-inPatientNo').waitFor();
    await page.waitForFunction(() => (document.querySelector('[data-testid="field-title"] input') as HTMLInputElement | null)?.value === '影像诊断报告单');
    expect(await preview.getByTestId('sheet-title').textContent()).toBe('影像诊断报告单');
    // A new title and the inpatient number hidden: the preview follows as the fields change.
    await modal.getByTestId('field-title').locator('input').fill('CT 检查报告单');
    await preview.getByTestId('sheet-title').filter({ hasText: 'CT 检查报告单' }).waitFor();
    const itemRow = modal.getByTestId('field-fields').locator('tr.ant-table-row').filter({ hasText: zh('code.printField.inPatientNo') });
    await itemRow.locator('.ant-switch').click();
    await preview.getByTestId('sheet-inPatientNo').waitFor({ state: 'detached' });
    await settled(page);
    await shot(a, 'layout-editor');
    await page.getByTestId('form-modal-save').click();
    await toast(a, zh('entity.action.saved')).waitFor();
    await modal.waitFor({ state: 'detached' });
    await layouts.settled();
    expect(await layouts.row('townshipA').textContent()).toContain('CT 检查报告单');

    // 陈医生's signature picture stops printing.
    await page.getByTestId('toolbar-action-signatures').click();
    const signatures = page.getByTestId('print-signatures');
    await signatures.locator('tr.ant-table-row').filter({ hasText: '陈医生' }).waitFor();
    expect((await signatures.locator('tr.ant-table-row').allTextContents()).sort()).toEqual(['林主任县中心医院', '陈医生第一乡镇卫生院']);
    await signatures.getByTestId('signature-picture').first().waitFor();
    await shot(a, 'signatures');
    await signatures.getByTestId(`signature-active-${users['13800000004']}`).click();
    await toast(a, zh('entity.printSignature.saved')).waitFor();

    // The senior's sheet now: the new title, no inpatient number, 陈医生 typed, 林主任 still signing.
    const dialog = await printFromExamList(report.examCode);
    const sheet = dialog.getByTestId('report-sheet');
    expect(await sheet.getByTestId('sheet-title').textContent()).toBe('CT 检查报告单');
    expect(await sheet.getByTestId('sheet-inPatientNo').count()).toBe(0);
    expect(await sheet.getByTestId('sheet-signature-firstTrialDoctorName').count()).toBe(0);
    expect(await sheet.getByTestId('sheet-firstTrialDoctorName').textContent()).toContain('陈医生');
    expect(await sheet.getByTestId('sheet-signature-retrialDoctorName').count()).toBe(1);
    await b.page.setViewportSize({ width: SCREEN.width, height: 1400 });
    await sheet.screenshot({ path: path.join(SHOTS, 'preview-A-edited.png') });
    await b.page.setViewportSize(SCREEN);
  }, 240_000);
});
