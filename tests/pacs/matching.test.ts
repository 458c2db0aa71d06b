/**
 * The matching policy (config/matching.json, server/pacs/matching.ts) case by case, on
 * each database, through the real ways in: STOW-RS (app.inject, a technician of
 * hospital A) and the DICOM listener (dcmtk storescu as a modality of hospital A).
 * Every case states what it sends and the one outcome it expects: the exam it must be
 * linked to, or the review queue's reason with the fields that disagree.
 * - agreeing identifiers: accession number, pre-assigned Study UID, patient id + date +
 *   modality; names written as pinyin, Chinese, upper case, with spaces or carets
 * - disagreeing ones: a typo in the name, a homophone (same pinyin, other characters),
 *   another patient id, sex, birth date, modality, a date outside the window, an
 *   accession number and a Study UID of two different exams
 * - same names, same day: two agreeing exams wait for a person; another patient of the
 *   same name is not taken
 * - codes from other hospitals: a study carrying hospital B's exam code stays unmatched
 *   (reason: another hospital) unless its device is declared to serve hospital B
 * - late registration, and an exam corrected afterwards: the waiting study is linked
 * - unbind, delete, send again: never linked to that exam again automatically
 * - reused UIDs: a new series of a stored Study UID for another patient refused (STOW
 *   409, C-STORE A900), a SOP Instance UID re-sent with other content refused (0111),
 *   the same content acknowledged again; nothing of a refused instance stored
 * - character sets: GB18030, GBK, ISO 2022 IR 58 (with escape sequences), and no
 *   (0008,0005) read in the device's default character set
 * - truncated instances (a value cut mid-element) refused, nothing indexed
 * - the operation log holds every match, review, unbind and refusal with its rule and
 *   fields; no study ends on an exam of another patient
 * The pure comparisons (names, modalities, window) have unit cases at the end.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as dcmjs from 'dcmjs';
import { syntheticSeries, type SyntheticInstance, type SyntheticSeriesOptions } from '../../mock/dicom';
import { startDicomListener, type DicomListener } from '../../server/dicom/listener';
import { dateInWindow, modalitiesAgree, namesAgree } from '../../server/pacs/matching';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { dbKinds } from '../support/db';
import { multipartBody } from '../dicomweb/helpers';

const AE = 'RCLOUD';

function dcmtk(tool: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(tool, args, { encoding: 'utf8', timeout: 60_000, env: { ...process.env, TCP_NODELAY: '1' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

/** YYYYMMDD in the region's time zone, `days` from today. */
function regionDay(days = 0): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(new Date(Date.now() + days * 86400_000)).replace(/-/g, '');
}

