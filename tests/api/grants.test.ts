/**
 * No one grants what they do not hold (issue 16), tried as the hostile insider: hospital
 * A's IT administrator, with every right but own-hospital data scope. Each chain of the
 * issue is refused with its catalogue code and changes nothing:
 * - the SMS outbox: demo mode only (UAA102 otherwise), region scope only (UAA105)
 * - user/save giving the regional administrator's role (PACS006)
 * - role/save widening its own role's regional authorization (UCENTER204), or another
 *   role's beyond its hospitals (PACS006); the user list stays hospital A's
 * - user/save changing the password, mobile or status of a user who is also a member of
 *   the central hospital (PACS006); the central membership is kept whatever is sent;
 *   delete, unlock and signature of that user likewise
 * - region-owned roles and settings (a role used by several hospitals, grade safety,
 *   dictionaries and their import, exam parts, QC rules) (PACS006), their lists read-only
 * And what still works: the region's administrator does all of it; the hospital's
 * administrator manages hospital A's users with roles within its own rights, and its
 * hospital's own roles (other hospitals' roles it does not see).
 */
import { allPermissions } from '../../server/identity/access';
import { verifyPassword } from '../../server/identity/passwords';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

const INSIDER = { mobile: '13600000016', password: 'Insider#2026' };

describe.each(dbKinds)('grants on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let insider: string;
  let insiderRoleId: number;
  let orgs: Record<string, number>;
  let roles: Record<string, number>;
  const call = (method: 'GET' | 'POST', url: string, payload?: object, token = insider) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const userId = async (mobile: string) => (await p.db.query<{ id: number }>('SELECT id FROM app_user WHERE mobile = $1', [mobile])).rows[0].id;
  const memberships = async (id: number) =>
    (await p.db.query<{ hospital_id: number; role_id: number }>('SELECT hospital_id, role_id FROM user_membership WHERE user_id = $1 ORDER BY hospital_id', [id])).rows;

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    admin = await login(p.app, '13800000001');
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    roles = Object.fromEntries((await p.db.query<{ name: string; id: number }>('SELECT name, id FROM role')).rows.map((r) => [r.name, r.id]));
    // The region gives hospital A's IT administrator a role of hospital A with every right.
    const role = await call('POST', '/api/ucenter/v1/role/save', { name: 'A院信息科', dataScope: 'own', permissions: allPermissions(), ownerHospitalId: orgs.HOSP_A }, admin);
    expect(role.body.data.ownerHospitalId).toBe(orgs.HOSP_A);
    insiderRoleId = role.body.data.id;
    const user = { mobile: INSIDER.mobile, name: '信息科', status: 1, password: INSIDER.password, memberships: [{ hospitalId: orgs.HOSP_A, roleId: insiderRoleId }] };
    expect((await call('POST', '/api/ucenter/v1/user/save', user, admin)).body.status).toBe('0');
    insider = await login(p.app, INSIDER.mobile, INSIDER.password);
  });
  afterAll(() => p.close());

  test('the SMS outbox: demo mode only, for region-scope administrators only', async () => {
    await p.db.query("INSERT INTO sms_outbox (mobile, text, provider, status) VALUES ('13800000001', '验证码 654321', 'log', 'logged')");
    const refused = await call('GET', '/api/uaa/v1/sms/outbox');
    expect(refused).toMatchObject({ code: 403, body: { status: 'UAA105' } });
    expect(JSON.stringify(refused.body)).not.toContain('654321');
    const read = await call('GET', '/api/uaa/v1/sms/outbox?mobile=13800000001', undefined, admin);
    expect(read.body.data[0].text).toContain('654321');
    // Without demo data (a production install) there is no outbox at all.
    p.app.config.seedDemo = false;
    try {
      expect(await call('GET', '/api/uaa/v1/sms/outbox', undefined, admin)).toMatchObject({ code: 404, body: { status: 'UAA102' } });
    } finally {
      p.app.config.seedDemo = true;
    }
  });

  test('user/save does not give the regional administrator’s role', async () => {
    const created = await call('POST', '/api/ucenter/v1/user/save', {
      mobile: '13600000017',
      name: '冒充者',
      status: 1,
      password: 'Start#2026',
      memberships: [{ hospitalId: orgs.HOSP_A, roleId: roles['区域管理员'] }],
    });
    expect(created).toMatchObject({ code: 403, body: { status: 'PACS006' } });
    expect((await p.db.query("SELECT 1 FROM app_user WHERE mobile = '13600000017'")).rowCount).toBe(0);
    const clerk = await userId('13800000002');
    const detail = (await call('GET', `/api/ucenter/v1/user/detail/${clerk}`)).body.data;
    const promoted = await call('POST', '/api/ucenter/v1/user/save', { ...detail, memberships: [{ hospitalId: orgs.HOSP_A, roleId: roles['区域管理员'] }] });
    expect(promoted.body.status).toBe('PACS006');
    // Nor a role authorised for other hospitals, nor a membership in another hospital.
    const senior = await call('POST', '/api/ucenter/v1/user/save', { ...detail, memberships: [{ hospitalId: orgs.HOSP_A, roleId: roles['上级审核医生'] }] });
    expect(senior.body.status).toBe('PACS006');
    const elsewhere = await call('POST', '/api/ucenter/v1/user/save', { ...detail, memberships: [...detail.memberships, { hospitalId: orgs.HOSP_B, roleId: roles['登记员'] }] });
    expect(elsewhere.body.status).toBe('PACS006');
    expect(await memberships(clerk)).toEqual([{ hospital_id: orgs.HOSP_A, role_id: roles['登记员'] }]);
  });

  test('role/save does not widen its own role, nor any role beyond its hospitals; the user list stays its own', async () => {
    const own = (await call('GET', `/api/ucenter/v1/role/detail/${insiderRoleId}`)).body.data;
    const widened = await call('POST', '/api/ucenter/v1/role/save', { ...own, regionOrgIds: [orgs.CENTRAL, orgs.HOSP_B] });
    expect(widened).toMatchObject({ code: 403, body: { status: 'UCENTER204' } });
    expect((await call('POST', '/api/ucenter/v1/role/save', { ...own, dataScope: 'all' })).body.status).toBe('UCENTER204');
    const other = await call('POST', '/api/ucenter/v1/role/save', { name: 'A院登记', dataScope: 'own', permissions: { registration: ['view'] } });
    expect(other.body.data.ownerHospitalId).toBe(orgs.HOSP_A);
    const beyond = await call('POST', '/api/ucenter/v1/role/save', { ...other.body.data, regionOrgIds: [orgs.HOSP_B] });
    expect(beyond.body.status).toBe('PACS006');
    const stored = await p.db.query<{ region_org_ids: number[] }>('SELECT region_org_ids FROM role WHERE id = ANY($1::int[])', [[insiderRoleId, other.body.data.id]]);
    expect(stored.rows.map((r) => r.region_org_ids)).toEqual([[], []]);
    const users = await call('POST', '/api/ucenter/v1/user/list', { pageSize: 100 });
    const mobiles = users.body.data.list.map((u: { mobile: string }) => u.mobile);
    expect(mobiles).toContain('13800000002');
    expect(mobiles).not.toContain('13800000005');
    expect(mobiles).not.toContain('13800000001');
  });

  test('a user who is also a member of the central hospital keeps that membership and identity', async () => {
    const id = await userId('13800000007');
    const before = await memberships(id);
    expect(before.map((m) => m.hospital_id).sort()).toEqual([orgs.HOSP_A, orgs.CENTRAL].sort());
    const detail = (await call('GET', `/api/ucenter/v1/user/detail/${id}`)).body.data;
    for (const change of [{ password: 'Taken#2026' }, { mobile: '13600000018' }, { status: 0 }]) {
      expect(await call('POST', '/api/ucenter/v1/user/save', { ...detail, ...change })).toMatchObject({ code: 403, body: { status: 'PACS006' } });
    }
    const hash = (await p.db.query<{ password_hash: string }>('SELECT password_hash FROM app_user WHERE id = $1', [id])).rows[0].password_hash;
    expect(await verifyPassword('Taken#2026', hash)).toBe(false);
    const central = detail.memberships.find((m: { hospitalId: number }) => m.hospitalId === orgs.CENTRAL);
    const moved = await call('POST', '/api/ucenter/v1/user/save', { ...detail, memberships: [...detail.memberships.filter((m: object) => m !== central), { ...central, roleId: roles['登记员'] }] });
    expect(moved.body.status).toBe('PACS006');
    // What the insider governs still changes: the name, and the hospital A membership alone (the central one is kept).
    const renamed = await call('POST', '/api/ucenter/v1/user/save', { ...detail, name: '黄医生二' });
    expect(renamed.body.status).toBe('0');
    const onlyA = await call('POST', '/api/ucenter/v1/user/save', { ...detail, memberships: [{ hospitalId: orgs.HOSP_A, roleId: roles['登记员'] }] });
    expect(onlyA.body.status).toBe('0');
    expect(await memberships(id)).toEqual(
      [
        { hospital_id: orgs.HOSP_A, role_id: roles['登记员'] },
        { hospital_id: orgs.CENTRAL, role_id: central.roleId },
      ].sort((a, b) => a.hospital_id - b.hospital_id),
    );
    // The screens are told: the list row and the detail say the insider does not govern this user, and the
    // detail names the kept central membership (the insider's options do not reach it); the region governs all.
    const row = async (token: string) =>
      (await call('POST', '/api/ucenter/v1/user/list', { pageSize: 100 }, token)).body.data.list.find((u: { id: number }) => u.id === id);
    expect((await row(insider)).governed).toBe(false);
    expect((await row(admin)).governed).toBe(true);
    expect((await call('POST', '/api/ucenter/v1/user/list', { pageSize: 100 })).body.data.list.find((u: { mobile: string }) => u.mobile === '13800000002').governed).toBe(true);
    const shown = (await call('GET', `/api/ucenter/v1/user/detail/${id}`)).body.data;
    expect(shown.governed).toBe(false);
    const names = (await p.db.query<{ hospital: string; role: string }>('SELECT o.name AS hospital, r.name AS role FROM org o, role r WHERE o.id = $1 AND r.id = $2', [orgs.CENTRAL, central.roleId])).rows[0];
    expect(shown.memberships).toEqual([
      { hospitalId: orgs.HOSP_A, roleId: roles['登记员'] },
      { hospitalId: orgs.CENTRAL, roleId: central.roleId, ...(central.departmentId ? { departmentId: central.departmentId } : {}), kept: expect.objectContaining({ hospitalId: names.hospital, roleId: names.role }) },
    ]);
    const asRegion = (await call('GET', `/api/ucenter/v1/user/detail/${id}`, undefined, admin)).body.data;
    expect(asRegion.governed).toBe(true);
    expect(asRegion.memberships.some((m: object) => 'kept' in m)).toBe(false);
    // What the detail carries goes back unchanged.
    expect((await call('POST', '/api/ucenter/v1/user/save', shown)).body.status).toBe('0');
    expect((await call('POST', `/api/ucenter/v1/user/unlock/${id}`)).body.status).toBe('PACS006');
    expect((await call('POST', `/api/ucenter/v1/user/delete/${id}`)).body.status).toBe('PACS006');
    expect(await login(p.app, '13800000007')).toBeTruthy();
  });

  test('region-owned roles and settings are changed only with region scope', async () => {
    const radiologist = (await call('GET', `/api/ucenter/v1/role/detail/${roles['报告医生']}`)).body.data;
    expect(radiologist.ownerHospitalId).toBeUndefined();
    const edited = await call('POST', '/api/ucenter/v1/role/save', { ...radiologist, permissions: { ...radiologist.permissions, report: ['view'] } });
    expect(edited).toMatchObject({ code: 403, body: { status: 'PACS006' } });
    expect((await call('POST', `/api/ucenter/v1/role/delete/${roles['会诊专家']}`)).body.status).toBe('PACS006');
    const refused = [
      await call('POST', '/api/ucenter/v1/config/gradeSafety', { enabled: true }),
      await call('POST', '/api/bdt/v1/dictionary/save', { name: '插入字典', code: 'insider', status: 1 }),
      await call('POST', '/api/bdt/v1/dictionary/item/save', { dictionaryId: 1, label: '插入', value: 'X1', status: 1 }),
      await call('POST', '/api/bdt/v1/dictionary/item/import', { dictionaryId: 1, content: 'AAAA' }),
      await call('POST', '/api/bdt/v1/dictionary/delete/1'),
      await call('POST', '/api/ris/v1/organ/save', { code: 'INSIDE', name: '插入部位' }),
      await call('POST', '/api/qc/v1/rule/save', { name: '插入规则', type: 'exam', timeLimitHours: 24 }),
      await call('POST', '/api/ucenter/v1/org/save', { ...(await call('GET', `/api/ucenter/v1/org/detail/${orgs.HOSP_A}`)).body.data, parentId: orgs.REGION, kind: 'central' }),
    ];
    expect(refused.map((r) => r.body.status)).toEqual(Array(refused.length).fill('PACS006'));
    expect(refused.every((r) => r.code === 403)).toBe(true);
    expect((await call('GET', '/api/ucenter/v1/config/gradeSafety')).body.data.enabled).toBe(false);
    expect((await p.db.query("SELECT 1 FROM dictionary WHERE code = 'insider' UNION ALL SELECT 1 FROM organ WHERE code = 'INSIDE' UNION ALL SELECT 1 FROM qc_rule WHERE name = '插入规则'")).rowCount).toBe(0);
    // The screens are told: region-owned lists are read-only, and so is each role row the insider may not change.
    expect((await call('POST', '/api/ris/v1/organ/list', {})).body.data.readOnly).toBe(true);
    expect((await call('POST', '/api/qc/v1/rule/list', {}, admin)).body.data.readOnly).toBeUndefined();
    const rows = (await call('POST', '/api/ucenter/v1/role/list', { pageSize: 100 })).body.data.list as Array<{ id: number; readOnly: boolean }>;
    expect(rows.find((r) => r.id === roles['报告医生'])?.readOnly).toBe(true);
    expect(rows.find((r) => r.id === insiderRoleId)?.readOnly).toBe(false);
  });

  test('the region’s administrator still does all of it', async () => {
    const id = await userId('13800000007');
    const detail = (await call('GET', `/api/ucenter/v1/user/detail/${id}`, undefined, admin)).body.data;
    expect((await call('POST', '/api/ucenter/v1/user/save', { ...detail, password: 'Region#2026' }, admin)).body.status).toBe('0');
    expect(await login(p.app, '13800000007', 'Region#2026')).toBeTruthy();
    const radiologist = (await call('GET', `/api/ucenter/v1/role/detail/${roles['报告医生']}`, undefined, admin)).body.data;
    expect((await call('POST', '/api/ucenter/v1/role/save', { ...radiologist, regionOrgIds: [orgs.HOSP_B] }, admin)).body.status).toBe('0');
    expect((await call('POST', '/api/ucenter/v1/config/gradeSafety', { enabled: true }, admin)).body.data.enabled).toBe(true);
    expect((await call('POST', '/api/ucenter/v1/config/gradeSafety', { enabled: false }, admin)).body.status).toBe('0');
    expect((await call('POST', '/api/bdt/v1/dictionary/save', { name: '区域字典', code: 'region16', status: 1 }, admin)).body.status).toBe('0');
    expect((await call('POST', '/api/ris/v1/organ/save', { code: 'REGION16', name: '区域部位' }, admin)).body.status).toBe('0');
    expect((await call('POST', '/api/qc/v1/rule/save', { name: '区域规则', type: 'exam', timeLimitHours: 24 }, admin)).body.status).toBe('0');
    // A role of hospital B: assigned in hospital B only, and hidden from hospital A.
    const bRole = await call('POST', '/api/ucenter/v1/role/save', { name: 'B院登记', dataScope: 'own', permissions: { registration: ['view'] }, ownerHospitalId: orgs.HOSP_B }, admin);
    const inA = await call('POST', '/api/ucenter/v1/user/save', { mobile: '13600000019', name: '错院', status: 1, password: 'Start#2026', memberships: [{ hospitalId: orgs.HOSP_A, roleId: bRole.body.data.id }] }, admin);
    expect(inA.body.status).toBe('UCENTER201');
    expect((await call('GET', `/api/ucenter/v1/role/detail/${bRole.body.data.id}`)).body.status).toBe('UCENTER201');
    const options = (await call('GET', '/api/ucenter/v1/role/options')).body.data.map((o: { value: number }) => o.value);
    expect(options).not.toContain(bRole.body.data.id);
    expect(options).toContain(roles['登记员']);
  });

  test('the hospital’s administrator manages its own users with roles within its rights', async () => {
    const role = await call('POST', '/api/ucenter/v1/role/save', { name: 'A院技师', dataScope: 'own', permissions: { registration: ['view', 'checkin'], image: ['view'] } });
    expect(role.body.data).toMatchObject({ ownerHospitalId: orgs.HOSP_A });
    const user = { mobile: '13600000020', name: '新技师', status: 1, password: 'Start#2026', memberships: [{ hospitalId: orgs.HOSP_A, roleId: role.body.data.id }] };
    const created = await call('POST', '/api/ucenter/v1/user/save', user);
    expect(created.body.status).toBe('0');
    const id = created.body.data.id;
    expect((await call('POST', '/api/ucenter/v1/user/save', { ...user, id, password: 'Changed#2026', memberships: [{ hospitalId: orgs.HOSP_A, roleId: roles['登记员'] }] })).body.status).toBe('0');
    expect(await login(p.app, user.mobile, 'Changed#2026')).toBeTruthy();
    expect((await call('POST', '/api/ucenter/v1/role/save', { ...role.body.data, permissions: { registration: ['view'] } })).body.data.permissions).toEqual({ registration: ['view'] });
    expect((await call('POST', `/api/ucenter/v1/user/unlock/${id}`)).body.status).toBe('0');
    expect((await call('POST', `/api/ucenter/v1/user/delete/${id}`)).body.status).toBe('0');
    expect((await call('POST', `/api/ucenter/v1/role/delete/${role.body.data.id}`)).body.status).toBe('0');
  });
});
