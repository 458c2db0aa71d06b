/**
 * Turnaround and weighted workload (issue #21 items 2 and 3) through POST
 * /api/stat/v1/<view> on each database, over a month of the past (March 2020) that
 * holds only the exams this test writes, with known milestones:
 * - hospital A: four exams approved 10, 20, 30 and 40 hours after registration (their
 *   segments below), one registered and never examined (due, not within the limit);
 *   hospital B: one exam approved in 5 hours
 * - the administrator by hospital: A's medians and P90s per segment are
 *   percentile_cont's of the known values, its share within the 24-hour limit 2/5; B
 *   is its own row; a statistics manager of hospital A sees A only, and asking for B by filter
 *   finds nothing
 * - weighted workload: without coefficients an exam weighs 1 (weighted = written);
 *   an item's coefficient (saved through the admin entity's call) and a body part's
 *   change the weighted count by what they add; an item's own coefficient wins over
 *   its part's; another hospital's coefficient changes nothing in A
 */
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { LIMITS } from '../../config/limits';
import { hashPassword } from '../../server/identity/passwords';

const STAT = '/api/stat/v1';
const HOUR = 3_600_000;
const BASE = Date.parse('2020-03-02T00:00:00Z');
const range = ['2020-03-01T00:00:00Z', '2020-04-01T00:00:00Z'];

/** Hours of each segment: registered → examined → images in → first report → approved. */
const A_EXAMS = [
  [1, 0.5, 2, 6.5],
  [2, 0.5, 4, 13.5],
  [3, 1, 6, 20],
  [4, 1, 8, 27],
];
const B_EXAM = [1, 1, 1, 2];

/** percentile_cont: linear between the closest ranks. */
function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const at = p * (s.length - 1);
  const lo = Math.floor(at);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo);
}