/** An instance's dataset re-written by `change` (dcmjs dictionary, tags as 8 hex digits). */
function rewrite(instance: SyntheticInstance, change: (dict: Record<string, any>) => void): SyntheticInstance {
  const b = instance.bytes;
  const parsed = dcmjs.data.DicomMessage.readFile(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
  change(parsed.dict);
  return { ...instance, bytes: Buffer.from(parsed.write()) };
}

/**
 * The instance with its patient name written in a Chinese character set: the name is
 * put in as ASCII placeholders of the encoded length, then the bytes are swapped in
 * (dcmjs writes text as UTF-8). `charset` undefined: no (0008,0005) at all.
 */
function chineseName(instance: SyntheticInstance, charset: string[] | undefined, alphabetic: string, ideographic: Buffer): SyntheticInstance {
  const placeholder = 'Q'.repeat(ideographic.length);
  const out = rewrite(instance, (dict) => {
    if (charset) dict['00080005'].Value = charset;
    else delete dict['00080005'];
    dict['00100010'].Value = [{ Alphabetic: alphabetic, Ideographic: placeholder }];
  });
  const at = out.bytes.indexOf(Buffer.from(placeholder));
  expect(at).toBeGreaterThan(0);
  ideographic.copy(out.bytes, at);
  return out;
}

/** 张三 in GB2312 / GBK / GB18030 (the same two-byte codes). */
const ZHANG_SAN_GB = Buffer.from([0xd5, 0xc5, 0xc8, 0xfd]);

describe.each(dbKinds)('matching policy on %s', (kind) => {
  let p: TestPlatform;
  let listener: DicomListener;
  let work: string;
  let admin: string;
  let tech: string;
  let orgs: Record<string, number>;
  let devices: Record<string, { id: number; hospitalId: number }>;
  let items: Record<string, { itemId: number; organId: number }>;
  let root = 0;

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    listener = await startDicomListener(p.app, { aeTitle: AE, port: 0, host: '127.0.0.1' });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-match-'));
    admin = await login(p.app, '13800000001');
    tech = await login(p.app, '13800000003');
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    devices = Object.fromEntries(
      (await p.db.query<{ ae: string; id: number; hospital_id: number }>('SELECT ae_title AS ae, id, hospital_id FROM device')).rows.map((d) => [
        d.ae,
        { id: d.id, hospitalId: d.hospital_id },
      ]),
    );
    const itemRows = (
      await p.db.query<{ hospital_id: number; modality: string; id: number; organ_id: number }>(
        'SELECT DISTINCT ON (hospital_id, modality) hospital_id, modality, id, organ_id FROM exam_item ORDER BY hospital_id, modality, id',
      )
    ).rows;
    items = Object.fromEntries(itemRows.map((r) => [`${r.hospital_id}/${r.modality}`, { itemId: r.id, organId: r.organ_id }]));
  });
  afterAll(async () => {
    await listener?.close();
    await p?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  interface Patient {
    name: string;
    /** The pinyin the exam stores (his_patient_name_en). */
    nameEn?: string;
    patientId?: string;
    sex?: 1 | 2;
    birthDate?: string;
  }
  interface Exam {
    id: number;
    examCode: string;
    studyInstanceUid: string;
    patientId: string;
  }

  /** What registration sends for an exam of a CT device of the hospital. */
  const examPayload = (patient: Patient, hospital: string, device: string) => {
    const hospitalId = orgs[hospital];
    return {
      hospitalId,
      hisPatientName: patient.name,
      ...(patient.nameEn ? { hisPatientNameEn: patient.nameEn } : {}),
      ...(patient.patientId ? { patientId: patient.patientId } : {}),
      ...(patient.birthDate ? { birthDate: patient.birthDate } : { age: 40, ageUnit: 4 }),
      sex: patient.sex ?? 1,
      patientSource: 1,
      outPatientNo: 'MZ1',
      deviceId: devices[device].id,
      items: [items[`${hospitalId}/CT`]],
    };
  };
  /** Registers an exam (admin, any hospital), or saves it again with `id`. */
  const register = async (patient: Patient, hospital = 'HOSP_A', device = hospital === 'HOSP_A' ? 'A_CT1' : 'B_CT1', id?: number): Promise<Exam> => {
    const r = await p.app.inject({
      method: 'POST',
      url: '/api/ris/v1/exam/save',
      headers: authed(admin),
      payload: { ...examPayload(patient, hospital, device), ...(id ? { id } : {}) },
    });
    expect(r.json()).toMatchObject({ status: '0' });
    return r.json().data;
  };

  /** A one-instance study of the exam's patient as a modality writes it (pinyin=Chinese), with `over` changed. */
  const study = (exam: Pick<Exam, 'patientId'> | undefined, over: SyntheticSeriesOptions = {}) =>
    syntheticSeries({
      uidRoot: `1.2.826.0.1.3680043.10.1082.77.${kind === 'pglite' ? 1 : 2}.${++root}`,
      count: 1,
      patientName: '李四',
      patientNameEn: 'Li^Si',
      patientId: exam?.patientId,
      sex: 'M',
      studyDate: regionDay(),
      ...over,
    });

  const stow = async (instances: SyntheticInstance[]) => {
    const { payload, contentType } = multipartBody(instances.map((i) => ({ body: i.bytes })));
    return p.app.inject({ method: 'POST', url: '/dicom-web/studies', headers: { ...authed(tech), 'content-type': contentType, accept: 'application/dicom+json' }, payload });
  };
  const storescu = async (callingAe: string, instances: SyntheticInstance[]) => {
    const dir = fs.mkdtempSync(path.join(work, 'send-'));
    const files = instances.map((inst, i) => {
      const file = path.join(dir, `${i}.dcm`);
      fs.writeFileSync(file, inst.bytes);
      return file;
    });
    return dcmtk('storescu', ['-v', '-nh', '-aet', callingAe, '-aec', AE, '127.0.0.1', String(listener.port), ...files]);
  };
  /** Sends by STOW-RS (a technician of hospital A) or as hospital A's CT (storescu). */
  const send = async (via: 'stow' | 'storescu', instances: SyntheticInstance[], ae = 'A_CT1') => {
    if (via === 'stow') expect((await stow(instances)).statusCode).toBe(200);
    else expect((await storescu(ae, instances)).output).toMatch(/Received Store Response \(Success\)/);
  };

  const studyRow = async (studyUid: string) =>
    (
      await p.db.query<{ id: number; exam_id: number | null; match_kind: string | null; match_review: any; patient_name: string; hospital_id: number; instance_count: number }>(
        'SELECT id, exam_id, match_kind, match_review, patient_name, hospital_id, instance_count FROM dicom_study WHERE study_uid = $1',
        [studyUid],
      )
    ).rows[0];
  /** What the review queue says of a study: the reason and the fields that disagree. */
  const outcome = async (studyUid: string) => {
    const row = await studyRow(studyUid);
    if (!row) return { stored: false };
    if (row.exam_id) return { examId: row.exam_id, kind: row.match_kind };
    const review = row.match_review ?? { reason: 'noExam' };
    return { reason: review.reason, fields: (review.fields ?? []).map((f: { field: string }) => f.field) };
  };

  describe('table of cases', () => {
    type Case = {
      name: string;
      via: 'stow' | 'storescu';
      patient?: Patient;
      study: (exam: Exam) => SyntheticSeriesOptions;
      expect: 'matched' | { reason: string; fields?: string[] };
      kind?: string;
    };
    const li: Patient = { name: '李四', sex: 1 };
    const cases: Case[] = [
      { name: 'accession number and patient agree', via: 'stow', study: (e) => ({ accessionNumber: e.examCode }), expect: 'matched', kind: 'accession' },
      { name: 'the same through the DICOM listener', via: 'storescu', study: (e) => ({ accessionNumber: e.examCode }), expect: 'matched', kind: 'accession' },
      {
        name: 'pre-assigned Study UID (worklist) without accession number',
        via: 'storescu',
        study: (e) => ({ studyUid: e.studyInstanceUid }),
        expect: 'matched',
        kind: 'studyUid',
      },
      { name: 'patient id, day and modality, no accession number', via: 'stow', study: () => ({}), expect: 'matched', kind: 'patient' },
      {
        name: 'name in upper case with spaces, no ideographic group',
        via: 'stow',
        study: (e) => ({ accessionNumber: e.examCode, patientName: '', patientNameEn: 'LI SI' }),
        expect: 'matched',
      },
      { name: 'Chinese name only', via: 'stow', study: (e) => ({ accessionNumber: e.examCode, patientNameEn: '' }), expect: 'matched' },
      {
        name: 'pinyin only against a Chinese exam name (its stored pinyin)',
        via: 'storescu',
        study: (e) => ({ accessionNumber: e.examCode, patientName: '', patientNameEn: 'li^si' }),
        expect: 'matched',
      },
      {
        name: 'typo in the pinyin',
        via: 'stow',
        study: (e) => ({ accessionNumber: e.examCode, patientNameEn: 'Li^Shi' }),
        expect: { reason: 'conflict', fields: ['patientName'] },
      },
      {
        name: 'homophone: same pinyin, other characters',
        via: 'stow',
        study: (e) => ({ accessionNumber: e.examCode, patientName: '李斯' }),
        expect: { reason: 'conflict', fields: ['patientName'] },
      },
      {
        name: 'another patient id under the exam code',
        via: 'storescu',
        study: (e) => ({ accessionNumber: e.examCode, patientId: `${e.patientId}X` }),
        expect: { reason: 'conflict', fields: ['patientId'] },
      },
      { name: 'another sex', via: 'stow', study: (e) => ({ accessionNumber: e.examCode, sex: 'F' }), expect: { reason: 'conflict', fields: ['patientSex'] } },
      {
        name: 'another birth date',
        via: 'stow',
        patient: { ...li, birthDate: '1980-05-06' },
        study: (e) => ({ accessionNumber: e.examCode, birthDate: '19800507' }),
        expect: { reason: 'conflict', fields: ['patientBirthDate'] },
      },
      {
        name: 'the same birth date',
        via: 'stow',
        patient: { ...li, birthDate: '1980-05-06' },
        study: (e) => ({ accessionNumber: e.examCode, birthDate: '19800506' }),
        expect: 'matched',
      },
      {
        name: 'a modality the exam does not do',
        via: 'stow',
        study: (e) => ({ accessionNumber: e.examCode, modality: 'MR' }),
        expect: { reason: 'conflict', fields: ['modality'] },
      },
      {
        name: 'a study date outside the window',
        via: 'stow',
        study: (e) => ({ accessionNumber: e.examCode, studyDate: regionDay(-10) }),
        expect: { reason: 'conflict', fields: ['studyDate'] },
      },
      {
        name: 'name, id and sex all wrong under the exam code',
        via: 'storescu',
        study: (e) => ({ accessionNumber: e.examCode, patientName: '王五', patientNameEn: 'Wang^Wu', patientId: 'OTHER1', sex: 'F' }),
        expect: { reason: 'conflict', fields: ['patientId', 'patientName', 'patientSex'] },
      },
      { name: 'no identifier of any exam', via: 'stow', study: () => ({ patientId: 'NOBODY-EVER' }), expect: { reason: 'noExam' } },
    ];

    test.each(cases)('$name ($via)', async (c) => {
      const exam = await register({ ...li, ...c.patient, patientId: `M${kind[0]}${++root}` });
      const series = study(exam, c.study(exam));
      await send(c.via, series.instances);
      const got = await outcome(series.studyUid);
      if (c.expect === 'matched') expect(got).toEqual({ examId: exam.id, kind: c.kind ?? expect.any(String) });
      else expect(got).toEqual({ reason: c.expect.reason, fields: c.expect.fields ?? [] });
    });
  });

  test('an accession number and a Study UID of two different exams: neither is taken', async () => {
    const a = await register({ name: '李四', patientId: `UA${kind}` });
    const b = await register({ name: '李四', patientId: `UA${kind}` });
    const series = study(a, { accessionNumber: a.examCode, studyUid: b.studyInstanceUid });
    await send('stow', series.instances);
    const got = await outcome(series.studyUid);
    expect(got.reason).toBe('conflict');
    expect(got.fields).toContain('studyUid');
  });

  test('same name, same day: two agreeing exams wait for a person; a namesake with another id is not taken', async () => {
    const first = await register({ name: '张伟', patientId: `SD${kind}` });
    await register({ name: '张伟', patientId: `SD${kind}` });
    const twice = study(first, { patientName: '张伟', patientNameEn: 'Zhang^Wei' });
    await send('stow', twice.instances);
    expect(await outcome(twice.studyUid)).toEqual({ reason: 'ambiguous', fields: [] });

    const namesake = await register({ name: '张伟', patientId: `SN${kind}` });
    const other = study({ patientId: `SN${kind}-2` }, { patientName: '张伟', patientNameEn: 'Zhang^Wei' });
    await send('stow', other.instances);
    expect(await outcome(other.studyUid)).toEqual({ reason: 'noExam', fields: [] });
    expect((await p.db.query('SELECT 1 FROM dicom_study WHERE exam_id = $1', [namesake.id])).rowCount).toBe(0);
  });

  /** The exam list's row of an exam, as the technician of hospital A gets it. */
  const listRow = async (exam: Exam) => {
    const r = await p.app.inject({ method: 'POST', url: '/api/ris/v1/exam/list', headers: authed(tech), payload: { filters: { examCode: exam.examCode } } });
    const [row] = r.json().data.list as Array<{ id: number; imageStatus: number; reviewWaiting: boolean }>;
    expect(row.id).toBe(exam.id);
    return { imageStatus: row.imageStatus, reviewWaiting: row.reviewWaiting };
  };

  test('the exam list says which exams have studies waiting for review: the closest candidate, each of several agreeing', async () => {
    const refused = await register({ name: '李四', patientId: `RW${kind}` });
    const untouched = await register({ name: '李四', patientId: `RN${kind}` });
    expect(await listRow(refused)).toEqual({ imageStatus: 0, reviewWaiting: false });
    await send('stow', study(refused, { accessionNumber: refused.examCode, sex: 'F' }).instances);
    expect(await listRow(refused)).toEqual({ imageStatus: 0, reviewWaiting: true });
    expect(await listRow(untouched)).toEqual({ imageStatus: 0, reviewWaiting: false });

    const first = await register({ name: '王芳', patientId: `RA${kind}` });
    const second = await register({ name: '王芳', patientId: `RA${kind}` });
    const twice = study(first, { patientName: '王芳', patientNameEn: 'Wang^Fang' });
    await send('stow', twice.instances);
    expect(await outcome(twice.studyUid)).toEqual({ reason: 'ambiguous', fields: [] });
    expect(await listRow(first)).toEqual({ imageStatus: 0, reviewWaiting: true });
    expect(await listRow(second)).toEqual({ imageStatus: 0, reviewWaiting: true });

    // Linked by a person, the study leaves the queue, and the exam has images instead.
    const { id: studyId } = (await studyRow(twice.studyUid))!;
    const linked = await p.app.inject({ method: 'POST', url: `/api/ris/v1/exam/${first.id}/match`, headers: authed(tech), payload: { studyId } });
    expect(linked.json()).toMatchObject({ status: '0' });
    expect(await listRow(first)).toEqual({ imageStatus: 1, reviewWaiting: false });
    expect(await listRow(second)).toEqual({ imageStatus: 0, reviewWaiting: false });
  });

  test("another hospital's exam code is not a candidate, unless the device is declared to serve that hospital", async () => {
    const inB = await register({ name: '李四', patientId: `HB${kind}` }, 'HOSP_B');
    const series = study(inB, { accessionNumber: inB.examCode });
    await send('storescu', series.instances, 'A_CT1');
    expect(await outcome(series.studyUid)).toEqual({ reason: 'otherHospital', fields: [] });

    // Declared in /deviceList (the generic form's call): A_US1 also serves hospital B.
    const detail = (await p.app.inject({ method: 'GET', url: `/api/ris/v1/device/detail/${devices.A_US1.id}`, headers: authed(admin) })).json().data;
    const saved = await p.app.inject({ method: 'POST', url: '/api/ris/v1/device/save', headers: authed(admin), payload: { ...detail, servedHospitalIds: [orgs.HOSP_B] } });
    expect(saved.json()).toMatchObject({ status: '0' });
    const again = study(inB, { accessionNumber: inB.examCode });
    await send('storescu', again.instances, 'A_US1');
    expect(await outcome(again.studyUid)).toEqual({ examId: inB.id, kind: 'accession' });
  });

  test('late registration, and an exam corrected afterwards: the waiting study is linked then', async () => {
    const early = study({ patientId: `LR${kind}` });
    await send('stow', early.instances);
    expect(await outcome(early.studyUid)).toEqual({ reason: 'noExam', fields: [] });
    const exam = await register({ name: '李四', patientId: `LR${kind}` });
    expect(await outcome(early.studyUid)).toEqual({ examId: exam.id, kind: 'patient' });

    // Registered with a typo; corrected, the study that waited is linked.
    const typo = await register({ name: '李思', patientId: `CR${kind}` });
    const waiting = study(typo, { accessionNumber: typo.examCode });
    await send('stow', waiting.instances);
    expect(await outcome(waiting.studyUid)).toEqual({ reason: 'conflict', fields: ['patientName'] });
    await register({ name: '李四', patientId: `CR${kind}` }, 'HOSP_A', 'A_CT1', typo.id);
    expect(await outcome(waiting.studyUid)).toEqual({ examId: typo.id, kind: 'accession' });
  });

  test('unbound, deleted and sent again: never linked to that exam automatically again', async () => {
    const exam = await register({ name: '李四', patientId: `UB${kind}` });
    const series = study(exam, { accessionNumber: exam.examCode });
    await send('stow', series.instances);
    const row = await studyRow(series.studyUid);
    expect(row.exam_id).toBe(exam.id);
    const unbind = await p.app.inject({ method: 'PUT', url: `/api/ris/v1/exam/${orgs.HOSP_A}/${exam.id}/${row.id}/relationship/unbind`, headers: authed(tech) });
    expect(unbind.json()).toMatchObject({ status: '0' });
    expect(await outcome(series.studyUid)).toEqual({ reason: 'unbound', fields: [] });
    const deleted = await p.app.inject({ method: 'POST', url: '/api/pacs/v1/study/delete', headers: authed(tech), payload: { studyId: row.id } });
    expect(deleted.json()).toMatchObject({ status: '0' });
    await send('storescu', series.instances);
    expect(await outcome(series.studyUid)).toEqual({ reason: 'unbound', fields: [] });
    // The exam's image dialog lists it under review, with the reason in words.
    const dialog = (await p.app.inject({ method: 'GET', url: `/api/ris/v1/exam/${exam.id}/studies`, headers: { ...authed(tech), cookie: 'lang=en-US' } })).json().data;
    expect(dialog.list).toEqual([]);
    expect(dialog.review).toEqual([expect.objectContaining({ studyUid: series.studyUid, review: true, reviewReason: expect.stringContaining(exam.examCode) })]);
    // A person may still link it; the log keeps that it was a person's choice.
    const manual = await p.app.inject({
      method: 'POST',
      url: `/api/ris/v1/exam/${exam.id}/match`,
      headers: authed(tech),
      payload: { studyId: (await studyRow(series.studyUid)).id },
    });
    expect(manual.json()).toMatchObject({ status: '0' });
    expect(await outcome(series.studyUid)).toEqual({ examId: exam.id, kind: 'manual' });
    const log = (await p.db.query<{ action: string }>('SELECT action FROM image_match_log WHERE study_uid = $1 ORDER BY id', [series.studyUid])).rows.map((r) => r.action);
    expect(log).toEqual(['autoMatch', 'unbind', 'review', 'review', 'manualMatch']);
  });

  test('a new series of a stored Study UID for another patient is refused (STOW-RS 409, C-STORE A900), nothing appended', async () => {
    const exam = await register({ name: '李四', patientId: `RS${kind}` });
    const first = study(exam, { accessionNumber: exam.examCode });
    await send('stow', first.instances);
    const foreign = study(
      { patientId: `RS${kind}-OTHER` },
      { studyUid: first.studyUid, seriesNumber: 2, patientName: '王五', patientNameEn: 'Wang^Wu', accessionNumber: exam.examCode },
    );
    const r = await stow(foreign.instances);
    expect(r.statusCode).toBe(409);
    const failed = r.json()['00081198'].Value[0];
    expect(failed['00081197'].Value).toEqual([0xa900]);
    expect(failed['00081155'].Value).toEqual([foreign.instances[0].sopInstanceUid]);
    const overDicom = study({ patientId: `RS${kind}-OTHER` }, { studyUid: first.studyUid, seriesNumber: 3, patientName: '王五', patientNameEn: 'Wang^Wu' });
    const run = await storescu('A_CT1', overDicom.instances);
    expect(run.output).toMatch(/Received Store Response \(Error/);
    expect(run.output).not.toMatch(/Received Store Response \(Success\)/);
    expect(await studyRow(first.studyUid)).toMatchObject({ exam_id: exam.id, instance_count: 1 });
    expect(
      (await p.db.query('SELECT 1 FROM dicom_instance WHERE sop_instance_uid = ANY($1::text[])', [[foreign.instances[0].sopInstanceUid, overDicom.instances[0].sopInstanceUid]]))
        .rowCount,
    ).toBe(0);
    const refusals = (await p.db.query<{ rule: string }>("SELECT rule FROM image_match_log WHERE study_uid = $1 AND action = 'refuseInstance'", [first.studyUid])).rows;
    expect(refusals.map((x) => x.rule)).toEqual(['otherPatient', 'otherPatient']);
  });

  test('a SOP Instance UID sent again: the same content is acknowledged, other content refused (0111) and kept out', async () => {
    const exam = await register({ name: '李四', patientId: `RU${kind}` });
    const series = study(exam, { accessionNumber: exam.examCode });
    const [instance] = series.instances;
    await send('storescu', [instance]);
    await send('stow', [instance]);
    await send('storescu', [instance]);
    const changed = rewrite(instance, (dict) => {
      dict['00100010'].Value = [{ Alphabetic: 'Wang^Wu', Ideographic: '王五' }];
    });
    const r = await stow([changed]);
    expect(r.statusCode).toBe(409);
    expect(r.json()['00081198'].Value[0]['00081197'].Value).toEqual([0x0111]);
    const run = await storescu('A_CT1', [changed]);
    expect(run.output).not.toMatch(/Received Store Response \(Success\)/);
    // Under another study UID (another storage key) it is refused too.
    const moved = rewrite(instance, (dict) => {
      dict['0020000D'].Value = [`${series.studyUid}.9`];
    });
    expect((await stow([moved])).statusCode).toBe(409);
    expect(await studyRow(`${series.studyUid}.9`)).toBeUndefined();
    expect(await studyRow(series.studyUid)).toMatchObject({ exam_id: exam.id, instance_count: 1, patient_name: 'Li^Si=李四' });
    const rules = (await p.db.query<{ rule: string }>("SELECT rule FROM image_match_log WHERE sop_instance_uid = $1 AND action = 'refuseInstance'", [instance.sopInstanceUid]))
      .rows;
    expect(rules.map((x) => x.rule)).toEqual(['differentContent', 'differentContent', 'differentContent']);
  });

  describe('character sets', () => {
    const cases: Array<{ name: string; charset: string[] | undefined; bytes: Buffer }> = [
      { name: 'GB18030', charset: ['GB18030'], bytes: ZHANG_SAN_GB },
      { name: 'GBK', charset: ['GBK'], bytes: ZHANG_SAN_GB },
      { name: 'ISO 2022 IR 58 with its escape sequence', charset: ['', 'ISO 2022 IR 58'], bytes: Buffer.concat([Buffer.from([0x1b, 0x24, 0x29, 0x41]), ZHANG_SAN_GB]) },
      { name: "no (0008,0005): the device's default GB18030", charset: undefined, bytes: ZHANG_SAN_GB },
    ];
    // Hospital A's DR writes GB18030 when it names no character set; a declared one wins.
    beforeAll(() => p.db.query("UPDATE device SET default_charset = 'GB18030' WHERE id = $1", [devices.A_DR1.id]));
    afterAll(() => p.db.query('UPDATE device SET default_charset = NULL WHERE id = $1', [devices.A_DR1.id]));
    test.each(cases)('$name', async (c) => {
      const exam = await register({ name: '张三', patientId: `CS${kind}${++root}` });
      const series = study(exam, { accessionNumber: exam.examCode });
      const encoded = chineseName(series.instances[0], c.charset, 'Zhang^San', c.bytes);
      const run = await dcmtk('storescu', ['-v', '-aet', 'A_DR1', '-aec', AE, '127.0.0.1', String(listener.port), writeFile(encoded)]);
      expect(run.output).toMatch(/Received Store Response \(Success\)/);
      expect((await studyRow(series.studyUid)).patient_name).toBe('Zhang^San=张三');
      expect(await outcome(series.studyUid)).toEqual({ examId: exam.id, kind: 'accession' });
    });
  });

  test('a truncated instance (a value cut mid-element) is refused over STOW-RS and C-STORE; nothing indexed', async () => {
    const series = study(undefined, { patientId: `TR${kind}` });
    const [instance] = series.instances;
    // Cut inside the patient module, well before the pixel data.
    const at = instance.bytes.indexOf(Buffer.from('Li^Si'));
    const cut = instance.bytes.subarray(0, at + 2);
    const r = await stow([{ ...instance, bytes: cut }]);
    expect(r.statusCode).toBe(409);
    expect(r.json()['00081198'].Value[0]['00081197'].Value).toEqual([0xc000]);
    // A length overrunning the data: the pixel data's length says more than is there.
    const overrun = Buffer.from(instance.bytes);
    overrun.writeUInt32LE(overrun.readUInt32LE(overrun.length - 64 * 64 * 2 - 4) + 100, overrun.length - 64 * 64 * 2 - 4);
    expect((await stow([{ ...instance, bytes: overrun }])).statusCode).toBe(409);
    await expect(p.app.archive.storeBuffer(cut, { hospitalId: orgs.HOSP_A, deviceId: devices.A_CT1.id, sender: 'A_CT1' })).rejects.toThrow();
    expect(await studyRow(series.studyUid)).toBeUndefined();
  });

  test("the image record lists the review queue with its reasons; no study sits on another patient's exam", async () => {
    const r = await p.app.inject({
      method: 'POST',
      url: '/api/pacs/v1/study/list',
      headers: { ...authed(tech), cookie: 'lang=en-US' },
      payload: { filters: { review: true }, pageSize: 100 },
    });
    const rows = r.json().data.list as Array<{ review: boolean; reviewReason: string; examId?: number }>;
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.every((row) => row.review && !row.examId && row.reviewReason)).toBe(true);
    // The technician's count is the queue's length.
    const counted = await p.app.inject({ method: 'GET', url: '/api/pacs/v1/study/review/count', headers: authed(tech) });
    expect(counted.json().data.count).toBe(r.json().data.total);
    expect(rows.map((row) => row.reviewReason)).toEqual(expect.arrayContaining([expect.stringMatching(/^Disagrees with exam \d+: Name: study Li\^Shi=李四, exam 李四/)]));
    // Every automatic link joins a study to an exam of its own patient.
    const wrong = await p.db.query(
      `SELECT s.study_uid FROM dicom_study s JOIN exam e ON e.id = s.exam_id
        WHERE s.match_kind <> 'manual' AND coalesce(s.patient_id, '') <> '' AND s.patient_id <> e.patient_id`,
    );
    expect(wrong.rows).toEqual([]);
    // Each automatic match is logged with its rule and the fields compared.
    const logged = (await p.db.query<{ rule: string; detail: { compared: string[] } }>("SELECT rule, detail FROM image_match_log WHERE action = 'autoMatch'")).rows;
    expect(logged.length).toBeGreaterThan(5);
    for (const l of logged) expect(l.detail.compared).toEqual(expect.arrayContaining(['patientId', 'patientName']));
  });

  const writeFile = (instance: SyntheticInstance) => {
    const file = path.join(fs.mkdtempSync(path.join(work, 'one-')), 'i.dcm');
    fs.writeFileSync(file, instance.bytes);
    return file;
  };
});

describe('the comparisons the policy uses', () => {
  test.each([
    ['Li^Si=李四', '李四', 'Li^Si', true],
    ['LI SI', '李四', 'Li^Si', true],
    ['li^si^^^', '李四', null, true],
    ['李四', '李四', null, true],
    ['Li^Si=李斯', '李四', 'Li^Si', false],
    ['Li^Shi=李四', '李四', 'Li^Si', false],
    ['Zhang^San', 'Zhang San', null, true],
    ['张三', 'ZHANG^SAN', null, true],
    ['Wang^Wu=王五', '李四', 'Li^Si', false],
  ])('name %s against exam %s / %s: %s', (study, exam, pinyin, agree) => {
    expect(namesAgree(study, exam, pinyin)).toBe(agree);
  });
  test('modalities by the policy groups; reports and key images fit any exam', () => {
    expect(modalitiesAgree(['CR'], ['DX'])).toBe(true);
    expect(modalitiesAgree(['MR'], ['CT'])).toBe(false);
    expect(modalitiesAgree(['SR', 'KO'], ['CT'])).toBe(true);
    expect(modalitiesAgree(['CT', 'MR'], ['CT'])).toBe(false);
  });
  test('the date window: three days before the exam, one after', () => {
    expect(dateInWindow('20261120', '20261123')).toBe(true);
    expect(dateInWindow('20261119', '20261123')).toBe(false);
    expect(dateInWindow('20261124', '20261123')).toBe(true);
    expect(dateInWindow('20261125', '20261123')).toBe(false);
  });
});
