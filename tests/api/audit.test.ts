/**
 * The audit trail (issue #16, part 4) on each database. Scenarios:
 * - every read of patient data leaves a record naming the patient: exam and report
 *   detail, the print sheet, the viewer, DICOMweb metadata, frames and rendered images
 *   (the frames of one study folded into one row with their count), the exam export and
 *   its download, the patient's history
 * - every security-relevant change: user and role saves, unlock, grade safety, the
 *   configuration (dictionaries, QC rules, print-layout mapping), login (success and
 *   failure, the user found from the mobile) and logout
 * - refusals: a request without a token (401) and one without the right (403), with
 *   their catalogue codes; the client IP as X-Forwarded-For says (TRUST_PROXY on here)
 * - the rule: every /api and /dicom-web route declares its audit; a route without one
 *   stops the app from starting
 * - storage: the month's partition exists (made by the application), retention keeps at
 *   least six months and refuses a shorter setting
 * - the auditor's list: a time range is required; records only of hospitals in the
 *   auditor's scope; filters by user, action, patient, outcome; the Excel export
 */
import Fastify from 'fastify';
import fp from 'fastify-plugin';
import ExcelJS from 'exceljs';
import platform from '../../server/plugins/platform';
import auth from '../../server/plugins/auth';
import audit from '../../server/plugins/audit';
import { loadConfig } from '../../server/config';
import { AuditTrail, expiredPartitions, maintainPartitions } from '../../server/audit/trail';
import { syntheticSeries } from '../../mock/dicom';
import { dbKinds } from '../support/db';
import { appHeaders, startTestPlatform, type TestPlatform } from '../support/app';
import { authed, b64, login, loginReply } from '../support/auth';
import { Background } from '../../server/lib/background';

const DAY = 86_400_000;
const lastDays = (n: number): [string, string] => [new Date(Date.now() - n * DAY).toISOString(), new Date(Date.now() + DAY).toISOString()];

interface Row {
  user_id: number | null;
  user_name: string | null;
  mobile: string | null;
  hospital_id: number | null;
  action: string;
  object_type: string | null;
  object_id: string | null;
  patient_id: string | null;
  patient_name: string | null;
  outcome: string;
  code: string | null;
  http_status: number;
  ip: string | null;
  count: number;
  route: string;
}

