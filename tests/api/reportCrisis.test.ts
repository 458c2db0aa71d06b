/**
 * Critical values (issue #8 item 3) through the API on each database. Scenarios:
 * - a save carrying a critical value makes ONE notice for the exam's requesting
 *   department (hospital A's 内科), with the report, in the same transaction: a save
 *   refused after the content merge (locked by another) or failing while the notice is
 *   written leaves neither the report change nor a notice
 * - the limits (recorder at most 10, description 2-2000) are refused with UAA421
 *   naming the field, nothing stored
 * - the operation record has a criticalValue entry
 * - who sees and who may acknowledge: 内科 of hospital A (addressed: listed, counted,
 *   acknowledges once, REPORT102 the second time); 外科 of hospital A and a 内科 user
 *   of hospital B see nothing of it (list, detail, count, acknowledge); the radiologist
 *   lists it, not addressed
 * - a notice of a department the hospital does not have (神经内科) reaches neither the
 *   demo's 内科 clinician nor a clinician without a department; it reaches the
 *   departments the hospital configures (crisisDepartmentIds on the hospital's form),
 *   which then receive every critical value of the hospital
 * - a new description makes a new notice and withdraws the open one; turning the
 *   critical value off withdraws it; the list's acknowledged filter
 * - the notice answer keeps its four counts and adds `crisis` (0 without the right and
 *   for the remote model); the demo clinician (13800000008) has a seeded one waiting
 * - notices on by default for those who write or review (their modules), off for a clerk
 * - the exam-upload notification setting: saved per module, positive integers only
 *   (UAA421 naming the field), other common settings untouched
 */
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

const R = '/api/report/v1';
const PASSWORD = 'Start#2026';
const critical = (description: string, recorder = '李四') => ({ enableCrisisValue: true, crisisValue: { recorder, recordTime: '2026-01-02T03:04:05.000Z', description } });

