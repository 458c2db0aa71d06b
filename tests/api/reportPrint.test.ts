/**
 * Report printing (issue #8, item 6) through the API on each database. Scenarios:
 * - the layout files: every file of config/print-layouts/ is seeded once, the demo
 *   hospitals mapped by code (hospital A: its own layout townshipA; the centre:
 *   countyCentral; hospital B: default; the region: none); broken files are refused
 * - the sheet of a report: chosen by its hospital's mapping, the items' values from the
 *   report and its exam, masked under grade safety; an unmapped hospital: REPORT301
 *   with its text, for the sheet and for printing
 * - print: approved reports only (REPORT102 otherwise), the right report:print
 *   (UAA103 without), the state stays, print state 1 and the count up each time, an
 *   operation-record entry `print`; the same call sent twice with one key counts once
 * - batch print: approved ones printed, the rest refused each with its code, in one call;
 *   the batch right
 * - layouts edited through the API change what the sheet says; signatures: the
 *   writer's uploaded picture prints when the layout says so and while it is active
 * - scope: a hospital's administrator maps only their own hospitals, may pick a shared
 *   layout but not rewrite it (REPORT302), sees only their hospitals and doctors
 * - limits and validation: 4xx naming the field, nothing stored
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { encodePng } from '../../server/lib/png';
import { LAYOUTS_DIR, readLayoutFiles } from '../../server/report/printLayouts';

const R = '/api/report/v1';
const files = readLayoutFiles();
const content = { see: '双肺纹理清晰，未见实变影。', diagnosis: '胸部CT平扫未见异常。' };

/** A 200x130 PNG with a stroke across it: what a doctor's signature upload must be. */
function signaturePng(): string {
  const px = new Uint8Array(200 * 130).fill(255);
  for (let x = 20; x < 180; x++) px[Math.round(65 + 25 * Math.sin(x / 12)) * 200 + x] = 0;
  return encodePng(200, 130, 1, px).toString('base64');
}

