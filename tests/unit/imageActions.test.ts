/**
 * The exam list's image actions and the image record (issue 6) as pure functions of
 * the views, plus the browser uploader's STOW-RS helpers. Scenarios:
 * - a row action may name a right of another module ("image:manualLink"): the exam
 *   list's images, manual match, auto match and upload follow the image rights and the
 *   row (images only once uploaded, auto match only before, nothing to match or upload
 *   on a terminated exam); the clerk with image:view only sees the images; an exam
 *   without images but with a study waiting for review offers images to review
 * - manual match picks from the study view with the row's hospital and unmatched
 *   fixed, then POSTs {studyId: <the picked id, a number>} to the exam's match path;
 *   fillBody leaves "{picked.…}" out until a row is picked
 * - a call with a body: the image record's delete POSTs {studyId}; auto match POSTs
 *   without one
 * - columns: the exam's thumbnail through the injected renderImage (nothing without a
 *   path); DICOM dates YYYY-MM-DD, searched as days [first, the day after last);
 *   DICOM names ideographic first; several report states sent as a list
 * - the dialog registry holds ExamImages and DicomUpload and refuses a second name
 * - STOW-RS: Part-10 detection and the SOP Instance UID from the meta header of a
 *   synthetic file; batches of 10 files or 20 MB (a larger file alone); the
 *   multipart/related body; stored and failed instances from a DICOM JSON answer;
 *   every failure reason has its text in zh-CN, en-US and ru-RU
 */
import { resources } from '../../locales';
import { syntheticSeries } from '../../mock/dicom';
import { batches, failureReasonText, isPart10, KNOWN_FAILURE_REASONS, multipartBody, sopInstanceUidOf, stowContentType, stowOutcome } from '@/components/stow';
import '@/features';
import { dialogNames, registerDialog } from '@/schema/dialogs';
import { actionPermissionKey, fillBody, pickFilters, rowActionApplies, runPick, runRowAction, visibleRowActions } from '@/schema/rowActions';
import { toColumns, toListQuery, type Column } from '@/schema/toColumns';
import type { Translate } from '@/shared/schema/types';
import { views } from '@/shared/schema/views';
import { recorder } from '../support/requestRecorder';
import { dicomDateText, dicomNameText, dicomTimeText } from '@/utils/dicom';

const exam = views.exam;
const study = views.study;
const t: Translate = (key) => key;
const technician = { registration: ['view'], image: ['view', 'manualLink', 'unbind', 'deleteStudy', 'autoLink', 'upload'] };
const clerk = { registration: ['view'], image: ['view'] };
const imageKeys = (row: Record<string, unknown>, map: Record<string, string[]>) =>
  visibleRowActions(exam, row, map)
    .filter((a) => a.permission.startsWith('image:'))
    .map((a) => a.key);

