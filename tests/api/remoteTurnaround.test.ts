/**
 * Turnaround limits of reports sent to a superior hospital (issue #19 item 4) through
 * the API on each database, with the business clock (server/lib/clock.ts) moved on
 * instead of waiting. Scenarios:
 * - an emergency head CT sent up takes the 30-minute default and the exam's priority from
 *   its patient source, or the one set at registration; the hospital's own rule (an admin
 *   entity) overrides a default
 * - as the clock runs it is ok, near, then overdue on both sides: hospital A's report
 *   list and the central hospital's remote list, and in the home page's figure
 * - the sweep notes it once (operation record), releases the central doctor's claim,
 *   and the centre lead's remote notice counts it; a second sweep finds nothing
 * - approved late: time to claim and to final are recorded, not within the limit; the
 *   remote centre statistics count it
 * - returned: the clock pauses (paused on the list) and resumes with what was left
 */
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { clock } from '../../server/lib/clock';
import { sweepOverdue } from '../../server/report/turnaround';

const R = '/api/report/v1';
const MINUTE = 60_000;

describe.each(dbKinds)('turnaround limits on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let docA: string;
  let senior: string;
  let orgs: Record<string, number>;
  let seniorId: number;

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const act = (token: string, action: string, id: number, body: object = {}) => call('POST', `${R}/report/${action}/${id}`, token, body);
  const version = async (id: number) => (await p.db.query<{ v: number }>('SELECT coalesce(max(version), 0)::int AS v FROM report WHERE id = $1', [id])).rows[0].v;
  const clockOf = async (id: number) =>
    (
      await p.db.query<Record<string, unknown>>(
        `SELECT priority, limit_minutes, limit_working, superior_send_time, due_at, near_at, clock_paused_at, clock_left_minutes, first_claimed_at, claim_seconds,
                final_at, final_seconds, within_limit, overdue_at, remote_claimed_by::int AS remote_claimed_by FROM report WHERE id = $1`,
        [id],
      )
    ).rows[0];
  /** The row of exam `id` in a report list, as the caller gets it. */
  const rowIn = async (token: string, kind: string, model: string | undefined, id: number) => {
    const r = await call('POST', `${R}/report/list/${kind}`, token, { page: 1, pageSize: 100, ...(model ? { model } : {}) });
    expect(r.body.status).toBe('0');
    return (r.body.data.list as Array<Record<string, unknown>>).find((x) => x.id === id);
  };
  /** Both sides' marking of exam `id`: hospital A's list of all reports, the central hospital's remote list to write. */
  const marks = async (id: number) => [(await rowIn(docA, 'all', undefined, id))?.dueState, (await rowIn(senior, 'write', 'remote', id))?.dueState];

  /** An examined exam of hospital A registered through the API with the item whose name is `itemName`. */
  const examined = async (patientSource: number, itemName: string, extra: object = {}) => {
    const item = (
      await p.db.query<{ id: number; organ_id: number }>(
        "SELECT i.id, i.organ_id FROM exam_item i JOIN org o ON o.id = i.hospital_id WHERE o.code = 'HOSP_A' AND i.name = $1",
        [itemName],
      )
    ).rows[0];
    const r = await call('POST', '/api/ris/v1/exam/save', admin, {
      hospitalId: orgs.HOSP_A, hisPatientName: '时限测试', sex: 1, age: 60, ageUnit: 4, patientSource, outPatientNo: 'JZ19', items: [{ itemId: item.id, organId: item.organ_id }], ...extra,
    });
    expect(r.body.status).toBe('0');
    await p.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [r.body.data.id]);
    return r.body.data.id as number;
  };
  const sendUp = async (id: number) => {
    const r = await act(docA, 'submitSuperiorWrite', id, { version: await version(id), hospitalId: orgs.CENTRAL });
    expect(r.body.data).toMatchObject({ sentToSuperior: true });
  };

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    [admin, docA, senior] = await Promise.all(['13800000001', '13800000004', '13800000005'].map((m) => login(p.app, m)));
    seniorId = (await p.db.query<{ id: number }>("SELECT id FROM app_user WHERE mobile = '13800000005'")).rows[0].id;
  });
  afterEach(() => clock.setOffset(0));
  afterAll(() => p.close());

  test('an emergency head CT sent up: 30 minutes; near, then overdue on both sides; the sweep notes it, releases the claim and tells the lead', async () => {
    const id = await examined(3, '颅脑 CT 平扫');
    await sendUp(id);
    let c = await clockOf(id);
    expect(c).toMatchObject({ priority: 1, limit_minutes: 30, limit_working: false, clock_paused_at: null, overdue_at: null });
    expect((c.due_at as Date).getTime() - (c.superior_send_time as Date).getTime()).toBe(30 * MINUTE);
    expect(await marks(id)).toEqual(['ok', 'ok']);
    expect((await rowIn(docA, 'all', undefined, id))?.priority).toBe(1);

    // The central senior opens it (time to claim) and holds the remote worklist's claim.
    expect((await act(senior, 'lock', id)).body.status).toBe('0');
    await p.db.query('UPDATE report SET remote_claimed_by = $2, remote_claimed_at = now() WHERE id = $1', [id, seniorId]);

    // 24 minutes on: less than a quarter of the limit left.
    clock.shift(24 * MINUTE);
    expect(await marks(id)).toEqual(['near', 'near']);
    const near = await call('GET', `${R}/report/due`, docA);
    expect(near.body.data).toMatchObject({ near: expect.any(Number), overdue: expect.any(Number) });
    expect(near.body.data.near).toBeGreaterThanOrEqual(1);

    // Past the limit: overdue on both sides, and the filter the home page's figure opens finds it.
    clock.shift(10 * MINUTE);
    expect(await marks(id)).toEqual(['overdue', 'overdue']);
    const filtered = await call('POST', `${R}/report/list/all`, docA, { page: 1, pageSize: 100, filters: { dueState: ['near', 'overdue'] } });
    expect((filtered.body.data.list as Array<{ id: number; dueState: string }>).map((x) => x.dueState)).not.toContain('ok');
    expect((filtered.body.data.list as Array<{ id: number }>).map((x) => x.id)).toContain(id);
    expect((await call('GET', `${R}/report/due`, docA)).body.data.overdue).toBeGreaterThanOrEqual(1);

    // The sweep (also the background worker's work: what it did is read from the rows).
    await sweepOverdue(p.db, clock.now());
    c = await clockOf(id);
    expect(c.overdue_at).not.toBeNull();
    expect(c.remote_claimed_by).toBeNull();
    const logged = (await p.db.query<{ detail: { releasedUserId: number | null } }>("SELECT detail FROM exam_log WHERE exam_id = $1 AND action = 'overdue'", [id])).rows;
    expect(logged).toEqual([{ detail: expect.objectContaining({ releasedUserId: seniorId }) }]);
    // Noted once: a second pass leaves it.
    expect((await sweepOverdue(p.db, clock.now())).map((r) => r.id)).not.toContain(id);
    const record = (await call('GET', `${R}/report/logs/${id}`, docA)).body.data;
    expect(JSON.stringify(record)).toContain('"overdue"');
    // The centre lead (the assign right) has it in the remote notice; the primary hospital's report notice has no such count.
    expect((await call('GET', `${R}/notice?model=remote`, senior)).body.data.overdue).toBeGreaterThanOrEqual(1);
    expect((await call('GET', `${R}/notice?model=report`, docA)).body.data.overdue).toBeUndefined();

    // Written and approved late: time to claim and to final recorded, not within the limit.
    expect((await act(senior, 'submit', id, { version: await version(id), see: '脑实质未见异常密度。', diagnosis: '颅脑 CT 平扫未见异常。' })).body.status).toBe('0');
    expect((await act(senior, 'reviewPass', id, { version: await version(id) })).body.status).toBe('0');
    c = await clockOf(id);
    expect(c).toMatchObject({ within_limit: false });
    expect(c.final_seconds as number).toBeGreaterThanOrEqual(34 * 60);
    expect(c.claim_seconds as number).toBeLessThan(60);
    expect(await marks(id)).toEqual(['done', undefined]);

    // The remote centre statistics count it by requesting hospital.
    const now = clock.now().getTime();
    const stats = await call('POST', '/api/stat/v1/remoteCenter', admin, { range: [new Date(now - 86_400_000).toISOString(), new Date(now + 86_400_000).toISOString()], dimension: 'hospital' });
    expect(stats.code).toBe(200);
    const rowA = (stats.body.data.rows as Array<{ key: number; values: Record<string, number> }>).find((r) => r.key === orgs.HOSP_A);
    expect(rowA?.values.final).toBeGreaterThanOrEqual(1);
    expect(rowA?.values.overdue).toBeGreaterThanOrEqual(1);
    expect(rowA?.values.withinShare).toBeLessThan(1);
    expect(rowA?.values.p90Final).toBeGreaterThanOrEqual(rowA!.values.medianFinal);
  });

  test("a hospital's own limit overrides the default; returned, the clock pauses and resumes with what was left", async () => {
    const made = await call('POST', '/api/bdt/v1/turnaroundLimit/save', admin, { hospitalId: orgs.CENTRAL, priority: 3, modality: 'CT', minutes: 90, workingHours: false });
    expect(made.body.status).toBe('0');
    // The same rule twice is refused.
    expect((await call('POST', '/api/bdt/v1/turnaroundLimit/save', admin, { hospitalId: orgs.CENTRAL, priority: 3, modality: 'CT', minutes: 60 })).body.status).toBe('BDT003');

    const id = await examined(1, '胸部 CT 平扫');
    await sendUp(id);
    expect(await clockOf(id)).toMatchObject({ priority: 3, limit_minutes: 90, limit_working: false });
    // An outpatient registered as an emergency takes the emergency limit (the default: 1 h for a chest CT).
    const urgent = await examined(1, '胸部 CT 平扫', { priority: 1 });
    expect((await call('GET', `/api/ris/v1/exam/detail/${urgent}`, admin)).body.data.priority).toBe(1);
    await sendUp(urgent);
    expect(await clockOf(urgent)).toMatchObject({ priority: 1, limit_minutes: 60, limit_working: false });

    // 20 minutes on, the central hospital returns it: 70 minutes left, waiting.
    clock.shift(20 * MINUTE);
    expect((await act(senior, 'return', id, { version: await version(id), reason: '检查部位与申请不符' })).body.status).toBe('0');
    let c = await clockOf(id);
    expect(c).toMatchObject({ clock_left_minutes: 70 });
    expect(c.clock_paused_at).not.toBeNull();
    expect((await rowIn(docA, 'all', undefined, id))?.dueState).toBe('paused');

    // Fixed two hours later and sent up again to review: due 70 minutes from then, not overdue meanwhile.
    clock.shift(120 * MINUTE);
    expect((await sweepOverdue(p.db, clock.now())).map((r) => r.id)).not.toContain(id);
    expect((await act(docA, 'save', id, { version: await version(id), see: '胸廓对称。', diagnosis: '胸部 CT 未见异常。' })).body.status).toBe('0');
    expect((await act(docA, 'submitSuperiorReview', id, { version: await version(id), hospitalId: orgs.CENTRAL })).body.status).toBe('0');
    c = await clockOf(id);
    expect(c).toMatchObject({ clock_paused_at: null, limit_minutes: 90 });
    const resumedAt = (c.superior_send_time as Date).getTime();
    expect((c.due_at as Date).getTime() - resumedAt).toBe(70 * MINUTE);
    expect(await marks(id)).toEqual(['ok', undefined]);
    expect((await rowIn(senior, 'review', 'remote', id))?.dueState).toBe('ok');
  });
});
