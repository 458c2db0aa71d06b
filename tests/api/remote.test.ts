/**
 * The remote reading centre (issue #19 items 1-3) through the API on each database. Scenarios:
 * - /remote's lists (POST /api/report/v1/remote/list/<kind>) and the remote notice are
 *   cut to the role's remote-centre authorization: a centre doctor serving hospital A
 *   sees A's reports sent up, never B's (list, notice, detail); the senior serving both
 *   sees both; a primary doctor has no remote list at all
 * - claims: a claimed report leaves the other doctor's to-write tab and shows who has
 *   it; the other's claim, lock and save are refused with REPORT121 naming the
 *   claimant; release by the claimant only; a lapsed claim (claimSeconds) frees it; a
 *   lead reassigns to a doctor of the centre only; moving the report on ends the claim;
 *   claim, release and reassign are in the operation record
 * - the remote notice leaves out what another doctor of the centre claimed (the claimant
 *   and, once the claim lapses or is released, everyone counts it); the lead's overdue
 *   count keeps it
 * - the loop's refusals: REPORT008 (withdraw what was not sent), REPORT010 (the centre
 *   submits what the primary withdrew), REPORT603 (the primary acts on what the central
 *   hospital recalled after approving it); approved upstairs, the primary prints it
 * - after the central hospital's approval both hospitals may review: the primary's
 *   senior recalls and edits it, the centre reviews it again (spec section 4)
 * - trusteeship per hospital (org.business_mode): externally run (2), the primary only
 *   sends up to write; semi-external (3), the primary's submit goes up to review
 * - externally run (2): the platform sends the report up to write when the images arrive
 *   (the workflow's action on "examined"), started clock, logged without a user; an
 *   autonomous hospital's report stays; no route takes the platform's action
 * After every report action, the reports waiting at a centre (remote_work, which the work
 * tabs are chosen and counted on) are exactly those its definition over report and exam names;
 * a work tab's total is its rows, as it opens and filtered.
 */
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { demoOrgsAndItems, examinedExam, registerExam } from '../support/exam';
import { syntheticSeries } from '../../mock/dicom';
import workflow from '../../config/workflows/report.json';

const R = '/api/report/v1';
const content = { see: '右肺上叶小结节。', diagnosis: '右肺上叶结节，建议随访。' };