describe.each(dbKinds)('turnaround and weighted workload on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let managerA: string;
  let orgs: Record<string, number>;
  const examIds: number[] = [];
  const call = (url: string, payload: object, token = admin) =>
    p.app.inject({ method: 'POST', url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  type Row = { key: number | string; values: Record<string, number | null> };

  /** One exam of `hospital` registered at `at` with its segments (none: registered only), and its report when approved. */
  async function addExam(hospital: number, at: number, segments?: number[]): Promise<number> {
    const n = examIds.length + 1;
    const t = [at];
    for (const h of segments ?? []) t.push(t[t.length - 1] + h * HOUR);
    const iso = (i: number) => (t[i] === undefined ? null : new Date(t[i]).toISOString());
    const { rows: [e] } = await p.db.query<{ id: number }>(
      `INSERT INTO exam (hospital_id, exam_code, study_uid, his_patient_name, patient_id, age, age_unit, sex, patient_source, modality,
                         exam_state, exam_time, images_at, image_status, scheduled_start, scheduled_step_id, requested_procedure_id, created_at)
       VALUES ($1, $2, $3, '周转测试', $2, 40, 4, 1, 1, 'CT', $4, $5, $6, $7, $8, $2, $2, $8) RETURNING id`,
      [hospital, `TAT${n}`, `2.25.770${n}`, segments ? 2 : 1, iso(1), iso(2), segments ? 1 : 0, iso(0)],
    );
    if (segments) {
      await p.db.query(
        `INSERT INTO report (id, report_state, writer_name, first_trial_time, reviewer_name, retrial_time) VALUES ($1, 4, '周医生', $2, '吴医生', $3)`,
        [e.id, iso(3), iso(4)],
      );
    }
    examIds.push(e.id);
    return e.id;
  }

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    admin = await login(p.app, '13800000001');
    // A statistics manager of hospital A: own data only.
    const role = await p.db.query<{ id: number }>(
      `INSERT INTO role (name, explain, permissions, data_scope) VALUES ('A 统计', '', $1::jsonb, 'own') RETURNING id`,
      [JSON.stringify({ 'stat.check': ['view'], 'stat.reportCenter': ['view'] })],
    );
    const user = await p.db.query<{ id: number }>("INSERT INTO app_user (mobile, name, status, password_hash) VALUES ('13700000041', 'A统计员', 1, $1) RETURNING id", [await hashPassword('Stat#2026x')]);
    await p.db.query('INSERT INTO user_membership (user_id, hospital_id, role_id) VALUES ($1, $2, $3)', [user.rows[0].id, orgs.HOSP_A, role.rows[0].id]);
    managerA = await login(p.app, '13700000041', 'Stat#2026x');
    for (const [i, s] of A_EXAMS.entries()) await addExam(orgs.HOSP_A, BASE + i * HOUR, s);
    await addExam(orgs.HOSP_A, BASE + 24 * HOUR);
    await addExam(orgs.HOSP_B, BASE, B_EXAM);
  });
  afterAll(() => p.close());

  test('medians, P90s and the share within the limit per hospital, as the administrator', async () => {
    expect(LIMITS.turnaroundLimitHours).toBe(24);
    const r = await call(`${STAT}/turnaround`, { range, dimension: 'hospital' });
    expect(r.code).toBe(200);
    const rows = r.body.data.rows as Row[];
    expect(rows.map((x) => x.key).sort()).toEqual([orgs.HOSP_A, orgs.HOSP_B].sort());
    const a = rows.find((x) => x.key === orgs.HOSP_A)!.values;
    const seg = (i: number) => A_EXAMS.map((s) => s[i]);
    const total = A_EXAMS.map((s) => s.reduce((x, y) => x + y, 0));
    expect(total).toEqual([10, 20, 30, 40]);
    const expected: Record<string, number> = {
      exams: 5,
      examinedMedian: percentile(seg(0), 0.5),
      examinedP90: percentile(seg(0), 0.9),
      imagesInMedian: percentile(seg(1), 0.5),
      imagesInP90: percentile(seg(1), 0.9),
      firstReportMedian: percentile(seg(2), 0.5),
      firstReportP90: percentile(seg(2), 0.9),
      approvalMedian: percentile(seg(3), 0.5),
      approvalP90: percentile(seg(3), 0.9),
      totalMedian: 25,
      totalP90: 37,
      // Approved within 24 hours: 10 and 20 of the five due (the never-examined exam is long past its limit).
      inLimit: 2 / 5,
    };
    for (const [k, v] of Object.entries(expected)) expect([k, a[k]]).toEqual([k, expect.closeTo(v, 6)]);
    const b = rows.find((x) => x.key === orgs.HOSP_B)!.values;
    expect(b).toMatchObject({ exams: 1, totalMedian: expect.closeTo(5, 6), inLimit: 1 });
    expect(r.body.data.totals.exams).toBe(6);
  });

  test('a statistics manager of hospital A sees A only', async () => {
    const r = await call(`${STAT}/turnaround`, { range, dimension: 'hospital' }, managerA);
    expect(r.code).toBe(200);
    expect((r.body.data.rows as Row[]).map((x) => x.key)).toEqual([orgs.HOSP_A]);
    expect(r.body.data.totals.exams).toBe(5);
    const other = await call(`${STAT}/turnaround`, { range, filters: { hospitalId: orgs.HOSP_B } }, managerA);
    expect(other.body.data.rows).toEqual([]);
    expect(other.body.data.totals.exams).toBe(0);
  });

  test('coefficients change the weighted workload by what they add', async () => {
    const weighted = async () => {
      const r = await call(`${STAT}/workload`, { range, dimension: 'hospital', filters: { hospitalId: orgs.HOSP_A } });
      expect(r.code).toBe(200);
      return r.body.data.totals as Record<string, number>;
    };
    // Without coefficients every exam weighs 1.
    expect(await weighted()).toMatchObject({ written: 4, reviewed: 4, weightedWritten: 4, weighted: 8 });

    // The first exam gets an item, the second an item of another part.
    const items = (
      await p.db.query<{ id: number; name: string; organ_id: number; parent_id: number }>(
        `SELECT i.id, i.name, i.organ_id, o.parent_id FROM exam_item i JOIN organ o ON o.id = i.organ_id
          WHERE i.hospital_id = $1 AND o.parent_id IS NOT NULL ORDER BY i.id`,
        [orgs.HOSP_A],
      )
    ).rows;
    const [item1, item2] = [items[0], items.find((i) => i.organ_id !== items[0].organ_id && i.parent_id !== items[0].parent_id)!];
    expect(item2).toBeDefined();
    for (const [exam, item] of [[examIds[0], item1], [examIds[1], item2]] as const) {
      await p.db.query('INSERT INTO exam_item_line (exam_id, position, item_id, item_name, organ_id) VALUES ($1, 1, $2, $3, $4)', [exam, item.id, item.name, item.organ_id]);
    }
    const save = (body: object) => call('/api/bdt/v1/workloadWeight/save', body);

    const byItem = await save({ hospitalId: orgs.HOSP_A, examItemId: item1.id, coefficient: 3 });
    expect(byItem.body.status).toBe('0');
    expect(await weighted()).toMatchObject({ written: 4, weightedWritten: 6, weighted: 12 });

    // The second exam's body category: 2.5; then its part: 1.5 (the part is nearer than its body).
    expect((await save({ hospitalId: orgs.HOSP_A, organId: item2.parent_id, coefficient: 2.5 })).body.status).toBe('0');
    expect(await weighted()).toMatchObject({ weightedWritten: 7.5 });
    expect((await save({ hospitalId: orgs.HOSP_A, organId: item2.organ_id, coefficient: 1.5 })).body.status).toBe('0');
    expect(await weighted()).toMatchObject({ weightedWritten: 6.5 });

    // The first exam's part too: its item's own coefficient still wins.
    expect((await save({ hospitalId: orgs.HOSP_A, organId: item1.organ_id, coefficient: 9 })).body.status).toBe('0');
    expect(await weighted()).toMatchObject({ weightedWritten: 6.5 });

    // Another hospital's coefficient for the same item changes nothing in A; a duplicate and a row naming neither are refused.
    expect((await save({ hospitalId: orgs.HOSP_B, organId: item1.organ_id, coefficient: 5 })).body.status).toBe('0');
    expect(await weighted()).toMatchObject({ weightedWritten: 6.5 });
    expect((await save({ hospitalId: orgs.HOSP_A, examItemId: item1.id, coefficient: 4 })).body.status).toBe('BDT003');
    expect((await save({ hospitalId: orgs.HOSP_A, coefficient: 4 })).body).toMatchObject({ status: 'UAA421', field: 'examItemId' });

    // Changed in place: the item's coefficient from 3 to 2.
    expect((await save({ id: byItem.body.data.id, hospitalId: orgs.HOSP_A, examItemId: item1.id, coefficient: 2 })).body.status).toBe('0');
    expect(await weighted()).toMatchObject({ weightedWritten: 5.5, weighted: 11 });
  });
});