describe.each(dbKinds)('critical values on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let docA: string;
  let internalA: string;
  let surgeryA: string;
  let internalB: string;
  let orgs: Record<string, number>;
  let item: Record<string, { id: number; organ_id: number }>;

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const save = (token: string, id: number, body: object) => call('POST', `${R}/report/save/${id}`, token, body);
  const version = async (id: number) => (await p.db.query<{ v: number }>('SELECT coalesce((SELECT version FROM report WHERE id = $1), 0) AS v', [id])).rows[0].v;
  const notices = async (id: number) =>
    (
      await p.db.query<{ description: string; department: string | null; open: boolean; withdrawn: boolean }>(
        `SELECT c.description, d.name AS department, c.acknowledged_at IS NULL AND c.withdrawn_at IS NULL AS open, c.withdrawn_at IS NOT NULL AS withdrawn
           FROM report_crisis c LEFT JOIN department d ON d.id = c.department_id WHERE c.report_id = $1 ORDER BY c.id`,
        [id],
      )
    ).rows;
  const list = async (token: string, filters: object = {}) => {
    const r = await call('POST', `${R}/crisisValue/list`, token, { pageSize: 100, filters });
    expect(r.body.status).toBe('0');
    return r.body.data.list as Array<Record<string, unknown>>;
  };
  const crisisCount = async (token: string, model = 'report') => {
    const r = await call('GET', `${R}/notice?model=${model}`, token);
    expect(r.body.status).toBe('0');
    return r.body.data.crisis as number;
  };

  /** A new examined exam of `hospital` requested by `dept`. */
  const examined = async (hospital: string, dept: string) => {
    const r = await call('POST', '/api/ris/v1/exam/save', admin, {
      hospitalId: orgs[hospital], hisPatientName: '危急测试', sex: 1, age: 60, ageUnit: 4, patientSource: 2, inPatientNo: 'ZY9', hisDeptName: dept,
      items: [{ itemId: item[hospital].id, organId: item[hospital].organ_id }],
    });
    expect(r.body.status).toBe('0');
    await p.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [r.body.data.id]);
    return r.body.data.id as number;
  };

  /** A clinician (report:view and crisisAcknowledge) of `hospital` in department `dept`. */
  const clinician = async (mobile: string, hospital: string, dept: string, roleId: number) => {
    const department = (await p.db.query<{ id: number }>('SELECT id FROM department WHERE hospital_id = $1 AND name = $2', [orgs[hospital], dept])).rows[0];
    const made = await call('POST', '/api/ucenter/v1/user/save', admin, {
      mobile, username: `clin${mobile.slice(-6)}`, name: `${dept}医生`, status: 1, password: PASSWORD,
      memberships: [{ hospitalId: orgs[hospital], roleId, departmentId: department.id }],
    });
    expect(made.body.status).toBe('0');
    return login(p.app, mobile, PASSWORD);
  };

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    item = Object.fromEntries(
      (
        await p.db.query<{ code: string; id: number; organ_id: number }>(
          `SELECT DISTINCT ON (o.code) o.code, i.id, i.organ_id FROM exam_item i JOIN org o ON o.id = i.hospital_id WHERE i.organ_id IS NOT NULL ORDER BY o.code, i.id`,
        )
      ).rows.map((r) => [r.code, r]),
    );
    [admin, docA] = await Promise.all(['13800000001', '13800000004'].map((m) => login(p.app, m)));
    const role = await p.db.query<{ id: number }>(
      `INSERT INTO role (name, explain, permissions, data_scope) VALUES ('临床医生', '危急值接收', '{"report": ["view", "crisisAcknowledge"]}', 'own') RETURNING id`,
    );
    internalA = await clinician('13900000131', 'HOSP_A', '内科', role.rows[0].id);
    surgeryA = await clinician('13900000132', 'HOSP_A', '外科', role.rows[0].id);
    internalB = await clinician('13900000133', 'HOSP_B', '内科', role.rows[0].id);
  });
  afterAll(() => p.close());

  test('a save with a critical value notifies the requesting department once; a refused save notifies nobody', async () => {
    const id = await examined('HOSP_A', '内科');
    // Refused after the content was merged: another doctor holds the lock.
    await p.db.query("INSERT INTO report (id) VALUES ($1) ON CONFLICT DO NOTHING", [id]);
    await p.db.query("INSERT INTO report_lock (report_id, holder_id, holder_name, expires_at) SELECT $1, id, name, now() + interval '1 minute' FROM app_user WHERE mobile = '13800000005'", [id]);
    const locked = await save(docA, id, { version: 0, see: '所见', ...critical('张力性气胸') });
    expect(locked.body.status).toBe('REPORT101');
    expect(await notices(id)).toEqual([]);
    await p.db.query('DELETE FROM report_lock WHERE report_id = $1', [id]);

    const s = await save(docA, id, { version: 0, see: '所见', ...critical('张力性气胸') });
    expect(s.body.status).toBe('0');
    expect(s.body.data).toMatchObject({ enableCrisisValue: true, crisisValue: { description: '张力性气胸' } });
    expect(await notices(id)).toEqual([{ description: '张力性气胸', department: '内科', open: true, withdrawn: false }]);
    const logs = await p.db.query<{ action: string }>("SELECT action FROM exam_log WHERE exam_id = $1 AND action = 'criticalValue'", [id]);
    expect(logs.rowCount).toBe(1);

    // Saving the same critical value again (other content changes) makes no second notice.
    expect((await save(docA, id, { version: await version(id), see: '所见二' })).body.status).toBe('0');
    expect((await save(docA, id, { version: await version(id), ...critical('张力性气胸', '王五') })).body.status).toBe('0');
    expect((await notices(id)).length).toBe(1);
  });

  test('the notice is written in the save’s transaction: when it cannot be written, the report is not saved either', async () => {
    const id = await examined('HOSP_A', '内科');
    await p.db.query("ALTER TABLE report_crisis ADD CONSTRAINT test_refuse CHECK (description <> '写入失败测试')");
    try {
      const r = await save(docA, id, { version: 0, see: '不应保存', ...critical('写入失败测试') });
      expect(r.code).toBe(500);
    } finally {
      await p.db.query('ALTER TABLE report_crisis DROP CONSTRAINT test_refuse');
    }
    const stored = await p.db.query<{ see: string | null; crisis: boolean }>('SELECT see, crisis FROM report WHERE id = $1', [id]);
    expect(stored.rows[0]?.see ?? null).toBeNull();
    expect(stored.rows[0]?.crisis ?? false).toBe(false);
    expect(await notices(id)).toEqual([]);
  });

  test.each([
    ['recorder of 11 characters', critical('急性脑出血', '一二三四五六七八九十一'), 'crisisValue.recorder'],
    ['description of 1 character', critical('急'), 'crisisValue.description'],
    ['description of 2001 characters', critical('急'.repeat(2001)), 'crisisValue.description'],
    ['no description', { enableCrisisValue: true }, 'crisisValue'],
  ])('limits: %s is refused with UAA421 naming the field, nothing stored', async (_name, body, field) => {
    const id = await examined('HOSP_A', '内科');
    const r = await save(docA, id, { version: 0, see: '所见', ...body });
    expect(r.code).toBeGreaterThanOrEqual(400);
    expect(r.code).toBeLessThan(500);
    expect(r.body).toMatchObject({ status: 'UAA421', field });
    expect(await version(id)).toBe(0);
    expect(await notices(id)).toEqual([]);
  });

  test('the requesting department lists, counts and acknowledges it once; others cannot', async () => {
    const id = await examined('HOSP_A', '内科');
    // The demo's own notices of surgery count too.
    const surgeryBefore = await crisisCount(surgeryA);
    expect((await save(docA, id, { version: 0, ...critical('大面积肺栓塞') })).body.status).toBe('0');

    const mine = (await list(internalA)).find((r) => r.examId === id);
    expect(mine).toMatchObject({ description: '大面积肺栓塞', hisDeptName: '内科', recorder: '李四', reportedByName: '陈医生', acknowledged: false, forMe: true });
    expect(await crisisCount(internalA)).toBeGreaterThanOrEqual(1);
    const before = await crisisCount(internalA);

    // Hospital A's surgery neither sees it nor may acknowledge it, and it is not counted for them.
    expect((await list(surgeryA)).some((r) => r.examId === id)).toBe(false);
    expect((await call('GET', `${R}/crisisValue/detail/${mine!.id}`, surgeryA)).body.status).toBe('REPORT004');
    expect(await crisisCount(surgeryA)).toBe(surgeryBefore);
    expect((await call('POST', `${R}/crisisValue/acknowledge/${mine!.id}`, surgeryA)).body.status).toBe('REPORT004');
    // The radiologist who reported it lists it, not addressed.
    expect((await list(docA)).find((r) => r.examId === id)).toMatchObject({ forMe: false });

    // Another hospital's user sees nothing of it.
    expect((await list(internalB)).some((r) => r.examId === id)).toBe(false);
    expect((await call('GET', `${R}/crisisValue/detail/${mine!.id}`, internalB)).body.status).toBe('REPORT004');
    expect((await call('POST', `${R}/crisisValue/acknowledge/${mine!.id}`, internalB)).body.status).toBe('REPORT004');
    // The radiologist has no right to acknowledge.
    expect((await call('POST', `${R}/crisisValue/acknowledge/${mine!.id}`, docA)).body.status).toBe('UAA103');

    const ack = await call('POST', `${R}/crisisValue/acknowledge/${mine!.id}`, internalA);
    expect(ack.body.status).toBe('0');
    expect(ack.body.data).toMatchObject({ acknowledged: true, acknowledgedByName: '内科医生' });
    expect(typeof ack.body.data.acknowledgedAt).toBe('string');
    expect((await call('POST', `${R}/crisisValue/acknowledge/${mine!.id}`, internalA)).body.status).toBe('REPORT102');
    expect(await crisisCount(internalA)).toBe(before - 1);
    expect((await list(internalA)).some((r) => r.examId === id)).toBe(false);
    expect((await list(internalA, { acknowledged: true })).find((r) => r.examId === id)).toMatchObject({ acknowledged: true });
    expect((await call('GET', `${R}/crisisValue/detail/${mine!.id}`, internalA)).body.data).toMatchObject({ examId: id, acknowledged: true });
  });

  test('a new description makes a new notice; turning the critical value off withdraws the open one', async () => {
    const id = await examined('HOSP_A', '内科');
    expect((await save(docA, id, { version: 0, ...critical('低钾血症') })).body.status).toBe('0');
    expect((await save(docA, id, { version: 1, ...critical('严重低钾血症') })).body.status).toBe('0');
    expect(await notices(id)).toEqual([
      { description: '低钾血症', department: '内科', open: false, withdrawn: true },
      { description: '严重低钾血症', department: '内科', open: true, withdrawn: false },
    ]);
    expect((await list(internalA)).filter((r) => r.examId === id).map((r) => r.description)).toEqual(['严重低钾血症']);

    const count = await crisisCount(internalA);
    expect((await save(docA, id, { version: 2, enableCrisisValue: false })).body.status).toBe('0');
    expect((await notices(id)).every((n) => !n.open)).toBe(true);
    expect((await list(internalA)).some((r) => r.examId === id)).toBe(false);
    expect(await crisisCount(internalA)).toBe(count - 1);

  });

  test('a department the hospital does not have (神经内科) reaches only the departments the hospital configures', async () => {
    const neuro = await examined('HOSP_A', '神经内科');
    expect((await save(docA, neuro, { version: 0, ...critical('急性脑梗死') })).body.status).toBe('0');
    expect(await notices(neuro)).toEqual([{ description: '急性脑梗死', department: null, open: true, withdrawn: false }]);
    const notice = (await list(admin)).find((r) => r.examId === neuro)!;
    expect(notice).toMatchObject({ hisDeptName: '神经内科' });

    // The demo's clinician of internal medicine, and a clinician of no department, neither see nor acknowledge it.
    const clinic = await login(p.app, '13800000008');
    const role = (await p.db.query<{ id: number }>("SELECT id FROM role WHERE name = '临床医生'")).rows[0].id;
    const made = await call('POST', '/api/ucenter/v1/user/save', admin, {
      mobile: '13900000134', username: 'clin000134', name: '全院医生', status: 1, password: PASSWORD, memberships: [{ hospitalId: orgs.HOSP_A, roleId: role }],
    });
    expect(made.body.status).toBe('0');
    const hospitalWide = await login(p.app, '13900000134', PASSWORD);
    for (const token of [clinic, hospitalWide, internalA, surgeryA]) {
      expect((await list(token)).some((r) => r.examId === neuro)).toBe(false);
      expect((await call('GET', `${R}/crisisValue/detail/${notice.id}`, token)).body.status).toBe('REPORT004');
      expect((await call('POST', `${R}/crisisValue/acknowledge/${notice.id}`, token)).body.status).toBe('REPORT004');
    }
    // The administrator sees it but is in none of the departments: not theirs to acknowledge.
    expect((await call('POST', `${R}/crisisValue/acknowledge/${notice.id}`, admin)).body.status).toBe('REPORT007');

    // Hospital A sends every critical value to surgery as well: surgery now sees, counts and acknowledges it.
    const surgery = (await p.db.query<{ id: number }>("SELECT id FROM department WHERE hospital_id = $1 AND name = '外科'", [orgs.HOSP_A])).rows[0].id;
    const org = (await call('GET', `/api/ucenter/v1/org/detail/${orgs.HOSP_A}`, admin)).body.data;
    const configure = (ids: number[]) => call('POST', '/api/ucenter/v1/org/save', admin, { ...org, parentName: undefined, createdAt: undefined, crisisDepartmentIds: ids });
    // Only the hospital's own departments.
    const foreign = (await p.db.query<{ id: number }>('SELECT id FROM department WHERE hospital_id = $1 LIMIT 1', [orgs.HOSP_B])).rows[0].id;
    expect((await configure([foreign])).body).toMatchObject({ status: 'UAA421', field: 'crisisDepartmentIds' });
    const before = await crisisCount(surgeryA);
    expect((await configure([surgery])).body.status).toBe('0');
    try {
      expect((await call('GET', `/api/ucenter/v1/org/detail/${orgs.HOSP_A}`, admin)).body.data.crisisDepartmentIds).toEqual([surgery]);
      expect((await list(surgeryA)).find((r) => r.examId === neuro)).toMatchObject({ forMe: true });
      expect(await crisisCount(surgeryA)).toBeGreaterThan(before);
      expect((await list(clinic)).some((r) => r.examId === neuro)).toBe(false);
      expect((await call('POST', `${R}/crisisValue/acknowledge/${notice.id}`, surgeryA)).body.data).toMatchObject({ acknowledged: true, acknowledgedByName: '外科医生' });
    } finally {
      expect((await configure([])).body.status).toBe('0');
    }
  });

  test("the demo seed: the clinician of hospital A's 内科 (13800000008) has a critical value waiting", async () => {
    const clinic = await login(p.app, '13800000008');
    expect(await crisisCount(clinic)).toBeGreaterThan(0);
    // The tests above leave no open 内科 notice: this one is the seed's.
    const seeded = (await list(clinic)).find((r) => r.hisDeptName === '内科' && r.forMe === true && r.acknowledged === false);
    expect(seeded).toBeDefined();
    // The operation record says it was reported.
    const logs = await call('GET', `${R}/report/logs/${seeded!.examId}`, docA);
    expect(logs.body.data.list.map((e: { type: string }) => e.type)).toContain('criticalValue');
    // Notices are on for the account, so the pop-up shows it at login; the rest are the defaults.
    const info = await call('GET', '/api/uaa/v1/user/info', clinic);
    expect(info.body.data.setting.examNotice).toMatchObject({ noticeOpen: true, modelList: ['report'] });
    expect(info.body.data.menuList).toEqual(expect.arrayContaining(['crisisValue', 'reportDetail']));
  });

  test('notices are on by default for whoever writes or reviews, in their modules; off for a clerk', async () => {
    const setting = async (token: string) => (await call('GET', '/api/uaa/v1/user/info', token)).body.data.setting.examNotice;
    const [senior, clerk] = await Promise.all(['13800000005', '13800000002'].map((m) => login(p.app, m)));
    expect(await setting(docA)).toMatchObject({ noticeOpen: true, modelList: ['report'] });
    expect(await setting(senior)).toMatchObject({ noticeOpen: true, modelList: ['report', 'remote'] });
    expect(await setting(clerk)).toMatchObject({ noticeOpen: false, modelList: ['report'] });
    // Turned off by the user: stays off.
    expect((await call('POST', '/api/ucenter/v1/user/commonSetting/examNotice', senior, { examNotice: { noticeOpen: false } })).body.status).toBe('0');
    expect(await setting(senior)).toMatchObject({ noticeOpen: false });
  });

  test('the notice answer keeps its four counts and adds crisis', async () => {
    const doctor = await call('GET', `${R}/notice?model=report`, docA);
    expect(Object.keys(doctor.body.data).sort()).toEqual(['crisis', 'firstTrial', 'reportReturn', 'retrialBack', 'unwritten']);
    expect(doctor.body.data.crisis).toBe(0);
    expect(await crisisCount(internalA)).toBeGreaterThan(0);
    // The remote centre has no critical values of its own; a clinician has no remote rights.
    const senior = await login(p.app, '13800000005');
    expect(await crisisCount(senior, 'remote')).toBe(0);
    expect((await call('GET', `${R}/notice?model=remote`, internalA)).body.status).toBe('UAA103');
  });

  test('the exam-upload notification setting: positive integers, saved alone, read back by user info', async () => {
    const url = '/api/ucenter/v1/user/commonSetting/examNotice';
    for (const [field, value] of [['interval', 0], ['interval', -5], ['duration', 0], ['interval', 1.5]] as const) {
      const r = await call('POST', url, docA, { examNotice: { noticeOpen: true, [field]: value } });
      expect(r.code).toBe(400);
      expect(r.body).toMatchObject({ status: 'UAA421', field: `examNotice.${field}` });
    }
    const viewConfig = await call('POST', '/api/pacs/v1/viewer/config', docA, { viewConfig: { openModel: 'single', doubleConfig: [] } });
    expect(viewConfig.body.status).toBe('0');
    const saved = await call('POST', url, docA, { examNotice: { noticeOpen: true, modelList: ['report', 'remote'], interval: 2, duration: 30, sound: false } });
    expect(saved.body.status).toBe('0');
    const info = await call('GET', '/api/uaa/v1/user/info', docA);
    expect(info.body.data.setting.examNotice).toEqual({ noticeOpen: true, modelList: ['report', 'remote'], interval: 2, duration: 30, sound: false, audioUrl: '' });
    expect(info.body.data.setting.viewConfig).toEqual({ openModel: 'single', doubleConfig: [] });
  });
});
