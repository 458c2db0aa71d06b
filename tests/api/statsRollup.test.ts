/**
 * The statistics rollups (migration 0037 of the exams, 0039 of the report work;
 * server/stats/rollup.ts) answer as the indexed path does, on each database:
 * - seeded exams of hospitals A, B and X (X outside every scope below but the
 *   administrator's) in every state the exam statistics count, over the last 100 days,
 *   on local-day edges and on both sides of the turnaround limit's clock cut; then
 *   edited the ways the platform writes: several rows per statement and one, modality,
 *   hospital and registration time moved, hidden, terminated, reports written late,
 *   approved, their conclusion marked positive, deleted, exams deleted with their
 *   reports, and a change of a column no figure reads; reports written, reviewed and
 *   rechecked by three doctors and none, a writer changed, a doctor's name on a
 *   report changed, an exam's workload weight changed
 * - every declared view, every dimension with no series and with each series (all its
 *   measures, or where the histograms lack the grouping, those the sums answer), for the
 *   administrator, the own-hospital scope, a regional authorization (A and B) and a
 *   custom condition (CT only), over a range with whole months, three days across the
 *   clock cut, and two past whole months: wherever the rollup answers (the path is
 *   asked, never assumed), the rows, keys, labels and totals equal the indexed path's,
 *   counts and sums exactly, medians and P90s within ROLLUP_PERCENTILE_TOLERANCE_HOURS
 * - the rollup does answer the cockpit's, exam volume's, turnaround's and the report
 *   work's groupings (its hours medians and P90s, of all work and of one kind, too)
 *   (the check could fail), and never a range that is not whole local days, a custom
 *   condition on a field it lacks, or a source it does not roll up
 * - no rollup answer names a hospital outside the caller's scope
 */
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { runStats, statsPath, STATS_VIEWS, type StatsCaller } from '../../server/stats';
import { ROLLUP_PERCENTILE_TOLERANCE_HOURS } from '../../server/stats/rollup';
import { SOURCES } from '../../server/stats/sources';
import type { DataScope } from '../../server/identity/scope';
import type { StatsAnswer, StatsQuery } from '../../src/shared/answers';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Local (Asia/Shanghai, no daylight saving) midnight `days` from today's. */
function midnight(days: number, from = Date.now()): number {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(from));
  return Date.parse(`${today}T00:00:00+08:00`) + days * DAY;
}

