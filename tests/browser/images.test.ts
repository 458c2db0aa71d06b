/**
 * Images on the exam list and the image record in Chromium, as the technician of
 * hospital A (13800000003); exams are registered by the clerk through the API and
 * studies put in through the archive (as the DICOM listener does), each test on its
 * own exams:
 * 1. an exam whose study arrived with its exam code: the list shows it uploaded, with
 *    series and image counts and a thumbnail rendered by DICOMweb (a decoded picture);
 *    the images dialog shows the study's series with its thumbnail
 * 2. unbind from the images dialog: refused with the catalogue's RIS117 words while the
 *    report is approved (report_state 4, set in the database: reporting comes later),
 *    allowed once withdrawn (8); the exam is then not uploaded
 * 3. manual match: the picker lists unmatched studies of the exam's hospital, found by
 *    patient id; the chosen one is linked and the exam is uploaded
 * 4. auto match on an exam no study belongs to: the catalogue's RIS107 words
 * 5. upload: two synthetic DICOM files and a text file chosen in the dialog; the text
 *    file is skipped before sending, both DICOM files are stored by STOW-RS, the exam
 *    is matched by its exam code and auto match is offered afterwards
 * 6. /imageRecord lists the studies, matched and unmatched, with DICOM dates readable;
 *    the toolbar offers the upload; a study's detail is read-only, date and name readable;
 *    the matched filter leaves matched studies out
 * 7. the review queue: a second study the matching policy would not link (the exam's
 *    code, but another sex) shows the reason on /imageRecord and in the exam's image dialog, where
 *    "Link to this exam" links it by hand
 * 8. an exam whose only study waits for review: its row offers the images to review (no
 *    images action), the dialog shows the waiting study with its reason; the image
 *    record's review queue button carries the count, and its filter lists as many
 * Screenshots: /tmp/images-*.png.
 */
import { translate } from '../../locales';
import { syntheticSeries } from '../../mock/dicom';
import { errorTextKey } from '../../config/errors';
import { authed, login } from '../support/auth';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { clickRowAction, ResourceListPage, rowActionKeys, settled } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);

