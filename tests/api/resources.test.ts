/**
 * Administration resources through the API (list/detail/save/delete/options):
 * - departments: create, duplicate code BDT101, filter, update, delete, in use BDT003
 * - users: create with a membership (then log in), duplicate mobile UCENTER009, field
 *   validation naming the field, disabling ends the user's sessions; signature picture rules
 * - roles: no granting beyond one's own rights (UAA103) or data (PACS006), in use UCENTER203
 * - organisations: a parent (field error) of the right kind (UCENTER105), duplicate name UCENTER102,
 *   delete with members UCENTER107, options by kind within the scope
 */
import { signaturePng as png } from '../support/images';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';


describe.each(dbKinds)('administration resources on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let orgs: Record<string, number>;
  const call = (method: 'GET' | 'POST', url: string, payload?: object, token = admin) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    admin = await login(p.app, '13800000001');
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
  });
  afterAll(() => p.close());

  test('departments: create, duplicate, filter, update, delete', async () => {
    const created = await call('POST', '/api/bdt/v1/department/save', { hospitalId: orgs.HOSP_A, code: 'CT01', name: 'CT室', shortcut: 'CTS' });
    expect(created.body.status).toBe('0');
    expect(created.body.data).toMatchObject({ hospitalId: orgs.HOSP_A, code: 'CT01', name: 'CT室', hospitalName: '第一乡镇卫生院' });
    const dup = await call('POST', '/api/bdt/v1/department/save', { hospitalId: orgs.HOSP_A, code: 'CT01', name: '另一个' });
    expect(dup).toMatchObject({ code: 409, body: { status: 'BDT101' } });
    const list = await call('POST', '/api/bdt/v1/department/list', { filters: { name: 'CT', hospitalId: orgs.HOSP_A } });
    expect(list.body.data.total).toBe(1);
    const id = created.body.data.id;
    const updated = await call('POST', '/api/bdt/v1/department/save', { id, hospitalId: orgs.HOSP_A, code: 'CT01', name: 'CT检查室' });
    expect(updated.body.data.name).toBe('CT检查室');
    expect(updated.body.data.shortcut).toBeUndefined();
    expect((await call('POST', `/api/bdt/v1/department/delete/${id}`)).body.status).toBe('0');
    expect((await call('GET', `/api/bdt/v1/department/detail/${id}`)).body.status).toBe('BDT104');
    const used = (await p.db.query<{ id: number }>("SELECT department_id AS id FROM user_membership WHERE department_id IS NOT NULL LIMIT 1")).rows[0].id;
    expect((await call('POST', `/api/bdt/v1/department/delete/${used}`)).body.status).toBe('BDT003');
  });

  test('users: create, log in, duplicates and field errors, disable ends sessions', async () => {
    const roleId = (await p.db.query<{ id: number }>("SELECT id FROM role WHERE name = '报告医生'")).rows[0].id;
    const user = { mobile: '13600000001', name: '新医生', username: 'newdoctor1', status: 1, sex: 1, title: 2, memberships: [{ hospitalId: orgs.HOSP_B, roleId }], password: 'Start#2026' };
    const created = await call('POST', '/api/ucenter/v1/user/save', user);
    expect(created.body.status).toBe('0');
    expect(created.body.data).toMatchObject({ mobile: '13600000001', hospitalNames: '第二乡镇卫生院', roleNames: '报告医生', memberships: [{ hospitalId: orgs.HOSP_B, roleId }] });
    expect(created.body.data.password).toBeUndefined();
    const token = await login(p.app, '13600000001', 'Start#2026');

    expect((await call('POST', '/api/ucenter/v1/user/save', { ...user, username: 'another01' })).body.status).toBe('UCENTER009');
    const badMobile = await call('POST', '/api/ucenter/v1/user/save', { ...user, mobile: '1234' });
    expect(badMobile).toMatchObject({ code: 400, body: { status: 'UAA421', field: 'mobile' } });
    const noPassword = await call('POST', '/api/ucenter/v1/user/save', { ...user, mobile: '13600000002', username: 'another02', password: undefined });
    expect(noPassword.body).toMatchObject({ status: 'UAA421', field: 'password' });
    const noMembership = await call('POST', '/api/ucenter/v1/user/save', { ...user, mobile: '13600000003', memberships: [] });
    expect(noMembership.body).toMatchObject({ status: 'UAA421', field: 'memberships' });

    const disabled = await call('POST', '/api/ucenter/v1/user/save', { ...user, id: created.body.data.id, password: undefined, status: 0 });
    expect(disabled.body.data.status).toBe(0);
    const after = await p.app.inject({ method: 'GET', url: '/api/uaa/v1/user/info', headers: authed(token) });
    expect(after.json().status).toBe('UAA005');
  });

  test('signature pictures: PNG or JPG, at most 1 MB, exactly 200x130', async () => {
    const id = (await p.db.query<{ id: number }>("SELECT id FROM app_user WHERE mobile = '13800000004'")).rows[0].id;
    // Through the file service (purpose signature, owned by the user); the user's record points at it.
    const send = (bytes: Buffer) =>
      p.app
        .inject({ method: 'POST', url: `/api/file/v1/upload?purpose=signature&ownerId=${id}&name=s.png`, headers: authed(admin, { 'content-type': 'image/png' }), payload: bytes })
        .then((r) => ({ code: r.statusCode, body: r.json() }));
    expect((await send(png(200, 130))).body.status).toBe('0');
    const back = await p.app.inject({ method: 'GET', url: `/api/ucenter/v1/user/signature/${id}`, headers: authed(admin) });
    expect(back.headers['content-type']).toBe('image/png');
    expect(back.rawPayload.equals(png(200, 130))).toBe(true);
    expect((await send(png(201, 130))).body).toMatchObject({ status: 'UAA421', field: 'file' });
    expect((await send(Buffer.from('GIF89a....................'))).body.status).toBe('UCENTER703');
    expect((await call('GET', `/api/ucenter/v1/user/detail/${id}`)).body.data.hasSignature).toBe(true);
  });

  test('roles: no granting beyond one’s own rights; a role in use cannot be deleted', async () => {
    const role = await call('POST', '/api/ucenter/v1/role/save', { name: '系统管理员A', dataScope: 'own', permissions: { 'system.user': ['view', 'add', 'edit'], 'system.role': ['view', 'add', 'edit'], bogus: ['x'] } });
    expect(role.body.data.permissions).toEqual({ 'system.user': ['view', 'add', 'edit'], 'system.role': ['view', 'add', 'edit'] });
    await call('POST', '/api/ucenter/v1/user/save', { mobile: '13600000009', name: '院管', status: 1, memberships: [{ hospitalId: orgs.HOSP_A, roleId: role.body.data.id }], password: 'Admin#2026' });
    const hospitalAdmin = await login(p.app, '13600000009', 'Admin#2026');
    const escalate = await call('POST', '/api/ucenter/v1/role/save', { name: '越权', dataScope: 'own', permissions: { report: ['write'] } }, hospitalAdmin);
    expect(escalate).toMatchObject({ code: 403, body: { status: 'UAA103' } });
    const allData = await call('POST', '/api/ucenter/v1/role/save', { name: '全部数据', dataScope: 'all', permissions: {} }, hospitalAdmin);
    expect(allData.body.status).toBe('PACS006');
    expect((await call('POST', `/api/ucenter/v1/role/delete/${role.body.data.id}`)).body.status).toBe('UCENTER203');
    expect((await call('POST', '/api/ucenter/v1/role/save', { name: '系统管理员A', dataScope: 'own' })).body.status).toBe('UCENTER202');
  });

  test('organisations: parent kind, duplicates, delete rules, options', async () => {
    const orphan = await call('POST', '/api/ucenter/v1/org/save', { code: 'HOSP_C', name: '第三卫生院', kind: 'subordinate' });
    expect(orphan.body).toMatchObject({ status: 'UAA421', field: 'parentId' });
    const wrongParent = await call('POST', '/api/ucenter/v1/org/save', { code: 'HOSP_C', name: '第三卫生院', kind: 'subordinate', parentId: orgs.REGION });
    expect(wrongParent.body.status).toBe('UCENTER105');
    const c = await call('POST', '/api/ucenter/v1/org/save', { code: 'HOSP_C', name: '第三卫生院', kind: 'subordinate', parentId: orgs.CENTRAL, uploadIp: '10.1.2.3' });
    expect(c.body.data).toMatchObject({ code: 'HOSP_C', parentName: '县中心医院', uploadIp: '10.1.2.3' });
    expect((await call('POST', '/api/ucenter/v1/org/save', { code: 'HOSP_D', name: '第三卫生院', kind: 'subordinate', parentId: orgs.CENTRAL })).body.status).toBe('UCENTER102');
    const badIp = await call('POST', '/api/ucenter/v1/org/save', { code: 'HOSP_D', name: '第四卫生院', kind: 'subordinate', parentId: orgs.CENTRAL, uploadIp: '999.1.1.1' });
    expect(badIp.body).toMatchObject({ status: 'UAA421', field: 'uploadIp' });
    expect((await call('POST', `/api/ucenter/v1/org/delete/${orgs.HOSP_A}`)).body.status).toBe('UCENTER107');
    expect((await call('POST', `/api/ucenter/v1/org/delete/${orgs.CENTRAL}`)).body.status).toBe('UCENTER103');
    expect((await call('POST', `/api/ucenter/v1/org/delete/${c.body.data.id}`)).body.status).toBe('0');
    const subs = await call('GET', '/api/ucenter/v1/org/options?kind=subordinate');
    expect(subs.body.data.map((o: { label: string }) => o.label)).toEqual(['第一乡镇卫生院', '第二乡镇卫生院']);
    const list = await call('POST', '/api/ucenter/v1/org/list', { filters: { kind: 'central' } });
    expect(list.body.data.list.map((o: { code: string }) => o.code)).toEqual(['CENTRAL']);
  });
});
