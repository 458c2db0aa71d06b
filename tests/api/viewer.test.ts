/**
 * The viewer's calls (server/routes/viewer.ts) on each database, as the radiologist of
 * hospital A (13800000004), with studies put in through the archive:
 * - study/viewer: an exam's studies with series and DICOMweb thumbnails, unmasked;
 *   an unknown or out-of-scope study → PACS100
 * - study/compare: 3 studies of one patient open; 1 and 17 are refused with PACS101 and
 *   the spec's words (2 to 16); two patients → PACS102; a study of another hospital →
 *   PACS100; by exam ids the exams' studies; without image:compare → UAA103
 * - study/compare/candidates: the exam's patient's studies (matched by exam, or by DICOM
 *   patient ID in the exam's hospital), not another patient's; another hospital's exam → RIS101
 * - with grade safety on, patient name and ID come masked and `masked` says so
 * - viewer/config: saved per user and read back by user info over the defaults; a value
 *   outside the code table is refused
 */
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { syntheticSeries, type SyntheticSeriesOptions } from '../../mock/dicom';
import { translate } from '../../locales';

describe.each(dbKinds)('viewer calls on %s', (kind) => {
  let p: TestPlatform;
  let doctor: string;
  let clerk: string;
  let admin: string;
  let orgs: Record<string, number>;
  let deviceA: { id: number; hospital_id: number };
  let deviceB: { id: number; hospital_id: number };
  let item: { id: number; organ_id: number };
  let root = 0;
  /** Study UIDs of patient VWR1 in hospital A, oldest first. */
  const patient1: string[] = [];
  let otherPatient: string;
  let otherHospital: string;

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object, headers: Record<string, string> = {}) =>
    p.app.inject({ method, url, headers: authed(token, headers), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const receive = async (device: { id: number; hospital_id: number }, opts: SyntheticSeriesOptions) => {
    const series = syntheticSeries({ uidRoot: `1.2.826.0.1.3680043.10.1082.9${++root}`, count: 1, ...opts });
    for (const inst of series.instances) await p.app.archive.storeBuffer(inst.bytes, { hospitalId: device.hospital_id, deviceId: device.id, sender: 'TEST' });
    return series.studyUid;
  };
  const register = async (patientId: string) => {
    const r = await call('POST', '/api/ris/v1/exam/save', clerk, {
      hospitalId: orgs.HOSP_A, hisPatientName: '赵六', sex: 1, age: 60, ageUnit: 4, patientSource: 1, outPatientNo: 'MZ9', patientId, deviceId: deviceA.id,
      items: [{ itemId: item.id, organId: item.organ_id }],
    });
    expect(r.body.status).toBe('0');
    return r.body.data as { id: number; examCode: string };
  };

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    [doctor, clerk, admin] = await Promise.all([login(p.app, '13800000004'), login(p.app, '13800000002'), login(p.app, '13800000001')]);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    deviceA = (await p.db.query<{ id: number; hospital_id: number }>("SELECT id, hospital_id FROM device WHERE ae_title = 'A_CT1'")).rows[0];
    deviceB = (await p.db.query<{ id: number; hospital_id: number }>('SELECT id, hospital_id FROM device WHERE hospital_id = $1 LIMIT 1', [orgs.HOSP_B])).rows[0];
    item = (await p.db.query<{ id: number; organ_id: number }>("SELECT id, organ_id FROM exam_item WHERE hospital_id = $1 AND modality = 'CT' ORDER BY id LIMIT 1", [orgs.HOSP_A])).rows[0];
    for (let i = 0; i < 17; i++) {
      patient1.push(await receive(deviceA, { patientId: 'VWR1', patientName: '钱七', studyDate: `2026${String(1 + (i % 12)).padStart(2, '0')}${String(10 + i).padStart(2, '0')}` }));
    }
    otherPatient = await receive(deviceA, { patientId: 'VWR2', patientName: '孙八' });
    otherHospital = await receive(deviceB, { patientId: 'VWR1', patientName: '钱七' });
  }, 120_000);
  afterAll(() => p.close());

  test('study/viewer: the studies with series and thumbnails, unmasked; unknown or out of scope → PACS100', async () => {
    const r = await call('POST', '/api/pacs/v1/study/viewer', doctor, { studyUids: [patient1[0]] });
    expect(r.body.status).toBe('0');
    expect(r.body.data.masked).toBe(false);
    expect(r.body.data.list).toHaveLength(1);
    const study = r.body.data.list[0];
    expect(study).toMatchObject({ studyUid: patient1[0], patientId: 'VWR1', modality: 'CT', seriesCount: 1, instanceCount: 1 });
    expect(study.patientName).toContain('钱七');
    expect(study.series).toHaveLength(1);
    expect(study.series[0].thumbnail).toBe(`/dicom-web/studies/${patient1[0]}/series/${study.series[0].seriesUid}/thumbnail`);
    // The thumbnail path answers with a picture for the same caller.
    const thumb = await p.app.inject({ method: 'GET', url: study.series[0].thumbnail, headers: { 'x-auth-token': doctor, accept: 'image/png' } });
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/png');

    const unknown = await call('POST', '/api/pacs/v1/study/viewer', doctor, { studyUids: ['1.2.3.4.5.6.7'] });
    expect([unknown.code, unknown.body.status]).toEqual([404, 'PACS100']);
    const foreign = await call('POST', '/api/pacs/v1/study/viewer', doctor, { studyUids: [otherHospital] });
    expect([foreign.code, foreign.body.status]).toEqual([404, 'PACS100']);
    const empty = await call('POST', '/api/pacs/v1/study/viewer', doctor, {});
    expect(empty.code).toBe(400);
  });

  test('study/compare: 3 studies of one patient open; 1 and 17 are refused with the spec’s words', async () => {
    const three = await call('POST', '/api/pacs/v1/study/compare', doctor, { studyUids: patient1.slice(0, 3) });
    expect(three.body.status).toBe('0');
    expect(three.body.data.list.map((s: { studyUid: string }) => s.studyUid).sort()).toEqual(patient1.slice(0, 3).sort());
    expect(three.body.data.list.every((s: { series: unknown[] }) => s.series.length === 1)).toBe(true);
    const sixteen = await call('POST', '/api/pacs/v1/study/compare', doctor, { studyUids: patient1.slice(0, 16) });
    expect(sixteen.body.data.total).toBe(16);

    const words = translate('zh-CN', 'error.PACS101', { min: 2, max: 16 });
    expect(words).toContain('2');
    expect(words).toContain('16');
    for (const uids of [patient1.slice(0, 1), patient1]) {
      const r = await call('POST', '/api/pacs/v1/study/compare', doctor, { studyUids: uids }, { 'accept-language': 'zh-CN' });
      expect([r.code, r.body.status, r.body.message]).toEqual([422, 'PACS101', words]);
    }
    const en = await call('POST', '/api/pacs/v1/study/compare', doctor, { studyUids: patient1.slice(0, 1) }, { cookie: 'lang=en-US' });
    expect(en.body.message).toBe('An image comparison needs 2 to 16 studies with images');
  });

  test('study/compare: two patients → PACS102; another hospital’s study → PACS100; without the right → UAA103', async () => {
    const two = await call('POST', '/api/pacs/v1/study/compare', doctor, { studyUids: [patient1[0], otherPatient] });
    expect([two.code, two.body.status]).toEqual([422, 'PACS102']);
    const foreign = await call('POST', '/api/pacs/v1/study/compare', doctor, { studyUids: [patient1[0], otherHospital] });
    expect(foreign.body.status).toBe('PACS100');
    // The clerk may view images but not compare them.
    const clerkTry = await call('POST', '/api/pacs/v1/study/compare', clerk, { studyUids: patient1.slice(0, 2) });
    expect([clerkTry.code, clerkTry.body.status]).toEqual([403, 'UAA103']);
  });

  test('compare by exams, and the candidates of an exam are its patient’s studies', async () => {
    const e1 = await register('VWR3');
    const e2 = await register('VWR3');
    // Accession number = exam code: the archive matches each study to its exam on arrival.
    // With the registered patient's name and today's date: the matching policy links only when every identifier agrees.
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(new Date()).replace(/-/g, '');
    const patient = { patientId: 'VWR3', patientName: '赵六', patientNameEn: 'Zhao^Liu' };
    const s1 = await receive(deviceA, { ...patient, accessionNumber: e1.examCode, studyDate: today });
    const s2 = await receive(deviceA, { ...patient, accessionNumber: e2.examCode, studyDate: today });
    const unmatched = await receive(deviceA, { ...patient, studyDate: '20250101' });
    const byExam = await call('POST', '/api/pacs/v1/study/compare', doctor, { examIds: [e1.id, e2.id] });
    expect(byExam.body.status).toBe('0');
    expect(byExam.body.data.list.map((s: { studyUid: string; examId: number }) => [s.studyUid, s.examId]).sort()).toEqual(
      [
        [s1, e1.id],
        [s2, e2.id],
      ].sort(),
    );
    const one = await call('POST', '/api/pacs/v1/study/viewer', doctor, { examIds: [e1.id] });
    expect(one.body.data.list.map((s: { studyUid: string }) => s.studyUid)).toEqual([s1]);

    const candidates = await call('GET', `/api/pacs/v1/study/compare/candidates/${e1.id}`, doctor);
    expect(candidates.body.status).toBe('0');
    expect(candidates.body.data.list.map((s: { studyUid: string }) => s.studyUid).sort()).toEqual([s1, s2, unmatched].sort());
    // An exam without images has none to view.
    const bare = await register('VWR4');
    expect((await call('POST', '/api/pacs/v1/study/viewer', doctor, { examIds: [bare.id] })).body.status).toBe('PACS100');
    // Another hospital's exam is not found.
    const examB = (await p.db.query<{ id: number }>('SELECT id FROM exam WHERE hospital_id = $1 LIMIT 1', [orgs.HOSP_B])).rows[0];
    const foreign = await call('GET', `/api/pacs/v1/study/compare/candidates/${examB.id}`, doctor);
    expect(foreign.body.status).toBe('RIS101');
  });

  test('grade safety on: patient name and ID come masked, and the reply says so', async () => {
    const on = await call('POST', '/api/ucenter/v1/config/gradeSafety', admin, { enabled: true });
    expect(on.body.status).toBe('0');
    try {
      const r = await call('POST', '/api/pacs/v1/study/compare', doctor, { studyUids: patient1.slice(0, 2) });
      expect(r.body.data.masked).toBe(true);
      for (const s of r.body.data.list) {
        expect(s.patientName).toBe('钱*');
        expect(s.patientId).toBe('****');
      }
    } finally {
      await call('POST', '/api/ucenter/v1/config/gradeSafety', admin, { enabled: false });
    }
  });

  test('viewer/config: saved per user, read back by user info over the defaults; a value outside the codes is refused', async () => {
    const before = await call('GET', '/api/uaa/v1/user/info', doctor);
    expect(before.body.data.setting.viewConfig).toEqual({ openModel: 'double', doubleConfig: ['newWindow', 'auto'] });
    const saved = await call('POST', '/api/pacs/v1/viewer/config', doctor, { viewConfig: { openModel: 'single', doubleConfig: ['auto'] } });
    expect(saved.body).toEqual({ status: '0', data: { openModel: 'single', doubleConfig: ['auto'] } });
    const after = await call('GET', '/api/uaa/v1/user/info', doctor);
    expect(after.body.data.setting.viewConfig).toEqual({ openModel: 'single', doubleConfig: ['auto'] });
    // Another user's setting is untouched.
    expect((await call('GET', '/api/uaa/v1/user/info', clerk)).body.data.setting.viewConfig.openModel).toBe('double');
    const bad = await call('POST', '/api/pacs/v1/viewer/config', doctor, { viewConfig: { openModel: 'triple' } });
    expect([bad.code, bad.body.status]).toEqual([400, 'UAA421']);
  });
});
