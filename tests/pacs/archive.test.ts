/**
 * The archive's way in (server/pacs/archive.ts), on each database:
 * - a synthetic CT series is stored and indexed: study, series, instances with their
 *   attributes and counts, the file in storage byte-for-byte
 * - the same SOP Instance UID twice is stored once
 * - a truncated or non-DICOM file is refused and leaves nothing behind; trailing
 *   padding after the pixel data is no truncation
 * - a new study is matched on arrival: by accession number (= exam code), by the
 *   pre-assigned Study Instance UID, by patient id + date + modality when exactly one
 *   exam qualifies (with the patient's name and sex agreeing: tests/pacs/matching.test.ts
 *   has the policy's cases); two candidates leave it unmatched; the exam turns examined, leaves
 *   the worklist, logs "match study" with the sender's AE title
 */
import fs from 'node:fs';
import path from 'node:path';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { syntheticSeries } from '../../mock/dicom';
import { examImages } from '../support/exam';
import { InvalidDicomError } from '../../server/pacs/archive';

describe.each(dbKinds)('image archive on %s', (kind) => {
  let p: TestPlatform;
  let clerkA: string;
  let orgs: Record<string, number>;
  let device: { id: number; hospital_id: number };
  let itemId: number;
  let organId: number;

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    clerkA = await login(p.app, '13800000002');
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    device = (await p.db.query<{ id: number; hospital_id: number }>("SELECT id, hospital_id FROM device WHERE ae_title = 'A_CT1'")).rows[0];
    const item = (await p.db.query<{ id: number; organ_id: number }>("SELECT id, organ_id FROM exam_item WHERE hospital_id = $1 AND modality = 'CT' ORDER BY id LIMIT 1", [orgs.HOSP_A])).rows[0];
    itemId = item.id;
    organId = item.organ_id;
  });
  afterAll(() => p.close());

  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(new Date()).replace(/-/g, '');
  const source = () => ({ hospitalId: device.hospital_id, deviceId: device.id, sender: 'A_CT1' });
  const register = async (over: Record<string, unknown> = {}) => {
    const r = await p.app.inject({
      method: 'POST',
      url: '/api/ris/v1/exam/save',
      headers: authed(clerkA),
      payload: { hospitalId: orgs.HOSP_A, hisPatientName: '李四', sex: 1, age: 40, ageUnit: 4, patientSource: 1, outPatientNo: 'MZ9', deviceId: device.id, items: [{ itemId, organId }], ...over },
    });
    expect(r.json().status).toBe('0');
    return r.json().data as { id: number; examCode: string; studyInstanceUid: string; patientId: string };
  };
  /** The patient of an exam registered by register(), as its modality would write it. */
  const patientOf = (exam: { patientId: string }) => ({ patientId: exam.patientId, patientName: '李四', patientNameEn: 'Li^Si', sex: 'M' as const, studyDate: today });
  const examRow = (id: number) => examImages(p.db, id);

  test('stores and indexes a series once, byte for byte', async () => {
    const series = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.501', count: 4, patientId: 'NOEXAM1' });
    for (const inst of series.instances) expect((await p.app.archive.storeBuffer(inst.bytes, source())).status).toBe('stored');
    const again = await p.app.archive.storeBuffer(series.instances[0].bytes, source());
    expect(again.status).toBe('duplicate');
    const study = (await p.db.query('SELECT * FROM dicom_study WHERE study_uid = $1', [series.studyUid])).rows[0];
    expect(study).toMatchObject({ hospital_id: orgs.HOSP_A, series_count: 1, instance_count: 4, patient_id: 'NOEXAM1', patient_name: 'Zhang^San=张三', modalities: ['CT'], exam_id: null, source_ae: 'A_CT1' });
    const instances = (await p.db.query<{ sop_instance_uid: string; file_key: string; rows: number; instance_number: number }>('SELECT * FROM dicom_instance WHERE study_id = $1 ORDER BY instance_number', [study.id])).rows;
    expect(instances.map((i) => i.sop_instance_uid)).toEqual(series.instances.map((i) => i.sopInstanceUid));
    expect(instances[0]).toMatchObject({ rows: 64, instance_number: 1 });
    const stored = fs.readFileSync(path.join(p.dataDir, 'files', instances[2].file_key));
    expect(stored.equals(series.instances[2].bytes)).toBe(true);
  });

  test('a truncated or non-DICOM file is refused and leaves nothing', async () => {
    const series = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.502', count: 1 });
    const whole = series.instances[0].bytes;
    await expect(p.app.archive.storeBuffer(whole.subarray(0, whole.length - 100), source())).rejects.toBeInstanceOf(InvalidDicomError);
    await expect(p.app.archive.storeBuffer(Buffer.from('not a dicom file at all'.repeat(20)), source())).rejects.toBeInstanceOf(InvalidDicomError);
    expect((await p.db.query('SELECT 1 FROM dicom_study WHERE study_uid = $1', [series.studyUid])).rowCount).toBe(0);
    expect(fs.readdirSync(path.join(p.dataDir, 'files', '.incoming'))).toEqual([]);
    await expect(p.app.archive.storeBuffer(whole.subarray(0, whole.length - 1), source())).rejects.toBeInstanceOf(InvalidDicomError);
    // The listener goes on: the whole file is fine afterwards.
    expect((await p.app.archive.storeBuffer(whole, source())).status).toBe('stored');
    // Elements after the pixel data (Data Set Trailing Padding, FFFC,FFFC OB) are whole data too.
    const padded = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.512', count: 1 }).instances[0].bytes;
    const padding = Buffer.from([0xfc, 0xff, 0xfc, 0xff, 0x4f, 0x42, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0]);
    expect((await p.app.archive.storeBuffer(Buffer.concat([padded, padding]), source())).status).toBe('stored');
  });

  test('matches a new study by accession number, then by the pre-assigned study UID', async () => {
    const exam = await register();
    const series = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.503', count: 2, accessionNumber: exam.examCode, ...patientOf(exam) });
    const first = await p.app.archive.storeBuffer(series.instances[0].bytes, source());
    expect(first.examId).toBe(exam.id);
    await p.app.archive.storeBuffer(series.instances[1].bytes, source());
    expect(await examRow(exam.id)).toMatchObject({ image_status: 1, series_count: 1, instance_count: 2, exam_state: 2 });
    expect((await p.db.query('SELECT 1 FROM worklist_steps WHERE exam_id = $1', [exam.id])).rowCount).toBe(0);
    const log = (await p.db.query<{ action: string; user_name: string; detail: { kind: string } }>("SELECT * FROM exam_log WHERE exam_id = $1 AND action = 'matchStudy'", [exam.id])).rows;
    expect(log).toEqual([expect.objectContaining({ user_name: 'A_CT1', detail: expect.objectContaining({ kind: 'accession', studyUid: series.studyUid }) })]);

    const byUid = await register();
    const other = syntheticSeries({ studyUid: byUid.studyInstanceUid, count: 1, ...patientOf(byUid) });
    expect((await p.app.archive.storeBuffer(other.instances[0].bytes, source())).examId).toBe(byUid.id);
  });

  test('matches by patient id, date and modality only when one exam qualifies', async () => {
    const one = await register({ patientId: `PX${kind}1` });
    const s1 = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.504', count: 1, ...patientOf(one), studyDate: today });
    expect((await p.app.archive.storeBuffer(s1.instances[0].bytes, source())).examId).toBe(one.id);

    await register({ patientId: `PX${kind}2` });
    await register({ patientId: `PX${kind}2` });
    const s2 = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.505', count: 1, patientName: '李四', patientNameEn: 'Li^Si', patientId: `PX${kind}2`, studyDate: today });
    expect((await p.app.archive.storeBuffer(s2.instances[0].bytes, source())).examId).toBeNull();
    // Another day: no candidate.
    const s3 = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.506', count: 1, ...patientOf(one), studyDate: '20200101' });
    expect((await p.app.archive.storeBuffer(s3.instances[0].bytes, source())).examId).toBeNull();
  });
});