describe.each(dbKinds)('remote centre on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let docA: string;
  let docB: string;
  let senior: string;
  let centre1: string;
  let centre2: string;
  let centreB: string;
  let orgs: Record<string, number>;
  const users: Record<string, number> = {};
  let item: Record<string, { id: number; organ_id: number }>;

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  /**
   * The reports waiting at a centre as remote_work holds them (migration 0041, kept by
   * triggers) against its definition over report and exam, and the exam's copies of the
   * report's state on them: both differences empty.
   */
  const expectWaitingKept = async () => {
    const cols = 'id, superior_hospital_id, report_state, due_at, remote_claimed_by, remote_claimed_at, hospital_id, exam_state, hidden, created_at';
    const want = `SELECT r.id, r.superior_hospital_id, r.report_state, r.due_at, r.remote_claimed_by, r.remote_claimed_at, e.hospital_id, e.exam_state, e.hidden, e.created_at
                    FROM report r JOIN exam e ON e.id = r.id WHERE r.sent_to_superior AND r.report_state <> 4`;
    const { rows } = await p.db.query(
      `(${want} EXCEPT SELECT ${cols} FROM remote_work) UNION ALL (SELECT ${cols} FROM remote_work EXCEPT ${want})
       UNION ALL SELECT w.${cols.replace(/, /g, ', w.')} FROM remote_work w JOIN exam e ON e.id = w.id WHERE NOT e.sent_to_superior OR e.report_state <> w.report_state`,
    );
    expect(rows).toEqual([]);
  };
  /** Report action `action` by `token`'s user, and the waiting rows still what they should be after it. */
  const act = async (token: string, action: string, id: number, body: object = {}) => {
    const r = await call('POST', `${R}/report/${action}/${id}`, token, body);
    await expectWaitingKept();
    return r;
  };
  const detail = async (token: string, id: number) => (await call('GET', `${R}/report/detail/${id}`, token)).body;
  const remoteIds = async (token: string, list: string) => {
    const r = await call('POST', `${R}/remote/list/${list}`, token, { page: 1, pageSize: 100 });
    expect(r.body.status).toBe('0');
    // The total as the tab opens and as a filter counts it (every row waiting here was sent up).
    expect(r.body.data.total).toBe(r.body.data.list.length);
    const filtered = await call('POST', `${R}/remote/list/${list}`, token, { page: 1, pageSize: 1, filters: { sentToSuperior: 'true' } });
    expect(filtered.body.data.total).toBe(r.body.data.list.length);
    // The columns read only to judge a row's actions ("_…") stay on the server.
    expect(r.body.data.list.flatMap((row: object) => Object.keys(row).filter((k) => k.startsWith('_')))).toEqual([]);
    return r.body.data.list as Array<{ id: number; claimedByName?: string; actions: string[] }>;
  };
  const version = async (id: number) => (await p.db.query<{ v: number }>('SELECT coalesce((SELECT version FROM report WHERE id = $1), 0) AS v', [id])).rows[0].v;
  const logs = async (token: string, id: number) => (await call('GET', `${R}/report/logs/${id}`, token)).body.data.list as Array<{ type: string; operatorName: string; reason?: string; hospitalName?: string }>;

  /** A new examined exam of `hospital`, registered through the API. */
  const examined = (hospital = 'HOSP_A') =>
    examinedExam(p.app, p.db, admin, {
      hospitalId: orgs[hospital], hisPatientName: '远程测试', sex: 2, age: 61, ageUnit: 4, patientSource: 1, outPatientNo: 'MZ19', items: [{ itemId: item[hospital].id, organId: item[hospital].organ_id }],
    });
  /** Sent up to the central hospital to write by its own hospital's radiologist. */
  const sentUp = async (hospital = 'HOSP_A') => {
    const id = await examined(hospital);
    const r = await act(hospital === 'HOSP_A' ? docA : docB, 'submitSuperiorWrite', id, { version: 0, hospitalId: orgs.CENTRAL });
    expect(r.body.status).toBe('0');
    return id;
  };

  /** A user of the central hospital with a role granting `remote` rights, serving the hospitals given. */
  const centreDoctor = async (mobile: string, name: string, serves: string[], rights: string[]) => {
    const role = await p.db.query<{ id: number }>(
      `INSERT INTO role (name, explain, permissions, data_scope, remote_org_ids) VALUES ($1, '远程诊断', $2::jsonb, 'own', $3::jsonb) RETURNING id`,
      [`远程${mobile}`, JSON.stringify({ remote: rights, report: ['view', 'operationRecord'] }), JSON.stringify(serves.map((c) => orgs[c]))],
    );
    const made = await call('POST', '/api/ucenter/v1/user/save', admin, {
      mobile, username: `remote${mobile.slice(-4)}`, name, status: 1, password: 'Start#2026', memberships: [{ hospitalId: orgs.CENTRAL, roleId: role.rows[0].id }],
    });
    expect(made.body.status).toBe('0');
    users[name] = made.body.data.id;
    return login(p.app, mobile, 'Start#2026');
  };

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    ({ orgs, item } = await demoOrgsAndItems(p.db));
    [admin, docA, senior] = await Promise.all(['13800000001', '13800000004', '13800000005'].map((m) => login(p.app, m)));
    const radiologist = (await p.db.query<{ id: number }>("SELECT id FROM role WHERE name = '报告医生'")).rows[0];
    const b = await call('POST', '/api/ucenter/v1/user/save', admin, {
      mobile: '13900001901', username: 'doctorb1901', name: '乙医生', status: 1, password: 'Start#2026', memberships: [{ hospitalId: orgs.HOSP_B, roleId: radiologist.id }],
    });
    expect(b.body.status).toBe('0');
    docB = await login(p.app, '13900001901', 'Start#2026');
    const write = ['view', 'write', 'operationRecord', 'details', 'image'];
    centre1 = await centreDoctor('13900001902', '远程甲', ['HOSP_A'], write);
    centre2 = await centreDoctor('13900001903', '远程乙', ['HOSP_A'], write);
    centreB = await centreDoctor('13900001904', '远程丙', ['HOSP_B'], write);
  }, 240_000);
  afterAll(() => p?.close());

  test('/remote and the remote notice hold what was sent from the hospitals the role serves, nothing else', async () => {
    const notice = async (token: string) => (await call('GET', `${R}/notice?model=remote`, token)).body.data.unwritten as number;
    const before = { c1: await notice(centre1), cb: await notice(centreB), senior: await notice(senior) };
    const fromA = await sentUp('HOSP_A');
    const fromB = await sentUp('HOSP_B');
    expect((await remoteIds(centre1, 'write')).map((r) => r.id)).toEqual(expect.arrayContaining([fromA]));
    expect((await remoteIds(centre1, 'write')).map((r) => r.id)).not.toContain(fromB);
    expect((await remoteIds(centre1, 'all')).map((r) => r.id)).not.toContain(fromB);
    expect((await remoteIds(centreB, 'write')).map((r) => r.id)).toEqual(expect.arrayContaining([fromB]));
    expect((await remoteIds(centreB, 'write')).map((r) => r.id)).not.toContain(fromA);
    const both = (await remoteIds(senior, 'write')).map((r) => r.id);
    expect(both).toEqual(expect.arrayContaining([fromA, fromB]));
    // A row's times (written by the database, read.ts isoSql) as JSON writes the instants stored.
    const listed = (await remoteIds(senior, 'write')).find((r) => r.id === fromA) as unknown as Record<string, string>;
    const stored = (await p.db.query<Record<string, Date>>('SELECT e.exam_time, r.superior_send_time, r.due_at FROM exam e JOIN report r ON r.id = e.id WHERE e.id = $1', [fromA])).rows[0];
    expect([listed.examTime, listed.superiorSendTime, listed.dueAt]).toEqual(
      [stored.exam_time, stored.superior_send_time, stored.due_at].map((t) => t.toISOString()),
    );
    // The notice counts the same reports.
    expect(await notice(centre1)).toBe(before.c1 + 1);
    expect(await notice(centreB)).toBe(before.cb + 1);
    expect(await notice(senior)).toBe(before.senior + 2);
    // Not served: not found at all (detail and actions answer alike).
    expect((await detail(centre1, fromB)).status).toBe('REPORT004');
    expect((await act(centre1, 'claim', fromB)).body.status).toBe('REPORT004');
    // Served: the remote rights, the claim offered.
    expect((await detail(centre1, fromA)).data).toMatchObject({ mode: 'remote', actions: expect.arrayContaining(['claim', 'save', 'submit']) });
    // A primary hospital's radiologist has no remote list.
    expect((await call('POST', `${R}/remote/list/write`, docA, {})).body.status).toBe('UAA103');
    // Done: what the centre approved.
    await act(senior, 'submit', fromA, { version: await version(fromA), ...content });
    await act(senior, 'reviewPass', fromA, { version: await version(fromA) });
    expect((await remoteIds(centre1, 'done')).map((r) => r.id)).toContain(fromA);
    expect((await remoteIds(centre1, 'write')).map((r) => r.id)).not.toContain(fromA);
  });

  test('claims: out of the others\' tab, conflicts named (REPORT121), release, lapse, reassign by a lead, ended by the next step', async () => {
    const id = await sentUp();
    expect((await remoteIds(centre2, 'write')).map((r) => r.id)).toContain(id);
    const claimed = await act(centre1, 'claim', id);
    expect(claimed.body.data).toMatchObject({ claimedByName: '远程甲', actions: expect.arrayContaining(['unclaim', 'save']) });
    expect(claimed.body.data.actions).not.toContain('claim');
    // Out of the other's work tab, still in their "all" with who has it; in the claimant's tab.
    expect((await remoteIds(centre2, 'write')).map((r) => r.id)).not.toContain(id);
    expect((await remoteIds(centre2, 'all')).find((r) => r.id === id)).toMatchObject({ claimedByName: '远程甲', actions: [] });
    expect((await remoteIds(centre1, 'write')).find((r) => r.id === id)).toMatchObject({ claimedByName: '远程甲', actions: expect.arrayContaining(['unclaim']) });
    // The other doctor: claim, lock, save and release refused, naming the claimant.
    for (const [action, body] of [['claim', {}], ['lock', {}], ['save', { version: await version(id), ...content }], ['unclaim', {}]] as const) {
      const r = await act(centre2, action, id, body);
      expect([action, r.code, r.body.status, r.body.claimedBy]).toEqual([action, 409, 'REPORT121', '远程甲']);
      expect(r.body.message).toContain('远程甲');
    }
    // Claimed twice by the claimant: already done.
    expect((await act(centre1, 'claim', id)).body.status).toBe('REPORT102');
    // Released: back in the pool.
    expect((await act(centre1, 'unclaim', id)).body.data.claimedByName).toBeUndefined();
    expect((await act(centre1, 'unclaim', id)).body.status).toBe('REPORT102');
    expect((await remoteIds(centre2, 'write')).map((r) => r.id)).toContain(id);

    // A claim lapses after claimSeconds: the others see it and may take it.
    await act(centre2, 'claim', id);
    await p.db.query(`UPDATE report SET remote_claimed_at = now() - make_interval(secs => $2 + 1) WHERE id = $1`, [id, workflow.claimSeconds]);
    await expectWaitingKept();
    expect((await remoteIds(centre1, 'write')).find((r) => r.id === id)?.claimedByName).toBeUndefined();
    expect((await act(centre1, 'claim', id)).body.data.claimedByName).toBe('远程甲');

    // A lead (remote:reassign) gives it to another doctor of the centre serving the hospital; not to a primary's doctor.
    expect((await act(centre2, 'reassign', id, { doctorIds: [users['远程乙']] })).body.status).toBe('UAA103');
    const choices = (await call('GET', `${R}/report/centreDoctors/${id}`, senior)).body.data.list.map((d: { name: string }) => d.name);
    expect(choices).toEqual(expect.arrayContaining(['远程甲', '远程乙']));
    expect(choices).not.toContain('远程丙');
    expect((await act(senior, 'reassign', id, { doctorIds: [users['远程丙']] })).body).toMatchObject({ status: 'UAA421', field: 'doctorIds' });
    expect((await act(senior, 'reassign', id, { doctorIds: [users['远程乙']] })).body.data.claimedByName).toBe('远程乙');
    expect((await act(centre1, 'save', id, { version: await version(id), ...content })).body.status).toBe('REPORT121');
    // The claimant writes and submits: the next step (review) is the pool's again.
    expect((await act(centre2, 'submit', id, { version: await version(id), ...content })).body.data).toMatchObject({ reportState: 2 });
    expect((await detail(centre2, id)).data.claimedByName).toBeUndefined();
    const types = (await logs(senior, id)).map((l) => l.type);
    expect(types).toEqual(expect.arrayContaining(['claim', 'unclaim', 'reassign', 'submit']));
    // Hospital A's record shows the centre's steps too.
    expect((await logs(docA, id)).map((l) => l.type)).toEqual(types);
  });

  test("the remote notice counts what the caller may act on: not a report another doctor claimed; the lead's overdue count keeps it", async () => {
    const counts = async (token: string) => (await call('GET', `${R}/notice?model=remote`, token)).body.data as { unwritten: number; overdue: number };
    const id = await sentUp();
    const before = { c1: await counts(centre1), c2: await counts(centre2), lead: await counts(senior) };
    expect((await act(centre1, 'claim', id)).body.status).toBe('0');
    // The claimant still counts it; the other doctor and the lead (as their to-write tabs) do not.
    expect((await counts(centre1)).unwritten).toBe(before.c1.unwritten);
    expect((await counts(centre2)).unwritten).toBe(before.c2.unwritten - 1);
    expect((await counts(senior)).unwritten).toBe(before.lead.unwritten - 1);
    // Past its limit while claimed (the sweep noted it): the lead's overdue count has it.
    await p.db.query('UPDATE report SET overdue_at = now() WHERE id = $1', [id]);
    expect((await counts(senior)).overdue).toBe(before.lead.overdue + 1);
    // The claim lapsed: it counts for the others again.
    await p.db.query(`UPDATE report SET remote_claimed_at = now() - make_interval(secs => $2 + 1) WHERE id = $1`, [id, workflow.claimSeconds]);
    expect((await counts(centre2)).unwritten).toBe(before.c2.unwritten);
    expect((await counts(senior)).unwritten).toBe(before.lead.unwritten);
    // Claimed again and released: counted by all.
    expect((await act(centre2, 'claim', id)).body.status).toBe('0');
    expect((await counts(centre1)).unwritten).toBe(before.c1.unwritten - 1);
    expect((await act(centre2, 'unclaim', id)).body.status).toBe('0');
    expect((await counts(centre1)).unwritten).toBe(before.c1.unwritten);
    expect((await counts(centre2)).unwritten).toBe(before.c2.unwritten);
  });

  test('the loop\'s refusals: REPORT008, REPORT010, REPORT603; approved upstairs the primary prints it', async () => {
    // Withdraw what was never sent.
    const unsent = await examined();
    expect((await act(docA, 'withdraw', unsent, { version: 0, reason: '撤回' })).body.status).toBe('REPORT008');
    // Withdrawn by the primary: the centre may not submit it.
    const withdrawn = await sentUp();
    await act(senior, 'save', withdrawn, { version: await version(withdrawn), ...content });
    await act(senior, 'release', withdrawn);
    expect((await act(docA, 'withdraw', withdrawn, { version: await version(withdrawn), reason: '本院医生已到岗' })).body.data).toMatchObject({ reportState: 8 });
    expect((await act(senior, 'submit', withdrawn, { version: await version(withdrawn), ...content })).body.status).toBe('REPORT010');
    expect((await remoteIds(senior, 'all')).map((r) => r.id)).not.toContain(withdrawn);

    // Approved by the centre: the primary sees it approved and prints it.
    const id = await sentUp();
    await act(senior, 'submit', id, { version: await version(id), ...content });
    await act(senior, 'reviewPass', id, { version: await version(id) });
    expect((await detail(docA, id)).data).toMatchObject({ reportState: 4, retrialDoctorName: '林主任', actions: expect.arrayContaining(['print']) });
    expect((await act(docA, 'print', id, { version: await version(id) })).body.data).toMatchObject({ reportPrintState: 1 });
    // Recalled by the centre: the primary is told so.
    expect((await act(senior, 'recall', id, { version: await version(id), reason: '诊断需修改', confirm: true })).body.data).toMatchObject({ reportState: 2 });
    const refused = await act(docA, 'print', id, { version: await version(id) });
    expect([refused.code, refused.body.status]).toEqual([409, 'REPORT603']);
    expect((await detail(docA, id)).data.actions).toEqual(['withdraw']);
    const recall = (await logs(docA, id)).find((l) => l.type === 'recall');
    expect(recall).toMatchObject({ reason: '诊断需修改', hospitalName: '县中心医院', operatorName: '林主任' });
    // Approved again: the primary prints it again.
    await act(senior, 'reviewPass', id, { version: await version(id) });
    expect((await act(docA, 'print', id, { version: await version(id) })).body.status).toBe('0');
  });

  test('approved upstairs, both hospitals may review it after an edit; trusteeship decides who writes and who reviews', async () => {
    // Hospital A's own reviewer: a role of A with the review rights (the demo's A has only a radiologist).
    const reviewerRole = await p.db.query<{ id: number }>(
      `INSERT INTO role (name, explain, permissions, data_scope) VALUES ('本院审核', '审核', '{"report": ["view", "write", "verify", "recall", "modifyReport", "print"]}', 'own') RETURNING id`,
    );
    const made = await call('POST', '/api/ucenter/v1/user/save', admin, {
      mobile: '13900001905', username: 'reviewa1905', name: '甲审核', status: 1, password: 'Start#2026', memberships: [{ hospitalId: orgs.HOSP_A, roleId: reviewerRole.rows[0].id }],
    });
    expect(made.body.status).toBe('0');
    const reviewerA = await login(p.app, '13900001905', 'Start#2026');
    const id = await sentUp();
    // Before the centre approved it, hospital A waits.
    expect((await act(reviewerA, 'save', id, { version: await version(id), ...content })).body.status).toBe('REPORT007');
    await act(senior, 'submit', id, { version: await version(id), ...content });
    expect((await act(reviewerA, 'reviewPass', id, { version: await version(id) })).body.status).toBe('REPORT007');
    await act(senior, 'reviewPass', id, { version: await version(id) });
    // Approved upstairs: hospital A's reviewer recalls it, edits it under review (modify: pending review → pending write), resubmits.
    expect((await act(reviewerA, 'recall', id, { version: await version(id), reason: '本院复核' })).body.data).toMatchObject({ reportState: 2, sentToSuperior: true });
    expect((await act(reviewerA, 'modify', id, { version: await version(id), reason: '补充描述', ...content, see: '右肺上叶小结节，边界清。' })).body.data.reportState).toBe(1);
    await act(reviewerA, 'submit', id, { version: await version(id) });
    await act(reviewerA, 'release', id);
    // Both may review it now: the centre's remote rights and A's own.
    expect((await detail(senior, id)).data.actions).toEqual(expect.arrayContaining(['reviewPass']));
    expect((await detail(reviewerA, id)).data.actions).toEqual(expect.arrayContaining(['reviewPass']));
    expect((await act(reviewerA, 'reviewPass', id, { version: await version(id) })).body.data).toMatchObject({ reportState: 4, retrialDoctorName: '甲审核' });

    // Externally run (2): hospital A's radiologist does not write, it sends up to write.
    await p.db.query('UPDATE org SET business_mode = 2 WHERE id = $1', [orgs.HOSP_A]);
    const run = await examined();
    const seen = (await detail(docA, run)).data;
    expect(seen).toMatchObject({ trusteeship: true });
    expect(seen.actions).toEqual(expect.arrayContaining(['submitSuperiorWrite']));
    expect(seen.actions).not.toContain('save');
    expect((await act(docA, 'save', run, { version: 0, ...content })).body.status).toBe('REPORT007');
    // Semi-external (3): hospital A writes; its submit goes up to review (the superior registered on the exam).
    await p.db.query('UPDATE org SET business_mode = 3 WHERE id = $1', [orgs.HOSP_A]);
    const half = await examined();
    await p.db.query('UPDATE exam SET superior_hospital_id = $2 WHERE id = $1', [half, orgs.CENTRAL]);
    expect((await act(docA, 'submit', half, { version: 0, ...content })).body.data).toMatchObject({ reportState: 2, sentToSuperior: true, superiorHospitalName: '县中心医院' });
    await act(docA, 'release', half);
    expect((await remoteIds(senior, 'review')).map((r) => r.id)).toContain(half);
    expect((await call('POST', `${R}/remote/list/review`, centre1, {})).body.status).toBe('UAA103');
    await p.db.query('UPDATE org SET business_mode = NULL WHERE id = $1', [orgs.HOSP_A]);
  });

  test('externally run (2): the report goes up to write by itself once the images arrive (declared on "examined"); an autonomous hospital\'s stays', async () => {
    const device = (await p.db.query<{ id: number; hospital_id: number }>("SELECT id, hospital_id FROM device WHERE ae_title = 'A_CT1'")).rows[0];
    const ct = (await p.db.query<{ id: number; organ_id: number }>("SELECT id, organ_id FROM exam_item WHERE hospital_id = $1 AND modality = 'CT' ORDER BY id LIMIT 1", [orgs.HOSP_A])).rows[0];
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(new Date()).replace(/-/g, '');
    let n = 0;
    /** An exam of hospital A registered through the API, and its images sent by A's CT (matched on arrival by the accession number). */
    const imaged = async (superiorHospitalId?: number) => {
      const e = await registerExam(p.app, admin, {
        hospitalId: orgs.HOSP_A, hisPatientName: '王五', sex: 1, age: 50, ageUnit: 4, patientSource: 1, outPatientNo: 'MZ19', deviceId: device.id, items: [{ itemId: ct.id, organId: ct.organ_id }], superiorHospitalId,
      });
      expect((await detail(docA, e.id)).data).toMatchObject({ sentToSuperior: false });
      const series = syntheticSeries({ uidRoot: `1.2.826.0.1.3680043.10.1082.19${kind.length}${++n}`, count: 2, patientName: '王五', patientNameEn: 'Wang^Wu', sex: 'M', studyDate: today, accessionNumber: e.examCode, patientId: e.patientId });
      for (const inst of series.instances) await p.app.archive.storeBuffer(inst.bytes, { hospitalId: device.hospital_id, deviceId: device.id, sender: 'A_CT1' });
      const state = (await p.db.query<{ exam_state: number }>('SELECT exam_state FROM exam WHERE id = $1', [e.id])).rows[0];
      expect(state.exam_state).toBe(2);
      return e.id as number;
    };
    // Autonomous: examined, the report stays with hospital A.
    const own = await imaged(orgs.CENTRAL);
    expect((await detail(docA, own)).data).toMatchObject({ reportState: -1, sentToSuperior: false });
    expect((await logs(docA, own)).map((l) => l.type)).not.toContain('submitSuperiorWrite');
    // Externally run: sent up to write to the superior registered on the exam, its clock started, in the centre's worklist, logged without a user.
    await p.db.query('UPDATE org SET business_mode = 2 WHERE id = $1', [orgs.HOSP_A]);
    try {
      const id = await imaged(orgs.CENTRAL);
      expect((await detail(docA, id)).data).toMatchObject({ reportState: -1, sentToSuperior: true, superiorHospitalName: '县中心医院', actions: ['withdraw'] });
      expect((await detail(senior, id)).data).toMatchObject({ mode: 'remote', actions: expect.arrayContaining(['claim', 'save']) });
      expect((await remoteIds(senior, 'write')).find((r) => r.id === id)).toMatchObject({ dueAt: expect.any(String), dueState: 'ok' });
      const sent = (await logs(senior, id)).filter((l) => l.type === 'submitSuperiorWrite');
      expect(sent).toEqual([expect.objectContaining({ operatorName: '-', action: 'sendUpExternallyRun' })]);
      // No user may take the platform's action (it has no route).
      expect((await act(docA, 'sendUpExternallyRun', id, { version: await version(id) })).code).toBe(404);
      // None registered and several above A (the region and the central hospital): it waits to be sent by hand.
      const unsure = await imaged();
      expect((await detail(docA, unsure)).data).toMatchObject({ sentToSuperior: false, actions: expect.arrayContaining(['submitSuperiorWrite']) });
    } finally {
      await p.db.query('UPDATE org SET business_mode = NULL WHERE id = $1', [orgs.HOSP_A]);
    }
  });
});
