/**
 * The exam list follows the data scope, in Chromium, as the central hospital's senior
 * radiologist (13800000005). mock/identity.ts gives that role ("senior") its own
 * hospital's data plus the regional authorization of hospitals A and B, which in the
 * demo region is every hospital with exams; so a hospital outside it (C, a new
 * subordinate hospital with one exam, added through the API by the administrator)
 * shows what the scope keeps out. Scenarios:
 * - the configured rule: own-hospital scope, membership in the central hospital,
 *   regional authorization of exactly A and B
 * - /examination: the list's total is what the API answers the same user for the
 *   same filters, and exactly the stored exams of the central hospital, A and B
 *   (fewer than the administrator's all-data total, which counts C's)
 * - hospital A's exams: all of them, as A is authorized in full; a new one of A is
 *   found by its patient's name and shows its code and hospital
 * - hospital C's exam is not found by its patient's name (nor by hospital), though the
 *   administrator's API finds it
 */
import { DEMO_ROLES, DEMO_USERS } from '../../mock/identity';
import { authed, login } from '../support/auth';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { ResourceListPage } from '../support/schemaPages';

const SENIOR = '13800000005';
const LIST = '/api/ris/v1/exam/list';

describe("the exam list within the central radiologist's data scope, in Chromium", () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let list: ResourceListPage;
  let admin: string;
  let senior: string;
  let orgs: Record<string, number>;
  let examA: { id: number; examCode: string };
  let examC: { id: number; examCode: string };
  // Names of their own per run (exam codes repeat across hospitals: each numbers its own).
  const stamp = [...String(Date.now()).slice(-4)].map((d) => '零一二三四五六七八九'[Number(d)]).join('');
  const nameA = `甲院${stamp}`;
  const nameC = `丙院${stamp}`;

  const post = async (url: string, payload: object, token: string) => {
    const r = (await server.app.inject({ method: 'POST', url, headers: authed(token), payload })).json();
    expect({ url, status: r.status, field: r.field }).toEqual({ url, status: '0', field: undefined });
    return r.data;
  };
  const totalFor = async (token: string, filters: Record<string, unknown> = {}) => (await post(LIST, { page: 1, pageSize: 1, filters }, token)).total as number;
  /** Stored exams the list shows (hidden ones stay out) of these hospitals. */
  const stored = async (hospitalIds: number[]) =>
    Number((await server.db.query<{ n: string }>('SELECT count(*) AS n FROM exam WHERE NOT hidden AND hospital_id = ANY($1::int[])', [hospitalIds])).rows[0].n);

  beforeAll(async () => {
    ({ server, b } = await startSignedIn(SENIOR));
    list = new ResourceListPage(b.page, server.url);
    [admin, senior] = [await login(server.app, '13800000001'), await login(server.app, SENIOR)];
    orgs = Object.fromEntries((await server.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));

    // Hospital C: a subordinate of the central hospital outside the role's authorization, with one exam.
    orgs.HOSP_C = (await post('/api/ucenter/v1/org/save', { code: 'HOSP_C', name: '第三乡镇卫生院', kind: 'subordinate', parentId: orgs.CENTRAL }, admin)).id;
    // Hospital A's chest film, as hospital C's catalogue item too.
    const itemA = (await server.db.query<{ id: number; body_id: number; organ_id: number }>("SELECT id, body_id, organ_id FROM exam_item WHERE hospital_id = $1 AND code = 'DR001'", [orgs.HOSP_A])).rows[0];
    const itemC = await post(
      '/api/ris/v1/examItem/save',
      { hospitalId: orgs.HOSP_C, code: 'DR001', name: '胸部正位片', modality: 'DX', bodyId: itemA.body_id, organId: itemA.organ_id, price: 60 },
      admin,
    );
    const patient = { sex: 1, age: 40, ageUnit: 4, patientSource: 1, outPatientNo: 'MZ9001' };
    examC = await post('/api/ris/v1/exam/save', { ...patient, hospitalId: orgs.HOSP_C, hisPatientName: nameC, items: [{ itemId: itemC.id, organId: itemA.organ_id }] }, admin);
    examA = await post('/api/ris/v1/exam/save', { ...patient, hospitalId: orgs.HOSP_A, hisPatientName: nameA, items: [{ itemId: itemA.id, organId: itemA.organ_id }] }, await login(server.app, '13800000002'));
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test("the configured rule: the central hospital's own data plus hospitals A and B", async () => {
    const user = DEMO_USERS.find((u) => u.mobile === SENIOR)!;
    const role = DEMO_ROLES.find((r) => r.key === user.memberships[0][1])!;
    expect(user.memberships.map((m) => m[0])).toEqual(['CENTRAL']);
    expect(role).toMatchObject({ dataScope: 'own', regionOrgCodes: ['HOSP_A', 'HOSP_B'] });
    const stored = await server.db.query<{ hospital_id: number; data_scope: string; region_org_ids: number[] }>(
      `SELECT m.hospital_id, r.data_scope, r.region_org_ids FROM app_user u JOIN user_membership m ON m.user_id = u.id JOIN role r ON r.id = m.role_id WHERE u.mobile = $1`,
      [SENIOR],
    );
    expect(stored.rows).toEqual([{ hospital_id: orgs.CENTRAL, data_scope: 'own', region_org_ids: [orgs.HOSP_A, orgs.HOSP_B] }]);
  });

  test('/examination lists exactly the exams of the central hospital, A and B, as the API answers the same user', async () => {
    const { page } = b;
    const listed = page.waitForResponse((r) => r.url().endsWith(LIST) && r.request().method() === 'POST');
    await list.open('/examination');
    const reply = await listed;
    const shown = (await reply.json()).data.total as number;
    const filters = reply.request().postDataJSON().filters;
    expect(await totalFor(senior, filters)).toBe(shown);
    expect(shown).toBe(await stored([orgs.CENTRAL, orgs.HOSP_A, orgs.HOSP_B]));
    // The administrator (all data) also counts hospital C's exam.
    expect(await totalFor(admin, filters)).toBe(shown + (await stored([orgs.HOSP_C])));
    expect(await stored([orgs.HOSP_C])).toBeGreaterThan(0);
    // Every row of the first page is of a hospital in scope.
    const hospitals = new Set((await list.rows().locator('td').filter({ hasText: /卫生院|医院/ }).allTextContents()).map((s) => s.trim()));
    expect(hospitals.size).toBeGreaterThan(0);
    for (const h of hospitals) expect(['县中心医院', '第一乡镇卫生院', '第二乡镇卫生院']).toContain(h);
    await b.shot('exam-scope-senior');
  });

  test("hospital A's exams all appear, as A is authorized in full; a new one is found by its patient", async () => {
    expect(await totalFor(senior, { hospitalId: orgs.HOSP_A })).toBe(await stored([orgs.HOSP_A]));
    await list.open('/examination');
    await list.search({ hisPatientName: nameA });
    expect(await list.rows().count()).toBe(1);
    const text = (await list.row(nameA).textContent()) ?? '';
    expect(text).toContain(examA.examCode);
    expect(text).toContain('第一乡镇卫生院');
  });

  test("hospital C's exam does not appear, though the administrator finds it", async () => {
    expect(await totalFor(admin, { hisPatientName: nameC })).toBe(1);
    expect(await totalFor(senior, { hisPatientName: nameC })).toBe(0);
    expect(await totalFor(senior, { hospitalId: orgs.HOSP_C })).toBe(0);
    expect(await totalFor(senior, { examCode: examC.examCode, hospitalId: orgs.HOSP_C })).toBe(0);
    await list.open('/examination');
    await list.search({ hisPatientName: nameC });
    expect(await list.rows().count()).toBe(0);
    await b.page.locator('.ant-pro-table .ant-empty').first().waitFor();
  });
});
