/**
 * Tele-consultation in Chromium (issue #20, the first "Done when"), three people each
 * signed in once, in their own browser:
 * - hospital A's doctor (陈医生) applies through the wizard (/consultationProcess) with
 *   two exams and a PDF for 郑教授 of the central hospital; the application is under
 *   review in "my applications"; a second application (made through the API) is
 *   revoked from the list: a one-character reason is refused in the dialog, a proper
 *   one revokes it
 * - the central hospital's reviewer (林主任) finds both in the worklist: the revoked
 *   one offers no review, the new one is approved (the experts are notified) and
 *   started
 * - 郑教授 (in English) sees the notice, opens the consultation: the two exams, the PDF
 *   previewed in the page, the experts; "join video" opens the room for this
 *   consultation; writes the report and submits it
 * - the reviewer approves the report and prints it with hospital A's layout
 * - /operationLog lists every step of the consultation
 * - the wizard offers only exams with images; what was said in the video room shows
 *   in the consultation's detail
 * - a revoked application's row offers its applicant the edit (the detail, the form
 *   open), and the detail offers nothing else: the form holds
 *   the application, a past start is refused by the server on its field, the edit
 *   sends it back to review (logged)
 * - the reviewer gives an expert an avatar (a GIF refused at once), seen in the list
 * Screenshots: tests/.artifacts/consult/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { translate } from '../../locales';
import { DEMO_PASSWORD } from '../../mock/identity';
import { IMAGES_OF_EXAM } from '../../server/consult/domain';
import { recordChat } from '../../server/video/rooms';
import { authed, login } from '../support/auth';
import { signaturePng } from '../support/images';
import { signInBrowser, openBrowser, type BrowserSession, shotsDir } from '../support/browser';
import { startInProcess, type InProcessPlatform } from '../support/inprocess';
import { clickRowAction, offered, ResourceListPage, SchemaFormPage, settled } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);
const en = (key: string, params?: Record<string, unknown>) => translate('en-US', key, params);
const SHOTS = shotsDir('consult');
const C = '/api/consult/v1';

function pdf(size: number): Buffer {
  const b = Buffer.alloc(size, 0x20);
  Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n').copy(b, 0);
  return b;
}

/** A local date-time as the form's picker types it, `hours` from now. */
function pickerTime(hours: number): string {
  const d = new Date(Date.now() + hours * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:00`;
}

describe('tele-consultation in Chromium', () => {
  let server: InProcessPlatform;
  let doc: BrowserSession;
  let rev: BrowserSession;
  let exp: BrowserSession;
  let exams: Array<{ id: number; exam_code: string }>;
  let bare: { id: number; exam_code: string };
  let consultationId: number;
  let consultNo: string;

  const shot = async (s: BrowserSession, name: string) => {
    await settled(s.page);
    await s.page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  };
  const status = async (id: number) => (await server.db.query<{ status: number; report_status: number }>('SELECT status, report_status FROM consultation WHERE id = $1', [id])).rows[0];
  /** Picks one option of a multiple select (which stays open after a pick: Escape closes it). */
  const chooseMany = async (page: BrowserSession['page'], field: ReturnType<SchemaFormPage['field']>, option: string) => {
    await field.locator('.ant-select-selector').click();
    await page.keyboard.type(option);
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: option }).first().click();
    await field.locator('.ant-select-selection-item').filter({ hasText: option }).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.ant-select-dropdown:visible').waitFor({ state: 'detached' });
  };
  /** 陈医生's application for 郑教授 of the central hospital on the first exam, made through the API, starting `hours` from now: its id. */
  const applyThroughApi = async (patient: { patientName: string; birthDate: string; topic: string; clinicalQuestion: string }, hours: number) => {
    const token = await login(server.app, '13800000004');
    const expertId = (await server.db.query<{ id: number }>("SELECT id FROM expert WHERE mobile = '13800000006'")).rows[0].id;
    const central = (await server.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'CENTRAL'")).rows[0].id;
    const payload = { examId: exams[0].id, ...patient, hospitalId: central, expertIds: [expertId], startTime: new Date(Date.now() + hours * 3600_000).toISOString() };
    const saved = await server.app.inject({ method: 'POST', url: `${C}/consultation/save`, headers: authed(token), payload });
    expect(saved.json().status).toBe('0');
    return saved.json().data.id as number;
  };
  const detailLoaded = (s: BrowserSession, id: number) => s.page.waitForResponse((r) => r.url().endsWith(`${C}/consultation/detail/${id}`) && r.status() === 200);

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    server = await startInProcess();
    // Only exams with images may be consulted on (the wizard offers no other).
    const hospitalA = "(SELECT id FROM org WHERE code = 'HOSP_A')";
    exams = (await server.db.query<{ id: number; exam_code: string }>(`SELECT e.id, e.exam_code FROM exam e WHERE e.hospital_id = ${hospitalA} AND NOT e.hidden AND EXISTS (${IMAGES_OF_EXAM}) ORDER BY e.id DESC LIMIT 2`)).rows;
    bare = (await server.db.query<{ id: number; exam_code: string }>(`SELECT e.id, e.exam_code FROM exam e WHERE e.hospital_id = ${hospitalA} AND NOT e.hidden AND NOT EXISTS (${IMAGES_OF_EXAM}) ORDER BY e.id DESC LIMIT 1`)).rows[0];
    [doc, rev, exp] = await Promise.all([openBrowser(), openBrowser(), openBrowser({ locale: 'en-US' })]);
    await Promise.all([
      signInBrowser(doc.page, server, '13800000004', DEMO_PASSWORD),
      signInBrowser(rev.page, server, '13800000005', DEMO_PASSWORD),
      signInBrowser(exp.page, server, '13800000006', DEMO_PASSWORD),
    ]);
  }, 240_000);
  afterAll(async () => {
    await Promise.all([doc, rev, exp].map((s) => s?.close()));
    await server?.close();
  });

  test('apply with two exams and a PDF; review, revoke and reject rules; the expert joins and reports; printed; all logged', async () => {
    // ---- 陈医生 applies through the wizard.
    const page = doc.page;
    // A fresh start, also when this test runs again on the same server.
    await server.db.query("DELETE FROM form_draft WHERE form = 'consultationApply'");
    await server.db.query('UPDATE consultation_notice SET read_at = now() WHERE read_at IS NULL');
    const smsBefore = (await server.db.query<{ n: number }>("SELECT count(*)::int AS n FROM sms_outbox WHERE mobile = '13800000006'")).rows[0].n;
    await page.goto(`${server.url}/teleConsultionPlatform`);
    await page.getByTestId('consult-apply').click();
    await page.waitForURL('**/consultationProcess');
    const form = new SchemaFormPage(page, page.getByTestId('wizard'));
    // An exam without images is not offered.
    const examField = form.field('examId');
    await examField.locator('.ant-select-selector').click();
    await page.keyboard.type(bare.exam_code);
    await page.locator('.ant-select-dropdown:visible .ant-select-item-empty').waitFor();
    // One with images is: the search typed again, in the same open select.
    await examField.locator('input').fill(exams[0].exam_code);
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: exams[0].exam_code }).first().click();
    await examField.locator('.ant-select-selection-item').filter({ hasText: exams[0].exam_code }).waitFor();
    await page.locator('.ant-select-dropdown:visible').waitFor({ state: 'detached' });
    await chooseMany(page, form.field('examIds'), exams[1].exam_code);
    await form.fill('patientName', '王小明');
    await form.field('birthDate').locator('input').fill('1960-05-04');
    await page.keyboard.press('Enter');
    await page.getByTestId('wizard-next').click();
    await form.field('topic').locator('textarea').fill('右肺结节会诊');
    await form.field('clinicalQuestion').locator('textarea').fill('右肺上叶结节，良恶性？');
    await page.getByTestId('wizard-next').click();
    await form.choose('attachmentType', zh('code.attachmentType.2'));
    const upload = form.field('attachments').getByTestId('file-upload');
    const completed = page.waitForResponse((r) => /\/api\/file\/v1\/upload(\/[^/]+\/complete)?(\?.*)?$/.test(r.url()) && r.request().method() === 'POST' && r.status() === 200);
    await upload.locator('input[type="file"]').setInputFiles({ name: '病理报告.pdf', mimeType: 'application/pdf', buffer: pdf(300_000) });
    await completed;
    await upload.getByTestId('file-upload-item').getByText('病理报告.pdf').waitFor();
    await shot(doc, 'apply-materials');
    await page.getByTestId('wizard-next').click();
    await form.choose('hospitalId', '县中心医院');
    await chooseMany(page, form.field('expertIds'), '郑教授');
    await form.field('startTime').locator('input').fill(pickerTime(24));
    await page.keyboard.press('Enter');
    await form.field('endTime').locator('input').fill(pickerTime(25));
    await page.keyboard.press('Enter');
    const saved = page.waitForResponse((r) => r.url().endsWith(`${C}/consultation/save`));
    await page.getByTestId('wizard-submit').click();
    const answer = await saved;
    expect(answer.status()).toBe(200);
    consultationId = (await answer.json()).data.id;
    await page.getByTestId('wizard-done').waitFor();
    const stored = (await server.db.query('SELECT consult_no, exam_ids, status, attachments FROM consultation WHERE id = $1', [consultationId])).rows[0];
    consultNo = stored.consult_no;
    expect(stored).toMatchObject({ status: 2, exam_ids: [exams[0].id, exams[1].id], attachments: [expect.objectContaining({ type: 2 })] });

    // A second application, made through the API, revoked from the list.
    const secondId = await applyThroughApi({ patientName: '王小明', birthDate: '1960-05-04', topic: '第二次会诊', clinicalQuestion: '复查' }, 48);
    const secondNo = (await server.db.query<{ consult_no: string }>('SELECT consult_no FROM consultation WHERE id = $1', [secondId])).rows[0].consult_no;

    const list = new ResourceListPage(page, server.url);
    await list.open('/teleConsultionPlatform');
    await list.row(consultNo).getByText(zh('code.consultState.2')).waitFor();
    await clickRowAction(list.row(secondNo), 'revoke');
    const dialog = page.locator('.ant-modal:visible');
    await dialog.locator('textarea').fill('改');
    await dialog.locator('.ant-btn-primary').click();
    await dialog.getByText(zh('validation.minLength', { field: zh('entity.consultation.action.revokeReason'), limit: 2 })).waitFor();
    await dialog.locator('textarea').fill('患者要求改期');
    await dialog.locator('.ant-btn-primary').click();
    await list.row(secondNo).getByText(zh('code.consultState.4')).waitFor();
    expect((await status(secondId)).status).toBe(4);
    await shot(doc, 'platform-applied');

    // ---- 林主任 reviews: the revoked one offers no review; the new one is approved and started.
    const rp = rev.page;
    const worklist = new ResourceListPage(rp, server.url);
    await worklist.open('/teleConsultionPlatform');
    await rp.getByRole('tab', { name: zh('entity.consultation.kind.worklist') }).click();
    await worklist.row(secondNo).waitFor();
    await worklist.settled();
    expect(await offered(worklist.row(secondNo), 'approve').count()).toBe(0);
    expect(await offered(worklist.row(secondNo), 'reject').count()).toBe(0);
    expect(await offered(worklist.row(consultNo), 'reject').count()).toBe(1);
    await shot(rev, 'platform-worklist');
    await clickRowAction(worklist.row(consultNo), 'approve');
    await rp.getByTestId('row-action-approve-ok').click();
    await worklist.row(consultNo).getByText(zh('code.consultState.5')).waitFor();
    expect((await status(consultationId)).status).toBe(5);
    // Rejecting now is refused by the server (already reviewed), whatever a stale page offers.
    const revToken = await login(server.app, '13800000005');
    const late = await server.app.inject({ method: 'POST', url: `${C}/consultation/action/reject`, headers: authed(revToken), payload: { id: consultationId, version: 3, reason: '太晚了' } });
    expect(late.json().status).toBe('CONSULT301');

    await clickRowAction(worklist.row(consultNo), 'open');
    await rp.waitForURL(`**/consultationDetail?id=${consultationId}`);
    await rp.getByTestId('consult-action-start').click();
    await rp.locator(`[data-testid="consult-detail"][data-status="6"]`).waitFor();

    // What was said in the video room is kept with the consultation (the socket's path is
    // the video API test's; here the line is kept as the hub keeps it) and shown in the detail.
    const docToken = await login(server.app, '13800000004');
    const room = await server.app.inject({ method: 'POST', url: `${C}/video/room`, headers: authed(docToken), payload: { consultationId } });
    expect(room.statusCode).toBe(200);
    await recordChat(server.db, room.json().data, { id: (await server.db.query<{ id: number }>("SELECT id FROM app_user WHERE mobile = '13800000004'")).rows[0].id, name: '陈医生' }, '请看右肺上叶第 12 层');

    // ---- 郑教授 (English) was notified, opens it, previews the PDF, joins, writes the report.
    const ep = exp.page;
    await ep.goto(`${server.url}/teleConsultionPlatform`);
    await ep.getByTestId('consult-notices').getByText(en('entity.consultation.detail.notices_other', { count: 2 })).waitFor();
    const sms = (await server.db.query<{ n: number }>("SELECT count(*)::int AS n FROM sms_outbox WHERE mobile = '13800000006'")).rows[0].n;
    // Invited and started, by SMS too.
    expect(sms - smsBefore).toBe(2);
    const loaded = detailLoaded(exp, consultationId);
    await ep.goto(`${server.url}/consultationDetail?id=${consultationId}`);
    await loaded;
    const detail = ep.getByTestId('consult-detail');
    await detail.getByTestId('consult-exams').getByText(exams[1].exam_code).waitFor();
    expect(await detail.getByTestId('consult-open-viewer').count()).toBe(2);
    await detail.getByTestId('consult-material').getByText('病理报告.pdf').waitFor();
    await detail.getByTestId('consult-chat-line').filter({ hasText: '请看右肺上叶第 12 层' }).getByText('陈医生').waitFor();
    await detail.getByTestId('consult-material-preview').click();
    await ep.getByTestId('consult-preview-pdf').waitFor();
    expect(await ep.getByTestId('consult-preview-pdf').getAttribute('src')).toMatch(/^blob:/);
    await shot(exp, 'detail-expert-en');
    // The close button, not Escape: a PDF frame that has the focus keeps the key to itself.
    await ep.getByRole('dialog').locator('.ant-modal-close').click();
    await ep.getByTestId('consult-preview-pdf').waitFor({ state: 'detached' });

    // The room is the video helper's screen: here, that the button leads there for this consultation.
    const toRoom = ep.waitForURL((url) => url.pathname === '/consultationRoom' && url.searchParams.get('id') === String(consultationId), { waitUntil: 'commit' });
    await detail.getByTestId('consult-join-video').click();
    await toRoom;
    const back = detailLoaded(exp, consultationId);
    await ep.goto(`${server.url}/consultationDetail?id=${consultationId}`);
    await back;
    await ep.getByTestId('consult-findings').fill('右肺上叶见 8 mm 实性结节，边缘光整。');
    await ep.getByTestId('consult-opinion').fill('倾向良性，建议三个月后低剂量 CT 复查。');
    await ep.getByTestId('consult-action-submitReport').click();
    await ep.locator('[data-testid="consult-detail"][data-report-status="2"]').waitFor();

    // ---- 林主任 approves the report and prints it with hospital A's layout.
    const again = detailLoaded(rev, consultationId);
    await rp.reload();
    await again;
    await rp.getByTestId('consult-action-approveReport').click();
    await rp.locator('[data-testid="consult-detail"][data-report-status="4"]').waitFor();
    await rp.getByTestId('consult-print').click();
    const sheet = rp.getByTestId('print-dialog').getByTestId('report-sheet');
    await sheet.getByText('倾向良性，建议三个月后低剂量 CT 复查。').waitFor();
    await sheet.getByText('第一乡镇卫生院').first().waitFor();
    await shot(rev, 'report-print');
    await rp.evaluate(() => {
      (window as unknown as { printed: number }).printed = 0;
      window.print = () => void ((window as unknown as { printed: number }).printed += 1);
    });
    const printed = rp.waitForResponse((r) => r.url().endsWith(`${C}/consultation/${consultationId}/report/printed`));
    await rp.getByTestId('print-submit').click();
    expect((await printed).status()).toBe(200);
    expect(await rp.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
    expect(await status(consultationId)).toEqual({ status: 6, report_status: 4 });

    // ---- Every step in the operation log.
    const logs = new ResourceListPage(rp, server.url);
    await logs.open('/operationLog');
    await logs.search({ consultNo });
    // The room started (its meeting id bound) once the consultation ran.
    const steps = ['create', 'submit', 'approve', 'start', 'bindMeeting', 'submitReport', 'approveReport', 'printReport'];
    for (const step of steps) await logs.rows().filter({ hasText: zh(`code.consultLogType.${step}`) }).first().waitFor();
    expect(await logs.rows().count()).toBe(steps.length);
    await shot(rev, 'operation-log');
    // The detail's log says the same, in order.
    const entries = await ep.getByTestId('consult-log-entry').evaluateAll((els) => els.map((e) => e.getAttribute('data-action')));
    expect(entries.slice(0, 6)).toEqual(['create', 'submit', 'approve', 'start', 'bindMeeting', 'submitReport']);
  }, 240_000);

  test('a revoked application is edited by its applicant and goes back to review; an expert gets an avatar', async () => {
    // ---- 陈医生 revoked an application; its detail offers the edit, and only that.
    const token = await login(server.app, '13800000004');
    const id = await applyThroughApi({ patientName: '李四', birthDate: '1955-03-02', topic: '待改期的会诊', clinicalQuestion: '纵隔占位？' }, 30);
    const version = async () => (await server.db.query<{ version: number }>('SELECT version FROM consultation WHERE id = $1', [id])).rows[0].version;
    const revoked = await server.app.inject({ method: 'POST', url: `${C}/consultation/action/revoke`, headers: authed(token), payload: { id, version: await version(), reason: '患者要求改期' } });
    expect(revoked.json().status).toBe('0');

    // "My applications" offers its edit, which opens the detail with the form.
    const page = doc.page;
    const no = (await server.db.query<{ consult_no: string }>('SELECT consult_no FROM consultation WHERE id = $1', [id])).rows[0].consult_no;
    const list = new ResourceListPage(page, server.url);
    await list.open('/teleConsultionPlatform');
    await list.row(no).getByText(zh('code.consultState.4')).waitFor();
    const loaded = detailLoaded(doc, id);
    await clickRowAction(list.row(no), 'editApplication');
    await loaded;
    await page.locator('[data-testid="consult-detail"][data-status="4"]').waitFor();
    const dialog = page.getByTestId('consult-edit-form');
    await dialog.waitFor();
    // The edit is all the detail offers its applicant now.
    expect(await page.locator('[data-testid^="consult-action-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')))).toEqual(['consult-action-edit']);
    const form = new SchemaFormPage(page, dialog);
    // The form holds the application as it was.
    expect(await form.field('topic').locator('textarea').inputValue()).toBe('待改期的会诊');
    expect(await form.field('patientName').locator('input').inputValue()).toBe('李四');
    await form.field('topic').locator('textarea').fill('改期后的纵隔会诊');
    // A start in the past: the server refuses it, on the field, and nothing changes.
    await form.field('startTime').locator('input').fill(pickerTime(-2));
    await page.keyboard.press('Enter');
    const refused = page.waitForResponse((r) => r.url().endsWith(`${C}/consultation/action/edit`));
    await page.getByTestId('consult-edit-submit').click();
    expect((await refused).status()).toBe(400);
    await form.field('startTime').locator('.ant-formily-item-error-help').waitFor();
    expect(await status(id)).toEqual({ status: 4, report_status: -1 });
    await shot(doc, 'edit-revoked-refused');
    await form.field('startTime').locator('input').fill(pickerTime(50));
    await page.keyboard.press('Enter');
    await form.field('endTime').locator('input').fill(pickerTime(51));
    await page.keyboard.press('Enter');
    const sent = page.waitForResponse((r) => r.url().endsWith(`${C}/consultation/action/edit`));
    await page.getByTestId('consult-edit-submit').click();
    expect((await sent).status()).toBe(200);
    await page.locator('[data-testid="consult-detail"][data-status="2"]').waitFor();
    await page.getByTestId('consult-log-entry').filter({ hasText: zh('code.consultLogType.edit') }).waitFor();
    expect(await status(id)).toEqual({ status: 2, report_status: -1 });
    const row = (await server.db.query(`SELECT topic, patient_name, start_time > now() + interval '49 hours' AS later FROM consultation WHERE id = $1`, [id])).rows[0];
    expect(row).toEqual({ topic: '改期后的纵隔会诊', patient_name: '李四', later: true });
    await shot(doc, 'edited-under-review');

    // ---- 林主任 gives 郑教授 an avatar (png or jpg under 5 MB; a GIF is refused before it is sent).
    const rp = rev.page;
    const experts = new ResourceListPage(rp, server.url);
    await experts.open('/teleConsulationDoctor');
    await experts.row('13800000006').getByTestId('row-detail').click();
    await rp.getByTestId('form-edit').click();
    const editRoot = rp.locator('[data-testid="resource-form"][data-mode="edit"]');
    await editRoot.waitFor();
    const upload = new SchemaFormPage(rp, editRoot).field('avatarPicture').getByTestId('image-upload');
    await upload.getByTestId('image-upload-choose').waitFor();
    const input = upload.locator('input[type="file"]');
    await input.setInputFiles({ name: 'a.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') });
    await upload.getByTestId('image-upload-error').getByText(zh('entity.upload.badType', { types: 'JPG / PNG' })).waitFor();
    const kept = rp.waitForResponse((r) => r.url().includes('/api/file/v1/upload?') && r.request().method() === 'POST');
    await input.setInputFiles({ name: 'zheng.png', mimeType: 'image/png', buffer: signaturePng(160, 160) });
    expect((await (await kept).json()).status).toBe('0');
    await rp.waitForFunction(() => {
      const img = document.querySelector('[data-testid="image-upload-picture"]') as HTMLImageElement | null;
      return !!img && img.complete && img.naturalWidth === 160;
    });
    await shot(rev, 'expert-avatar-form');
    // The list shows it in the expert's row.
    await experts.open('/teleConsulationDoctor');
    const avatar = experts.row('13800000006').locator('img[data-testid="auth-image"]');
    await avatar.waitFor();
    await rp.waitForFunction(() => [...document.querySelectorAll('img[data-testid="auth-image"]')].some((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth === 160));
    await shot(rev, 'expert-list-avatar');
  }, 240_000);
});
