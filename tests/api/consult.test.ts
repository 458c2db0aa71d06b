/**
 * Tele-consultation through the API (/api/consult/v1, issue #20) on each database:
 * - apply: hospital A's doctor applies with two exams and a PDF for the central
 *   hospital's experts; the application is created and sent for review, the log says
 *   so; the rules: start after now, end not before start, at least one expert, a topic,
 *   a birth date, at most 20 exams, exams of another hospital unknown (RIS101), a
 *   closed expert refused (UCENTER301), an exam without images (PACS100) — each a 4xx
 *   with its code, nothing stored
 * - review: the reviewer of the central hospital rejects (reason at most 200) or
 *   approves; a second review is CONSULT301; the applicant revokes before review
 *   (reason 2-100), CONSULT302 once revoked, CONSULT303 after approval; the applicant
 *   alone edits the revoked application's meeting and patient (the action edit, its
 *   form held to the application's rules), which sends it back to review (CONSULT304
 *   under review, CONSULT301 once reviewed); an exam without images is refused (PACS100)
 * - experts are notified in the app and by SMS (sms_outbox) when invited, when it
 *   starts and when the report is approved; the invited expert joins
 *   (canJoinConsultation), writes the report, the reviewer rejects it then approves
 *   it; the sheet prints with hospital A's layout; every step in the operation log
 * - scope: hospital B's doctor reads none of it (CONSULT002), nor a clerk without a
 *   consult right (UAA103); the material downloads for the invited expert, not others;
 *   the consultation's exam images are the invited expert's to read (viewer, DICOMweb)
 *   once it is approved, never before, and never hospital B's doctor's
 * - experts: the table resource (labels at most 5 unique; a mobile once: UCENTER009); the
 *   avatar through the file service (png or jpg under 5 MB: UCENTER703 / UCENTER704
 *   otherwise, by the server), on the list, the detail and the consultation's experts
 * - the wizard's exams: the hospital's with images
 * - four applications sent at once each get their own number (no unique-key failure)
 */
import { translate } from '../../locales';
import { hashPassword } from '../../server/identity/passwords';
import { canJoinConsultation, IMAGES_OF_EXAM } from '../../server/consult/domain';
import { resolveSession } from '../../server/identity/sessions';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { signaturePng } from '../support/images';

const C = '/api/consult/v1';
const F = '/api/file/v1';
const OTHER_PASSWORD = 'Doctor#2026';

function pdf(): Buffer {
  const b = Buffer.alloc(2048, 0x20);
  Buffer.from('%PDF-1.7\n').copy(b, 0);
  return b;
}

const hours = (h: number) => new Date(Date.now() + h * 3600_000).toISOString();