describe('the exam list: image actions', () => {
  const waiting = { id: 5, hospitalId: 2, examState: 1, imageStatus: 0, hidden: false };
  const uploaded = { ...waiting, imageStatus: 1 };

  test('a permission naming another module is that module\'s; a bare one the view\'s', () => {
    expect(actionPermissionKey(exam, 'image:manualLink')).toBe('image:manualLink');
    expect(actionPermissionKey(exam, 'history')).toBe('registration:history');
  });

  test('the technician: match, auto match and upload before images arrive; images, match and upload after', () => {
    expect(imageKeys(waiting, technician)).toEqual(['manualMatch', 'autoMatch', 'uploadImages']);
    expect(imageKeys(uploaded, technician)).toEqual(['images', 'viewImages', 'manualMatch', 'uploadImages']);
    expect(imageKeys({ ...uploaded, examState: 3 }, technician)).toEqual(['images', 'viewImages']);
    expect(imageKeys({ ...waiting, examState: 3 }, technician)).toEqual([]);
  });

  test('a study waiting on the review queue for an exam without images: its images to review, for the clerk too; not once it has images', () => {
    expect(imageKeys({ ...waiting, reviewWaiting: true }, technician)).toEqual(['reviewImages', 'manualMatch', 'autoMatch', 'uploadImages']);
    expect(imageKeys({ ...waiting, reviewWaiting: true }, clerk)).toEqual(['reviewImages']);
    expect(imageKeys({ ...uploaded, reviewWaiting: true }, technician)).toEqual(['images', 'viewImages', 'manualMatch', 'uploadImages']);
    expect(exam.rowActions!.find((a) => a.key === 'reviewImages')?.dialog).toEqual(exam.rowActions!.find((a) => a.key === 'images')?.dialog);
  });

  test('the clerk (image:view only) sees the images and nothing that changes them; registration rights alone give none', () => {
    expect(imageKeys(uploaded, clerk)).toEqual(['images', 'viewImages']);
    expect(imageKeys(waiting, clerk)).toEqual([]);
    expect(imageKeys(uploaded, { registration: ['view', 'manualLink', 'upload'] })).toEqual([]);
  });

  test('manual match: unmatched studies of the exam\'s hospital, then POST {studyId} of the picked one', async () => {
    const match = exam.rowActions!.find((a) => a.key === 'manualMatch')!;
    expect(match.pick?.view).toBe('study');
    expect(pickFilters(match, waiting)).toEqual({ matched: false, hospitalId: 2 });
    // Without a hospital there is nothing to pick from.
    expect(rowActionApplies(match, { ...waiting, hospitalId: undefined })).toBe(false);
    const { calls, req } = recorder();
    await runPick(match, waiting, { id: 41, patientName: 'Zhang^San=张三' }, req);
    expect(calls).toEqual([['/api/ris/v1/exam/5/match', { method: 'POST', body: { studyId: 41 } }]]);
    await expect(runPick(match, waiting, { patientName: 'x' }, req)).rejects.toThrow('lacks a value');
  });

  test('fillBody: "{picked.…}" waits for a picked row; literals stay as written', () => {
    const template = { studyId: '{picked.id}', examId: '{id}', kind: 'manual' };
    expect(fillBody(template, { id: 5 })).toEqual({ examId: 5, kind: 'manual' });
    expect(fillBody(template, { id: 5 }, { id: 9 })).toEqual({ studyId: 9, examId: 5, kind: 'manual' });
    expect(fillBody(template, { id: 5 }, {})).toBeUndefined();
    expect(fillBody(template, {}, { id: 9 })).toBeUndefined();
  });

  test('auto match POSTs without a body; the image record\'s delete POSTs {studyId}', async () => {
    const { calls, req } = recorder();
    await runRowAction(exam.rowActions!.find((a) => a.key === 'autoMatch')!, waiting, req);
    const remove = study.rowActions!.find((a) => a.key === 'deleteStudy')!;
    expect(remove.permission).toBe('deleteStudy');
    expect(visibleRowActions(study, { id: 9 }, technician).map((a) => a.key)).toEqual(['viewImages', 'deleteStudy']);
    expect(visibleRowActions(study, { id: 9 }, clerk).map((a) => a.key)).toEqual(['viewImages']);
    await runRowAction(remove, { id: 9 }, req);
    expect(calls).toEqual([
      ['/api/ris/v1/exam/5/autoMatch', { method: 'POST' }],
      ['/api/pacs/v1/study/delete', { method: 'POST', body: { studyId: 9 } }],
    ]);
  });

  test('the upload dialog offers auto match afterwards; the image record\'s toolbar uploads with image:upload', () => {
    expect(exam.rowActions!.find((a) => a.key === 'uploadImages')?.dialog).toEqual({ component: 'DicomUpload', then: 'autoMatch' });
    expect(study.toolbarActions).toContainEqual({ key: 'upload', permission: 'upload', dialog: { component: 'DicomUpload' } });
    // The technician's count: the review queue filter with the server's count on it.
    expect(study.toolbarActions).toContainEqual({ key: 'reviewQueue', permission: 'view', filter: { review: true }, badge: '/api/pacs/v1/study/review/count' });
    expect(study.list.query).toContain('review');
  });
});

