/**
 * Resources of the generic table store (config/resources.json `table`), through the
 * API on each database:
 * - devices: create, the three uniqueness rules (RIS301-303) with nothing stored,
 *   field errors from the schema, paging/sort/filter, update clearing an optional
 *   field, delete; a hospital user sees and writes only its own hospital's devices, and
 *   declares a device to serve only hospitals it holds (the region's administrator may);
 *   the character set is one of the listed ones
 * - exam parts: the tree (roots with nested children), options of the roots and of one
 *   parent, duplicates (RIS601/602), no cycle, no delete while children or exam items
 *   refer to a part (RIS605)
 * - exam items: price as a number, uniqueness per hospital (RIS201/202); their options
 *   carry the price (the registry's optionFields), other resources' do not
 * - QC rules: the entity added with files only (schema, view, registry, migration,
 *   locale keys) answers all five calls; its scoring items (a child table) are saved
 *   with it (kept by id, reordered, removed), in its detail and deleted with it; its
 *   grades (jsonb) and per-type fields (allOf by type) are validated and the other
 *   types' fields cleared; a bad item or field is refused naming it, nothing stored
 * - HIS interfaces: the entity declared by its view alone (schema, view with `admin`,
 *   migration, locale keys) answers all five calls, keeps names unique per hospital
 *   (BDT003, nothing stored), refuses a URL without a scheme and accepts one with an IP
 *   host and a port; its module is in the permission tree, a role granting only it
 *   works within its hospital, and user info lists its menu entry
 */
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

