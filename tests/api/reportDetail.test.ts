/**
 * The choices the report detail page offers (issue #8), on each database:
 * - GET report/assignees/:id lists the doctors the assign action accepts (the same
 *   query as its guard): hospital A's radiologists for an unwritten report, the
 *   reviewers once it is pending review; the clerk is never one; without the assign
 *   right the call is refused (UAA103)
 * - GET report/superiors/:id lists the higher-level hospitals of the exam's hospital
 *   (several in the demo: the central hospital and the region), never the hospital
 *   itself; sending to one of them works, to another hospital is refused
 */
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

const R = '/api/report/v1';

describe.each(dbKinds)('report detail choices on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let docA: string;
  let senior: string;
  const users: Record<string, number> = {};
  let orgs: Record<string, number>;

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));

  /** A new examined exam of hospital A, registered through the API. */
  const examined = async () => {
    const item = (await p.db.query<{ id: number; organ_id: number }>('SELECT id, organ_id FROM exam_item WHERE hospital_id = $1 AND organ_id IS NOT NULL ORDER BY id LIMIT 1', [orgs.HOSP_A])).rows[0];
    const r = await call('POST', '/api/ris/v1/exam/save', admin, {
      hospitalId: orgs.HOSP_A, hisPatientName: '详情测试', sex: 2, age: 40, ageUnit: 4, patientSource: 1, outPatientNo: 'MZ9', items: [{ itemId: item.id, organId: item.organ_id }],
    });
    expect(r.body.status).toBe('0');
    await p.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [r.body.data.id]);
    return r.body.data.id as number;
  };

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    for (const r of (await p.db.query<{ mobile: string; id: number }>('SELECT mobile, id FROM app_user')).rows) users[r.mobile] = r.id;
    [admin, docA, senior] = await Promise.all(['13800000001', '13800000004', '13800000005'].map((m) => login(p.app, m)));
  });
  afterAll(() => p.close());

  test('assignees: the doctors the assign action accepts, for the state the report is in', async () => {
    const id = await examined();
    const unwritten = await call('GET', `${R}/report/assignees/${id}`, senior);
    expect(unwritten.body.status).toBe('0');
    const writers = unwritten.body.data.list.map((d: { id: number }) => d.id);
    expect(writers).toEqual(expect.arrayContaining([users['13800000004'], users['13800000007']]));
    expect(writers).not.toContain(users['13800000002']);
    // What the list offers, the action takes.
    const assigned = await call('POST', `${R}/report/assign/${id}`, senior, { version: 0, doctorIds: [users['13800000004']] });
    expect(assigned.body.status).toBe('0');

    await call('POST', `${R}/report/submit/${id}`, docA, { version: assigned.body.data.version, see: '所见。', diagnosis: '诊断。' });
    const reviewers = (await call('GET', `${R}/report/assignees/${id}`, senior)).body.data.list.map((d: { id: number }) => d.id);
    expect(reviewers).toContain(users['13800000005']);
    expect(reviewers).not.toContain(users['13800000004']);

    // The radiologist has no assign right.
    expect((await call('GET', `${R}/report/assignees/${id}`, docA)).body.status).toBe('UAA103');
  });

  test('superiors: the hospitals above the exam\'s, which submit-to-superior accepts', async () => {
    const id = await examined();
    const r = await call('GET', `${R}/report/superiors/${id}`, docA);
    expect(r.body.status).toBe('0');
    const ids = r.body.data.list.map((h: { id: number }) => h.id);
    expect(ids).toEqual(expect.arrayContaining([orgs.CENTRAL]));
    expect(ids).not.toContain(orgs.HOSP_A);
    expect(ids).not.toContain(orgs.HOSP_B);
    expect((await call('POST', `${R}/report/submitSuperiorWrite/${id}`, docA, { version: 0, hospitalId: orgs.HOSP_B })).body).toMatchObject({ status: 'UAA421', field: 'hospitalId' });
    const sent = await call('POST', `${R}/report/submitSuperiorWrite/${id}`, docA, { version: 0, hospitalId: orgs.CENTRAL });
    expect(sent.body.data).toMatchObject({ sentToSuperior: true, superiorHospitalId: orgs.CENTRAL });
  });
});