describe.each(dbKinds)('audit trail on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let clerk: string;
  let auditor: string;
  let orgs: Record<string, number>;
  let exam: { id: number; patient_id: string; name: string; hospital_id: number };
  let studyUid: string;
  let examWithStudy: number;

  const call = (method: 'GET' | 'POST', url: string, token?: string, payload?: object, headers: Record<string, string> = {}) =>
    p.app.inject({ method, url, headers: token ? authed(token, headers) : { ...appHeaders, ...headers }, payload });
  /** The records written since `since` that match: flushed first (the writer batches). */
  const records = async (where: string, params: unknown[] = []): Promise<Row[]> => {
    await p.app.auditTrail.flush();
    return (await p.db.query<Row>(`SELECT * FROM audit_log WHERE ${where} ORDER BY at, id`, params)).rows;
  };

  const waitForExport = async (id: number, token: string) => {
    const until = Date.now() + 30_000;
    for (;;) {
      const job = (await call('GET', '/api/ris/v1/export/list', token)).json().data.list.find((j: { id: number }) => j.id === id);
      if (job && (job.state === 'done' || job.state === 'failed')) return job as { state: string; kind: string };
      if (Date.now() > until) throw new Error(`export ${id} not finished: ${JSON.stringify(job)}`);
      await new Promise((res) => setTimeout(res, 150));
    }
  };

  beforeAll(async () => {
    p = await startTestPlatform(kind, { TRUST_PROXY: 'true' });
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    admin = await login(p.app, '13800000001');
    clerk = await login(p.app, '13800000002');
    auditor = await login(p.app, '13800000009');
    exam = (
      await p.db.query<{ id: number; patient_id: string; name: string; hospital_id: number }>(
        `SELECT e.id, e.patient_id, e.his_patient_name AS name, e.hospital_id FROM exam e JOIN report r ON r.id = e.id
          WHERE e.hospital_id = $1 AND r.report_state >= 4 ORDER BY e.id LIMIT 1`,
        [orgs.HOSP_A],
      )
    ).rows[0];
    const study = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.1601', count: 2, patientId: 'AUDIT-PATIENT', patientName: '审计患者', patientNameEn: 'Shen^Ji' });
    for (const instance of study.instances) await p.app.archive.storeBuffer(instance.bytes, { hospitalId: orgs.HOSP_A, sender: 'A_CT1' });
    studyUid = study.studyUid;
    examWithStudy = (await p.db.query<{ exam_id: number }>('SELECT exam_id FROM dicom_study WHERE exam_id IS NOT NULL ORDER BY id LIMIT 1')).rows[0]?.exam_id;
  });
  afterAll(() => p.close());

  test('reads of patient data name the patient: exam and report detail, print sheet, history, viewer', async () => {
    const since = new Date();
    expect((await call('GET', `/api/ris/v1/exam/detail/${exam.id}`, admin)).statusCode).toBe(200);
    expect((await call('GET', `/api/report/v1/report/detail/${exam.id}`, admin)).statusCode).toBe(200);
    await call('GET', `/api/report/v1/print/layout/${exam.id}`, admin);
    expect((await call('GET', `/api/ris/v1/exam/history?patientId=${encodeURIComponent(exam.patient_id)}`, clerk)).statusCode).toBe(200);
    await call('POST', '/api/pacs/v1/study/viewer', admin, { examIds: [examWithStudy ?? exam.id] });

    const rows = await records('at >= $1 AND user_id IS NOT NULL', [since]);
    const of = (object: string) => rows.find((r) => r.object_type === object);
    for (const object of ['exam', 'report', 'printSheet']) {
      expect({ object, row: of(object) }).toMatchObject({
        object,
        row: { action: 'read', object_id: String(exam.id), patient_id: exam.patient_id, patient_name: exam.name, outcome: 'success', user_name: '区域管理员' },
      });
    }
    expect(of('patientHistory')).toMatchObject({ action: 'read', patient_id: exam.patient_id, patient_name: exam.name, hospital_id: orgs.HOSP_A });
    expect(of('viewer')).toMatchObject({ action: 'read', outcome: expect.any(String) });
  });

  test('DICOMweb metadata, frames and rendered images are recorded per study; repeated frames fold into one row with a count', async () => {
    // Events fold within one batch: the trail's timer is stopped meanwhile, so a flush it
    // makes between two frames (a slow machine) cannot split them; records() flushes.
    await p.app.auditTrail.close();
    const since = new Date();
    const base = `/dicom-web/studies/${studyUid}`;
    const bearer = { authorization: `Bearer ${clerk}` };
    const meta = await p.app.inject({ method: 'GET', url: `${base}/metadata`, headers: bearer });
    expect(meta.statusCode).toBe(200);
    const first = (meta.json() as Array<Record<string, { Value: string[] }>>)[0];
    const series = first['0020000E'].Value[0];
    const instance = first['00080018'].Value[0];
    const I = `${base}/series/${series}/instances/${instance}`;
    for (let i = 0; i < 3; i++) expect((await p.app.inject({ method: 'GET', url: `${I}/frames/1`, headers: bearer })).statusCode).toBe(200);
    expect((await p.app.inject({ method: 'GET', url: `${I}/rendered`, headers: { ...bearer, accept: 'image/png' } })).statusCode).toBe(200);

    const rows = await records('at >= $1 AND object_id = $2', [since, studyUid]);
    const byObject = Object.fromEntries(rows.map((r) => [r.object_type, r]));
    expect(byObject.dicomMetadata).toMatchObject({ action: 'read', patient_id: 'AUDIT-PATIENT', patient_name: expect.stringContaining('审计患者'), count: 1 });
    expect(byObject.dicomFrames).toMatchObject({ action: 'read', patient_id: 'AUDIT-PATIENT', count: 3, hospital_id: orgs.HOSP_A });
    expect(byObject.dicomRendered).toMatchObject({ action: 'read', patient_id: 'AUDIT-PATIENT' });
    p.app.auditTrail.start();
  });

  test('an export and its download are recorded', async () => {
    const since = new Date();
    const queued = await call('POST', '/api/ris/v1/exam/export', clerk, { filters: { createdAt: lastDays(7) } });
    expect(queued.json().status).toBe('0');
    const id = queued.json().data.id as number;
    await waitForExport(id, clerk);
    expect((await call('GET', `/api/ris/v1/export/download/${id}`, clerk)).statusCode).toBe(200);
    const rows = await records('at >= $1 AND user_id IS NOT NULL', [since]);
    expect(rows.find((r) => r.action === 'export')).toMatchObject({ object_type: 'exam', object_id: String(id), outcome: 'success' });
    expect(rows.find((r) => r.action === 'download')).toMatchObject({ object_type: 'export', object_id: String(id), outcome: 'success' });
  });

  test('security changes: user and role saves, unlock, grade safety, dictionaries, QC rules, print-layout mapping', async () => {
    const since = new Date();
    const userId = (await p.db.query<{ id: number }>("SELECT id FROM app_user WHERE mobile = '13800000004'")).rows[0].id;
    const user = (await call('GET', `/api/ucenter/v1/user/detail/${userId}`, admin)).json().data;
    expect((await call('POST', '/api/ucenter/v1/user/save', admin, user)).json().status).toBe('0');
    const role = (await call('GET', `/api/ucenter/v1/role/detail/${(await p.db.query<{ id: number }>("SELECT id FROM role WHERE name = '技师'")).rows[0].id}`, admin)).json().data;
    expect((await call('POST', '/api/ucenter/v1/role/save', admin, role)).json().status).toBe('0');
    expect((await call('POST', `/api/ucenter/v1/user/unlock/${userId}`, admin)).json().status).toBe('0');
    expect((await call('POST', '/api/ucenter/v1/config/gradeSafety', admin, { enabled: false })).json().status).toBe('0');
    const dictionary = (await call('POST', '/api/bdt/v1/dictionary/list', admin, { page: 1, pageSize: 1 })).json().data.list[0];
    expect((await call('POST', '/api/bdt/v1/dictionary/save', admin, (await call('GET', `/api/bdt/v1/dictionary/detail/${dictionary.id}`, admin)).json().data)).json().status).toBe('0');
    const rule = (await call('POST', '/api/qc/v1/rule/list', admin, { page: 1, pageSize: 1 })).json().data.list[0];
    expect((await call('POST', '/api/qc/v1/rule/save', admin, (await call('GET', `/api/qc/v1/rule/detail/${rule.id}`, admin)).json().data)).json().status).toBe('0');
    const mapping = (await call('GET', '/api/report/v1/printLayout/mapping', admin)).json().data.list.find((m: { layoutId?: number }) => m.layoutId);
    expect((await call('POST', '/api/report/v1/printLayout/mapping', admin, { hospitalId: mapping.hospitalId, layoutId: mapping.layoutId })).json().status).toBe('0');

    const rows = await records('at >= $1 AND user_id IS NOT NULL', [since]);
    const seen = rows.map((r) => `${r.action} ${r.object_type} ${r.object_id ?? ''}`.trim());
    expect(seen).toEqual(
      expect.arrayContaining([
        `save user ${userId}`,
        `save role ${role.id}`,
        `unlock user ${userId}`,
        'configure gradeSafety',
        `save dictionary ${dictionary.id}`,
        `save qcRule ${rule.id}`,
        `configure printLayoutMapping ${mapping.hospitalId}`,
      ]),
    );
    expect(rows.every((r) => r.outcome === 'success' && r.user_name === '区域管理员' && r.hospital_id === orgs.REGION)).toBe(true);
  });

  test('login success and failure name the user behind the mobile; logout; the IP is the forwarded client when TRUST_PROXY is on', async () => {
    const since = new Date();
    const wrong = await loginReply(p.app, { mobile: '13800000003', password: b64('Wrong#2026') });
    expect(wrong.json().status).toBe('UAA002');
    const ok = await p.app.inject({
      method: 'POST',
      url: '/api/uaa/v1/login',
      headers: { ...appHeaders, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.9' },
      payload: `loginType=password&mobile=13800000006&password=${encodeURIComponent(b64('Demo@2026'))}`,
    });
    const token = ok.json().data.token as string;
    expect((await call('POST', '/api/uaa/v1/logout', token)).json().status).toBe('0');

    const rows = await records("at >= $1 AND action IN ('login', 'logout')", [since]);
    const tech = (await p.db.query<{ id: number }>("SELECT id FROM app_user WHERE mobile = '13800000003'")).rows[0].id;
    expect(rows.find((r) => r.mobile === '13800000003')).toMatchObject({ action: 'login', outcome: 'refused', code: 'UAA002', user_id: tech, hospital_id: orgs.HOSP_A });
    expect(rows.find((r) => r.mobile === '13800000006' && r.action === 'login')).toMatchObject({ outcome: 'success', ip: '203.0.113.9', hospital_id: orgs.CENTRAL });
    expect(rows.find((r) => r.action === 'logout')).toMatchObject({ outcome: 'success', mobile: '13800000006', user_name: '郑教授' });
  });

  test('a 401 and a 403 are recorded with their codes, also on routes declared none', async () => {
    const since = new Date();
    expect((await call('GET', `/api/ris/v1/exam/detail/${exam.id}`)).statusCode).toBe(401);
    expect((await call('POST', '/api/ucenter/v1/user/list', clerk, {})).statusCode).toBe(403);
    expect((await call('GET', '/api/uaa/v1/password/expiry')).statusCode).toBe(401);
    const rows = await records("at >= $1 AND outcome = 'refused'", [since]);
    expect(rows.find((r) => r.http_status === 401 && r.route === '/api/ris/v1/exam/detail/:id')).toMatchObject({
      action: 'read',
      object_type: 'exam',
      object_id: String(exam.id),
      code: 'UAA005',
      user_id: null,
      patient_id: exam.patient_id,
    });
    expect(rows.find((r) => r.http_status === 403)).toMatchObject({ action: 'access', code: 'UAA103', route: '/api/ucenter/v1/user/list', mobile: '13800000002' });
    expect(rows.find((r) => r.route === '/api/uaa/v1/password/expiry')).toMatchObject({ action: 'access', code: 'UAA005', http_status: 401 });
  });

  test("the auditor's list: a time range is required; only the hospitals of the auditor's scope; filters; reading the trail is itself recorded", async () => {
    const since = new Date();
    // Something of each hospital to find: a read at hospital A (the clerk) and one at the region (the administrator).
    await call('GET', `/api/ris/v1/exam/detail/${exam.id}`, clerk);
    await call('GET', `/api/ris/v1/exam/detail/${exam.id}`, admin);
    await p.app.auditTrail.flush();
    const list = (token: string, filters: Record<string, unknown>) => call('POST', '/api/ucenter/v1/auditLog/list', token, { page: 1, pageSize: 100, filters });

    const noRange = await list(auditor, {});
    expect({ code: noRange.statusCode, status: noRange.json().status, field: noRange.json().field }).toEqual({ code: 400, status: 'UAA421', field: 'at' });
    expect((await list(clerk, { at: lastDays(1) })).json().status).toBe('UAA103');

    const mine = (await list(auditor, { at: lastDays(1), patient: exam.patient_id, action: ['read'] })).json().data;
    expect(mine.list.length).toBeGreaterThan(0);
    expect(mine.list.every((r: { hospitalId?: number }) => r.hospitalId === orgs.HOSP_A)).toBe(true);
    expect(mine.list).toEqual(expect.arrayContaining([expect.objectContaining({ userName: '登记员小周', objectType: 'exam', patientId: exam.patient_id, patientName: exam.name, outcome: 'success' })]));
    const all = (await list(admin, { at: lastDays(1), patient: exam.name.slice(0, 1), objectType: 'exam', outcome: 'success' })).json().data;
    expect(all.list.map((r: { hospitalId?: number }) => r.hospitalId)).toEqual(expect.arrayContaining([orgs.HOSP_A, orgs.REGION]));
    // A range before the records finds none of them.
    expect((await list(admin, { at: [new Date(Date.now() - 30 * DAY).toISOString(), new Date(Date.now() - 20 * DAY).toISOString()], objectType: 'exam' })).json().data.total).toBe(0);

    const watched = await records("at >= $1 AND object_type = 'auditLog'", [since]);
    expect(watched.find((r) => r.mobile === '13800000009' && r.action === 'search' && r.outcome === 'success')).toBeDefined();
  });

  test("the auditor's Excel export: the records of the range within the scope", async () => {
    const filters = { at: lastDays(1), objectType: 'exam' };
    const queued = await call('POST', '/api/ucenter/v1/auditLog/export', auditor, { filters });
    expect(queued.json().status).toBe('0');
    const job = await waitForExport(queued.json().data.id, auditor);
    expect(job).toMatchObject({ state: 'done', kind: 'audit' });
    const file = await call('GET', `/api/ris/v1/export/download/${queued.json().data.id}`, auditor);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(file.rawPayload as unknown as ArrayBuffer);
    const sheet = book.worksheets[0];
    const listed = (await call('POST', '/api/ucenter/v1/auditLog/list', auditor, { page: 1, pageSize: 100, filters })).json().data;
    expect(sheet.rowCount - 1).toBe(listed.total);
    const header = (sheet.getRow(1).values as string[]).filter(Boolean);
    expect(header).toEqual(expect.arrayContaining(['用户', '患者ID', '结果']));
    const texts = JSON.stringify(sheet.getSheetValues());
    expect(texts).toContain(exam.patient_id);
    expect(texts).not.toContain('区域管理员');
  });

  test('a graceful stop writes what is waiting: nothing recorded before close is lost', async () => {
    const trail = new AuditTrail(() => p.db, { retentionMonths: 12, flushMs: 3_600_000 });
    trail.start();
    const at = new Date();
    for (let i = 0; i < 3; i++) {
      trail.record({
        at, userId: null, userName: null, mobile: '13800000002', hospitalId: null, hospitalName: null, action: 'read', objectType: 'exam',
        objectId: String(exam.id), patient: 'exam', outcome: 'success', code: null, httpStatus: 200, ip: '127.0.0.1', method: 'GET', route: '/close-test', requestId: null,
      });
    }
    await trail.close();
    const rows = (await p.db.query<Row>("SELECT * FROM audit_log WHERE route = '/close-test'")).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ count: 3, patient_id: exam.patient_id, hospital_id: orgs.HOSP_A, user_name: '登记员小周' });
  });

  test('the table is partitioned by month; the application made this month and the next ones', async () => {
    const parts = (
      await p.db.query<{ name: string }>(
        "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class t ON t.oid = i.inhparent WHERE t.relname = 'audit_log' ORDER BY 1",
      )
    ).rows.map((r) => r.name);
    const now = new Date();
    const ym = (plus: number) => {
      const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + plus, 1));
      return `audit_log_${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
    };
    expect(parts).toEqual(expect.arrayContaining(['audit_log_default', ym(0), ym(1), ym(2)]));
    // A record of an old month gets its partition too, and survives maintenance within the retention.
    const old = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 5, 15));
    await maintainPartitions(p.db, now, 6, [old]);
    await p.db.query(`INSERT INTO audit_log (at, last_at, action, outcome, http_status, method, route) VALUES ($1, $1, 'read', 'success', 200, 'GET', '/x')`, [old]);
    await maintainPartitions(p.db, now, 6);
    expect((await p.db.query('SELECT 1 FROM audit_log WHERE at = $1', [old])).rows).toHaveLength(1);
    expect((await p.db.query('SELECT 1 FROM audit_log_default')).rows).toHaveLength(0);
  });
});

test('retention: whole months older than the retention go, never one within six months; a shorter setting stops the start', () => {
  const now = new Date(Date.UTC(2026, 10, 26));
  const names = ['audit_log_202604', 'audit_log_202605', 'audit_log_202606', 'audit_log_202611', 'audit_log_default'];
  // November 2026 with 6 months: May 2026 is the oldest month kept, April ended more than six months ago.
  expect(expiredPartitions(names, 6, now)).toEqual(['audit_log_202604']);
  expect(expiredPartitions(names, 12, now)).toEqual([]);
  expect(expiredPartitions(names, 0, now)).toEqual([]);
  expect(() => loadConfig({ AUDIT_RETENTION_MONTHS: '3' })).toThrow(/at least 6/);
  expect(loadConfig({}).audit.retentionMonths).toBeGreaterThanOrEqual(6);
});

test('a route that declares no audit stops the app from starting', async () => {
  const app = Fastify({ logger: false });
  app.decorate('config', loadConfig({}));
  app.decorate('background', new Background());
  await app.register(fp(async (f) => f.decorate('spaFallback', () => undefined as never)));
  await app.register(platform, { appIds: ['x'] });
  await app.register(auth);
  await app.register(audit);
  expect(() => app.get('/api/forgotten/v1/thing', { config: { session: true } }, async () => ({ status: '0' }))).toThrow(/declare config.audit/);
  expect(() => app.get('/api/forgotten/v1/other', { config: { session: true, audit: { action: 'read', object: 'exam', patient: 'exam' } } }, async () => ({}))).toThrow(
    /needs the object's id/,
  );
  await app.close().catch(() => undefined);
});
