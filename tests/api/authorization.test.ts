/**
 * Authorization of every /api route, walked from the app's own route registry, so a
 * route added later is covered without editing this file:
 * - without a token: 401 UAA005 (public routes excepted)
 * - with a role that has no rights: 403 UAA103 on every route that names a permission
 * - session-only routes let any logged-in caller through the gate
 * - routes reading one row by id: a hospital administrator (own-hospital data scope)
 *   asking for another hospital's user, organisation or department gets 404/403, never the row
 * - routes changing what the region shares: a caller with every right but own-hospital
 *   scope gets 403 PACS006 on each
 * - a route declaring no access rule stops the app from starting
 */
import Fastify from 'fastify';
import fp from 'fastify-plugin';
import auth from '../../server/plugins/auth';
import platform from '../../server/plugins/platform';
import { allPermissions } from '../../server/identity/access';
import { hashPassword } from '../../server/identity/passwords';
import { syntheticSeries } from '../../mock/dicom';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

const PASSWORD = 'Probe#2026';

function fillParams(url: string, id: number): string {
  return url.replace(/:id\b/g, String(id)).replace(/:mobile\b/g, '13800000001').replace(/:(\w+)/g, '1');
}

describe.each(dbKinds)('route authorization on %s', (kind) => {
  let p: TestPlatform;
  let nobody: string;
  let hospitalAdmin: string;
  let insider: string;
  const foreign: Record<string, { id: number; secret: string }> = {};

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    const q = p.db;
    const orgs = Object.fromEntries((await q.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    const systemOnly = Object.fromEntries(Object.entries(allPermissions()).filter(([m]) => m.startsWith('system.')));
    const roles = await q.query<{ id: number }>(
      `INSERT INTO role (name, permissions, data_scope) VALUES ('probe-nobody', '{}'::jsonb, 'own'), ('probe-hospital-admin', $1::jsonb, 'own') RETURNING id`,
      [JSON.stringify(systemOnly)],
    );
    const hash = await hashPassword(PASSWORD);
    for (const [mobile, roleId] of [['13700000001', roles.rows[0].id], ['13700000002', roles.rows[1].id]] as const) {
      const u = await q.query<{ id: number }>(`INSERT INTO app_user (mobile, name, status, password_hash) VALUES ($1, $1, 1, $2) RETURNING id`, [mobile, hash]);
      await q.query('INSERT INTO user_membership (user_id, hospital_id, role_id) VALUES ($1, $2, $3)', [u.rows[0].id, orgs.HOSP_A, roleId]);
    }
    nobody = await login(p.app, '13700000001', PASSWORD);
    hospitalAdmin = await login(p.app, '13700000002', PASSWORD);
    // Every right, own-hospital data: a subordinate hospital's IT administrator.
    const everything = await q.query<{ id: number }>(`INSERT INTO role (name, permissions, data_scope) VALUES ('probe-insider', $1::jsonb, 'own') RETURNING id`, [
      JSON.stringify(allPermissions()),
    ]);
    const u = await q.query<{ id: number }>(`INSERT INTO app_user (mobile, name, status, password_hash) VALUES ('13700000003', 'insider', 1, $1) RETURNING id`, [hash]);
    await q.query('INSERT INTO user_membership (user_id, hospital_id, role_id) VALUES ($1, $2, $3)', [u.rows[0].id, orgs.HOSP_A, everything.rows[0].id]);
    insider = await login(p.app, '13700000003', PASSWORD);

    // Rows of the central hospital that hospital A must not read.
    const senior = await q.query<{ id: number; mobile: string }>("SELECT id, mobile FROM app_user WHERE mobile = '13800000005'");
    foreign.user = { id: senior.rows[0].id, secret: senior.rows[0].mobile };
    foreign.org = { id: orgs.CENTRAL, secret: '县中心医院' };
    const dept = await q.query<{ id: number; code: string }>('SELECT id, code FROM department WHERE hospital_id = $1 LIMIT 1', [orgs.CENTRAL]);
    foreign.department = { id: dept.rows[0].id, secret: `"hospitalId":${orgs.CENTRAL}` };
    const device = await q.query<{ id: number; ae: string }>('SELECT id, ae_title AS ae FROM device WHERE hospital_id = $1 LIMIT 1', [orgs.CENTRAL]);
    foreign.device = { id: device.rows[0].id, secret: device.rows[0].ae };
    const item = await q.query<{ id: number }>('SELECT id FROM exam_item WHERE hospital_id = $1 LIMIT 1', [orgs.CENTRAL]);
    foreign.examItem = { id: item.rows[0].id, secret: `"hospitalId":${orgs.CENTRAL}` };
    const rule = await q.query<{ id: number }>('SELECT id FROM schedule_rule WHERE hospital_id = $1 LIMIT 1', [orgs.CENTRAL]);
    foreign.scheduleRule = { id: rule.rows[0].id, secret: `"hospitalId":${orgs.CENTRAL}` };
    const his = await q.query<{ id: number }>("INSERT INTO his_interface (hospital_id, name, url) VALUES ($1, 'FOREIGN-HIS', 'http://10.0.0.9/his') RETURNING id", [orgs.CENTRAL]);
    foreign.hisInterface = { id: his.rows[0].id, secret: 'FOREIGN-HIS' };
    const weight = await q.query<{ id: number }>("INSERT INTO workload_weight (hospital_id, organ_id, coefficient, remark) VALUES ($1, (SELECT min(id) FROM organ), 2, 'FOREIGN-WEIGHT') RETURNING id", [orgs.CENTRAL]);
    foreign.workloadWeight = { id: weight.rows[0].id, secret: 'FOREIGN-WEIGHT' };
    const limit = await q.query<{ id: number }>("INSERT INTO turnaround_limit (hospital_id, minutes, remark) VALUES ($1, 45, 'FOREIGN-LIMIT') RETURNING id", [orgs.CENTRAL]);
    foreign.turnaroundLimit = { id: limit.rows[0].id, secret: 'FOREIGN-LIMIT' };
    const calendar = await q.query<{ id: number }>("INSERT INTO work_calendar (hospital_id, remark) VALUES ($1, 'FOREIGN-CALENDAR') RETURNING id", [orgs.CENTRAL]);
    foreign.workCalendar = { id: calendar.rows[0].id, secret: 'FOREIGN-CALENDAR' };
    // A consultation expert of the central hospital (mock/consult.ts).
    const expert = await q.query<{ id: number; mobile: string }>('SELECT id, mobile FROM expert WHERE hospital_id = $1 AND user_id IS NULL LIMIT 1', [orgs.CENTRAL]);
    foreign.expert = { id: expert.rows[0].id, secret: expert.rows[0].mobile };
    const exam = await q.query<{ id: number; code: string }>('SELECT id, exam_code AS code FROM exam WHERE hospital_id = $1 LIMIT 1', [orgs.CENTRAL]);
    foreign.exam = { id: exam.rows[0].id, secret: exam.rows[0].code };
    const send = await q.query<{ id: number }>(
      "INSERT INTO send_job (exam_id, hospital_id, destination_id, destination_name) VALUES ($1, $2, $3, 'FOREIGN-SEND') RETURNING id",
      [exam.rows[0].id, orgs.CENTRAL, device.rows[0].id],
    );
    foreign['exam/send'] = { id: send.rows[0].id, secret: 'FOREIGN-SEND' };
    // A central-hospital report (a report is addressed by its exam's id) and public template.
    const report = await q.query<{ id: number; code: string }>('SELECT r.id, e.exam_code AS code FROM report r JOIN exam e ON e.id = r.id WHERE e.hospital_id = $1 LIMIT 1', [orgs.CENTRAL]);
    foreign.report = { id: report.rows[0].id, secret: report.rows[0].code };
    // A critical-value notice about that report.
    const crisis = await q.query<{ id: number }>(
      "INSERT INTO report_crisis (report_id, hospital_id, description, reported_by_name) VALUES ($1, $2, 'FOREIGN-CRISIS', 'x') RETURNING id",
      [report.rows[0].id, orgs.CENTRAL],
    );
    foreign.crisisValue = { id: crisis.rows[0].id, secret: 'FOREIGN-CRISIS' };
    const template = await q.query<{ id: number; name: string }>("SELECT id, template_name AS name FROM report_template WHERE scope = 'public' AND hospital_id = $1 LIMIT 1", [orgs.CENTRAL]);
    foreign.template = { id: template.rows[0].id, secret: `"id":${template.rows[0].id},` };
    // A study received from a central-hospital device.
    const study = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.401', count: 1, patientId: 'FOREIGN-STUDY' });
    const stored = await p.app.archive.storeBuffer(study.instances[0].bytes, { hospitalId: orgs.CENTRAL, sender: 'C_CT1' });
    foreign.study = { id: stored.studyId, secret: 'FOREIGN-STUDY' };
    // An audit record of the central hospital.
    const auditRow = await q.query<{ id: string }>(
      "INSERT INTO audit_log (at, last_at, hospital_id, action, outcome, http_status, method, route, object_id) VALUES (now(), now(), $1, 'read', 'success', 200, 'GET', '/x', 'FOREIGN-AUDIT') RETURNING id",
      [orgs.CENTRAL],
    );
    foreign.auditLog = { id: Number(auditRow.rows[0].id), secret: 'FOREIGN-AUDIT' };
  });
  afterAll(() => p.close());

  test('the registry lists the API (sanity: the walk below is not empty)', () => {
    expect(p.app.apiRoutes.length).toBeGreaterThan(20);
    expect(p.app.apiRoutes.some((r) => r.url === '/api/uaa/v1/login' && r.access.public)).toBe(true);
  });

  test('every non-public route refuses a request without a token', async () => {
    const wrong: string[] = [];
    for (const route of p.app.apiRoutes.filter((r) => !r.access.public)) {
      const r = await p.app.inject({ method: route.method as 'GET', url: fillParams(route.url, 1), headers: { 'x-app-id': 'rcloud-doctor' }, payload: route.method === 'GET' ? undefined : {} });
      if (r.statusCode !== 401 || r.json().status !== 'UAA005') wrong.push(`${route.method} ${route.url} → ${r.statusCode} ${r.body.slice(0, 80)}`);
    }
    expect(wrong).toEqual([]);
  });

  test('every route with a permission refuses a role without it; session routes let it through', async () => {
    const wrong: string[] = [];
    for (const route of p.app.apiRoutes.filter((r) => !r.access.public)) {
      const r = await p.app.inject({ method: route.method as 'GET', url: fillParams(route.url, 1), headers: authed(nobody), payload: route.method === 'GET' ? undefined : {} });
      const status = r.headers['content-type']?.toString().includes('json') ? r.json().status : undefined;
      if (route.access.permission) {
        if (r.statusCode !== 403 || status !== 'UAA103') wrong.push(`${route.method} ${route.url} → ${r.statusCode} ${status}`);
      } else if (r.statusCode === 401 || status === 'UAA103') {
        wrong.push(`${route.method} ${route.url} (session) → ${r.statusCode} ${status}`);
      }
      // The logout route would end the probe's session; log in again after it.
      if (route.url.endsWith('/logout') || route.url.endsWith('/password/update')) nobody = await login(p.app, '13700000001', PASSWORD);
    }
    expect(wrong).toEqual([]);
  });

  test("routes reading a row by id never return another hospital's row", async () => {
    const scopedRoutes = p.app.apiRoutes.filter((r) => r.access.scoped);
    expect(scopedRoutes.length).toBeGreaterThan(5);
    const wrong: string[] = [];
    for (const route of scopedRoutes) {
      const target = foreign[route.access.scoped!.resource];
      if (!target) {
        wrong.push(`${route.method} ${route.url}: no foreign row for resource ${route.access.scoped!.resource} in this test`);
        continue;
      }
      const payload = route.method === 'GET' ? undefined : {};
      const r = await p.app.inject({ method: route.method as 'GET', url: fillParams(route.url, target.id), headers: authed(hospitalAdmin), payload });
      if (![403, 404].includes(r.statusCode) || r.body.includes(target.secret)) wrong.push(`${route.method} ${route.url} → ${r.statusCode} ${r.body.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
    // The same administrator does read its own hospital's rows.
    const own = await p.db.query<{ id: number }>("SELECT d.id FROM department d JOIN org o ON o.id = d.hospital_id WHERE o.code = 'HOSP_A' LIMIT 1");
    const mine = await p.app.inject({ method: 'GET', url: `/api/bdt/v1/department/detail/${own.rows[0].id}`, headers: authed(hospitalAdmin) });
    expect(mine.json().status).toBe('0');
  });

  test('routes changing what the region shares refuse a caller without region scope', async () => {
    const regionRoutes = p.app.apiRoutes.filter((r) => r.access.regionScope);
    expect(regionRoutes.length).toBeGreaterThan(8);
    const wrong: string[] = [];
    for (const route of regionRoutes) {
      const r = await p.app.inject({ method: route.method as 'GET', url: fillParams(route.url, 1), headers: authed(insider), payload: route.method === 'GET' ? undefined : {} });
      if (r.statusCode !== 403 || r.json().status !== 'PACS006') wrong.push(`${route.method} ${route.url} → ${r.statusCode} ${r.body.slice(0, 80)}`);
    }
    expect(wrong).toEqual([]);
  });

  test('lists are cut to the data scope', async () => {
    const r = await p.app.inject({ method: 'POST', url: '/api/ucenter/v1/user/list', headers: authed(hospitalAdmin), payload: { pageSize: 100 } });
    const mobiles = r.json().data.list.map((u: { mobile: string }) => u.mobile);
    expect(mobiles).toEqual(expect.arrayContaining(['13800000002', '13800000007']));
    expect(mobiles).not.toContain('13800000005');
    expect(mobiles).not.toContain('13800000001');
    const admin = await login(p.app, '13800000001');
    const all = await p.app.inject({ method: 'POST', url: '/api/ucenter/v1/user/list', headers: authed(admin), payload: { pageSize: 100 } });
    expect(all.json().data.list.map((u: { mobile: string }) => u.mobile)).toContain('13800000005');
  });
});

test('a route that declares no access rule stops the app from starting', async () => {
  const app = Fastify({ logger: false });
  await app.register(fp(async (f) => f.decorate('spaFallback', () => undefined as never)));
  await app.register(platform, { appIds: ['x'] });
  await app.register(auth);
  expect(() => app.get('/api/forgotten/v1/thing', async () => ({ status: '0' }))).toThrow(/declare exactly one of/);
  await app.close().catch(() => undefined);
});