describe.each(dbKinds)('tele-consultation on %s', (kind) => {
  let p: TestPlatform;
  let docA: string;
  let docB: string;
  let reviewer: string;
  let expert: string;
  let clerk: string;
  let examsA: number[];
  let examB: number;
  let bareA: number;
  let central: number;
  let experts: Record<string, number>;

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const act = (name: string, token: string, body: object) => call('POST', `${C}/consultation/action/${name}`, token, body);
  const version = async (id: number) => (await p.db.query<{ version: number }>('SELECT version FROM consultation WHERE id = $1', [id])).rows[0].version;
  const state = async (id: number) => (await p.db.query<{ status: number; report_status: number }>('SELECT status, report_status FROM consultation WHERE id = $1', [id])).rows[0];
  const logActions = async (id: number) => (await p.db.query<{ action: string }>('SELECT action FROM consultation_log WHERE consultation_id = $1 ORDER BY id', [id])).rows.map((r) => r.action);
  const count = async (table: string) => (await p.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;

  let pdfId: string;
  const application = (over: Record<string, unknown> = {}) => ({
    examId: examsA[0],
    examIds: [examsA[1]],
    patientName: '张三',
    sex: 1,
    birthDate: '1960-05-01',
    topic: '肺部阴影会诊',
    clinicalQuestion: '右肺结节性质？',
    attachmentType: 1,
    attachments: [pdfId],
    hospitalId: central,
    expertIds: [experts['13800000006']],
    startTime: hours(2),
    endTime: hours(3),
    ...over,
  });

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    const orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    central = orgs.CENTRAL;
    // Exams with images (the demo archive's): only those may be consulted on.
    examsA = (await p.db.query<{ id: number }>(`SELECT id FROM exam e WHERE hospital_id = $1 AND EXISTS (${IMAGES_OF_EXAM}) ORDER BY id LIMIT 2`, [orgs.HOSP_A])).rows.map((r) => r.id);
    bareA = (await p.db.query<{ id: number }>(`SELECT id FROM exam e WHERE hospital_id = $1 AND NOT EXISTS (${IMAGES_OF_EXAM}) ORDER BY id LIMIT 1`, [orgs.HOSP_A])).rows[0].id;
    examB = (await p.db.query<{ id: number }>('SELECT id FROM exam WHERE hospital_id = $1 ORDER BY id LIMIT 1', [orgs.HOSP_B])).rows[0].id;
    experts = Object.fromEntries((await p.db.query<{ mobile: string; id: number }>('SELECT mobile, id FROM expert')).rows.map((r) => [r.mobile, r.id]));
    // A doctor of hospital B: the demo radiologist's role (own-hospital data) in another hospital.
    const role = (await p.db.query<{ id: number }>("SELECT m.role_id AS id FROM user_membership m JOIN app_user u ON u.id = m.user_id WHERE u.mobile = '13800000004'")).rows[0];
    const user = await p.db.query<{ id: number }>("INSERT INTO app_user (mobile, name, status, password_hash) VALUES ('13700000044', '乙院医生', 1, $1) RETURNING id", [await hashPassword(OTHER_PASSWORD)]);
    await p.db.query('INSERT INTO user_membership (user_id, hospital_id, role_id) VALUES ($1, $2, $3)', [user.rows[0].id, orgs.HOSP_B, role.id]);
    [docA, reviewer, expert, clerk, docB] = await Promise.all([
      login(p.app, '13800000004'),
      login(p.app, '13800000005'),
      login(p.app, '13800000006'),
      login(p.app, '13800000002'),
      login(p.app, '13700000044', OTHER_PASSWORD),
    ]);
    const up = await p.app.inject({
      method: 'POST',
      url: `${F}/upload?purpose=examAttachment&ownerId=${examsA[0]}&name=${encodeURIComponent('病历.pdf')}`,
      headers: authed(docA, { 'content-type': 'application/octet-stream' }),
      payload: pdf(),
    });
    expect(up.statusCode).toBe(200);
    pdfId = up.json().data.id;
  });
  afterAll(() => p.close());

  test('the rules of an application: each refused with its code, nothing stored', async () => {
    const before = await count('consultation');
    const refused: Array<[Record<string, unknown>, number, string, string?]> = [
      [{ startTime: hours(-1) }, 400, 'UAA421', 'startTime'],
      [{ endTime: hours(1) }, 400, 'UAA421', 'endTime'],
      [{ expertIds: [] }, 400, 'UAA421'],
      [{ topic: '' }, 400, 'UAA421'],
      [{ birthDate: undefined }, 400, 'UAA421'],
      [{ examIds: Array.from({ length: 20 }, (_, i) => 1_000_000 + i) }, 400, 'UAA421'],
      [{ examIds: [examB] }, 404, 'RIS101'],
      // An exam without images: the experts would have nothing to read.
      [{ examIds: [bareA] }, 404, 'PACS100', 'examIds'],
      [{ expertIds: [experts['13900000107']] }, 404, 'UCENTER301'],
    ];
    for (const [over, code, status, field] of refused) {
      const r = await call('POST', `${C}/consultation/save`, docA, application(over));
      expect({ over: Object.keys(over), code: r.statusCode ?? r.code, status: r.body.status }).toEqual({ over: Object.keys(over), code, status });
      if (field) expect(r.body.field).toBe(field);
    }
    // A clerk holds no consultation right.
    expect((await call('POST', `${C}/consultation/save`, clerk, application())).body.status).toBe('UAA103');
    expect(await count('consultation')).toBe(before);
  });

  test('apply, reject, revoke and edit: the review rules and their codes', async () => {
    const a = await call('POST', `${C}/consultation/save`, docA, application());
    expect(a.code).toBe(200);
    const id = a.body.data.id as number;
    expect(await state(id)).toEqual({ status: 2, report_status: -1 });
    // The reviewer rejects: reason at most 200.
    expect((await act('reject', reviewer, { id, version: await version(id), reason: 'x'.repeat(201) })).body.status).toBe('UAA421');
    expect((await act('reject', reviewer, { id, version: await version(id), reason: '资料不全' })).code).toBe(200);
    expect((await act('approve', reviewer, { id, version: await version(id) })).body.status).toBe('CONSULT301');
    expect((await act('revoke', docA, { id, version: await version(id), reason: '重新申请' })).body.status).toBe('CONSULT303');

    const b = (await call('POST', `${C}/consultation/save`, docA, application({ topic: '第二次会诊' }))).body.data.id as number;
    // Revoke: reason 2-100; only the applicant.
    expect((await act('revoke', docA, { id: b, version: await version(b), reason: '改' })).body.status).toBe('UAA421');
    expect((await act('revoke', docA, { id: b, version: await version(b), reason: '患者要求改期' })).code).toBe(200);
    expect((await act('revoke', docA, { id: b, version: await version(b), reason: '患者要求改期' })).body.status).toBe('CONSULT302');
    expect((await act('approve', reviewer, { id: b, version: await version(b) })).body.status).toBe('CONSULT302');
    // After a revoke the applicant edits the meeting and patient (the declared action edit), and it goes back to review.
    const form = { patientName: '张三丰', sex: 1, birthDate: '1960-05-02', topic: '改期后的会诊', clinicalQuestion: '右肺结节性质？', startTime: hours(5), endTime: hours(6) };
    const detailOf = async (token: string) => (await call('GET', `${C}/consultation/detail/${b}`, token)).body.data;
    expect((await detailOf(docA)).actions).toEqual(['edit']);
    expect((await detailOf(reviewer)).actions).toEqual([]);
    // Sending it again unedited is no way round the edit.
    expect((await act('submit', docA, { id: b, version: await version(b) })).body.status).toBe('CONSULT304');
    // Only its applicant (the manager reads it but did not apply; hospital B's doctor does not even read it).
    expect((await act('edit', reviewer, { id: b, version: await version(b), form })).body.status).toBe('UAA103');
    expect((await act('edit', docB, { id: b, version: await version(b), form })).body.status).toBe('CONSULT002');
    // The form: whole, held to the application's rules; exams and experts are not the edit's.
    expect((await act('edit', docA, { id: b, version: await version(b) })).body).toMatchObject({ status: 'UAA421', field: 'form' });
    const past = (await act('edit', docA, { id: b, version: await version(b), form: { ...form, startTime: hours(-1) } })).body;
    expect(past).toMatchObject({ status: 'UAA421', field: 'startTime' });
    // Worded with the field's title, as the wizard's form says it.
    expect(past.detail).toContain(translate('zh-CN', 'entity.consultationApply.field.startTime'));
    expect((await act('edit', docA, { id: b, version: await version(b), form: { ...form, endTime: hours(4) } })).body).toMatchObject({ status: 'UAA421', field: 'endTime' });
    expect((await act('edit', docA, { id: b, version: await version(b), form: { ...form, topic: '' } })).body.status).toBe('UAA421');
    expect((await act('edit', docA, { id: b, version: (await version(b)) - 1, form })).body.status).toBe('CONSULT305');
    expect(await state(b)).toEqual({ status: 4, report_status: -1 });
    expect(await logActions(b)).toEqual(['create', 'submit', 'revoke']);
    // Exams are not the edit's: a field beyond its form is dropped, the exams stay.
    expect((await act('edit', docA, { id: b, version: await version(b), form: { ...form, examIds: [examB] } })).code).toBe(200);
    expect(await state(b)).toEqual({ status: 2, report_status: -1 });
    const stored = (await p.db.query(`SELECT topic, title, patient_name, to_char(birth_date, 'YYYY-MM-DD') AS birth, clinical_diagnosis, exam_ids FROM consultation WHERE id = $1`, [b])).rows[0];
    expect(stored).toEqual({ topic: '改期后的会诊', title: '改期后的会诊', patient_name: '张三丰', birth: '1960-05-02', clinical_diagnosis: null, exam_ids: examsA });
    const edits = (await p.db.query('SELECT action, from_state, to_state, user_name FROM consultation_log WHERE consultation_id = $1 ORDER BY id', [b])).rows;
    expect(edits.map((r) => r.action)).toEqual(['create', 'submit', 'revoke', 'edit']);
    expect(edits[3]).toMatchObject({ from_state: 4, to_state: 2 });
    // Under review again: no second edit; the rejected one (a) is no edit's either.
    expect((await act('edit', docA, { id: b, version: await version(b), form })).body.status).toBe('CONSULT304');
    expect((await act('edit', docA, { id, version: await version(id), form })).body.status).toBe('CONSULT301');
    // Approved: no revoke any more.
    expect((await act('approve', reviewer, { id: b, version: await version(b) })).code).toBe(200);
    expect((await act('revoke', docA, { id: b, version: await version(b), reason: '患者要求改期' })).body.status).toBe('CONSULT303');
    // A stale version is refused.
    expect((await act('notify', reviewer, { id: b })).code).toBe(200);
    expect((await act('start', docA, { id: b, version: 1 })).body.status).toBe('CONSULT305');
  });

  test('the whole consultation: notices, join, report written, reviewed, printed; all logged', async () => {
    const outbox = await count('sms_outbox');
    // A further exam of hospital A in no consultation yet: its images are shared by this one alone.
    const fresh = (
      await p.db.query<{ id: number }>(
        `SELECT id FROM exam WHERE hospital_id = (SELECT hospital_id FROM exam WHERE id = $1) AND id <> ALL($2::int[])
            AND NOT EXISTS (SELECT 1 FROM consultation c WHERE exam.id = ANY(c.exam_ids)) ORDER BY id DESC LIMIT 1`,
        [examsA[0], examsA],
      )
    ).rows[0].id;
    // Its images (an exam without any is refused).
    const studyUid = `2.25.${Date.now()}`;
    await p.db.query(
      `INSERT INTO dicom_study (hospital_id, study_uid, exam_id, instance_count, series_count) SELECT hospital_id, $1, id, 1, 1 FROM exam WHERE id = $2`,
      [studyUid, fresh],
    );
    const id = (await call('POST', `${C}/consultation/save`, docA, application({ examIds: [fresh], expertIds: [experts['13800000006'], experts['13900000106']] }))).body.data.id as number;
    // Lists: the applicant's applications, the reviewer's worklist; the expert sees nothing before the review? (invited already: yes, in the worklist)
    const applied = await call('POST', `${C}/consultation/list/applied`, docA, {});
    expect(applied.body.data.list.map((r: { id: number }) => r.id)).toContain(id);
    const toReview = await call('POST', `${C}/consultation/list/worklist`, reviewer, {});
    const row = toReview.body.data.list.find((r: { id: number }) => r.id === id);
    expect(row.actions).toEqual(expect.arrayContaining(['approve', 'reject']));
    expect(row.actions).not.toContain('revoke');

    // The consultation's images: not shared with the invited expert (of the central hospital) before the review.
    const images = (token: string) => call('POST', '/api/pacs/v1/study/viewer', token, { examIds: [fresh] });
    expect((await images(expert)).body.status).toBe('PACS100');

    expect((await act('approve', reviewer, { id, version: await version(id) })).code).toBe(200);
    // Approved: the invited expert reads its exams' images (by exam, and the study over DICOMweb); hospital B's doctor does not.
    expect((await images(expert)).body.data.list.map((st: { studyUid: string }) => st.studyUid)).toContain(studyUid);
    expect((await images(docB)).body.status).toBe('PACS100');
    const dicomweb = (token: string) => p.app.inject({ method: 'GET', url: `/dicom-web/studies/${studyUid}/series`, headers: authed(token) });
    expect((await dicomweb(expert)).statusCode).not.toBe(404);
    expect((await dicomweb(docB)).statusCode).toBe(404);
    // Both experts were told: in the app (the linked one) and by SMS (both).
    expect(await count('sms_outbox')).toBe(outbox + 2);
    const notices = await call('GET', `${C}/notice`, expert);
    expect(notices.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ consultationId: id, kind: 'invited' })]));

    // The video room: who may join, and what it reads.
    const expertSession = await resolveSession(p.db, p.app.config.identity, expert);
    const docBSession = await resolveSession(p.db, p.app.config.identity, docB);
    expect(await canJoinConsultation(p.db, expertSession!, id)).toBe(true);
    expect(await canJoinConsultation(p.db, docBSession!, id)).toBe(false);
    const room = await call('GET', `${C}/consultation/${id}`, expert);
    expect(room.body.data).toMatchObject({ id, state: 5, participants: { expertIds: [experts['13800000006'], experts['13900000106']] } });
    // Starting the video room binds its meeting id (logged once, however often it is started).
    const started = await call('POST', `${C}/video/room`, docA, { consultationId: id });
    expect(started.code).toBe(200);
    expect((await call('POST', `${C}/video/room`, expert, { consultationId: id })).body.status).toBe('UAA103');
    expect((await call('POST', `${C}/video/room`, docA, { consultationId: id })).body.data.meetingId).toBe(started.body.data.meetingId);

    // The report is written only once the consultation runs.
    expect((await act('saveReport', expert, { id, version: await version(id), findings: '右肺上叶结节', opinion: '建议随访' })).body.status).toBe('CONSULT304');
    expect((await act('start', docA, { id, version: await version(id) })).code).toBe(200);
    expect(await count('sms_outbox')).toBe(outbox + 4);
    // The applicant is no expert: no report writing.
    expect((await act('saveReport', docA, { id, version: await version(id), findings: 'x' })).body.status).toBe('UAA103');
    expect((await act('submitReport', expert, { id, version: await version(id), findings: '右肺上叶结节' })).body.status).toBe('UAA421');
    expect((await act('submitReport', expert, { id, version: await version(id), findings: '右肺上叶结节', opinion: '建议随访' })).code).toBe(200);
    expect((await act('rejectReport', reviewer, { id, version: await version(id), reason: '请补充大小' })).code).toBe(200);
    expect(await state(id)).toEqual({ status: 6, report_status: 3 });
    expect((await act('submitReport', expert, { id, version: await version(id), findings: '右肺上叶结节 8mm', opinion: '建议三个月后复查' })).code).toBe(200);
    // Not printable before approval.
    expect((await call('POST', `${C}/consultation/${id}/report/printed`, docA)).body.status).toBe('CONSULT304');
    expect((await act('approveReport', reviewer, { id, version: await version(id) })).code).toBe(200);
    expect(await count('sms_outbox')).toBe(outbox + 6);
    expect((await act('end', docA, { id, version: await version(id) })).code).toBe(200);

    const sheet = await call('GET', `${C}/consultation/${id}/report/print`, docA);
    expect(sheet.body.data.report).toMatchObject({ canPrint: true, reportState: 4, hospitalName: '第一乡镇卫生院' });
    expect(sheet.body.data.values).toMatchObject({ see: '右肺上叶结节 8mm', diagnosis: '建议三个月后复查', patientName: '张三' });
    expect((await call('POST', `${C}/consultation/${id}/report/printed`, docA)).code).toBe(200);

    expect(await logActions(id)).toEqual(['create', 'submit', 'approve', 'bindMeeting', 'start', 'submitReport', 'rejectReport', 'submitReport', 'approveReport', 'end', 'printReport']);
    const log = await call('POST', `${C}/consultation/log/list`, docA, { filters: { consultNo: sheet.body.data.values.examCode } });
    expect(log.body.data.total).toBe(11);

    const detail = await call('GET', `${C}/consultation/detail/${id}`, expert);
    expect(detail.body.data).toMatchObject({ status: 7, reportStatus: 4, meetingId: started.body.data.meetingId, reportReviewerName: '林主任' });
    expect(detail.body.data.exams.map((e: { id: number }) => e.id)).toEqual([examsA[0], fresh]);
    expect(detail.body.data.materials).toEqual([expect.objectContaining({ fileId: pdfId, type: 1, mime: 'application/pdf' })]);
    // The invited expert reads the material (outside hospital A's data); hospital B's doctor does not.
    const file = await p.app.inject({ method: 'GET', url: `${C}/consultation/${id}/material/${pdfId}`, headers: authed(expert) });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toContain('application/pdf');
    expect(file.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await call('GET', `${C}/consultation/${id}/material/${pdfId}`, docB)).body.status).toBe('CONSULT002');
  });

  test("an expert's avatar: png or jpg under 5 MB through the file service, refused otherwise by the server; shown on the list and the detail", async () => {
    const x = experts['13800000006'];
    const upload = (token: string, body: Buffer, name = 'a.png') =>
      p.app
        .inject({ method: 'POST', url: `${F}/upload?purpose=expertAvatar&ownerId=${x}&name=${name}`, headers: authed(token, { 'content-type': 'application/octet-stream' }), payload: body })
        .then((r) => ({ code: r.statusCode, body: r.json() }));
    const kept = async () => (await p.db.query<{ n: number }>("SELECT count(*)::int AS n FROM stored_file WHERE purpose = 'expertAvatar' AND owner_id = $1", [x])).rows[0].n;
    const before = await kept();
    // Whoever may not edit experts uploads none (hospital A's doctor may upload exam materials, not this).
    expect((await upload(docA, signaturePng(64, 64))).body.status).toBe('UAA103');
    // Another type, whatever the name or the declared type says: a GIF, a PDF.
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(200)]);
    expect(await upload(reviewer, gif, 'a.png')).toMatchObject({ code: 400, body: { status: 'UCENTER703' } });
    expect((await upload(reviewer, pdf(), 'a.jpg')).body.status).toBe('UCENTER703');
    // 5 MB and more: refused when the upload starts.
    const big = await call('POST', `${F}/upload/init`, reviewer, { purpose: 'expertAvatar', ownerId: x, name: 'big.jpg', size: 5 * 1024 * 1024 + 1 });
    expect(big).toMatchObject({ code: 413, body: { status: 'UCENTER704' } });
    expect((await call('GET', `${F}/policy/expertAvatar`, docA)).body.data).toMatchObject({ types: ['image/jpeg', 'image/png'], maxBytes: 5 * 1024 * 1024 });
    expect(await kept()).toBe(before);

    const png = signaturePng(96, 96);
    const first = await upload(reviewer, png);
    expect(first.code).toBe(200);
    const listed = async () => (await call('POST', `${C}/expert/list`, reviewer, { filters: { mobile: '13800000006' } })).body.data.list[0].avatar as string;
    expect(await listed()).toBe(`${C}/expert/avatar/${x}?v=${first.body.data.id}`);
    // Read by whoever takes part in consultations (the applicant choosing experts); not by a clerk.
    const read = await p.app.inject({ method: 'GET', url: await listed(), headers: authed(docA) });
    expect(read.statusCode).toBe(200);
    expect(read.headers['content-type']).toContain('image/png');
    expect(Buffer.compare(read.rawPayload, png)).toBe(0);
    expect((await call('GET', `${C}/expert/avatar/${x}`, clerk)).body.status).toBe('UAA103');
    // A new one replaces it; the expert's save (the form) leaves it as it is.
    const second = await upload(reviewer, signaturePng(80, 80));
    expect(await listed()).toBe(`${C}/expert/avatar/${x}?v=${second.body.data.id}`);
    expect(await kept()).toBe(before + 1);
    const record = (await call('GET', `${C}/expert/detail/${x}`, reviewer)).body.data;
    const { avatar: _shown, ...form } = record;
    expect((await call('POST', `${C}/expert/save`, reviewer, { ...form, specialty: '胸部影像' })).code).toBe(200);
    expect(await listed()).toBe(`${C}/expert/avatar/${x}?v=${second.body.data.id}`);
    // The consultation's detail shows it beside the expert.
    const id = (await call('POST', `${C}/consultation/save`, docA, application())).body.data.id as number;
    const shown = (await call('GET', `${C}/consultation/detail/${id}`, docA)).body.data.experts;
    expect(shown).toEqual([expect.objectContaining({ id: x, avatar: await listed() })]);
  });

  test('the exams offered to an application: the hospital\'s with images', async () => {
    const offered = (await call('GET', `${C}/consultExam/options`, docA)).body.data.map((o: { value: number }) => o.value);
    expect(offered).toEqual(expect.arrayContaining(examsA));
    expect(offered).not.toContain(bareA);
    expect(offered).not.toContain(examB);
    const imaged = await p.db.query<{ id: number }>(`SELECT e.id FROM exam e WHERE e.id = ANY($1::int[]) AND EXISTS (${IMAGES_OF_EXAM})`, [offered]);
    expect(imaged.rows).toHaveLength(offered.length);
  });

  test('applications sent at once all get their own number', async () => {
    const sent = await Promise.all([1, 2, 3, 4].map((k) => call('POST', `${C}/consultation/save`, docA, application({ topic: `同时申请 ${k}` }))));
    expect(sent.map((r) => r.body.status)).toEqual(['0', '0', '0', '0']);
    const ids = sent.map((r) => r.body.data.id as number);
    const numbers = (await p.db.query<{ consult_no: string }>('SELECT consult_no FROM consultation WHERE id = ANY($1)', [ids])).rows.map((r) => r.consult_no);
    expect(new Set(numbers).size).toBe(4);
  });

  test('scope: no one reads a consultation they are not party to or do not manage', async () => {
    const id = (await call('POST', `${C}/consultation/save`, docA, application())).body.data.id as number;
    for (const url of [`${C}/consultation/detail/${id}`, `${C}/consultation/${id}`, `${C}/consultation/${id}/report/print`]) {
      expect((await call('GET', url, docB)).body.status).toBe('CONSULT002');
      expect((await call('GET', url, clerk)).body.status).toBe('UAA103');
    }
    expect((await act('revoke', docB, { id, version: await version(id), reason: '不是我的' })).body.status).toBe('CONSULT002');
    const lists = await call('POST', `${C}/consultation/list/applied`, docB, {});
    expect(lists.body.data.total).toBe(0);
    const log = await call('POST', `${C}/consultation/log/list`, docB, {});
    expect(log.body.data.total).toBe(0);
    // An expert not invited reads nothing of it either.
    const other = await call('POST', `${C}/consultation/save`, docA, application({ expertIds: [experts['13900000106']] }));
    expect((await call('GET', `${C}/consultation/detail/${other.body.data.id}`, expert)).body.status).toBe('CONSULT002');
  });

  test('experts: labels at most 5 and unique, a mobile once, lookup by mobile, the choice for applicants', async () => {
    const base = { name: '周专家', mobile: '13900000201', hospitalId: central, state: 1, title: 3, labels: ['a', 'b'] };
    expect((await call('POST', `${C}/expert/save`, reviewer, { ...base, labels: ['1', '2', '3', '4', '5', '6'] })).body.status).toBe('UAA421');
    expect((await call('POST', `${C}/expert/save`, reviewer, { ...base, labels: ['1', '1'] })).body.status).toBe('UAA421');
    expect((await call('POST', `${C}/expert/save`, reviewer, base)).code).toBe(200);
    expect((await call('POST', `${C}/expert/save`, reviewer, { ...base, name: '另一位' })).body.status).toBe('UCENTER009');
    const byMobile = await call('POST', `${C}/expert/list`, reviewer, { filters: { mobile: '13900000201' } });
    expect(byMobile.body.data.list.map((x: { name: string }) => x.name)).toEqual(['周专家']);
    // The applicant's choice: open experts of the consulting hospital, labelled with title and specialty; the closed one absent.
    const choice = await call('GET', `${C}/expertChoice/options?hospitalId=${central}`, docA);
    const labels = choice.body.data.map((o: { label: string }) => o.label);
    expect(labels).toEqual(expect.arrayContaining([expect.stringMatching(/^郑教授 · 主任医师/), expect.stringMatching(/^周专家/)]));
    expect(labels.some((l: string) => l.startsWith('孙医生'))).toBe(false);
    // The consulting hospitals: the central hospital, though outside hospital A's data scope.
    expect((await call('GET', `${C}/consultHospital/options`, docA)).body.data).toEqual([{ value: central, label: '县中心医院' }]);
    // Hospital A's doctor may not manage experts.
    expect((await call('POST', `${C}/expert/save`, docA, { ...base, mobile: '13900000202' })).body.status).toBe('UAA103');
  });
});
