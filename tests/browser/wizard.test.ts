/**
 * Wizards and attachments in Chromium (issue #18 items 5 and 6), the consultation
 * application (/consultationProcess, views/consultationApply.json, form.steps):
 * - Next on an empty step stays there and names the missing fields
 * - a filled step moves on and keeps the draft on the server; reopening the page
 *   resumes at that step with the values typed
 * - the materials step uploads a PDF larger than a chunk through the file service
 *   (chunked, progress) as an attachment of the chosen exam, listed by name
 * - Submit validates every step: the experts step refuses without experts
 * Screenshots go to tests/.artifacts/files/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { translate } from '../../locales';
import { startSignedIn, stopSignedIn, type BrowserSession, shotsDir } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { SchemaFormPage, settled } from '../support/schemaPages';
import { IMAGES_OF_EXAM } from '../../server/consult/domain';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);
const SHOTS = shotsDir('files');

/** A PDF-looking file larger than one chunk (1 MB): the magic, then filler. */
function pdf(size: number): Buffer {
  const b = Buffer.alloc(size, 0x20);
  Buffer.from('%PDF-1.7\n').copy(b, 0);
  return b;
}

describe('consultation application wizard in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let examCode: string;
  let examId: number;

  const shot = async (name: string) => {
    await settled(b.page);
    await b.page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  };
  const draftSaved = () => b.page.waitForResponse((r) => r.url().endsWith('/api/ucenter/v1/draft/consultationApply') && r.request().method() === 'POST');

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    ({ server, b } = await startSignedIn('13800000001'));
    // The wizard offers exams with images only.
    const row = (await server.db.query<{ id: number; exam_code: string }>(`SELECT id, exam_code FROM exam e WHERE NOT hidden AND EXISTS (${IMAGES_OF_EXAM}) ORDER BY id DESC LIMIT 1`)).rows[0];
    [examId, examCode] = [row.id, row.exam_code];
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('steps validate one by one, the draft resumes, materials upload in chunks', async () => {
    const { page } = b;
    // A fresh start, also when this test runs again on the same server.
    await server.db.query("DELETE FROM form_draft WHERE form = 'consultationApply'");
    await page.goto(`${server.url}/consultationProcess`);
    await page.getByTestId('wizard').waitFor();
    const form = new SchemaFormPage(page, page.getByTestId('wizard'));
    // FormStep mounts the pane shown only: a step is there when its first field is.
    await form.field('examId').waitFor();

    // An empty first step: Next stays and says what is missing.
    await page.getByTestId('wizard-next').click();
    await form.field('patientName').getByText(zh('validation.required', { field: zh('entity.consultationApply.field.patientName') })).waitFor();
    expect(await form.field('topic').count()).toBe(0);
    await shot('wizard-step1-invalid');

    await form.choose('examId', examCode);
    await form.fill('patientName', '王小明');
    await form.field('birthDate').locator('input').fill('1960-05-04');
    await page.keyboard.press('Enter');
    let saved = draftSaved();
    await page.getByTestId('wizard-next').click();
    await saved;
    await form.field('topic').waitFor();

    // Long texts (200 characters and more) are text areas.
    await form.field('topic').locator('textarea').fill('右肺结节会诊');
    await form.field('clinicalQuestion').locator('textarea').fill('右肺上叶结节，良恶性？是否需要穿刺？');
    saved = draftSaved();
    await page.getByTestId('wizard-next').click();
    expect((await (await saved).json()).data).toMatchObject({ step: 2, data: { examId, patientName: '王小明', topic: '右肺结节会诊' } });
    await form.field('attachments').waitFor();

    // Reopened: the draft's step and values.
    await page.reload();
    await form.field('attachments').waitFor();
    await page.getByTestId('wizard-back').click();
    await form.field('topic').waitFor();
    expect(await form.field('topic').locator('textarea').inputValue()).toBe('右肺结节会诊');
    await page.getByTestId('wizard-next').click();
    await form.field('attachments').waitFor();

    // A 2.5 MB PDF: three chunks, owned by the chosen exam.
    const upload = form.field('attachments').getByTestId('file-upload');
    await upload.getByTestId('file-upload-choose').waitFor();
    const completed = page.waitForResponse((r) => /\/api\/file\/v1\/upload\/[^/]+\/complete$/.test(r.url()));
    await upload.locator('input[type="file"]').setInputFiles({ name: '病理报告.pdf', mimeType: 'application/pdf', buffer: pdf(2_500_000) });
    const kept = (await (await completed).json()).data;
    expect(kept).toMatchObject({ name: '病理报告.pdf', type: 'application/pdf', size: 2_500_000, ownerKind: 'exam', ownerId: examId });
    await upload.locator(`[data-testid="file-upload-item"][data-file-id="${kept.id}"]`).getByText('病理报告.pdf').waitFor();
    expect((await server.db.query('SELECT complete, sha256 FROM stored_file WHERE id = $1', [kept.id])).rows[0]).toMatchObject({ complete: true });
    await shot('wizard-step3-materials');

    // The last step: Submit checks every step and stops here without experts.
    await page.getByTestId('wizard-next').click();
    await form.field('expertIds').waitFor();
    await page.getByTestId('wizard-submit').click();
    await form.field('expertIds').getByText(zh('validation.select', { field: zh('entity.consultationApply.field.expertIds') })).waitFor();
    expect(await page.getByTestId('wizard-done').count()).toBe(0);
    await shot('wizard-step4-invalid');
  });
});
