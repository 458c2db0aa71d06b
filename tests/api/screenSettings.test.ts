/**
 * Screen settings through the API (server/routes/screenSettings.ts):
 * - a user's list settings: null before the first save, then what was saved; another
 *   user does not see them; the common settings of user info are untouched
 * - invalid payloads: 400 UAA421 naming the field (wrong type, unknown module pattern,
 *   too many columns)
 * - a bespoke screen's panes (the report page: split shares and the viewer's panels):
 *   saved and read back; a share over 100 refused, an unknown panel dropped
 * - a hospital's form layout: saving needs reportPage:edit (a radiologist is refused),
 *   everyone of that hospital reads it, another hospital does not; a field in two
 *   groups is refused; no hospital chosen reads null
 */
import { hashPassword } from '../../server/identity/passwords';
import { dbKinds } from '../support/db';
import { appHeaders, startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

const PASSWORD = 'Layout#2026';

describe.each(dbKinds)('screen settings on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let orgs: Record<string, number>;
  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    admin = await login(p.app, '13800000001');
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
  });
  afterAll(() => p.close());

  test('user list settings: null first, then what was saved, per user', async () => {
    expect((await call('GET', '/api/ucenter/v1/user/config/user', admin)).body).toEqual({ status: '0', data: null });
    const value = {
      columns: [
        { key: 'name', show: true, order: 1, fixed: 'left' },
        { key: 'workNo', show: false, order: 2 },
      ],
      query: [
        { key: 'status', show: true },
        { key: 'name', show: false },
      ],
    };
    const saved = await call('POST', '/api/ucenter/v1/user/config', admin, { module: 'user', value });
    expect(saved).toEqual({ code: 200, body: { status: '0', data: value } });
    expect((await call('GET', '/api/ucenter/v1/user/config/user', admin)).body.data).toEqual(value);
    // Saving again replaces the whole value.
    await call('POST', '/api/ucenter/v1/user/config', admin, { module: 'user', value: { query: [{ key: 'name', show: true }] } });
    expect((await call('GET', '/api/ucenter/v1/user/config/user', admin)).body.data).toEqual({ query: [{ key: 'name', show: true }] });

    const doctor = await login(p.app, '13800000004');
    expect((await call('GET', '/api/ucenter/v1/user/config/user', doctor)).body.data).toBeNull();
    expect((await call('GET', '/api/ucenter/v1/user/config/department', admin)).body.data).toBeNull();

    // A view named like a common setting does not overwrite that setting.
    await call('POST', '/api/ucenter/v1/user/config', admin, { module: 'refresh', value: { columns: [] } });
    const info = await call('GET', '/api/uaa/v1/user/info', admin);
    expect(info.body.data.setting.refresh).toEqual({ duration: 5 });

    const anonymous = await p.app.inject({ method: 'GET', url: '/api/ucenter/v1/user/config/user', headers: appHeaders });
    expect(anonymous.json()).toMatchObject({ status: 'UAA005' });
  });

  test('invalid settings: 400 UAA421 naming the field', async () => {
    const bad = (body: object) => call('POST', '/api/ucenter/v1/user/config', admin, body);
    expect(await bad({ module: 'user', value: { columns: [{ key: 'name', show: 'maybe' }] } })).toMatchObject({
      code: 400,
      body: { status: 'UAA421', field: 'value.columns.0.show' },
    });
    expect((await bad({ module: 'user', value: { columns: [{ key: 'name' }] } })).body).toMatchObject({ status: 'UAA421', field: 'value.columns.0.show' });
    expect((await bad({ module: '../etc', value: {} })).body).toMatchObject({ status: 'UAA421', field: 'module' });
    const many = Array.from({ length: 101 }, (_, i) => ({ key: `c${i}`, show: true }));
    expect((await bad({ module: 'user', value: { columns: many } })).body).toMatchObject({ status: 'UAA421', field: 'value.columns' });
    expect((await bad({ module: 'user', value: { columns: [{ key: 'a b', show: true }] } })).body).toMatchObject({
      status: 'UAA421',
      field: 'value.columns.0.key',
    });
    const wrongPath = await call('GET', `/api/ucenter/v1/user/config/${'x'.repeat(65)}`, admin);
    expect(wrongPath).toMatchObject({ code: 400, body: { status: 'UAA421', field: 'module' } });
  });

  test("the report page's panes: split shares and panels saved and read back; odd values refused", async () => {
    const value = { panes: { sizes: [55, 27, 18], series: true, measurements: false } };
    expect((await call('POST', '/api/ucenter/v1/user/config', admin, { module: 'reportDetail', value })).body.status).toBe('0');
    expect((await call('GET', '/api/ucenter/v1/user/config/reportDetail', admin)).body.data).toEqual(value);
    const bad = (panes: object) => call('POST', '/api/ucenter/v1/user/config', admin, { module: 'reportDetail', value: { panes } });
    expect((await bad({ sizes: [150, 0, 0] })).body).toMatchObject({ status: 'UAA421', field: 'value.panes.sizes.0' });
    expect((await call('GET', '/api/ucenter/v1/user/config/reportDetail', admin)).body.data).toEqual(value);
    // An unknown panel is dropped, as every body's unknown property is.
    expect((await bad({ sizes: [55, 45], thumbnails: true })).body.status).toBe('0');
    expect((await call('GET', '/api/ucenter/v1/user/config/reportDetail', admin)).body.data).toEqual({ panes: { sizes: [55, 45] } });
  });

  test('form layouts: reportPage:edit to save, per hospital, read by its members', async () => {
    // One account with the administrator role in both hospitals A and B.
    const adminRole = (await p.db.query<{ id: number }>("SELECT id FROM role WHERE name = '区域管理员'")).rows[0].id;
    const u = await p.db.query<{ id: number }>(
      "INSERT INTO app_user (mobile, name, status, password_hash) VALUES ('13700000021', '两院管理员', 1, $1) RETURNING id",
      [await hashPassword(PASSWORD)],
    );
    for (const [i, code] of ['HOSP_A', 'HOSP_B'].entries()) {
      await p.db.query('INSERT INTO user_membership (user_id, hospital_id, role_id, position) VALUES ($1, $2, $3, $4)', [
        u.rows[0].id,
        orgs[code],
        adminRole,
        i,
      ]);
    }
    const editorA = await login(p.app, '13700000021', PASSWORD, { hospitalId: orgs.HOSP_A });
    const layout = {
      groups: [
        { key: 'basic', fields: ['name', 'mobile'] },
        { key: 'dataScope', fields: ['workNo', 'dataScope'] },
      ],
    };

    expect((await call('GET', '/api/ucenter/v1/org/config/user', editorA)).body.data).toBeNull();
    expect((await call('POST', '/api/ucenter/v1/org/config', editorA, { module: 'user', value: layout })).body).toEqual({
      status: '0',
      data: layout,
    });
    expect((await call('GET', '/api/ucenter/v1/org/config/user', editorA)).body.data).toEqual(layout);

    // A radiologist of hospital A reads it but may not change it (no reportPage:edit).
    const doctorA = await login(p.app, '13800000004');
    expect((await call('GET', '/api/ucenter/v1/org/config/user', doctorA)).body.data).toEqual(layout);
    expect(await call('POST', '/api/ucenter/v1/org/config', doctorA, { module: 'user', value: layout })).toMatchObject({
      code: 403,
      body: { status: 'UAA103' },
    });

    // Hospital B has its own (none yet); the central hospital's senior doctor sees none either.
    const editorB = await login(p.app, '13700000021', PASSWORD, { hospitalId: orgs.HOSP_B });
    expect((await call('GET', '/api/ucenter/v1/org/config/user', editorB)).body.data).toBeNull();
    expect((await call('GET', '/api/ucenter/v1/org/config/user', await login(p.app, '13800000005'))).body.data).toBeNull();
    const layoutB = { groups: [{ key: 'basic', fields: ['mobile'] }] };
    await call('POST', '/api/ucenter/v1/org/config', editorB, { module: 'user', value: layoutB });
    expect((await call('GET', '/api/ucenter/v1/org/config/user', editorB)).body.data).toEqual(layoutB);
    expect((await call('GET', '/api/ucenter/v1/org/config/user', editorA)).body.data).toEqual(layout);

    // Not chosen a hospital yet: nothing to read.
    const undecided = await login(p.app, '13700000021', PASSWORD);
    expect((await call('GET', '/api/ucenter/v1/org/config/user', undecided)).body).toEqual({ status: '0', data: null });

    const twice = {
      groups: [
        { key: 'basic', fields: ['name'] },
        { key: 'other', fields: ['name'] },
      ],
    };
    expect(await call('POST', '/api/ucenter/v1/org/config', editorA, { module: 'user', value: twice })).toMatchObject({
      code: 400,
      body: { status: 'UAA421', field: 'value.groups' },
    });
    expect((await call('POST', '/api/ucenter/v1/org/config', editorA, { module: 'user', value: { groups: [] } })).body).toMatchObject({
      status: 'UAA421',
      field: 'value.groups',
    });
    expect(
      (await call('POST', '/api/ucenter/v1/org/config', editorA, { module: 'user', value: { groups: [{ key: 'Basic!', fields: [] }] } }))
        .body,
    ).toMatchObject({
      status: 'UAA421',
      field: 'value.groups.0.key',
    });

    // Saving twice kept one row per hospital and form.
    const { rows } = await p.db.query<{ n: number }>('SELECT count(*)::int AS n FROM org_setting WHERE org_id = $1', [orgs.HOSP_A]);
    expect(rows[0].n).toBe(1);
  });
});