/** The first local day of the month `back` months before this one. */
function monthStart(back: number): number {
  const [y, m] = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit' }).format(new Date()).split('-').map(Number);
  const d = new Date(Date.UTC(y, m - 1 - back, 1));
  return Date.parse(`${d.toISOString().slice(0, 10)}T00:00:00+08:00`);
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const PERCENTILES = new Set(Object.values(STATS_VIEWS).flatMap((v) => v.measures.filter((m) => m.fn === 'median' || m.fn === 'p90').map((m) => m.key)));

/** Both answers, measure by measure: equal, a percentile within the bins' tolerance. */
function compare(where: string, rollup: StatsAnswer, indexed: StatsAnswer): void {
  const key = (r: StatsAnswer['rows'][number]) => JSON.stringify([r.key, r.seriesKey ?? null]);
  expect([where, rollup.rows.map(key).sort()]).toEqual([where, indexed.rows.map(key).sort()]);
  const byKey = new Map(indexed.rows.map((r) => [key(r), r]));
  const values = (at: string, a: Record<string, number | null>, b: Record<string, number | null>) => {
    for (const [m, v] of Object.entries(b)) {
      const got = a[m];
      if (v === null || got === null) expect([at, m, got]).toEqual([at, m, v]);
      else if (PERCENTILES.has(m)) expect([at, m, Math.abs(got - v) <= ROLLUP_PERCENTILE_TOLERANCE_HOURS + 1e-9, got, v]).toEqual([at, m, true, got, v]);
      else expect([at, m, Math.abs(got - v) < 1e-6, got, v]).toEqual([at, m, true, got, v]);
    }
  };
  for (const r of rollup.rows) {
    const other = byKey.get(key(r))!;
    expect([where, r.label, r.seriesLabel]).toEqual([where, other.label, other.seriesLabel]);
    values(`${where} ${key(r)}`, r.values, other.values);
  }
  values(`${where} totals`, rollup.totals, indexed.totals);
}

describe.each(dbKinds)('statistics rollup on %s', (kind) => {
  let p: TestPlatform;
  let orgs: Record<string, number>;
  let x: number;

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    x = (await p.db.query<{ id: number }>(`INSERT INTO org (code, name, kind, parent_id) VALUES ('HOSP_RX', '汇总范围外医院', 'subordinate', $1) RETURNING id`, [orgs.CENTRAL])).rows[0].id;
    await seed();
    // Generous: a fresh template (all migrations and the demo seed) on a loaded machine.
  }, 600_000);
  afterAll(() => p.close());

  async function seed(): Promise<void> {
    const rnd = random(kind === 'postgres' ? 7 : 11);
    const pick = <T,>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
    const now = Date.now();
    const cut = now - 24 * HOUR;
    const hospitals = [orgs.HOSP_A, orgs.HOSP_B, x];
    const rows: unknown[][] = [];
    for (let i = 0; i < 160; i++) {
      // Mostly spread over 100 days; some on a local midnight, some just before one, some near the limit's cut (never within minutes of it: the two paths read the clock apart).
      let created = now - rnd() * 100 * DAY;
      if (i % 13 === 0) created = midnight(-Math.floor(rnd() * 60));
      if (i % 17 === 0) created = midnight(-Math.floor(rnd() * 60)) - 500;
      if (i % 11 === 0) created = cut + (rnd() < 0.5 ? -1 : 1) * (10 * 60_000 + rnd() * 6 * HOUR);
      const examined = rnd() < 0.8 ? created + rnd() * 3 * HOUR : null;
      const images = examined !== null && rnd() < 0.8 ? examined + rnd() * 2 * HOUR : null;
      const state = examined === null ? pick([1, 3]) : 2;
      rows.push([
        pick(hospitals), `RU${i}`, `2.25.77${i}`, pick([8, 30, 50, 70, 2]), pick([4, 4, 4, 1]), pick([1, 2]), pick([1, 2, 3, 4]),
        pick(['CT', 'MR', 'DR', null]), state, pick([0, 1]), rnd() < 0.7 ? new Date(created).toISOString() : null,
        (Math.round(rnd() * 50000) / 100).toFixed(2), new Date(created).toISOString(),
        examined === null ? null : new Date(examined).toISOString(), images === null ? null : new Date(images).toISOString(), pick([false, false, true]),
      ]);
    }
    // One statement for all (the statement triggers' many-row case).
    const values = rows.map((_, i) => `(${Array.from({ length: 16 }, (__, j) => `$${i * 16 + j + 1}`).join(', ')})`).join(', ');
    await p.db.query(
      `INSERT INTO exam (hospital_id, exam_code, study_uid, age, age_unit, sex, patient_source, modality, exam_state, image_status, arrived_at, price,
                         created_at, exam_time, images_at, sent_to_superior, his_patient_name, patient_id, scheduled_start, scheduled_step_id, requested_procedure_id)
       SELECT v.h::int, v.code, v.uid, v.age::smallint, v.unit::smallint, v.sex::smallint, v.src::smallint, v.modality, v.state::smallint, v.img::smallint,
              v.arrived::timestamptz, v.price::numeric, v.created::timestamptz, v.examined::timestamptz, v.images::timestamptz, v.sup::boolean,
              '汇总', v.code, v.created::timestamptz, v.code, v.code
         FROM (VALUES ${values}) v (h, code, uid, age, unit, sex, src, modality, state, img, arrived, price, created, examined, images, sup)`,
      rows.flat(),
    );
    const ids = (await p.db.query<{ id: number; created_at: Date; images_at: Date | null }>("SELECT id, created_at, images_at FROM exam WHERE exam_code LIKE 'RU%' ORDER BY id")).rows;
    // The doctors of the report work: user 1 (every caller below, so its own turnaround counts), two others, and none.
    const users = (await p.db.query<{ id: number; name: string }>('SELECT id, name FROM app_user ORDER BY id LIMIT 3')).rows;
    const doctors: Array<[number | null, string | null]> = [...users.map((u): [number, string] => [u.id, u.name]), [null, null]];
    // Reports for most: written 0–100 h after (beyond the quarter-hour bins sometimes), approved for some 0–30 h later, rechecked for some after that.
    for (const e of ids.filter(() => rnd() < 0.75)) {
      const written = (e.images_at ?? e.created_at).getTime() + rnd() * (rnd() < 0.2 ? 100 : 10) * HOUR;
      const approved = rnd() < 0.7 ? written + rnd() * 30 * HOUR : null;
      const rechecked = approved && rnd() < 0.3 ? approved + rnd() * 50 * HOUR : null;
      const [writer, reviewer, rechecker] = [pick(doctors), pick(doctors), pick(doctors)];
      await p.db.query(
        `INSERT INTO report (id, report_state, version, first_trial_time, retrial_time, positive, writer_id, writer_name, reviewer_id, reviewer_name,
                             recheck_doctor_id, recheck_doctor_name, recheck_time)
         VALUES ($1, $2, 1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [e.id, approved ? 4 : 2, new Date(written), approved && new Date(approved), pick([true, false, null]), ...writer,
         ...(approved ? reviewer : [null, null]), ...(rechecked ? rechecker : [null, null]), rechecked && new Date(rechecked)],
      );
    }

    // The edits, each as the platform makes them.
    const some = (k: number) => ids.filter((_, i) => i % k === 1).map((e) => e.id);
    await p.db.query("UPDATE exam SET modality = 'MR' WHERE id = ANY($1::int[])", [some(7)]);
    await p.db.query('UPDATE exam SET hospital_id = $2 WHERE id = ANY($1::int[])', [some(9), x]);
    await p.db.query("UPDATE exam SET created_at = created_at - interval '3 days 5 hours' WHERE id = ANY($1::int[])", [some(10)]);
    await p.db.query('UPDATE exam SET hidden = true WHERE id = ANY($1::int[])', [some(12)]);
    await p.db.query('UPDATE exam SET exam_state = 3, image_status = 1 - image_status WHERE id = $1', [ids[5].id]);
    await p.db.query("UPDATE exam SET his_patient_name = '汇总改' WHERE id = ANY($1::int[])", [some(3)]);
    await p.db.query(
      "UPDATE report SET retrial_time = first_trial_time + interval '2 hours', report_state = 4, reviewer_id = $2, reviewer_name = $3 WHERE retrial_time IS NULL AND id = ANY($1::int[])",
      [some(4), users[1].id, users[1].name],
    );
    // Rechecked, the writer changed (and a name changed under the same doctor), an exam's workload weight changed.
    await p.db.query(
      "UPDATE report SET recheck_time = retrial_time + interval '20 hours', recheck_doctor_id = $2, recheck_doctor_name = $3 WHERE retrial_time IS NOT NULL AND recheck_time IS NULL AND id = ANY($1::int[])",
      [some(8), users[0].id, users[0].name],
    );
    await p.db.query('UPDATE report SET writer_id = $2, writer_name = $3 WHERE id = ANY($1::int[])', [some(13), users[2].id, users[2].name]);
    await p.db.query("UPDATE report SET writer_name = '改名' WHERE id = $1 AND writer_id IS NOT NULL", [ids[20].id]);
    await p.db.query('UPDATE exam SET work_weight = 2.5 WHERE id = ANY($1::int[])', [some(14)]);
    await p.db.query('UPDATE report SET positive = NOT coalesce(positive, false) WHERE id = ANY($1::int[])', [some(5)]);
    await p.db.query("UPDATE report SET first_trial_time = first_trial_time + interval '80 hours' WHERE id = $1", [ids[8].id]);
    await p.db.query('DELETE FROM report WHERE id = ANY($1::int[])', [some(15)]);
    await p.db.query('DELETE FROM exam WHERE id = ANY($1::int[])', [some(16)]);
    await p.db.query(
      `INSERT INTO report (id, report_state, version, first_trial_time, positive, writer_id, writer_name)
       SELECT e.id, 2, 1, e.created_at + interval '5 hours', true, $2, $3 FROM exam e WHERE e.id = ANY($1::int[]) AND NOT EXISTS (SELECT 1 FROM report r WHERE r.id = e.id)`,
      [some(6), users[0].id, users[0].name],
    );
  }

  const scopes: Record<string, DataScope> = {};
  const callers = (): Record<string, StatsCaller> => {
    scopes.admin = { all: true, hospitalIds: [orgs.CENTRAL], conditionSets: [] };
    scopes.own = { all: false, hospitalIds: [orgs.HOSP_A], conditionSets: [] };
    scopes.regional = { all: false, hospitalIds: [orgs.HOSP_A, orgs.HOSP_B], conditionSets: [] };
    scopes.custom = { all: false, hospitalIds: [orgs.HOSP_A, orgs.HOSP_B], conditionSets: [{ logic: 'and', conditions: [{ field: 'modality', op: 'eq', value: 'CT' }] }] };
    return Object.fromEntries(Object.entries(scopes).map(([k, scope]) => [k, { scope, userId: 1 }]));
  };

  const ranges = () => ({
    months: [midnight(-100), midnight(1)],
    cut: [midnight(-2), midnight(1)],
    past: [monthStart(3), monthStart(1)],
  });

  // One test per view, so a slow machine's time is per view. Each dimension alone for
  // every caller and range; with each series for the administrator and the custom
  // condition over the long range (the same SQL with one key more).
  test.each(Object.keys(STATS_VIEWS))('%s: every grouping the rollup answers equals the indexed path', async (name) => {
    const view = STATS_VIEWS[name];
    const all = callers();
    let compared = 0;
    for (const dimension of view.dimensions) {
      for (const series of [undefined, ...(view.series ?? []).filter((s) => s !== dimension)]) {
        for (const [who, caller] of Object.entries(all)) {
          for (const [span, [from, to]] of Object.entries(ranges())) {
            if (series && (span !== 'months' || !['admin', 'custom'].includes(who))) continue;
            let query: StatsQuery = { range: [new Date(from).toISOString(), new Date(to).toISOString()], dimension, series };
            // All the measures, else those the sums answer (the histograms have fewer dimensions), as a panel asking counts would.
            if (statsPath(view, query, caller) !== 'rollup') query = { ...query, measures: view.measures.filter((m) => !PERCENTILES.has(m.key)).map((m) => m.key) };
            if (statsPath(view, query, caller) !== 'rollup') continue;
            compared += 1;
            const where = `${name} ${dimension}/${series ?? '-'} ${who} ${span}${query.measures ? ' (sums)' : ''}`;
            const rollup = await runStats(p.db, view, query, caller, 'zh-CN');
            const indexed = await runStats(p.db, view, query, caller, 'zh-CN', { path: 'indexed' });
            compare(where, rollup, indexed);
            // The scope holds on this path too: no hospital the caller does not hold.
            if (!caller.scope.all && dimension === 'hospital') expect([where, rollup.rows.every((r) => caller.scope.hospitalIds.includes(Number(r.key)))]).toEqual([where, true]);
            if (who === 'admin' && span === 'months' && !series) expect([where, rollup.rows.length > 0]).toEqual([where, true]);
          }
        }
      }
    }
    // A view over the rolled-up source and its registration date is compared somewhere (the loop could not pass empty).
    const rolled = SOURCES[view.source].rollup?.date === view.range.field;
    expect([name, compared > 0]).toEqual([name, rolled]);
  }, 600_000);

  test('the rollup answers what the cockpit, exam volumes and turnaround group by', () => {
    const [from, to] = ranges().months.map((t) => new Date(t).toISOString());
    for (const v of ['cockpit/hospital', 'cockpit/sex', 'cockpit/ageBand', 'cockpit/month', 'examVolume/modality', 'examVolume/day', 'turnaround/hospital', 'turnaround/week', 'business/businessMode', 'checkstat/modality',
                     'workload/doctor', 'workload/month', 'docReportStat/doctor', 'docReportStat/title', 'myTurnaround/day']) {
      const [name, dimension] = v.split('/');
      // The patient profile's panels ask counts (config/cockpit.json); a median by sex or age band is the indexed path's.
      const measures = ['sex', 'ageBand'].includes(dimension) ? ['exams'] : undefined;
      expect([v, statsPath(STATS_VIEWS[name], { range: [from, to], dimension, measures }, callers().admin)]).toEqual([v, 'rollup']);
    }
    expect(statsPath(STATS_VIEWS.cockpit, { range: [from, to], dimension: 'sex' }, callers().admin)).toBe('indexed');

  });

  test('the rollup is not asked where it cannot answer alike', async () => {
    const caller = callers();
    const whole = [new Date(midnight(-30)).toISOString(), new Date(midnight(1)).toISOString()];
    expect(statsPath(STATS_VIEWS.cockpit, { range: whole }, caller.admin)).toBe('rollup');
    // Not whole local days.
    expect(statsPath(STATS_VIEWS.cockpit, { range: [new Date(midnight(-30) + HOUR).toISOString(), whole[1]] }, caller.admin)).toBe('indexed');
    // A dimension outside it (the diagnosis, the device).
    expect(statsPath(STATS_VIEWS.cockpit, { range: whole, dimension: 'diagnosis' }, caller.admin)).toBe('indexed');
    expect(statsPath(STATS_VIEWS.examVolume, { range: whole, dimension: 'device' }, caller.admin)).toBe('indexed');
    // A custom condition on a field the rollup lacks.
    const device = { scope: { ...caller.own.scope, conditionSets: [{ logic: 'and' as const, conditions: [{ field: 'deviceName', op: 'eq' as const, value: 'x' }] }] }, userId: 1 };
    expect(statsPath(STATS_VIEWS.cockpit, { range: whole }, device)).toBe('indexed');
    // Report work by a custom condition on a field its rollup lacks.
    expect(statsPath(STATS_VIEWS.workload, { range: whole }, caller.admin)).toBe('rollup');
    expect(statsPath(STATS_VIEWS.workload, { range: whole }, device)).toBe('indexed');
    // Sources it does not roll up: the billed items, the booking date.
    expect(statsPath(STATS_VIEWS.examPriceStatistics, { range: whole }, caller.admin)).toBe('indexed');
    expect(statsPath(STATS_VIEWS.reservationStat, { range: whole }, caller.admin)).toBe('indexed');
  });
});
