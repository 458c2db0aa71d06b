/**
 * Exams (issue #5) through the API on each database:
 * - registration: numbers (examCode ≤ 16, studyUID = studyInstanceUid under 2.25),
 *   generated patient id, pinyin name, age from the birth date, catalogue prices and
 *   names, worklist fields; update; the log row of each
 * - rules: bad identity number → UCENTER004 and nothing stored; a missing inpatient
 *   or outpatient number, a duplicate item or part, age bounds, another hospital's item
 *   or device → UAA421 naming the field; another hospital → UCENTER101
 * - 20 concurrent registrations get 20 different exam codes
 * - scope: a clerk of hospital A sees none of hospital B's exams (list, detail, history)
 * - list filters, hidden exams left out unless asked for
 * - actions: check-in, terminate, restore, hide, delete with their state rules (RIS102),
 *   rights and log rows; history needs a patient id
 * - walk-ins: a hospital without check-in on registration has them wait for check-in,
 *   which puts them on the worklist scheduled at arrival
 * - masking: grade safety on masks list/detail/history for a clerk, not for a holder of
 *   privacy:phoneVisible; a masked value sent back unchanged keeps the stored one
 * - the worklist_steps view lists exactly the open steps
 * - the demo seed: a few hundred exams, numbered as the API numbers them
 */
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { dayKey } from '../../server/lib/examRules';

const EXAM = '/api/ris/v1/exam';