describe('images on the exam list and the image record in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let list: ResourceListPage;
  let clerk: string;
  let hospitalId: number;
  let device: { id: number };
  let item: { id: number; organ_id: number };
  const stamp = String(Date.now()).slice(-6);
  let root = 0;

  const toast = (text: string) => b.page.locator('.ant-message-notice').filter({ hasText: text }).first();
  const shot = (name: string) => b.page.screenshot({ path: `/tmp/images-${name}.png` });

  /** YYYYMMDD of today in the region: the studies are of the exams' day, as the matching policy wants. */
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(new Date()).replace(/-/g, '');
  /** An exam of hospital A registered by the clerk, with the patient id and pinyin its images will carry. */
  const register = async (name: string, patient: { patientId?: string; hisPatientNameEn?: string } = {}) => {
    const r = await server.app.inject({
      method: 'POST',
      url: '/api/ris/v1/exam/save',
      headers: authed(clerk),
      payload: { hospitalId, hisPatientName: name, ...patient, sex: 1, age: 50, ageUnit: 4, patientSource: 1, outPatientNo: `MZ${stamp}`, deviceId: device.id, items: [{ itemId: item.id, organId: item.organ_id }] },
    });
    const body = r.json();
    expect(body.status).toBe('0');
    return body.data as { id: number; examCode: string };
  };
  /** A synthetic CT series of its own UIDs. */
  const makeSeries = (opts: Parameters<typeof syntheticSeries>[0]) => syntheticSeries({ uidRoot: `1.2.826.0.1.3680043.10.1082.9${stamp}.${++root}`, ...opts });
  /** A series received from A_CT1, as the DICOM listener stores it. */
  const receive = async (opts: Parameters<typeof syntheticSeries>[0]) => {
    const series = makeSeries(opts);
    for (const inst of series.instances) await server.app.archive.storeBuffer(inst.bytes, { hospitalId, deviceId: device.id, sender: 'A_CT1' });
    return series;
  };
  const examRow = async (examCode: string) => {
    await list.open('/examination');
    await list.search({ examCode });
    expect(await list.rows().count()).toBe(1);
    return list.row(examCode);
  };
  /** Waits until the picture under `scope` (data-testid) is decoded, and gives its natural width. */
  const decodedWidth = async (testId: string) => {
    const img = b.page.getByTestId(testId).first();
    await img.waitFor();
    const handle = await img.elementHandle();
    await b.page.waitForFunction((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0, handle);
    return img.evaluate((el) => (el as HTMLImageElement).naturalWidth);
  };

  /** The review reason of a study under the exam's code with a woman's images for the man's exam. */
  const sexConflict = (examCode: string) =>
    zh('entity.study.review.reason.conflict', {
      examCode,
      fields: zh('entity.study.review.disagree', { field: zh('entity.study.review.field.patientSex'), study: 'F', exam: 'M' }),
    });
  /** Opens the exam's image dialog by the row action `action`; it shows `linked` studies and the waiting one with its reason. */
  const reviewDialog = async (examCode: string, action: string, waiting: { studyUid: string }, linked: number) => {
    const row = await examRow(examCode);
    await clickRowAction(row, action);
    const dialog = b.page.getByTestId('exam-images');
    await dialog.getByTestId('exam-review-study').waitFor();
    expect(await dialog.getByTestId('exam-study').count()).toBe(linked);
    expect(await dialog.getByTestId('exam-review-study').getAttribute('data-study-uid')).toBe(waiting.studyUid);
    expect(await dialog.getByTestId('review-reason').textContent()).toBe(sexConflict(examCode));
    await settled(b.page);
    return { row, dialog };
  };

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000003'));
    list = new ResourceListPage(b.page, server.url);
    clerk = await login(server.app, '13800000002');
    hospitalId = (await server.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'HOSP_A'")).rows[0].id;
    device = (await server.db.query<{ id: number }>("SELECT id FROM device WHERE ae_title = 'A_CT1'")).rows[0];
    item = (await server.db.query<{ id: number; organ_id: number }>("SELECT id, organ_id FROM exam_item WHERE hospital_id = $1 AND modality = 'CT' ORDER BY id LIMIT 1", [hospitalId])).rows[0];
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  let matched: { id: number; examCode: string };

  test('the exam list: uploaded, counts and a thumbnail; the images dialog shows the series', async () => {
    const { page } = b;
    matched = await register(`影甲${stamp}`, { patientId: `IMG${stamp}`, hisPatientNameEn: 'Ying^Jia' });
    const series = await receive({ accessionNumber: matched.examCode, count: 3, patientName: `影甲${stamp}`, patientNameEn: 'Ying^Jia', patientId: `IMG${stamp}`, studyDate: today });
    const row = await examRow(matched.examCode);
    const cells = await row.locator('td').allTextContents();
    expect(cells).toContain(zh('code.imageStatus.1'));
    expect(cells).toContain(zh('code.reportState.-1'));
    expect(cells).toEqual(expect.arrayContaining(['1', '3']));
    // The thumbnail is DICOMweb's rendered picture, fetched with the session's token.
    expect(await decodedWidth('auth-image')).toBeGreaterThan(0);
    await shot('exam-list');

    await clickRowAction(row, 'images');
    const dialog = page.getByTestId('exam-images');
    await dialog.getByTestId('exam-study').waitFor();
    expect(await dialog.getByTestId('exam-study').getAttribute('data-study-uid')).toBe(series.studyUid);
    expect(await dialog.getByTestId('exam-series').count()).toBe(1);
    expect(await dialog.getByTestId('exam-series').getAttribute('data-series-uid')).toBe(series.seriesUid);
    expect(await decodedWidth('series-thumbnail')).toBeGreaterThan(0);
    expect(await dialog.textContent()).toContain(zh('entity.study.images.instances', { count: 3 }));
    await settled(page);
    await shot('exam-images');
  }, 120_000);

  test('unbind: refused with RIS117 while the report is approved, allowed once withdrawn', async () => {
    const { page } = b;
    const dialog = page.getByTestId('exam-images');
    await server.db.query('UPDATE exam SET report_state = 4 WHERE id = $1', [matched.id]);
    await dialog.getByTestId('study-unbind').click();
    await page.getByTestId('study-unbind-ok').click();
    await toast(zh(errorTextKey('RIS117'))).waitFor();
    expect(await dialog.getByTestId('exam-study').count()).toBe(1);

    await server.db.query('UPDATE exam SET report_state = 8 WHERE id = $1', [matched.id]);
    await settled(page);
    await dialog.getByTestId('study-unbind').click();
    await page.getByTestId('study-unbind-ok').click();
    await toast(zh('entity.study.action.unbindDone')).waitFor();
    await dialog.getByTestId('exam-images-empty').waitFor();
    // Closing after a change lists the exams again: no longer uploaded.
    await page.locator('.ant-modal-close').click();
    await list.row(matched.examCode).filter({ hasText: zh('code.imageStatus.0') }).waitFor();
    const exam = (await server.db.query<{ image_status: number }>('SELECT image_status FROM exam WHERE id = $1', [matched.id])).rows[0];
    expect(exam.image_status).toBe(0);
  }, 120_000);

  test('manual match: an unmatched study of the hospital picked by patient id', async () => {
    const { page } = b;
    const exam = await register(`影乙${stamp}`);
    const series = await receive({ patientId: `PICK${stamp}`, patientName: `影乙${stamp}`, patientNameEn: 'Ying^Yi', count: 2 });
    // Another unmatched study of the hospital: the picker's filter leaves it out.
    await receive({ patientId: `OTHER${stamp}`, count: 1 });
    const row = await examRow(exam.examCode);
    await clickRowAction(row, 'manualMatch');
    const picker = page.getByTestId('pick-manualMatch');
    await picker.locator('.ant-table-row').first().waitFor();
    const listed = page.waitForResponse((r) => r.url().endsWith('/api/pacs/v1/study/list') && (r.request().postDataJSON() as { filters: Record<string, unknown> }).filters.patientId === `PICK${stamp}`);
    await picker.locator('.ant-pro-query-filter input#patientId').fill(`PICK${stamp}`);
    await picker.locator('.ant-pro-query-filter .ant-btn-primary').click();
    const answer = await listed;
    // Only unmatched studies of the exam's hospital are offered.
    expect((answer.request().postDataJSON() as { filters: Record<string, unknown> }).filters).toMatchObject({ matched: false, hospitalId, patientId: `PICK${stamp}` });
    expect(((await answer.json()) as { data: { list: Array<{ id: number }> } }).data.list).toHaveLength(1);
    // The picker shows that answer: one study (the one of the other patient is gone).
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="pick-manualMatch"] .ant-table-row').length === 1);
    const rows = picker.locator('.ant-table-row');
    expect(await rows.first().textContent()).toContain(`PICK${stamp}`);
    expect(await rows.first().textContent()).toContain(`影乙${stamp} (Ying Yi)`);
    // The pick's own columns: whether a study is matched says nothing here.
    const header = await picker.locator('.ant-table-thead').textContent();
    expect(header).toContain(zh('entity.study.field.studyDescription'));
    expect(header).not.toContain(zh('entity.study.field.matchKind'));
    await rows.first().click();
    await settled(page);
    await shot('match-dialog');
    await page.getByTestId('pick-manualMatch-ok').click();
    await toast(zh('entity.exam.action.manualMatchDone')).waitFor();
    await list.row(exam.examCode).filter({ hasText: zh('code.imageStatus.1') }).waitFor();
    const study = (await server.db.query<{ exam_id: number; match_kind: string }>('SELECT exam_id, match_kind FROM dicom_study WHERE study_uid = $1', [series.studyUid])).rows[0];
    expect(study).toEqual({ exam_id: exam.id, match_kind: 'manual' });
  }, 120_000);

  test('auto match with no study of the exam: the catalogue says so (RIS107)', async () => {
    const exam = await register(`影丙${stamp}`);
    const row = await examRow(exam.examCode);
    await clickRowAction(row, 'autoMatch');
    await toast(zh(errorTextKey('RIS107'))).waitFor();
    expect(await row.textContent()).toContain(zh('code.imageStatus.0'));
  }, 120_000);

  let uploaded: { id: number; examCode: string };

  test('upload: two DICOM files stored by STOW-RS, a text file skipped; the exam is matched', async () => {
    const { page } = b;
    uploaded = await register(`影丁${stamp}`, { patientId: `UP${stamp}`, hisPatientNameEn: 'Ying^Ding' });
    const series = makeSeries({ accessionNumber: uploaded.examCode, patientName: `影丁${stamp}`, patientNameEn: 'Ying^Ding', patientId: `UP${stamp}`, count: 2, studyDate: today });
    const row = await examRow(uploaded.examCode);
    expect(await row.textContent()).toContain(zh('code.imageStatus.0'));
    await clickRowAction(row, 'uploadImages');
    const dialog = page.getByTestId('dicom-upload');
    await dialog.waitFor();
    let requests = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/dicom-web/studies') && r.method() === 'POST') requests += 1;
    });
    await dialog.getByTestId('dicom-upload-files').setInputFiles([
      ...series.instances.map((inst, i) => ({ name: `IM${i + 1}.dcm`, mimeType: 'application/dicom', buffer: inst.bytes })),
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image '.repeat(20)) },
    ]);
    const states = dialog.getByTestId('dicom-upload-state');
    await dialog.locator('[data-testid="dicom-upload-state"][data-state="skipped"]').waitFor();
    expect(await states.count()).toBe(3);
    expect(await dialog.getByTestId('dicom-upload-summary').textContent()).toContain(zh('entity.dicomUpload.skippedNote', { count: 1 }));
    await page.getByTestId('dicom-upload-start').click();
    await dialog.getByTestId('dicom-upload-result').waitFor();
    expect(await states.evaluateAll((els) => els.map((e) => e.getAttribute('data-state')))).toEqual(['stored', 'stored', 'skipped']);
    expect(await dialog.getByTestId('dicom-upload-result').textContent()).toContain(zh('entity.dicomUpload.result', { stored: 2, failed: 0, skipped: 1 }));
    expect(await dialog.getByTestId('dicom-upload-progress').textContent()).toMatch(/(\d+(\.\d)? KB) \/ \1/);
    // The upload is one request (two small files); the text file was never sent.
    expect(requests).toBe(1);
    await dialog.getByTestId('dicom-upload-follow-up').waitFor();
    expect(await dialog.getByTestId('dicom-upload-follow-up').textContent()).toBe(zh('entity.exam.action.autoMatch'));
    await settled(page);
    await shot('upload-dialog');

    await page.getByTestId('dicom-upload-close').click();
    await list.row(uploaded.examCode).filter({ hasText: zh('code.imageStatus.1') }).waitFor();
    const study = (await server.db.query<{ exam_id: number; instance_count: number }>('SELECT exam_id, instance_count FROM dicom_study WHERE study_uid = $1', [series.studyUid])).rows[0];
    expect(study).toEqual({ exam_id: uploaded.id, instance_count: 2 });
  }, 120_000);

  test('/imageRecord: received studies, matched and unmatched, with the upload on the toolbar', async () => {
    const { page } = b;
    await receive({ patientId: `REC${stamp}`, patientName: `影戊${stamp}`, patientNameEn: 'Ying^Wu', count: 1 });
    await list.open('/imageRecord');
    await page.getByTestId('toolbar-action-upload').waitFor();
    // Everything of this run: the patient ids end with the stamp.
    await list.search({ patientName: stamp });
    const rows = list.rows();
    const text = async (patientId: string) => (await list.row(patientId).locator('td').allTextContents()).join('|');
    expect(await rows.count()).toBeGreaterThanOrEqual(4);
    const up = await text(`UP${stamp}`);
    expect(up).toContain(uploaded.examCode);
    expect(up).toContain(`|${zh('entity.value.yes')}|`);
    expect(up).toContain(zh('code.matchKind.accession'));
    expect(up).toContain(`${today.slice(0, 4)}-${today.slice(4, 6)}-${today.slice(6)}`);
    const rec = await text(`REC${stamp}`);
    expect(rec).toContain(`|${zh('entity.value.no')}|`);
    expect(rec).toContain('A_CT1');
    expect(await text(`PICK${stamp}`)).toContain(zh('code.matchKind.manual'));
    await shot('image-record');

    // Detail: the study's attributes read-only, DICOM's date and name readable.
    await list.row(`REC${stamp}`).getByTestId('row-detail').click();
    const detail = page.getByTestId('form-modal');
    await detail.getByTestId('field-patientName').filter({ hasText: `影戊${stamp} (Ying Wu)` }).waitFor();
    expect(await detail.getByTestId('field-patientBirthDate').textContent()).toContain('1970-01-01');
    expect(await detail.getByTestId('field-studyUid').textContent()).toMatch(/1\.2\.826\.0\.1\.3680043/);
    expect(await detail.locator('input').count()).toBe(0);
    await settled(page);
    await shot('study-detail');
    await page.locator('.ant-modal-close').click();

    // The query bar's matched filter: only unmatched studies of this run.
    await list.open('/imageRecord');
    const bar = page.locator('.ant-pro-query-filter');
    await bar.locator('input#patientName').fill(stamp);
    const listed = page.waitForResponse((r) => r.url().endsWith('/api/pacs/v1/study/list') && (r.request().postDataJSON() as { filters: Record<string, unknown> }).filters.matched === false);
    await bar.locator('.ant-form-item').filter({ hasText: zh('entity.study.field.matched') }).locator('.ant-select-selector').click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: zh('entity.value.no') }).click();
    await bar.locator('.ant-btn-primary').click();
    await list.showing(await listed);
    const unmatched = await list.rows().allTextContents();
    expect(unmatched.some((r) => r.includes(`REC${stamp}`))).toBe(true);
    expect(unmatched.some((r) => r.includes(`UP${stamp}`))).toBe(false);
  }, 120_000);

  test('the review queue: the reason on /imageRecord and in the exam\'s image dialog, where a person links the study', async () => {
    const { page } = b;
    const exam = await register(`影己${stamp}`, { patientId: `RV${stamp}`, hisPatientNameEn: 'Ying^Ji' });
    const patient = { accessionNumber: exam.examCode, patientName: `影己${stamp}`, patientNameEn: 'Ying^Ji', patientId: `RV${stamp}`, studyDate: today, count: 1 };
    await receive(patient);
    // A second study with the exam's code and patient id, but a woman's images for a man's exam: the policy waits for a person.
    const series = await receive({ ...patient, sex: 'F', studyDescription: 'Second study' });
    const reason = sexConflict(exam.examCode);
    await list.open('/imageRecord');
    await list.search({ patientName: `影己${stamp}` });
    await list.row(`RV${stamp}`).filter({ hasText: reason }).waitFor();
    await settled(page);
    await shot('record-review');

    const { dialog } = await reviewDialog(exam.examCode, 'images', series, 1);
    await shot('exam-images-review');

    await dialog.getByTestId('study-link').click();
    await page.getByTestId('study-link-ok').click();
    await toast(zh('entity.study.review.linkDone')).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="exam-images"] [data-testid="exam-study"]').length === 2);
    expect(await dialog.getByTestId('exam-review-study').count()).toBe(0);
    const linked = (await server.db.query<{ exam_id: number; match_kind: string }>('SELECT exam_id, match_kind FROM dicom_study WHERE study_uid = $1', [series.studyUid])).rows[0];
    expect(linked).toEqual({ exam_id: exam.id, match_kind: 'manual' });
    await page.locator('.ant-modal-close').click();
  }, 120_000);

  test('an exam whose only study waits for review: images to review on its row, the reason in the dialog; the count on the image record', async () => {
    const { page } = b;
    const exam = await register(`影庚${stamp}`, { patientId: `RW${stamp}`, hisPatientNameEn: 'Ying^Geng' });
    // The exam's code, but a woman's images for a man's exam: nothing linked, one study waits.
    const series = await receive({ accessionNumber: exam.examCode, patientName: `影庚${stamp}`, patientNameEn: 'Ying^Geng', patientId: `RW${stamp}`, studyDate: today, sex: 'F', count: 1 });

    const { row } = await reviewDialog(exam.examCode, 'reviewImages', series, 0);
    expect(await rowActionKeys(row)).not.toContain('images');
    await shot('exam-review-only');
    await page.locator('.ant-modal-close').click();

    // The technician's count on the image record's review queue button: as many as that filter then lists.
    await list.open('/imageRecord');
    const badge = page.getByTestId('toolbar-action-reviewQueue-badge');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="toolbar-action-reviewQueue-badge"]')?.getAttribute('data-count')) > 0);
    const count = Number(await badge.getAttribute('data-count'));
    expect(await badge.locator('.ant-badge-count').getAttribute('title')).toBe(String(count));
    const filtered = page.waitForResponse((r) => r.url().endsWith('/api/pacs/v1/study/list') && (r.request().postDataJSON() as { filters: Record<string, unknown> }).filters.review === true);
    await page.getByTestId('toolbar-action-reviewQueue').click();
    const answer = (await (await filtered).json()) as { data: { total: number } };
    expect(answer.data.total).toBe(count);
    await list.row(`RW${stamp}`).filter({ hasText: sexConflict(exam.examCode) }).waitFor();
    // The query bar says what it filters on, in words.
    const bar = page.locator('.ant-pro-query-filter');
    expect(await bar.locator('.ant-form-item').filter({ hasText: zh('entity.study.field.review') }).locator('.ant-select-selection-item').textContent()).toBe(zh('entity.value.yes'));
    await settled(page);
    await shot('record-review-badge');
  }, 120_000);
});