describe('columns of images', () => {
  const byKey = (cols: Column[], key: string) => cols.find((c) => c.key === key)!;
  type Render = (dom: unknown, row: Record<string, unknown>) => unknown;
  type RenderText = (v: unknown, row: Record<string, unknown>) => unknown;

  test("the exam's thumbnail: the row's path through renderImage, nothing without one", () => {
    const shown: string[] = [];
    const cols = toColumns(exam, { t, renderImage: (path, alt) => (shown.push(`${alt} ${path}`), 'img') });
    const thumb = byKey(cols, 'thumbnail');
    expect(thumb.search).toBe(false);
    const path = '/dicom-web/studies/1.2/series/1.2.1/instances/1.2.1.2/rendered';
    expect((thumb.render as Render)(null, { thumbnail: path })).toBe('img');
    expect((thumb.render as Render)(null, {})).toBeNull();
    expect(shown).toEqual([`entity.exam.field.thumbnail ${path}`]);
    // Without a renderer (a test, the server) the cell stays empty.
    expect((byKey(toColumns(exam, { t }), 'thumbnail').render as Render)(null, { thumbnail: path })).toBeNull();
  });

  test('several report states are one filter, a list of numbers', () => {
    expect(byKey(toColumns(exam, { t }), 'reportState').fieldProps).toEqual({ mode: 'multiple' });
    expect(toListQuery(exam, { reportState: ['4', '8'], imageStatus: '1' }).filters).toEqual({ reportState: [4, 8], imageStatus: 1 });
  });

  test('the image record: DICOM dates as YYYY-MM-DD, searched as days; names ideographic first', () => {
    const cols = toColumns(study, { t });
    expect((byKey(cols, 'studyDate').renderText as RenderText)('20261120', {})).toBe('2026-11-20');
    expect((byKey(cols, 'patientName').renderText as RenderText)('Zhang^San=张三', {})).toBe('张三 (Zhang San)');
    const range = byKey(cols, 'studyDateRange');
    expect(range.valueType).toBe('dateRange');
    const transform = (range.search as { transform: (v: unknown) => Record<string, unknown> }).transform;
    // [first, the day after last), as dates: the archive keeps DICOM dates without a time zone.
    expect(transform(['2026-11-20', '2026-11-21'])).toEqual({ studyDate: ['2026-11-20', '2026-11-22'] });
    expect(transform(['2026-12-31', '2026-12-31'])).toEqual({ studyDate: ['2026-12-31', '2027-01-01'] });
    // A received time is an instant: the usual ISO range.
    const received = (byKey(cols, 'receivedAtRange').search as { transform: (v: unknown) => Record<string, string[]> }).transform(['2026-11-20', '2026-11-20']);
    expect(received.receivedAt[0]).toBe(new Date(2026, 10, 20).toISOString());
    expect(toListQuery(study, { matched: 'false', modality: 'CT' }).filters).toEqual({ matched: false, modality: 'CT' });
  });

  test('DICOM texts', () => {
    expect(dicomDateText('20260314')).toBe('2026-03-14');
    expect(dicomDateText('')).toBe('');
    expect(dicomDateText('2026')).toBe('2026');
    expect(dicomNameText('Zhang^San')).toBe('Zhang San');
    expect(dicomNameText('=张三')).toBe('张三');
    expect(dicomNameText('Wang^Xiao^^^=王^小')).toBe('王 小 (Wang Xiao)');
    expect(dicomNameText(undefined)).toBe('');
    expect(dicomTimeText('093000')).toBe('09:30:00');
    expect(dicomTimeText('0930')).toBe('09:30');
    expect(dicomTimeText('09')).toBe('09:00');
    expect(dicomTimeText('235959.123456')).toBe('23:59:59');
    expect(dicomTimeText('9:30')).toBe('9:30');
  });
});

describe('the dialog registry', () => {
  test('holds the exam images and the DICOM upload, and refuses a name twice', () => {
    expect(dialogNames()).toEqual(expect.arrayContaining(['ExamImages', 'DicomUpload']));
    expect(() => registerDialog('DicomUpload', async () => ({ default: () => null }))).toThrow('registered twice');
  });
});