describe.each(dbKinds)('exams on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let clerkA: string;
  let doctorA: string;
  let orgs: Record<string, number>;
  const items: Record<string, Record<string, { id: number; organId: number; price: number; name: string }>> = {};
  const devices: Record<string, { id: number; ae: string; modality: string }> = {};
  const call = (method: 'GET' | 'POST', url: string, payload?: object, token = admin) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const count = async (table: string) => Number((await p.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  const logs = async (examId: number) => (await p.db.query<{ action: string }>('SELECT action FROM exam_log WHERE exam_id = $1 ORDER BY id', [examId])).rows.map((r) => r.action);

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    [admin, clerkA, doctorA] = await Promise.all([login(p.app, '13800000001'), login(p.app, '13800000002'), login(p.app, '13800000004')]);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    const rows = await p.db.query<{ hospital: string; code: string; id: number; organ_id: number; price: number; name: string }>(
      'SELECT o.code AS hospital, i.code, i.id, i.organ_id, i.price::float8 AS price, i.name FROM exam_item i JOIN org o ON o.id = i.hospital_id',
    );
    for (const r of rows.rows) (items[r.hospital] ??= {})[r.code] = { id: r.id, organId: r.organ_id, price: r.price, name: r.name };
    const devs = await p.db.query<{ ae: string; id: number; modality: string }>('SELECT ae_title AS ae, id, modality FROM device');
    for (const d of devs.rows) devices[d.ae] = { id: d.id, ae: d.ae, modality: d.modality };
  });
  afterAll(() => p.close());

  const line = (hospital: string, code: string) => ({ itemId: items[hospital][code].id, organId: items[hospital][code].organId });
  const exam = (over: Record<string, unknown> = {}) => ({
    hospitalId: orgs.HOSP_A,
    hisPatientName: '张三丰',
    sex: 1,
    age: 45,
    ageUnit: 4,
    patientSource: 1,
    outPatientNo: 'MZ0001',
    phone: '13812345678',
    idNo: '11010519491231002X',
    clinicalDiagnosis: '咳嗽一周',
    deviceId: devices.A_CT1.id,
    items: [line('HOSP_A', 'CT002'), line('HOSP_A', 'CT001')],
    ...over,
  });
  const save = (body: object, token = admin) => call('POST', `${EXAM}/save`, body, token);

  test('registration numbers the exam and fills what the server owns; the log says so', async () => {
    const r = await save(exam(), clerkA);
    expect(r.body.status).toBe('0');
    const e = r.body.data;
    expect(e.examCode).toMatch(/^\d{13}$/);
    expect(e.examCode.length).toBeLessThanOrEqual(16);
    expect(e.studyUID).toMatch(/^2\.25\.\d+$/);
    expect(e.studyUID.length).toBeLessThanOrEqual(64);
    expect(e.studyInstanceUid).toBe(e.studyUID);
    expect(e.patientId).toMatch(/^P\d{12}$/);
    expect(e.hisPatientNameEn).toBe('Zhang^Sanfeng');
    expect(e.price).toBe(items.HOSP_A.CT002.price + items.HOSP_A.CT001.price);
    expect(e.items).toEqual([
      expect.objectContaining({ itemId: items.HOSP_A.CT002.id, itemName: items.HOSP_A.CT002.name, organName: '肺', price: items.HOSP_A.CT002.price }),
      expect.objectContaining({ itemId: items.HOSP_A.CT001.id, organName: '颅脑' }),
    ]);
    expect(e.itemNames).toBe(`${items.HOSP_A.CT002.name}、${items.HOSP_A.CT001.name}`);
    expect(e).toMatchObject({ examState: 1, hidden: false, modality: 'CT', deviceName: 'CT 机', registerDoctorName: '登记员小周', registerType: 2, appointment: false });
    expect(e.arrivedAt).toBeDefined();
    expect(await logs(e.id)).toEqual(['registerExam']);
    const step = await p.db.query('SELECT scheduled_ae_title, scheduled_step_id, requested_procedure_id, requested_procedure_description FROM worklist_steps WHERE exam_id = $1', [e.id]);
    expect(step.rows[0]).toEqual({ scheduled_ae_title: 'A_CT1', scheduled_step_id: e.examCode, requested_procedure_id: e.examCode, requested_procedure_description: e.itemNames });

    // Update: the number and UID stay, the log names what changed; the patient id is kept.
    const u = await save({ ...e, clinicalDiagnosis: '咳嗽两周', items: [line('HOSP_A', 'CT003')] }, clerkA);
    expect(u.body.status).toBe('0');
    expect(u.body.data).toMatchObject({ examCode: e.examCode, studyUID: e.studyUID, patientId: e.patientId, clinicalDiagnosis: '咳嗽两周', price: items.HOSP_A.CT003.price });
    expect(u.body.data.items).toHaveLength(1);
    expect(await logs(e.id)).toEqual(['registerExam', 'updateExam']);
    const detail = await p.db.query<{ detail: { changed: string[] } }>("SELECT detail FROM exam_log WHERE exam_id = $1 AND action = 'updateExam'", [e.id]);
    expect(detail.rows[0].detail.changed).toEqual(expect.arrayContaining(['clinical_diagnosis', 'price']));
    expect(detail.rows[0].detail.changed).not.toContain('phone');
  });

  test('age from the birth date when absent; the given patient id is kept', async () => {
    // The region's calendar day, as the server counts ages (China Standard Time): from
    // 16:00 UTC on, the UTC date is a day behind it.
    const day = dayKey(new Date());
    const today = new Date(Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8))));
    const ymd = (d: Date) => d.toISOString().slice(0, 10);
    const cases: Array<[string, number, number]> = [
      [ymd(new Date(today.getTime() - 10 * 86400_000)), 10, 1],
      [`${today.getUTCFullYear() - 1}-01-01`, 0, 3],
      [`${today.getUTCFullYear() - 30}-01-01`, 0, 4],
    ];
    for (const [birthDate, age, unit] of cases) {
      const r = await save(exam({ age: undefined, ageUnit: undefined, idNo: undefined, birthDate, patientId: 'HIS-PAT-1' }));
      expect(r.body.status).toBe('0');
      expect(r.body.data.ageUnit).toBe(unit);
      if (age) expect(r.body.data.age).toBe(age);
      expect(r.body.data.patientId).toBe('HIS-PAT-1');
    }
    // No age and no birth date (nor an identity number to read one from): the age is asked for.
    const none = await save(exam({ age: undefined, ageUnit: undefined, idNo: undefined }));
    expect(none).toMatchObject({ code: 400, body: { status: 'UAA421', field: 'age' } });
    // The identity number's birth date serves when no birth date is given.
    const fromId = await save(exam({ age: undefined, ageUnit: undefined }));
    expect(fromId.body.data).toMatchObject({ birthDate: '1949-12-31', ageUnit: 4 });
  });

  test('registration rules refuse with their codes and store nothing', async () => {
    const before = await count('exam');
    const cases: Array<[Record<string, unknown>, string, string | undefined]> = [
      [{ idNo: '110105194912310021' }, 'UCENTER004', undefined],
      [{ credentialType: 1, credentialNo: '110105194912310021', idNo: undefined }, 'UCENTER004', undefined],
      [{ patientSource: 2, outPatientNo: 'MZ1', inPatientNo: undefined }, 'UAA421', 'inPatientNo'],
      [{ patientSource: 3, outPatientNo: undefined }, 'UAA421', 'outPatientNo'],
      [{ patientSource: 2, outPatientNo: undefined }, 'UAA421', 'inPatientNo'],
      [{ patientSource: 4, outPatientNo: undefined }, 'UAA421', 'outPatientNo'],
      [{ items: [line('HOSP_A', 'CT002'), line('HOSP_A', 'CT002')] }, 'UAA421', 'items'],
      // The same part under two items (chest CT and chest film) is a duplicate too.
      [{ items: [line('HOSP_A', 'CT002'), line('HOSP_A', 'DR001')] }, 'UAA421', 'items'],
      [{ items: [] }, 'UAA421', 'items'],
      [{ items: [line('CENTRAL', 'MR001')] }, 'UAA421', 'items'],
      [{ deviceId: devices.C_CT1.id }, 'UAA421', 'deviceId'],
      [{ age: 0 }, 'UAA421', 'age'],
      [{ age: 366 }, 'UAA421', 'age'],
      [{ ageUnit: undefined }, 'UAA421', 'ageUnit'],
      [{ clinicalDiagnosis: 'x'.repeat(2001) }, 'UAA421', 'clinicalDiagnosis'],
      [{ phone: '12345' }, 'UAA421', 'phone'],
      [{ appointment: true }, 'UAA421', 'appointTime'],
    ];
    for (const [over, status, field] of cases) {
      const r = await save(exam(over));
      expect({ over, status: r.body.status, field: r.body.field }).toEqual({ over, status, field });
    }
    // Age 365 and 1 are inside the bounds.
    expect((await save(exam({ age: 365 }))).body.status).toBe('0');
    expect((await save(exam({ age: 1, ageUnit: 0 }))).body.status).toBe('0');
    expect(await count('exam')).toBe(before + 2);
    // A clerk of hospital A registers nothing for hospital B.
    const foreign = await save(exam({ hospitalId: orgs.HOSP_B, deviceId: devices.B_CT1.id, items: [line('HOSP_B', 'CT001')] }), clerkA);
    expect(foreign.body.status).toBe('UCENTER101');
    expect(await count('exam')).toBe(before + 2);
  });

  test('20 concurrent registrations get 20 different exam codes and patient ids', async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => save(exam({ hisPatientName: `并发${i}` }), clerkA)));
    expect(replies.map((r) => r.body.status)).toEqual(Array(20).fill('0'));
    expect(new Set(replies.map((r) => r.body.data.examCode)).size).toBe(20);
    expect(new Set(replies.map((r) => r.body.data.patientId)).size).toBe(20);
    expect(new Set(replies.map((r) => r.body.data.studyUID)).size).toBe(20);
  });

  test('scope: a clerk of hospital A sees none of the other hospitals’ exams', async () => {
    const list = await call('POST', `${EXAM}/list`, { pageSize: 100 }, clerkA);
    expect(list.body.status).toBe('0');
    expect(list.body.data.total).toBeGreaterThan(0);
    expect(new Set(list.body.data.list.map((e: { hospitalId: number }) => e.hospitalId))).toEqual(new Set([orgs.HOSP_A]));
    const all = await call('POST', `${EXAM}/list`, { pageSize: 100, filters: { hospitalId: orgs.HOSP_B } });
    const bExam = all.body.data.list[0];
    expect(bExam.hospitalId).toBe(orgs.HOSP_B);
    expect((await call('GET', `${EXAM}/detail/${bExam.id}`, undefined, clerkA)).code).toBe(404);
    expect((await call('POST', `${EXAM}/checkin/${bExam.id}`, {}, clerkA)).body.status).toBe('RIS101');
    const history = await call('GET', `${EXAM}/history?patientId=${encodeURIComponent(bExam.patientId)}`, undefined, clerkA);
    // Generated patient ids are unique per hospital: the same id may name a patient of A, never B's rows.
    expect(history.body.data.list.filter((e: { hospitalId: number }) => e.hospitalId !== orgs.HOSP_A)).toEqual([]);
  });

  test('list: columns, filters, default order, hidden left out', async () => {
    const r = await call('POST', `${EXAM}/list`, { pageSize: 50 });
    const rows = r.body.data.list;
    expect(rows[0]).toEqual(
      expect.objectContaining({ id: expect.any(Number), examCode: expect.any(String), hisPatientName: expect.any(String), itemNames: expect.any(String), price: expect.any(Number), examState: expect.any(Number), createdAt: expect.any(String), hidden: false }),
    );
    const created = rows.map((e: { createdAt: string }) => e.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    expect(r.body.data.total).toBeGreaterThan(300);

    const byName = await call('POST', `${EXAM}/list`, { filters: { hisPatientName: '三丰' } });
    expect(byName.body.data.list.every((e: { hisPatientName: string }) => e.hisPatientName.includes('三丰'))).toBe(true);
    expect(byName.body.data.total).toBeGreaterThan(0);
    const code = rows[3].examCode;
    const byCode = await call('POST', `${EXAM}/list`, { filters: { examCode: code.slice(2), hospitalId: rows[3].hospitalId } });
    expect(byCode.body.data.list.map((e: { examCode: string }) => e.examCode)).toContain(code);
    const byState = await call('POST', `${EXAM}/list`, { pageSize: 100, filters: { examState: 3, modality: 'CT' } });
    expect(byState.body.data.list.every((e: { examState: number; modality: string }) => e.examState === 3 && e.modality === 'CT')).toBe(true);
    const dayAgo = new Date(Date.now() - 86400_000).toISOString();
    const recent = await call('POST', `${EXAM}/list`, { pageSize: 100, filters: { createdAt: [dayAgo, new Date(Date.now() + 60_000).toISOString()] } });
    expect(recent.body.data.list.every((e: { createdAt: string }) => e.createdAt >= dayAgo)).toBe(true);

    const hiddenCount = Number((await p.db.query<{ n: string }>('SELECT count(*) AS n FROM exam WHERE hidden')).rows[0].n);
    expect(hiddenCount).toBeGreaterThan(0);
    const withHidden = await call('POST', `${EXAM}/list`, { filters: { hidden: true } });
    expect(withHidden.body.data.total).toBe(r.body.data.total + hiddenCount);
  });

  test('actions: check-in, terminate, restore, hide, delete, with their state rules and log rows', async () => {
    const booked = (await save(exam({ appointment: true, appointTime: new Date(Date.now() + 3600_000).toISOString() }), clerkA)).body.data;
    expect(booked.arrivedAt).toBeUndefined();
    const inWorklist = async (id: number) => (await p.db.query('SELECT 1 FROM worklist_steps WHERE exam_id = $1', [id])).rowCount === 1;
    expect(await inWorklist(booked.id)).toBe(false);
    const act = (name: string, id: number, token = clerkA) => call('POST', `${EXAM}/${name}/${id}`, {}, token);

    const checked = await act('checkin', booked.id);
    expect(checked.body.status).toBe('0');
    expect(checked.body.data.arrivedAt).toBeDefined();
    // The answer carries the workflow actions the clerk may take now (config/workflows/exam.json): checked in once.
    expect(checked.body.data.actions).toEqual(expect.arrayContaining(['terminate', 'hide']));
    expect(checked.body.data.actions).not.toContain('checkin');
    const row = (await call('POST', `${EXAM}/list`, { filters: { examCode: booked.examCode, hospitalId: orgs.HOSP_A } })).body.data.list[0];
    expect(row.actions).not.toContain('restore');
    expect(await inWorklist(booked.id)).toBe(true);
    expect((await act('checkin', booked.id)).body.status).toBe('RIS102');

    expect((await act('restore', booked.id)).body.status).toBe('RIS102');
    expect((await act('terminate', booked.id)).body.data.examState).toBe(3);
    expect(await inWorklist(booked.id)).toBe(false);
    expect((await act('terminate', booked.id)).body.status).toBe('RIS102');
    // A terminated exam is not edited until the termination is cancelled.
    expect((await save({ ...booked, id: booked.id }, clerkA)).body.status).toBe('RIS102');
    expect((await act('restore', booked.id)).body.data.examState).toBe(1);
    expect(await inWorklist(booked.id)).toBe(true);

    // Terminating an examined exam and cancelling returns it to examined.
    await p.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [booked.id]);
    await act('terminate', booked.id);
    expect((await act('restore', booked.id)).body.data.examState).toBe(2);
    expect((await call('POST', `${EXAM}/delete/${booked.id}`)).body.status).toBe('RIS102');

    expect((await act('hide', booked.id)).body.data.hidden).toBe(true);
    expect((await act('hide', booked.id)).body.status).toBe('RIS102');
    const listed = await call('POST', `${EXAM}/list`, { filters: { examCode: booked.examCode, hospitalId: orgs.HOSP_A } });
    expect(listed.body.data.total).toBe(0);

    expect(await logs(booked.id)).toEqual(['appointExam', 'checkIn', 'suspend', 'cancelSuspend', 'suspend', 'cancelSuspend', 'hideExam']);

    // Rights: the clerk may not delete; a radiologist may not terminate; the administrator deletes a registered exam.
    const fresh = (await save(exam(), clerkA)).body.data;
    expect((await call('POST', `${EXAM}/delete/${fresh.id}`, {}, clerkA)).code).toBe(403);
    expect((await act('terminate', fresh.id, doctorA)).code).toBe(403);
    expect((await call('POST', `${EXAM}/delete/${fresh.id}`, {})).body.status).toBe('0');
    expect((await call('GET', `${EXAM}/detail/${fresh.id}`)).body.status).toBe('RIS101');
    expect(await logs(fresh.id)).toEqual(['registerExam', 'deleteExam']);
  });

  test('walk-ins: without check-in on registration a walk-in waits for check-in (到检), which puts it on the worklist', async () => {
    const inWorklist = async (id: number) => (await p.db.query('SELECT 1 FROM worklist_steps WHERE exam_id = $1', [id])).rowCount === 1;
    const setting = async (on: boolean) => {
      const org = (await call('GET', `/api/ucenter/v1/org/detail/${orgs.HOSP_A}`)).body.data;
      expect((await call('POST', '/api/ucenter/v1/org/save', { ...org, parentName: undefined, createdAt: undefined, checkInOnRegistration: on })).body.status).toBe('0');
    };
    // The default: a walk-in has arrived when registered.
    expect((await call('GET', `/api/ucenter/v1/org/detail/${orgs.HOSP_A}`)).body.data.checkInOnRegistration).toBe(true);
    const arrived = (await save(exam(), clerkA)).body.data;
    expect(arrived.arrivedAt).toBeDefined();
    expect(await inWorklist(arrived.id)).toBe(true);
    expect((await call('POST', `${EXAM}/checkin/${arrived.id}`, {}, clerkA)).body.status).toBe('RIS102');

    await setting(false);
    try {
      expect((await call('GET', `/api/ucenter/v1/org/detail/${orgs.HOSP_A}`)).body.data.checkInOnRegistration).toBe(false);
      const walkIn = (await save(exam({ hisPatientName: '步行者' }), clerkA)).body.data;
      expect(walkIn).toMatchObject({ appointment: false, examState: 1 });
      expect(walkIn.arrivedAt).toBeUndefined();
      expect(await inWorklist(walkIn.id)).toBe(false);
      // Edited before arrival: still waiting.
      expect((await save({ ...walkIn, remark: '轮椅' }, clerkA)).body.data.arrivedAt).toBeUndefined();

      // Backdated registration: check-in schedules the step when the patient arrives.
      await p.db.query("UPDATE exam SET scheduled_start = now() - interval '2 days' WHERE id = $1", [walkIn.id]);
      const checked = await call('POST', `${EXAM}/checkin/${walkIn.id}`, {}, clerkA);
      expect(checked.body.status).toBe('0');
      expect(checked.body.data.arrivedAt).toBeDefined();
      const step = await p.db.query<{ fresh: boolean }>("SELECT scheduled_start > now() - interval '1 minute' AS fresh FROM worklist_steps WHERE exam_id = $1", [walkIn.id]);
      expect(step.rows).toEqual([{ fresh: true }]);
      expect((await call('POST', `${EXAM}/checkin/${walkIn.id}`, {}, clerkA)).body.status).toBe('RIS102');
      expect(await logs(walkIn.id)).toEqual(['registerExam', 'updateExam', 'checkIn']);

      // An examined exam is not checked in; nor is one of a hospital outside the caller's scope.
      const examined = (await save(exam({ hisPatientName: '已检查' }), clerkA)).body.data;
      await p.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [examined.id]);
      expect((await call('POST', `${EXAM}/checkin/${examined.id}`, {}, clerkA)).body.status).toBe('RIS102');
      // Without the right: a radiologist may not check in.
      const other = (await save(exam({ hisPatientName: '未到检' }), clerkA)).body.data;
      expect((await call('POST', `${EXAM}/checkin/${other.id}`, {}, doctorA)).code).toBe(403);
      expect(await inWorklist(other.id)).toBe(false);
    } finally {
      await setting(true);
    }
    // A hospital's own staff without system.org rights cannot change the setting.
    const org = (await call('GET', `/api/ucenter/v1/org/detail/${orgs.HOSP_A}`)).body.data;
    expect((await call('POST', '/api/ucenter/v1/org/save', { ...org, parentName: undefined, createdAt: undefined, checkInOnRegistration: false }, clerkA)).code).toBe(403);
    expect((await call('GET', `/api/ucenter/v1/org/detail/${orgs.HOSP_A}`)).body.data.checkInOnRegistration).toBe(true);
  });

  test('higher-level hospital: the superiors of the exam’s hospital, offered to its clerk nearest first; another is refused', async () => {
    const options = async (of: number, token = clerkA) => (await call('GET', `/api/ucenter/v1/org/options?superiorsOf=${of}`, undefined, token)).body.data;
    expect((await options(orgs.HOSP_A)).map((o: { value: number }) => o.value)).toEqual([orgs.CENTRAL, orgs.REGION]);
    // Without the parameter the clerk's options are her own hospital only: that was the form's list before.
    expect((await call('GET', '/api/ucenter/v1/org/options', undefined, clerkA)).body.data.map((o: { value: number }) => o.value)).toEqual([orgs.HOSP_A]);
    // Not a hospital of hers: nothing.
    expect(await options(orgs.HOSP_B)).toEqual([]);
    expect((await options(orgs.REGION, admin))).toEqual([]);

    const sent = await save(exam({ hisPatientName: '上级医院', superiorHospitalId: orgs.CENTRAL }), clerkA);
    expect(sent.body.data.superiorHospitalId).toBe(orgs.CENTRAL);
    for (const other of [orgs.HOSP_A, orgs.HOSP_B]) {
      const r = await save(exam({ hisPatientName: '上级医院', superiorHospitalId: other }), clerkA);
      expect(r.body).toMatchObject({ status: 'UAA421', field: 'superiorHospitalId' });
    }
  });

  test('history: the patient’s exams newest first; a patient id is required', async () => {
    const first = (await save(exam({ patientId: 'PHIST01' }), clerkA)).body.data;
    const second = (await save(exam({ patientId: 'PHIST01', items: [line('HOSP_A', 'DR002')], deviceId: devices.A_DR1.id }), clerkA)).body.data;
    const h = await call('GET', `${EXAM}/history?patientId=PHIST01`, undefined, doctorA);
    expect(h.body.data.list.map((e: { id: number }) => e.id)).toEqual([second.id, first.id]);
    const missing = await call('GET', `${EXAM}/history`, undefined, doctorA);
    expect(missing).toMatchObject({ code: 400, body: { status: 'UAA421', field: 'patientId' } });
  });

  test('masking: on for a clerk, off for a holder of privacy:phoneVisible; a masked value sent back keeps the stored one', async () => {
    const e = (await save(exam({ socialSecurityNo: '110105194912310', medicalCardNo: 'YB1234567890', patientId: 'PMASK01' }), clerkA)).body.data;
    expect(e.phone).toBe('13812345678');
    expect((await call('GET', '/api/ucenter/v1/config/gradeSafety')).body.data).toEqual({ enabled: false });
    expect((await call('POST', '/api/ucenter/v1/config/gradeSafety', { enabled: true }, clerkA)).code).toBe(403);
    expect((await call('POST', '/api/ucenter/v1/config/gradeSafety', { enabled: true })).body.data).toEqual({ enabled: true });
    try {
      const masked = (await call('GET', `${EXAM}/detail/${e.id}`, undefined, clerkA)).body;
      expect(masked.data).toMatchObject({
        hisPatientName: '张**',
        phone: '138****5678',
        idNo: '110105*********02X',
        socialSecurityNo: '110105********0',
        medicalCardNo: 'YB12345****',
      });
      const raw = JSON.stringify(masked);
      expect(raw).not.toContain('13812345678');
      expect(raw).not.toContain('11010519491231002X');
      const list = (await call('POST', `${EXAM}/list`, { filters: { patientId: 'PMASK01' } }, clerkA)).body.data.list;
      expect(list[0]).toMatchObject({ hisPatientName: '张**', phone: '138****5678' });
      const history = (await call('GET', `${EXAM}/history?patientId=PMASK01`, undefined, clerkA)).body.data.list;
      expect(history[0].hisPatientName).toBe('张**');
      // The administrator holds privacy:phoneVisible.
      expect((await call('GET', `${EXAM}/detail/${e.id}`)).body.data.phone).toBe('13812345678');

      // The clerk's form sends the masked detail back with one change: the stored identifiers stay.
      const saved = await save({ ...masked.data, remark: '复查' }, clerkA);
      expect(saved.body.status).toBe('0');
      const stored = await p.db.query('SELECT his_patient_name, phone, id_no, remark FROM exam WHERE id = $1', [e.id]);
      expect(stored.rows[0]).toEqual({ his_patient_name: '张三丰', phone: '13812345678', id_no: '11010519491231002X', remark: '复查' });
    } finally {
      await call('POST', '/api/ucenter/v1/config/gradeSafety', { enabled: false });
    }
    expect((await call('GET', `${EXAM}/detail/${e.id}`, undefined, clerkA)).body.data.phone).toBe('13812345678');
  });

  test('worklist_steps lists exactly the open steps, with the hospital', async () => {
    const { rows } = await p.db.query<{ exam_id: number; hospital_id: number }>('SELECT exam_id, hospital_id FROM worklist_steps');
    expect(rows.length).toBeGreaterThan(0);
    const open = await p.db.query<{ id: number; hospital_id: number }>(
      `SELECT id, hospital_id FROM exam WHERE exam_state = 1 AND NOT hidden AND exam_time IS NULL AND arrived_at IS NOT NULL ORDER BY id`,
    );
    expect(rows.map((r) => r.exam_id).sort((a, b) => a - b)).toEqual(open.rows.map((r) => r.id));
    const notArrived = await p.db.query("SELECT id FROM exam WHERE appointment AND arrived_at IS NULL AND exam_state = 1 AND NOT hidden");
    expect(notArrived.rowCount).toBeGreaterThan(0);
  });

  test('the demo seed numbers its exams as the API does, and the counters continue after them', async () => {
    const seeded = await p.db.query<{ n: string; codes: string; uids: string }>(
      "SELECT count(*) AS n, count(DISTINCT hospital_id || '/' || exam_code) AS codes, count(DISTINCT study_uid) AS uids FROM exam WHERE register_type = 2",
    );
    expect(Number(seeded.rows[0].codes)).toBe(Number(seeded.rows[0].n));
    expect(Number(seeded.rows[0].uids)).toBe(Number(seeded.rows[0].n));
    const states = await p.db.query<{ exam_state: number }>('SELECT DISTINCT exam_state FROM exam');
    expect(states.rows.map((r) => r.exam_state).sort()).toEqual([1, 2, 3]);
    const bad = await p.db.query("SELECT id FROM exam WHERE length(exam_code) > 16 OR study_uid !~ '^2[.]25[.][0-9]+$'");
    expect(bad.rowCount).toBe(0);
  });
});
