/**
 * The exam list's image calls and the image record (server/routes/images.ts), on each
 * database, as the technician of hospital A (13800000003) with studies put in through
 * the archive:
 * - /api/pacs/v1/study/list: received studies, matched or not, filtered; another
 *   hospital's technician sees none of them; detail has series with a thumbnail path
 * - manual match links an unmatched study (exam → examined, counts, "match study" log);
 *   a matched study → RIS108; without the right → UAA103
 * - auto match from the exam finds its one study; none → RIS107
 * - unbind: refused while the report is submitted (RIS116), approved (RIS117) or sent
 *   upward (RIS118), allowed once withdrawn; the exam is registered again, "unbind study"
 * - delete an image, then a series: refused with PACS103/PACS105 by the same report
 *   rules; the files go; the exam's counts follow; an emptied study disappears
 */
import fs from 'node:fs';
import path from 'node:path';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { syntheticSeries } from '../../mock/dicom';
import { examImages } from '../support/exam';

describe.each(dbKinds)('image matching calls on %s', (kind) => {
  let p: TestPlatform;
  let tech: string;
  let clerk: string;
  let techB: string;
  let orgs: Record<string, number>;
  let device: { id: number; hospital_id: number };
  let item: { id: number; organ_id: number };
  let root = 0;

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    [tech, clerk] = await Promise.all([login(p.app, '13800000003'), login(p.app, '13800000002')]);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    device = (await p.db.query<{ id: number; hospital_id: number }>("SELECT id, hospital_id FROM device WHERE ae_title = 'A_CT1'")).rows[0];
    item = (await p.db.query<{ id: number; organ_id: number }>("SELECT id, organ_id FROM exam_item WHERE hospital_id = $1 AND modality = 'CT' ORDER BY id LIMIT 1", [orgs.HOSP_A])).rows[0];
    // A technician of hospital B: the demo's technician role, another hospital.
    const admin = await login(p.app, '13800000001');
    const role = (await p.db.query<{ id: number }>("SELECT id FROM role WHERE name = '技师'")).rows[0];
    const made = await p.app.inject({
      method: 'POST',
      url: '/api/ucenter/v1/user/save',
      headers: authed(admin),
      payload: { mobile: '13900000113', username: 'techb113', name: '技师乙', status: 1, password: 'Start#2026', memberships: [{ hospitalId: orgs.HOSP_B, roleId: role.id }] },
    });
    expect(made.json().status).toBe('0');
    techB = await login(p.app, '13900000113', 'Start#2026');
  });
  afterAll(() => p.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, token: string, payload?: object) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const register = async (over: Record<string, unknown> = {}) => {
    const r = await call('POST', '/api/ris/v1/exam/save', clerk, {
      hospitalId: orgs.HOSP_A, hisPatientName: '王五', sex: 1, age: 50, ageUnit: 4, patientSource: 1, outPatientNo: 'MZ7', deviceId: device.id, items: [{ itemId: item.id, organId: item.organ_id }], ...over,
    });
    expect(r.body.status).toBe('0');
    return r.body.data as { id: number; examCode: string; patientId: string; hospitalId: number };
  };
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(new Date()).replace(/-/g, '');
  /** A study of `count` instances (one series) received from A_CT1, of the patient register() names, today; returns its row id. */
  const receive = async (opts: Parameters<typeof syntheticSeries>[0] = {}) => {
    const series = syntheticSeries({ uidRoot: `1.2.826.0.1.3680043.10.1082.7${++root}`, count: 2, patientName: '王五', patientNameEn: 'Wang^Wu', sex: 'M', studyDate: today, ...opts });
    for (const inst of series.instances) await p.app.archive.storeBuffer(inst.bytes, { hospitalId: device.hospital_id, deviceId: device.id, sender: 'A_CT1' });
    const id = (await p.db.query<{ id: number }>('SELECT id FROM dicom_study WHERE study_uid = $1', [series.studyUid])).rows[0].id;
    return { id, series };
  };
  const exam = (id: number) => examImages(p.db, id);
  const setReport = (id: number, state: number, sent = false) => p.db.query('UPDATE exam SET report_state = $2, sent_to_superior = $3 WHERE id = $1', [id, state, sent]);

  test('image record lists received studies in scope; detail has series with a thumbnail', async () => {
    const { id, series } = await receive({ patientId: 'REC1', patientName: '张三', patientNameEn: 'Zhang^San', studyDate: '20261120' });
    const list = await call('POST', '/api/pacs/v1/study/list', tech, { filters: { patientId: 'REC1', matched: false } });
    expect(list.body.data.total).toBe(1);
    expect(list.body.data.list[0]).toMatchObject({ id, studyUid: series.studyUid, matched: false, modality: 'CT', seriesCount: 1, instanceCount: 2, sourceAe: 'A_CT1' });
    expect((await call('POST', '/api/pacs/v1/study/list', tech, { filters: { patientName: '张三', studyDate: ['2026-11-20', '2026-11-21'], modality: 'CT', patientId: 'REC1' } })).body.data.total).toBe(1);
    // An instant is the region's day: 2026-11-19T16:00Z is 2026-11-20 00:00 in Shanghai.
    expect((await call('POST', '/api/pacs/v1/study/list', tech, { filters: { studyDate: ['2026-11-19T16:00:00.000Z', '2026-11-20T16:00:00.000Z'], patientId: 'REC1' } })).body.data.total).toBe(1);
    expect((await call('POST', '/api/pacs/v1/study/list', tech, { filters: { studyDate: ['2026-11-20T16:00:00.000Z', null], patientId: 'REC1' } })).body.data.total).toBe(0);
    expect((await call('POST', '/api/pacs/v1/study/list', tech, { filters: { modality: 'MR', patientId: 'REC1' } })).body.data.total).toBe(0);
    expect((await call('POST', '/api/pacs/v1/study/list', techB, { filters: { patientId: 'REC1' } })).body.data.total).toBe(0);
    expect((await call('GET', `/api/pacs/v1/study/detail/${id}`, techB)).body.status).toBe('PACS100');
    const detail = await call('GET', `/api/pacs/v1/study/detail/${id}`, tech);
    expect(detail.body.data.series).toEqual([
      expect.objectContaining({ seriesUid: series.seriesUid, instanceCount: 2, thumbnail: expect.stringMatching(new RegExp(`^/dicom-web/studies/${series.studyUid}/series/${series.seriesUid}/instances/[0-9.]+/rendered$`)) }),
    ]);
  });

  test('manual match, auto match and their refusals', async () => {
    const e = await register();
    const { id } = await receive({ patientId: 'NOMATCH' });
    expect((await call('POST', `/api/ris/v1/exam/${e.id}/match`, clerk, { studyId: id })).body.status).toBe('UAA103');
    expect((await call('POST', `/api/ris/v1/exam/${e.id}/match`, tech, { studyId: id })).body.status).toBe('0');
    expect(await exam(e.id)).toMatchObject({ exam_state: 2, image_status: 1, instance_count: 2, series_count: 1 });
    const other = await register();
    expect((await call('POST', `/api/ris/v1/exam/${other.id}/match`, tech, { studyId: id })).body.status).toBe('RIS108');
    expect((await call('POST', `/api/ris/v1/exam/${other.id}/match`, techB, { studyId: id })).body.status).toBe('RIS101');

    expect((await call('POST', `/api/ris/v1/exam/${other.id}/autoMatch`, tech)).body.status).toBe('RIS107');
    // A study that arrived before its exam was registered (no accession, the patient's id): found from the exam.
    const late = await register({ patientId: `LATE${kind}` });
    await p.db.query('UPDATE exam SET exam_state = 1 WHERE id = $1', [late.id]);
    const { id: lateStudy } = await receive({ patientId: `LATE${kind}x` });
    await p.db.query('UPDATE dicom_study SET patient_id = $2 WHERE id = $1', [lateStudy, `LATE${kind}`]);
    const auto = await call('POST', `/api/ris/v1/exam/${late.id}/autoMatch`, tech);
    expect(auto.body).toMatchObject({ status: '0', data: { studyId: lateStudy } });
    const logs = (await p.db.query<{ action: string }>('SELECT action FROM exam_log WHERE exam_id = $1 ORDER BY id', [e.id])).rows.map((r) => r.action);
    expect(logs).toEqual(['registerExam', 'matchStudy']);
    const studies = await call('GET', `/api/ris/v1/exam/${e.id}/studies`, tech);
    expect(studies.body.data.list).toEqual([expect.objectContaining({ id, matchKind: 'manual', series: [expect.objectContaining({ instanceCount: 2 })] })]);
  });

  test('unbind follows the report: refused while submitted, approved or sent upward; allowed once withdrawn', async () => {
    const e = await register();
    const { id } = await receive({ accessionNumber: e.examCode, patientId: e.patientId });
    expect((await exam(e.id)).image_status).toBe(1);
    const unbind = () => call('PUT', `/api/ris/v1/exam/${e.hospitalId}/${e.id}/${id}/relationship/unbind`, tech);
    for (const [state, sent, code] of [[2, false, 'RIS116'], [4, false, 'RIS117'], [5, false, 'RIS117'], [8, true, 'RIS118']] as const) {
      await setReport(e.id, state, sent);
      const r = await unbind();
      expect(r).toMatchObject({ code: 409, body: { status: code } });
      expect(r.body.message).toBeTruthy();
    }
    await setReport(e.id, 8, false);
    expect((await unbind()).body.status).toBe('0');
    expect(await exam(e.id)).toMatchObject({ exam_state: 1, image_status: 0, instance_count: 0 });
    expect((await p.db.query('SELECT exam_id FROM dicom_study WHERE id = $1', [id])).rows[0].exam_id).toBeNull();
    const logs = (await p.db.query<{ action: string }>('SELECT action FROM exam_log WHERE exam_id = $1 ORDER BY id', [e.id])).rows.map((r) => r.action);
    expect(logs).toEqual(['registerExam', 'matchStudy', 'unbindStudy']);
  });

  test('delete an image, then the series: report rules, files removed, counts follow', async () => {
    const e = await register();
    const { id, series } = await receive({ accessionNumber: e.examCode, patientId: e.patientId, count: 3 });
    await setReport(e.id, 4);
    expect((await call('POST', '/api/pacs/v1/study/delete', tech, { studyId: id, sopInstanceUid: series.instances[0].sopInstanceUid })).body.status).toBe('PACS103');
    await setReport(e.id, 1, true);
    expect((await call('POST', '/api/pacs/v1/study/delete', tech, { studyId: id, sopInstanceUid: series.instances[0].sopInstanceUid })).body.status).toBe('PACS105');
    await setReport(e.id, 1);
    const key = (await p.db.query<{ file_key: string }>('SELECT file_key FROM dicom_instance WHERE sop_instance_uid = $1', [series.instances[0].sopInstanceUid])).rows[0].file_key;
    const file = path.join(p.dataDir, 'files', key);
    expect(fs.existsSync(file)).toBe(true);
    const one = await call('POST', '/api/pacs/v1/study/delete', tech, { studyId: id, sopInstanceUid: series.instances[0].sopInstanceUid });
    expect(one.body).toMatchObject({ status: '0', data: { deleted: 1 } });
    expect(fs.existsSync(file)).toBe(false);
    expect(await exam(e.id)).toMatchObject({ instance_count: 2, image_status: 1 });
    expect((await call('POST', '/api/pacs/v1/study/delete', tech, { studyId: id, sopInstanceUid: series.instances[0].sopInstanceUid })).body.status).toBe('PACS100');
    const all = await call('POST', '/api/pacs/v1/study/delete', tech, { studyId: id, seriesUid: series.seriesUid });
    expect(all.body.data.deleted).toBe(2);
    expect((await p.db.query('SELECT 1 FROM dicom_study WHERE id = $1', [id])).rowCount).toBe(0);
    expect(await exam(e.id)).toMatchObject({ instance_count: 0, image_status: 0 });
    expect((await call('POST', '/api/pacs/v1/study/delete', clerk, { studyId: id })).body.status).toBe('UAA103');
  });
});