describe('STOW-RS in the browser', () => {
  const series = syntheticSeries({ accessionNumber: 'A1', count: 2 });
  const file = new Uint8Array(series.instances[0].bytes);

  test('a Part-10 file and its SOP Instance UID from the meta header; other bytes are not DICOM', () => {
    expect(isPart10(file)).toBe(true);
    expect(sopInstanceUidOf(file)).toBe(series.instances[0].sopInstanceUid);
    expect(sopInstanceUidOf(file.slice(0, 140))).toBeUndefined(); // cut before the element
    const text = new TextEncoder().encode('just some notes, not an image '.repeat(10));
    expect(isPart10(text)).toBe(false);
    expect(isPart10(file.slice(0, 100))).toBe(false);
    expect(sopInstanceUidOf(text)).toBeUndefined();
  });

  test('batches of 10 files or 20 MB, in order; a larger file goes alone', () => {
    const MB = 1024 * 1024;
    const small = Array.from({ length: 23 }, (_, i) => ({ id: i, size: 100 }));
    expect(batches(small).map((b) => b.length)).toEqual([10, 10, 3]);
    const mixed = [{ id: 'a', size: 8 * MB }, { id: 'b', size: 8 * MB }, { id: 'c', size: 8 * MB }, { id: 'd', size: 50 * MB }, { id: 'e', size: 1 }];
    expect(batches(mixed).map((b) => b.map((x) => x.id).join(''))).toEqual(['ab', 'c', 'd', 'e']);
    expect(batches([])).toEqual([]);
  });

  test('the multipart/related body: one application/dicom part per file, then the close delimiter', async () => {
    const body = multipartBody([new Blob([file]), new Blob([new Uint8Array([1, 2, 3])])], 'B0UND');
    expect(body.type).toBe('');
    expect(stowContentType('x')).toBe('multipart/related; type="application/dicom"; boundary=x');
    const bytes = Buffer.from(await body.arrayBuffer());
    const head = '--B0UND\r\nContent-Type: application/dicom\r\n\r\n';
    expect(bytes.subarray(0, head.length).toString('latin1')).toBe(head);
    expect(Buffer.compare(bytes.subarray(head.length, head.length + file.length), Buffer.from(file))).toBe(0);
    expect(bytes.subarray(head.length + file.length).toString('latin1')).toBe(`\r\n${head}\u0001\u0002\u0003\r\n--B0UND--\r\n`);
  });

  test('the answer: ReferencedSOPSequence stored, FailedSOPSequence failed with its reason', () => {
    const answer = {
      '00081190': { vr: 'UR', Value: ['http://x/dicom-web/studies/1.2'] },
      '00081199': { vr: 'SQ', Value: [{ '00081150': { vr: 'UI', Value: ['1.2.840.10008.5.1.4.1.1.2'] }, '00081155': { vr: 'UI', Value: ['1.2.3.1'] } }] },
      '00081198': {
        vr: 'SQ',
        Value: [
          { '00081155': { vr: 'UI', Value: ['1.2.3.2'] }, '00081197': { vr: 'US', Value: [0xc000] } },
          { '00081155': { vr: 'UI', Value: ['1.2.3.3'] } },
        ],
      },
    };
    const outcome = stowOutcome(answer);
    expect([...outcome.stored.keys()]).toEqual(['1.2.3.1']);
    expect([...outcome.failed.entries()]).toEqual([
      ['1.2.3.2', 0xc000],
      ['1.2.3.3', undefined],
    ]);
    expect(stowOutcome([answer]).stored.has('1.2.3.1')).toBe(true);
    expect(stowOutcome({}).stored.size).toBe(0);
    expect(failureReasonText(0xc000)).toEqual({ key: 'entity.dicomUpload.reason.C000' });
    expect(failureReasonText(0xb000)).toEqual({ key: 'entity.dicomUpload.reason.other', params: { code: 'B000' } });
    expect(failureReasonText(undefined)).toEqual({ key: 'entity.dicomUpload.reason.unknown' });
  });

  test('every failure reason and file state has its text', () => {
    const keys = [
      ...KNOWN_FAILURE_REASONS.map((r) => failureReasonText(r).key),
      'entity.dicomUpload.reason.other',
      'entity.dicomUpload.reason.unknown',
      ...['pending', 'skipped', 'uploading', 'stored', 'failed'].map((s) => `entity.dicomUpload.fileState.${s}`),
    ];
    for (const lang of ['zh-CN', 'en-US', 'ru-RU']) expect(keys.filter((k) => resources[lang][k] === undefined)).toEqual([]);
  });
});