describe.each(dbKinds)('table resources on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let orgs: Record<string, number>;
  const call = (method: 'GET' | 'POST', url: string, payload?: object, token = admin) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const count = async (table: string) => Number((await p.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    admin = await login(p.app, '13800000001');
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
  });
  afterAll(() => p.close());

  const device = (over: Record<string, unknown> = {}) => ({
    hospitalId: orgs.HOSP_A,
    name: 'CT-1',
    model: 'uCT 760',
    modality: 'CT',
    ip: '10.1.1.10',
    port: 104,
    location: '一楼 CT 室',
    aeTitle: 'HOSPA_CT1',
    ...over,
  });

  test('devices: create, uniqueness, field errors, list, update, delete', async () => {
    const before = await count('device');
    const created = await call('POST', '/api/ris/v1/device/save', device());
    expect(created.body.status).toBe('0');
    expect(created.body.data).toMatchObject({ ...device(), state: 0 });
    const id = created.body.data.id;

    const dupName = await call('POST', '/api/ris/v1/device/save', device({ ip: '10.1.1.11', aeTitle: 'OTHER1' }));
    expect(dupName).toMatchObject({ code: 409, body: { status: 'RIS301' } });
    const dupAddress = await call('POST', '/api/ris/v1/device/save', device({ name: 'CT-2', aeTitle: 'OTHER2' }));
    expect(dupAddress.body.status).toBe('RIS302');
    const dupAe = await call('POST', '/api/ris/v1/device/save', device({ name: 'CT-3', ip: '10.1.1.12' }));
    expect(dupAe.body.status).toBe('RIS303');
    // The same name in another hospital is another device.
    const elsewhere = await call('POST', '/api/ris/v1/device/save', device({ hospitalId: orgs.HOSP_B, ip: '10.2.1.10', aeTitle: 'HOSPB_CT1' }));
    expect(elsewhere.body.status).toBe('0');
    expect(await count('device')).toBe(before + 2);

    const badIp = await call('POST', '/api/ris/v1/device/save', device({ name: 'X', ip: '256.1.1.1', aeTitle: 'X1' }));
    expect(badIp).toMatchObject({ code: 400, body: { status: 'UAA421', field: 'ip' } });
    const badPort = await call('POST', '/api/ris/v1/device/save', device({ name: 'X', port: 65536, aeTitle: 'X1' }));
    expect(badPort.body).toMatchObject({ status: 'UAA421', field: 'port' });
    const noAe = await call('POST', '/api/ris/v1/device/save', device({ name: 'X', aeTitle: undefined }));
    expect(noAe.body).toMatchObject({ status: 'UAA421', field: 'aeTitle' });
    const longAe = await call('POST', '/api/ris/v1/device/save', device({ name: 'X', aeTitle: 'A'.repeat(17) }));
    expect(longAe.body).toMatchObject({ status: 'UAA421', field: 'aeTitle' });
    expect(await count('device')).toBe(before + 2);

    const list = await call('POST', '/api/ris/v1/device/list', { filters: { name: 'CT-', modality: 'CT' }, sort: { field: 'hospitalId', order: 'descend' } });
    expect(list.body.data.total).toBe(2);
    expect(list.body.data.list.map((d: { hospitalId: number }) => d.hospitalId)).toEqual([orgs.HOSP_A, orgs.HOSP_B].sort((a, b) => b - a));
    const paged = await call('POST', '/api/ris/v1/device/list', { filters: { name: 'CT-' }, page: 2, pageSize: 1 });
    expect(paged.body.data).toMatchObject({ total: 2, list: [expect.objectContaining({ name: 'CT-1' })] });

    const { location: _dropped, ...withoutLocation } = device();
    const updated = await call('POST', '/api/ris/v1/device/save', { ...withoutLocation, id, state: 1 });
    expect(updated.body.data).toMatchObject({ id, state: 1 });
    expect(updated.body.data.location).toBeUndefined();

    const options = await call('GET', `/api/ris/v1/device/options?hospitalId=${orgs.HOSP_A}`);
    expect(options.body.data).toContainEqual({ value: id, label: 'CT-1' });
    expect(options.body.data.map((o: { label: string }) => o.label)).not.toContain('HOSPB_CT1');

    expect((await call('POST', `/api/ris/v1/device/delete/${id}`)).body.status).toBe('0');
    expect((await call('GET', `/api/ris/v1/device/detail/${id}`)).body.status).toBe('BDT104');
  });

  test('devices: a hospital administrator works within its own hospital', async () => {
    const role = await call('POST', '/api/ucenter/v1/role/save', {
      name: '设备管理员',
      dataScope: 'own',
      permissions: { 'system.device': ['view', 'add', 'edit', 'delete'] },
    });
    expect(role.body.status).toBe('0');
    const user = await call('POST', '/api/ucenter/v1/user/save', {
      mobile: '13600000101',
      name: '设备管理员甲',
      status: 1,
      memberships: [{ hospitalId: orgs.HOSP_B, roleId: role.body.data.id }],
      password: 'Start#2026',
    });
    expect(user.body.status).toBe('0');
    const token = await login(p.app, '13600000101', 'Start#2026');
    const mine = await call('POST', '/api/ris/v1/device/save', device({ hospitalId: orgs.HOSP_B, name: 'DR-B', ip: '10.2.9.9', aeTitle: 'HOSPB_DR9', modality: 'DR' }), token);
    expect(mine.body.status).toBe('0');
    const foreign = await call('POST', '/api/ris/v1/device/save', device({ name: 'DR-A', ip: '10.1.9.9', aeTitle: 'HOSPA_DR9' }), token);
    expect(foreign.body.status).toBe('UCENTER101');
    const theirs = await call('POST', '/api/ris/v1/device/save', device({ name: 'MR-A', ip: '10.1.9.8', aeTitle: 'HOSPA_MR8', modality: 'MR' }));
    const listed = await call('POST', '/api/ris/v1/device/list', { pageSize: 100 }, token);
    expect(listed.body.data.list.every((d: { hospitalId: number }) => d.hospitalId === orgs.HOSP_B)).toBe(true);
    expect((await call('GET', `/api/ris/v1/device/detail/${theirs.body.data.id}`, undefined, token)).body.status).toBe('BDT104');
    expect((await call('POST', `/api/ris/v1/device/delete/${theirs.body.data.id}`, undefined, token)).body.status).toBe('BDT104');
    // Moving one's own device to another hospital is writing there.
    const moved = await call('POST', '/api/ris/v1/device/save', { ...device({ hospitalId: orgs.HOSP_A, name: 'DR-B', ip: '10.2.9.9', aeTitle: 'HOSPB_DR9', modality: 'DR' }), id: mine.body.data.id }, token);
    expect(moved.body.status).toBe('UCENTER101');
    // Declaring that a device serves another hospital gives it that hospital's studies:
    // only for hospitals the writer holds, and nothing is stored when refused.
    const serving = await call('POST', '/api/ris/v1/device/save', { ...device({ hospitalId: orgs.HOSP_B, name: 'DR-B', ip: '10.2.9.9', aeTitle: 'HOSPB_DR9', modality: 'DR' }), id: mine.body.data.id, servedHospitalIds: [orgs.HOSP_A] }, token);
    expect(serving.body.status).toBe('UCENTER101');
    expect((await p.db.query('SELECT served_hospital_ids FROM device WHERE id = $1', [mine.body.data.id])).rows).toEqual([{ served_hospital_ids: [] }]);
    const granted = await call('POST', '/api/ris/v1/device/save', { ...device({ hospitalId: orgs.HOSP_B, name: 'DR-B', ip: '10.2.9.9', aeTitle: 'HOSPB_DR9', modality: 'DR' }), id: mine.body.data.id, servedHospitalIds: [orgs.HOSP_A], defaultCharset: 'GB18030' });
    expect(granted.body.status).toBe('0');
    expect(granted.body.data).toMatchObject({ servedHospitalIds: [orgs.HOSP_A], defaultCharset: 'GB18030' });
    expect((await call('POST', '/api/ris/v1/device/save', { ...device(), defaultCharset: 'BIG5' })).body.status).not.toBe('0');
    // No exam-item rights: the role grants devices only.
    expect((await call('POST', '/api/ris/v1/examItem/list', {}, token)).body.status).toBe('UAA103');
  });

  test('exam parts: a tree of body categories and organ parts', async () => {
    const chest = (await call('POST', '/api/ris/v1/organ/save', { code: 'T_CHEST', name: '测试胸部', sort: 1 })).body.data;
    const lung = (await call('POST', '/api/ris/v1/organ/save', { code: 'T_LUNG', name: '测试肺', parentId: chest.id })).body.data;
    const heart = (await call('POST', '/api/ris/v1/organ/save', { code: 'T_HEART', name: '测试心脏', parentId: chest.id, sort: 0 })).body.data;
    expect(lung.parentId).toBe(chest.id);

    const tree = await call('POST', '/api/ris/v1/organ/list', { pageSize: 100 });
    const listed = tree.body.data.list.find((o: { id: number }) => o.id === chest.id);
    expect(listed.children.map((c: { name: string }) => c.name)).toEqual(['测试心脏', '测试肺']);
    expect(tree.body.data.list.every((o: { parentId?: number }) => o.parentId === undefined)).toBe(true);
    const found = await call('POST', '/api/ris/v1/organ/list', { filters: { name: '测试肺' } });
    expect(found.body.data.list).toEqual([expect.objectContaining({ id: lung.id, parentId: chest.id })]);

    const roots = await call('GET', '/api/ris/v1/organ/options?parentId=null');
    expect(roots.body.data.map((o: { value: number }) => o.value)).toContain(chest.id);
    expect(roots.body.data.map((o: { value: number }) => o.value)).not.toContain(lung.id);
    const under = await call('GET', `/api/ris/v1/organ/options?parentId=${chest.id}`);
    expect(under.body.data).toEqual([{ value: heart.id, label: '测试心脏' }, { value: lung.id, label: '测试肺' }]);

    expect((await call('POST', '/api/ris/v1/organ/save', { code: 'T_LUNG2', name: '测试肺', parentId: chest.id })).body.status).toBe('RIS601');
    expect((await call('POST', '/api/ris/v1/organ/save', { code: 'T_LUNG2', name: '测试肺', sort: 3 })).body.status).toBe('0');
    expect((await call('POST', '/api/ris/v1/organ/save', { code: 'T_LUNG', name: '别的' })).body.status).toBe('RIS602');
    const cycle = await call('POST', '/api/ris/v1/organ/save', { id: chest.id, code: 'T_CHEST', name: '测试胸部', parentId: lung.id });
    expect(cycle.body).toMatchObject({ status: 'UAA421', field: 'parentId' });

    expect((await call('POST', `/api/ris/v1/organ/delete/${chest.id}`)).body.status).toBe('RIS605');
    const item = await call('POST', '/api/ris/v1/examItem/save', { hospitalId: orgs.HOSP_A, code: 'T-CT-LUNG', name: '测试肺部CT平扫', modality: 'CT', bodyId: chest.id, organId: lung.id, price: 128.5 });
    expect(item.body.data.price).toBe(128.5);
    expect((await call('POST', `/api/ris/v1/organ/delete/${lung.id}`)).body.status).toBe('RIS605');
    expect((await call('POST', `/api/ris/v1/examItem/delete/${item.body.data.id}`)).body.status).toBe('0');
    expect((await call('POST', `/api/ris/v1/organ/delete/${lung.id}`)).body.status).toBe('0');
  });

  test('exam items: unique code and name per hospital, price to the fen', async () => {
    const item = { hospitalId: orgs.HOSP_A, code: 'T-DR-01', name: '测试胸部正位', modality: 'DR', price: 60 };
    expect((await call('POST', '/api/ris/v1/examItem/save', item)).body.status).toBe('0');
    expect((await call('POST', '/api/ris/v1/examItem/save', { ...item, name: '别的名字' })).body.status).toBe('RIS202');
    expect((await call('POST', '/api/ris/v1/examItem/save', { ...item, code: 'T-DR-02' })).body.status).toBe('RIS201');
    expect((await call('POST', '/api/ris/v1/examItem/save', { ...item, hospitalId: orgs.HOSP_B })).body.status).toBe('0');
    expect((await call('POST', '/api/ris/v1/examItem/save', { ...item, code: 'T-DR-03', name: '三', price: 1.005 })).body).toMatchObject({ status: 'UAA421', field: 'price' });
    expect((await call('POST', '/api/ris/v1/examItem/save', { ...item, code: 'T-DR-03', name: '三', modality: 'XX' })).body).toMatchObject({ status: 'UAA421', field: 'modality' });
    // Options carry the registry's optionFields: the price, for the registration form's total (a clerk asks).
    const clerk = await login(p.app, '13800000002');
    const options = await call('GET', `/api/ris/v1/examItem/options?hospitalId=${orgs.HOSP_A}`, undefined, clerk);
    // The item's part comes along too (organId): the registration form fills the exam part from it.
    expect(options.body.data).toContainEqual(expect.objectContaining({ value: expect.any(Number), label: '测试胸部正位', price: 60 }));
    // Other resources send value and label only.
    expect(Object.keys((await call('GET', `/api/ris/v1/device/options?hospitalId=${orgs.HOSP_A}`)).body.data[0]).sort()).toEqual(['label', 'value']);
  });

  test('QC rules: an entity added with files only answers all five calls', async () => {
    const saved = await call('POST', '/api/qc/v1/rule/save', { name: '报告完整性', description: '所见与诊断不能为空', type: 'report' });
    expect(saved.body.data).toMatchObject({ name: '报告完整性', type: 'report', enabled: true });
    const id = saved.body.data.id;
    expect((await call('POST', '/api/qc/v1/rule/save', { name: '报告完整性', type: 'image', minImages: 1 })).body.status).toBe('BDT003');
    expect((await call('POST', '/api/qc/v1/rule/save', { name: '无类型' })).body).toMatchObject({ status: 'UAA421', field: 'type' });
    expect((await call('POST', '/api/qc/v1/rule/list', { filters: { type: 'report' } })).body.data.list).toContainEqual(expect.objectContaining({ id }));
    expect((await call('GET', `/api/qc/v1/rule/detail/${id}`)).body.data.description).toBe('所见与诊断不能为空');
    expect((await call('GET', '/api/qc/v1/rule/options')).body.data).toContainEqual({ value: id, label: '报告完整性' });
    expect((await call('POST', `/api/qc/v1/rule/delete/${id}`)).body.status).toBe('0');
    const clerk = await login(p.app, '13800000002');
    expect((await call('POST', '/api/qc/v1/rule/list', {}, clerk)).body.status).toBe('UAA103');
  });

  test('QC rules: scoring items (a child table) and grades (jsonb) saved with the rule, per-type fields by its type', async () => {
    const items = [
      { name: '运动伪影', score: 60, deduction: 10, description: '每处伪影扣分' },
      { name: '窗宽窗位', score: 40 },
    ];
    const grades = [{ level: 'A', minScore: 90 }, { level: 'B', minScore: 0 }];
    const rule = { name: '嵌套规则', type: 'image', modality: 'CT', minImages: 20, items, grades };
    const saved = await call('POST', '/api/qc/v1/rule/save', rule);
    expect(saved.body.status).toBe('0');
    const id = saved.body.data.id;
    // The detail carries the items in order, each with its id, and the grades as sent.
    const detail = (await call('GET', `/api/qc/v1/rule/detail/${id}`)).body.data;
    expect(detail).toMatchObject({ ...rule, items: items.map((it) => ({ ...it, id: expect.any(Number) })) });
    const [first, second] = detail.items as Array<{ id: number }>;

    // Saved again as the form sends it: the second item moved first and edited, the first removed, one added.
    // The kept item keeps its id; the removed one is gone from the table.
    const again = await call('POST', '/api/qc/v1/rule/save', { ...detail, items: [{ ...detail.items[1], score: 50 }, { name: '解剖结构', score: 50, deduction: 5 }] });
    expect(again.body.status).toBe('0');
    const after = (await call('GET', `/api/qc/v1/rule/detail/${id}`)).body.data.items;
    expect(after).toEqual([{ id: second.id, name: '窗宽窗位', score: 50 }, { id: expect.any(Number), name: '解剖结构', score: 50, deduction: 5 }]);
    expect((await p.db.query('SELECT 1 FROM qc_rule_item WHERE id = $1', [first.id])).rowCount).toBe(0);

    // Switching the type clears the other type's fields and requires the new type's own.
    const missing = await call('POST', '/api/qc/v1/rule/save', { ...detail, type: 'exam', items: after });
    expect(missing).toMatchObject({ code: 400, body: { status: 'UAA421', field: 'timeLimitHours' } });
    const exam = await call('POST', '/api/qc/v1/rule/save', { ...detail, type: 'exam', timeLimitHours: 48, items: after });
    expect(exam.body.status).toBe('0');
    expect(exam.body.data).toMatchObject({ type: 'exam', timeLimitHours: 48 });
    expect(exam.body.data).not.toHaveProperty('modality');
    expect(exam.body.data).not.toHaveProperty('minImages');
    expect(exam.body.data.items).toEqual(after);

    // An item of another rule is not taken over by sending its id: a new row is made.
    const other = (await call('POST', '/api/qc/v1/rule/list', { filters: { name: '影像无伪影' } })).body.data.list[0];
    const foreignItem = (await call('GET', `/api/qc/v1/rule/detail/${other.id}`)).body.data.items[0];
    const taken = await call('POST', '/api/qc/v1/rule/save', { ...exam.body.data, items: [{ ...foreignItem, name: '借用' }] });
    expect(taken.body.data.items[0].id).not.toBe(foreignItem.id);
    expect((await call('GET', `/api/qc/v1/rule/detail/${other.id}`)).body.data.items[0]).toEqual(foreignItem);

    // Deleted with the rule.
    const kept = taken.body.data.items[0].id;
    expect((await call('POST', `/api/qc/v1/rule/delete/${id}`)).body.status).toBe('0');
    expect((await p.db.query('SELECT 1 FROM qc_rule_item WHERE id = $1 OR rule_id = $2', [kept, id])).rowCount).toBe(0);
  });

  test('QC rules: a bad item, grade or per-type field is refused naming it, and nothing is stored', async () => {
    const rules = await count('qc_rule');
    const items = await count('qc_rule_item');
    const base = { name: '拒绝规则', type: 'exam', timeLimitHours: 12, items: [{ name: '好', score: 10 }] };
    const refusals: Array<[object, string]> = [
      [{ ...base, items: [{ name: '好', score: 10 }, { name: '坏', score: 101 }] }, 'items.1.score'],
      [{ ...base, items: [{ score: 10 }] }, 'items.0.name'],
      [{ ...base, grades: [{ level: 'A', minScore: 60 }] }, 'grades'],
      [{ ...base, grades: [{ level: '甲', minScore: 60 }, { level: 'B', minScore: 0 }] }, 'grades.0.level'],
      [{ ...base, timeLimitHours: undefined }, 'timeLimitHours'],
      [{ ...base, type: 'image' }, 'minImages'],
      [{ ...base, type: 'report', diseases: ['x'.repeat(21)] }, 'diseases.0'],
    ];
    for (const [payload, field] of refusals) {
      const r = await call('POST', '/api/qc/v1/rule/save', payload);
      expect({ field, ...r }).toMatchObject({ field, code: 400, body: { status: 'UAA421', field } });
    }
    // A modality outside the dictionary is refused by the store after the schema passed.
    expect((await call('POST', '/api/qc/v1/rule/save', { ...base, type: 'image', minImages: 1, modality: 'ZZ' })).body).toMatchObject({ status: 'UAA421', field: 'modality' });
    // An item the database refuses (a deduction above its score, the registry's `checks`) after the rule was written rolls the rule back too.
    const dbRefused = await call('POST', '/api/qc/v1/rule/save', { ...base, items: [{ name: '好', score: 10 }, { name: '重', score: 10, deduction: 20 }] });
    expect(dbRefused).toMatchObject({ code: 400, body: { status: 'UAA421', field: 'items.deduction' } });
    expect(await count('qc_rule')).toBe(rules);
    expect(await count('qc_rule_item')).toBe(items);
  });

  test('HIS interfaces: an entity declared by its view alone answers all five calls, scoped and permissioned', async () => {
    const base = '/api/bdt/v1/hisInterface';
    const his = (over: Record<string, unknown> = {}) => ({ hospitalId: orgs.HOSP_A, name: '院内 HIS', url: 'http://10.1.1.5:8080/his', contactEmail: 'his@hosp-a.example.cn', ...over });
    const saved = await call('POST', `${base}/save`, his());
    expect(saved.body.status).toBe('0');
    expect(saved.body.data).toMatchObject({ name: '院内 HIS', url: 'http://10.1.1.5:8080/his', timeoutSeconds: 30, enabled: true });
    const id = saved.body.data.id;
    const before = await count('his_interface');
    expect((await call('POST', `${base}/save`, his({ url: 'http://10.1.1.6/his' }))).body.status).toBe('BDT003');
    expect((await call('POST', `${base}/save`, his({ name: '无协议', url: '10.1.1.6/his' }))).body).toMatchObject({ status: 'UAA421', field: 'url' });
    expect(await count('his_interface')).toBe(before);
    // The same name in another hospital is another interface.
    expect((await call('POST', `${base}/save`, his({ hospitalId: orgs.HOSP_B, url: 'https://his.hosp-b.example.cn/api' }))).body.status).toBe('0');
    expect((await call('POST', `${base}/list`, { filters: { hospitalId: orgs.HOSP_A } })).body.data.list).toEqual([expect.objectContaining({ id, name: '院内 HIS' })]);
    const updated = await call('POST', `${base}/save`, { ...his({ timeoutSeconds: 90, enabled: false }), id });
    expect(updated.body.data).toMatchObject({ id, timeoutSeconds: 90, enabled: false });
    expect((await call('GET', `${base}/detail/${id}`)).body.data.contactEmail).toBe('his@hosp-a.example.cn');
    expect((await call('GET', `${base}/options`, undefined)).body.data).toContainEqual({ value: id, label: '院内 HIS' });

    // The module the view declares is in the role form's tree, and a role may grant it alone.
    const tree = (await call('GET', '/api/ucenter/v1/permission/tree')).body.data;
    expect(tree.modules['system.hisInterface']).toEqual(['view', 'add', 'edit', 'delete']);
    expect(tree.groups.find((g: { key: string }) => g.key === 'system').modules).toContain('system.hisInterface');
    const role = await call('POST', '/api/ucenter/v1/role/save', { name: 'HIS 接口管理员', dataScope: 'own', permissions: { 'system.hisInterface': ['view', 'add', 'edit', 'delete'] } });
    expect(role.body.status).toBe('0');
    const user = await call('POST', '/api/ucenter/v1/user/save', {
      mobile: '13600000102',
      name: 'HIS 管理员乙',
      status: 1,
      memberships: [{ hospitalId: orgs.HOSP_B, roleId: role.body.data.id }],
      password: 'Start#2026',
    });
    expect(user.body.status).toBe('0');
    const token = await login(p.app, '13600000102', 'Start#2026');
    const info = await p.app.inject({ method: 'GET', url: '/api/uaa/v1/user/info', headers: authed(token) });
    expect(info.json().data.menuList).toContain('hisInterface');
    const listed = (await call('POST', `${base}/list`, { pageSize: 100 }, token)).body.data.list;
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((r: { hospitalId: number }) => r.hospitalId === orgs.HOSP_B)).toBe(true);
    expect((await call('GET', `${base}/detail/${id}`, undefined, token)).body.status).toBe('BDT104');
    expect((await call('POST', `${base}/save`, his({ name: '越权' }), token)).body.status).toBe('UCENTER101');
    expect((await call('POST', '/api/ris/v1/device/list', {}, token)).body.status).toBe('UAA103');

    expect((await call('POST', `${base}/delete/${id}`)).body.status).toBe('0');
    expect((await call('GET', `${base}/detail/${id}`)).body.status).toBe('BDT104');
    const clerk = await login(p.app, '13800000002');
    expect((await call('POST', `${base}/list`, {}, clerk)).body.status).toBe('UAA103');
  });
});