describe.each(dbKinds)('report printing on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let docA: string;
  let senior: string;
  let clerk: string;
  let expert: string;
  let hospitalAdmin: string;
  const users: Record<string, number> = {};
  let orgs: Record<string, number>;
  let item: Record<string, { id: number; organ_id: number }>;
  let layouts: Record<string, number>;

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object, headers: Record<string, string> = {}) =>
    p.app.inject({ method, url, headers: authed(token, headers), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const sheet = (token: string, id: number) => call('GET', `${R}/print/layout/${id}`, token);
  const print = (token: string, id: number, body: object, headers: Record<string, string> = {}) => call('POST', `${R}/report/print/${id}`, token, body, headers);
  const version = async (id: number) => (await p.db.query<{ version: number }>('SELECT version FROM report WHERE id = $1', [id])).rows[0]?.version ?? 0;
  const printed = async (id: number) =>
    (await p.db.query<{ state: number; n: number; report: number }>('SELECT print_state AS state, print_number AS n, report_state AS report FROM report WHERE id = $1', [id])).rows[0];
  /** Everything printing keeps, to show a refused call changed none of it. */
  const snapshot = async () =>
    JSON.stringify([
      (await p.db.query('SELECT id, name, definition FROM print_layout ORDER BY id')).rows,
      (await p.db.query('SELECT hospital_id, layout_id FROM print_layout_hospital ORDER BY hospital_id')).rows,
      (await p.db.query('SELECT user_id, active FROM print_signature ORDER BY user_id')).rows,
    ]);

  /** A new examined exam of `hospital`, registered through the API. */
  const examined = async (hospital = 'HOSP_A') => {
    const r = await call('POST', '/api/ris/v1/exam/save', admin, {
      hospitalId: orgs[hospital], hisPatientName: '打印测试', sex: 2, age: 36, ageUnit: 4, patientSource: 2, inPatientNo: 'ZY0815', hisDeptName: '呼吸内科',
      items: [{ itemId: item[hospital].id, organId: item[hospital].organ_id }],
    });
    expect(r.body.status).toBe('0');
    await p.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [r.body.data.id]);
    return r.body.data.id as number;
  };
  /** Puts the report of `id` in `state` with content, as earlier actions would have. */
  const putInState = async (id: number, state: number) => {
    await p.db.query('INSERT INTO report (id, report_state, see, diagnosis) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO UPDATE SET report_state = $2', [id, state, content.see, content.diagnosis]);
    await p.db.query('UPDATE exam SET report_state = $2 WHERE id = $1', [id, state]);
  };
  /** Written by hospital A's radiologist and approved by the senior, through the API. */
  const approved = async (hospital = 'HOSP_A') => {
    const id = await examined(hospital);
    expect((await call('POST', `${R}/report/submit/${id}`, docA, { version: 0, ...content })).body.status).toBe('0');
    expect((await call('POST', `${R}/report/reviewPass/${id}`, senior, { version: 1 })).body.status).toBe('0');
    return id;
  };

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    for (const r of (await p.db.query<{ mobile: string; id: number }>('SELECT mobile, id FROM app_user')).rows) users[r.mobile] = r.id;
    item = Object.fromEntries(
      (
        await p.db.query<{ code: string; id: number; organ_id: number }>(
          'SELECT DISTINCT ON (o.code) o.code, i.id, i.organ_id FROM exam_item i JOIN org o ON o.id = i.hospital_id WHERE i.organ_id IS NOT NULL ORDER BY o.code, i.id',
        )
      ).rows.map((r) => [r.code, r]),
    );
    layouts = Object.fromEntries((await p.db.query<{ name: string; id: number }>('SELECT name, id FROM print_layout')).rows.map((r) => [r.name, r.id]));
    [admin, docA, senior, clerk, expert] = await Promise.all(['13800000001', '13800000004', '13800000005', '13800000002', '13800000006'].map((m) => login(p.app, m)));
    // Hospital A's administrator: report page settings, own hospital only.
    const role = await call('POST', '/api/ucenter/v1/role/save', admin, { name: '报告页面管理', permissions: { reportPage: ['view', 'edit'] }, dataScope: 'own' });
    expect(role.body.status).toBe('0');
    const user = await call('POST', '/api/ucenter/v1/user/save', admin, {
      mobile: '13900000215', username: 'pageadmina', name: '甲院管理员', status: 1, password: 'Start#2026', memberships: [{ hospitalId: orgs.HOSP_A, roleId: role.body.data.id }],
    });
    expect(user.body.status).toBe('0');
    hospitalAdmin = await login(p.app, '13900000215', 'Start#2026');
  });
  afterAll(() => p.close());

  test('every layout file is seeded once; the demo hospitals are mapped by code, hospital A to its own layout', async () => {
    expect(Object.keys(layouts).sort()).toEqual(files.layouts.map((l) => l.name).sort());
    expect(files.layouts.length).toBeGreaterThanOrEqual(12);
    const { rows } = await p.db.query<{ code: string; name: string }>(
      'SELECT o.code, l.name FROM print_layout_hospital m JOIN org o ON o.id = m.hospital_id JOIN print_layout l ON l.id = m.layout_id ORDER BY o.code',
    );
    expect(rows).toEqual([
      { code: 'CENTRAL', name: 'countyCentral' },
      { code: 'HOSP_A', name: 'townshipA' },
      { code: 'HOSP_B', name: 'default' },
    ]);
    // A second start leaves the database as it is (it is the truth now).
    await p.db.query('DELETE FROM print_layout_hospital WHERE hospital_id = $1', [orgs.HOSP_B]);
    const { seedPrintLayouts } = await import('../../server/report/printLayouts');
    expect(await p.db.tx((q) => seedPrintLayouts(q))).toBe(false);
    expect((await p.db.query('SELECT 1 FROM print_layout_hospital WHERE hospital_id = $1', [orgs.HOSP_B])).rowCount).toBe(0);
    await p.db.query('INSERT INTO print_layout_hospital (hospital_id, layout_id) VALUES ($1, $2)', [orgs.HOSP_B, layouts.default]);
  });

  test('broken layout files stop the start, every problem named', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'print-layouts-'));
    try {
      const base = JSON.parse(fs.readFileSync(path.join(LAYOUTS_DIR, 'townshipA.json'), 'utf8'));
      fs.writeFileSync(path.join(dir, 'renamed.json'), JSON.stringify(base));
      fs.writeFileSync(path.join(dir, 'twice.json'), JSON.stringify({ ...base, name: 'twice', fields: [base.fields[0], base.fields[0]] }));
      fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ ...base, name: 'bad', columns: 9, fields: [{ field: 'shoeSize', group: 'header' }], hospitalIds: [1] }));
      fs.writeFileSync(path.join(dir, 'mapping.json'), JSON.stringify({ hospitals: { HOSP_A: 'missing', 'bad code': 'twice' } }));
      expect(() => readLayoutFiles(dir)).toThrow(
        /bad\.json: \/columns must be <= 4[\s\S]*bad\.json: \/fields\/0\/field must be equal to one of the allowed values[\s\S]*bad\.json: hospitalIds does not belong[\s\S]*renamed\.json: name townshipA is not the file's name[\s\S]*twice\.json: item patientName is listed twice[\s\S]*no default\.json[\s\S]*HOSP_A names no layout file \(missing\)[\s\S]*bad code is not a hospital code/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a report's sheet follows its hospital's mapping; an unmapped hospital has no layout (REPORT301)", async () => {
    const a = await approved();
    const s = await sheet(docA, a);
    expect(s.body.status).toBe('0');
    expect(s.body.data.layout).toMatchObject({ name: 'townshipA', hospitalName: '第一乡镇卫生院', firstTrialSignature: true });
    expect(s.body.data.layout).not.toHaveProperty('hospitalIds');
    expect(s.body.data.report).toMatchObject({ id: a, reportState: 4, version: 2, printNumber: 0, reportPrintState: 0, hospitalName: '第一乡镇卫生院', canPrint: true });
    expect(s.body.data.values).toMatchObject({
      patientName: '打印测试', sex: 2, age: 36, ageUnit: 4, inPatientNo: 'ZY0815', deptName: '呼吸内科', see: content.see, diagnosis: content.diagnosis,
      firstTrialDoctorName: '陈医生', retrialDoctorName: '林主任', notes: files.layouts.find((l) => l.name === 'townshipA')!.notes,
    });
    expect(s.body.data.values.organName).toBeTruthy();
    expect(s.body.data.values.itemName).toBeTruthy();
    expect(s.body.data.signatures.firstTrialDoctorName).toEqual({ name: '陈医生', active: false });

    const c = await examined('CENTRAL');
    await putInState(c, 2);
    const central = (await sheet(senior, c)).body.data;
    // Any state previews; printing is another matter.
    expect(central).toMatchObject({ layout: { name: 'countyCentral' }, report: { reportState: 2, canPrint: false } });

    const b = await examined('HOSP_B');
    await putInState(b, 4);
    expect((await sheet(senior, b)).body.data.layout.name).toBe('default');
    expect((await call('POST', `${R}/printLayout/mapping`, admin, { hospitalId: orgs.HOSP_B, layoutId: null })).body.status).toBe('0');
    const none = await sheet(senior, b);
    expect([none.code, none.body.status, none.body.message]).toEqual([404, 'REPORT301', '该医院未配置报告打印版式']);
    const en = await call('GET', `${R}/print/layout/${b}`, senior, undefined, { 'accept-language': 'en-US' });
    expect(en.body.message).toBe('No print layout for this hospital');
    const refused = await print(senior, b, { version: await version(b) });
    expect([refused.code, refused.body.status]).toEqual([404, 'REPORT301']);
    expect(await printed(b)).toMatchObject({ state: 0, n: 0 });
    expect((await call('POST', `${R}/printLayout/mapping`, admin, { hospitalId: orgs.HOSP_B, layoutId: layouts.default })).body.status).toBe('0');
    expect((await sheet(senior, b)).body.data.layout.name).toBe('default');
  });

  test('the sheet is masked like every patient row under grade safety; the right to view or print is needed', async () => {
    const id = await approved();
    await p.db.query(`INSERT INTO app_meta (key, value) VALUES ('grade_safety', 'true'::jsonb) ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
    try {
      expect((await sheet(docA, id)).body.data.values.patientName).toBe('打***');
    } finally {
      await p.db.query("DELETE FROM app_meta WHERE key = 'grade_safety'");
    }
    expect((await sheet(docA, id)).body.data.values.patientName).toBe('打印测试');
    expect((await sheet(clerk, id)).body.status).toBe('UAA103');
    // The central hospital's expert views its reports, but printing is not theirs.
    const central = await examined('CENTRAL');
    await putInState(central, 4);
    expect((await sheet(expert, central)).body.data.report.canPrint).toBe(false);
    expect((await sheet(senior, central)).body.data.report.canPrint).toBe(true);
  });

  test('print: approved only, with the right; state stays, print state and count move, the record has it; a repeated key counts once', async () => {
    const id = await examined();
    for (const state of [-1, 1, 2, 3, 5, 7]) {
      await putInState(id, state);
      const r = await print(docA, id, { version: await version(id) });
      expect([state, r.code, r.body.status]).toEqual([state, 409, 'REPORT102']);
    }
    await putInState(id, 4);
    expect((await call('GET', `${R}/report/detail/${id}`, docA)).body.data.actions).toContain('print');
    expect((await print(clerk, id, { version: await version(id) })).body.status).toBe('UAA103');
    const central = await examined('CENTRAL');
    await putInState(central, 4);
    expect((await call('GET', `${R}/report/detail/${central}`, expert)).body.data.actions).not.toContain('print');
    expect((await print(expert, central, { version: await version(central) })).body.status).toBe('UAA103');
    expect((await print(docA, id, {})).body).toMatchObject({ status: 'UAA421' });
    expect(await printed(id)).toMatchObject({ state: 0, n: 0, report: 4 });

    const v = await version(id);
    const first = await print(docA, id, { version: v }, { 'idempotency-key': 'print-once' });
    expect(first.body.data).toMatchObject({ reportState: 4, reportPrintState: 1, printNumber: 1, version: v + 1 });
    const again = await print(docA, id, { version: v }, { 'idempotency-key': 'print-once' });
    expect(again.body.data).toMatchObject({ replayed: true, printNumber: 1 });
    const second = await print(senior, id, { version: v + 1 });
    expect(second.body.data).toMatchObject({ reportState: 4, reportPrintState: 1, printNumber: 2 });
    expect(await printed(id)).toEqual({ state: 1, n: 2, report: 4 });
    expect((await print(docA, id, { version: v })).body.status).toBe('REPORT103');

    const record = (await call('GET', `${R}/report/logs/${id}`, senior)).body.data.list;
    expect(record.filter((e: { type: string }) => e.type === 'print').map((e: { action: string; operatorName: string; fromState: number; toState: number }) => [e.action, e.operatorName, e.fromState, e.toState])).toEqual([
      ['print', '林主任', 4, 4],
      ['print', '陈医生', 4, 4],
    ]);
    // A printed report is recalled only with the confirmation.
    expect((await call('POST', `${R}/report/recall/${id}`, senior, { version: v + 2, reason: '需复核' })).body.status).toBe('REPORT011');
  });

  test('batch print: the approved ones printed, the others refused each with its code, in one call', async () => {
    const ok1 = await approved();
    const ok2 = await examined('CENTRAL');
    await putInState(ok2, 4);
    const pending = await examined();
    await putInState(pending, 2);
    const unmapped = await examined('HOSP_B');
    await putInState(unmapped, 4);
    await p.db.query('DELETE FROM print_layout_hospital WHERE hospital_id = $1', [orgs.HOSP_B]);
    try {
      const before = await Promise.all([pending, unmapped].map(printed));
      const r = await call('POST', `${R}/report/batchPrint`, senior, { ids: [ok1, pending, ok2, unmapped, 99999999] });
      expect(r.body.status).toBe('0');
      expect(r.body.data.printed).toEqual([ok1, ok2]);
      expect(r.body.data.refused.map((x: { id: number; status: string }) => [x.id, x.status])).toEqual([
        [pending, 'REPORT102'],
        [unmapped, 'REPORT301'],
        [99999999, 'REPORT004'],
      ]);
      expect(r.body.data.refused[1].message).toBe('该医院未配置报告打印版式');
      for (const id of [ok1, ok2]) expect(await printed(id)).toMatchObject({ state: 1, n: 1, report: 4 });
      expect(await Promise.all([pending, unmapped].map(printed))).toEqual(before);
    } finally {
      await p.db.query('INSERT INTO print_layout_hospital (hospital_id, layout_id) VALUES ($1, $2)', [orgs.HOSP_B, layouts.default]);
    }
    // The batch is its own right (the radiologist prints one by one).
    expect((await call('POST', `${R}/report/batchPrint`, docA, { ids: [ok1] })).body.status).toBe('UAA103');
    for (const ids of [[], Array.from({ length: 101 }, (_, i) => i + 1), [ok1, ok1], ['x']]) {
      const bad = await call('POST', `${R}/report/batchPrint`, senior, { ids });
      expect([bad.code, bad.body.status]).toEqual([400, 'UAA421']);
    }
    expect(await printed(ok1)).toMatchObject({ n: 1 });
  });

  test("editing a layout through the API changes the report's sheet; signatures print when the layout says so and while active", async () => {
    const id = await approved();
    const detail = (await call('GET', `${R}/printLayout/detail/${layouts.townshipA}`, admin)).body.data;
    expect(detail).toMatchObject({ id: layouts.townshipA, name: 'townshipA', hospitalIds: [orgs.HOSP_A], hospitalNames: '第一乡镇卫生院' });
    const fields = detail.fields.map((f: { field: string }) => (f.field === 'patientId' ? { ...f, show: true } : f.field === 'inPatientNo' ? { ...f, show: false } : f));
    const saved = await call('POST', `${R}/printLayout/save`, admin, { ...detail, title: 'CT检查报告单', fields: [...fields, { field: 'patientId', group: 'header', label: '病历号' }] });
    expect(saved.body.status).toBe('0');
    const s = (await sheet(docA, id)).body.data;
    expect(s.layout.title).toBe('CT检查报告单');
    expect(s.layout.fields.find((f: { field: string }) => f.field === 'inPatientNo')).toMatchObject({ show: false });
    expect(s.layout.fields.at(-1)).toEqual({ field: 'patientId', group: 'header', label: '病历号', show: true });
    expect(s.values.patientId).toBeTruthy();

    // The writer's picture, uploaded with the user: prints as the layout says, while active.
    const upload = await p.app
      .inject({ method: 'POST', url: `/api/file/v1/upload?purpose=signature&ownerId=${users['13800000004']}&name=s.png`, headers: authed(admin, { 'content-type': 'image/png' }), payload: Buffer.from(signaturePng(), 'base64') })
      .then((r) => ({ code: r.statusCode, body: r.json() }));
    expect(upload.body.status).toBe('0');
    let sig = (await sheet(docA, id)).body.data.signatures;
    expect(sig.firstTrialDoctorName).toMatchObject({ name: '陈医生', active: true });
    expect(sig.firstTrialDoctorName.image).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    // The reviewer has no picture: the typed name.
    expect(sig.retrialDoctorName).toEqual({ name: '林主任', active: false });
    const listed = (await call('POST', `${R}/printSignature/list`, admin, {})).body.data.list;
    expect(listed).toEqual([{ id: users['13800000004'], name: '陈医生', hasSignature: true, active: true, hospitalNames: '第一乡镇卫生院' }]);
    expect((await call('POST', `${R}/printSignature/save`, admin, { id: users['13800000004'], active: false })).body.data).toMatchObject({ active: false });
    sig = (await sheet(docA, id)).body.data.signatures;
    expect(sig.firstTrialDoctorName).toEqual({ name: '陈医生', active: false });
    expect((await call('POST', `${R}/printSignature/save`, admin, { id: users['13800000004'], active: true })).body.status).toBe('0');
    // A layout that does not sign with pictures prints names.
    expect((await call('POST', `${R}/printLayout/save`, admin, { ...detail, firstTrialSignature: false })).body.status).toBe('0');
    expect((await sheet(docA, id)).body.data.signatures.firstTrialDoctorName).toEqual({ name: '陈医生', active: true });
    expect((await call('POST', `${R}/printLayout/save`, admin, detail)).body.status).toBe('0');
    expect((await sheet(docA, id)).body.data.layout.title).toBe(detail.title);
  });

  test("scope: a hospital's administrator maps their own hospital only and may not rewrite a shared layout", async () => {
    const list = (await call('GET', `${R}/printLayout/mapping`, hospitalAdmin)).body.data.list;
    expect(list).toEqual([{ hospitalId: orgs.HOSP_A, hospitalCode: 'HOSP_A', hospitalName: '第一乡镇卫生院', layoutId: layouts.townshipA, layoutName: 'townshipA' }]);
    const before = await snapshot();
    const other = await call('POST', `${R}/printLayout/mapping`, hospitalAdmin, { hospitalId: orgs.HOSP_B, layoutId: layouts.townshipA });
    expect([other.code, other.body.status]).toEqual([404, 'UCENTER101']);
    // The shared default (hospital B prints with it): its hospitals outside the scope are not shown, and it cannot be rewritten.
    const shared = (await call('GET', `${R}/printLayout/detail/${layouts.default}`, hospitalAdmin)).body.data;
    expect(shared.hospitalIds).toEqual([]);
    expect(shared.hospitalNames).toBe('第二乡镇卫生院');
    const rewrite = await call('POST', `${R}/printLayout/save`, hospitalAdmin, { ...shared, title: '改掉大家的标题' });
    expect([rewrite.code, rewrite.body.status]).toEqual([403, 'REPORT302']);
    const grab = await call('POST', `${R}/printLayout/save`, hospitalAdmin, { ...shared, hospitalIds: [orgs.HOSP_B] });
    expect([grab.code, grab.body.status]).toEqual([404, 'UCENTER101']);
    expect(await snapshot()).toBe(before);

    // Choosing the shared layout for one's own hospital is fine; hospital B keeps it.
    const pick = await call('POST', `${R}/printLayout/save`, hospitalAdmin, { ...shared, hospitalIds: [orgs.HOSP_A] });
    expect(pick.body.data).toMatchObject({ id: layouts.default, hospitalIds: [orgs.HOSP_A], hospitalNames: '第一乡镇卫生院、第二乡镇卫生院' });
    const id = await approved();
    expect((await sheet(docA, id)).body.data.layout.name).toBe('default');
    // Their own layout (only their hospital printed with it) they may rewrite, and move back to.
    const own = (await call('GET', `${R}/printLayout/detail/${layouts.townshipA}`, hospitalAdmin)).body.data;
    expect(own.hospitalIds).toEqual([]);
    const mine = await call('POST', `${R}/printLayout/save`, hospitalAdmin, { ...own, title: '本院影像报告', hospitalIds: [orgs.HOSP_A] });
    expect(mine.body.data).toMatchObject({ title: '本院影像报告', hospitalIds: [orgs.HOSP_A] });
    expect((await sheet(docA, id)).body.data.layout).toMatchObject({ name: 'townshipA', title: '本院影像报告' });
    expect((await call('GET', `${R}/printLayout/detail/${layouts.default}`, admin)).body.data.hospitalIds).toEqual([orgs.HOSP_B]);
    // A new layout of their own, then mapped by the mapping call.
    const made = await call('POST', `${R}/printLayout/save`, hospitalAdmin, { name: 'townshipA2', title: '影像报告', fields: [{ field: 'see', group: 'body' }] });
    expect(made.body.data).toMatchObject({ name: 'townshipA2', columns: 3, fontSize: 11, fields: [{ field: 'see', group: 'body', show: true }] });
    expect((await call('POST', `${R}/printLayout/mapping`, hospitalAdmin, { hospitalId: orgs.HOSP_A, layoutId: made.body.data.id })).body.status).toBe('0');
    expect((await sheet(docA, id)).body.data.layout.name).toBe('townshipA2');
    // The region's administrator rewrites anything.
    expect((await call('POST', `${R}/printLayout/mapping`, admin, { hospitalId: orgs.HOSP_A, layoutId: layouts.townshipA })).body.status).toBe('0');
    const all = (await call('GET', `${R}/printLayout/detail/${layouts.default}`, admin)).body.data;
    expect((await call('POST', `${R}/printLayout/save`, admin, { ...all, title: all.title })).body.status).toBe('0');
    expect((await call('POST', `${R}/printLayout/delete/${made.body.data.id}`, admin)).body.status).toBe('0');
    // Doctors' signatures: only those of their hospitals.
    expect((await call('GET', `${R}/printSignature/detail/${users['13800000005']}`, hospitalAdmin)).body.status).toBe('UCENTER006');
    // The settings are the report page's: the radiologist has none of them.
    expect((await call('POST', `${R}/printLayout/list`, docA, {})).body.status).toBe('UAA103');
    const rows = (await call('POST', `${R}/printLayout/list`, hospitalAdmin, { pageSize: 100 })).body.data;
    expect(rows.total).toBe(files.layouts.length);
    expect(rows.list.find((l: { name: string }) => l.name === 'townshipA')).toMatchObject({ hospitalNames: '第一乡镇卫生院', firstTrialSignature: true });
  });

  test('limits and validation: refused with the field named, nothing stored', async () => {
    const base = (await call('GET', `${R}/printLayout/detail/${layouts.townshipA}`, admin)).body.data;
    const before = await snapshot();
    const cases: Array<[string, object, string, string]> = [
      ['name of 33 characters', { ...base, name: 'a'.repeat(33) }, 'UAA421', 'name'],
      ['name with spaces', { ...base, name: 'town ship' }, 'UAA421', 'name'],
      ['no title', { ...base, title: '' }, 'UAA421', 'title'],
      ['title of 33 characters', { ...base, title: '字'.repeat(33) }, 'UAA421', 'title'],
      ['footer of 201 characters', { ...base, footerText: '字'.repeat(201) }, 'UAA421', 'footerText'],
      ['no item', { ...base, fields: [] }, 'UAA421', 'fields'],
      ['an unknown item', { ...base, fields: [{ field: 'shoeSize', group: 'header' }] }, 'UAA421', 'fields.0.field'],
      ['an unknown block', { ...base, fields: [{ field: 'see', group: 'margin' }] }, 'UAA421', 'fields.0.group'],
      ['an item twice', { ...base, fields: [{ field: 'see', group: 'body' }, { field: 'see', group: 'footer' }] }, 'UAA421', 'fields.1.field'],
      ['a label of 17 characters', { ...base, fields: [{ field: 'see', group: 'body', label: '字'.repeat(17) }] }, 'UAA421', 'fields.0.label'],
      ['5 columns', { ...base, columns: 5 }, 'UAA421', 'columns'],
      ['font of 30 points', { ...base, fontSize: 30 }, 'UAA421', 'fontSize'],
      ['an unknown hospital', { ...base, hospitalIds: [99999999] }, 'UAA421', 'hospitalIds'],
      ['a taken name', { ...base, id: undefined, name: 'default' }, 'REPORT204', ''],
      ['an unknown layout', { ...base, id: 99999999 }, 'BDT104', ''],
    ];
    for (const [what, body, status, field] of cases) {
      const r = await call('POST', `${R}/printLayout/save`, admin, body);
      expect([what, r.code >= 400 && r.code < 500, r.body.status, r.body.field ?? '']).toEqual([what, true, status, field]);
    }
    const mapping: Array<[object, string]> = [
      [{ hospitalId: orgs.HOSP_A, layoutId: 99999999 }, 'UAA421'],
      [{ hospitalId: 99999999, layoutId: layouts.default }, 'UCENTER101'],
      [{ hospitalId: orgs.HOSP_A }, 'UAA421'],
    ];
    for (const [body, status] of mapping) expect((await call('POST', `${R}/printLayout/mapping`, admin, body)).body.status).toBe(status);
    const inUse = await call('POST', `${R}/printLayout/delete/${layouts.townshipA}`, admin);
    expect([inUse.code, inUse.body.status]).toEqual([409, 'REPORT303']);
    expect((await call('POST', `${R}/printSignature/save`, admin, { id: users['13800000005'], active: false })).body.status).toBe('UCENTER006');
    expect(await snapshot()).toBe(before);
  });
});
