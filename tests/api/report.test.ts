/**
 * Reports (issue #8) through the API on each database. Scenarios:
 * - the state machine: EVERY declared transition of config/workflows/report.json is
 *   driven (the report put in each from-state, the action sent by a doctor holding its
 *   right), the new state read back from report AND exam (report_state,
 *   sent_to_superior), the log entry written; every action refused in every state it
 *   does not start from (the table's code), without its right (UAA103), without or
 *   with a too long reason, with too long text (UAA421 naming the field); version
 *   missing or stale; a terminated exam (RIS102); the platform's own actions (on an
 *   event) have no route and are driven by their event in tests/api/remote.test.ts
 * - a whole flow as the issue tells it: written from a template, submitted, rejected
 *   with a reason, fixed, resubmitted, approved, printed, recalled only with the
 *   confirmation; the operation record has every step; detail's actions follow roles
 * - the superior hospital: send to write (a choice of hospital when several), the
 *   primary hospital locked out (REPORT007), the remote centre's rights (remote:*),
 *   withdraw (REPORT008 unsent, REPORT009 approved), REPORT010 after a withdrawal
 * - locks between two users: REPORT101 naming the holder, lapse and take-over, renew
 *   refused after it (REPORT508), release, unlock with the right, batch unlock
 * - a stale version is refused and nothing is overwritten; the same action sent twice
 *   (with an Idempotency-Key, also concurrently, or without one) is applied once
 * - notice counts per model move with the workflow; rights
 * - lists: kinds hold their states; scope: hospital B's doctor sees none of hospital A's
 *   reports (list, detail, action), the central hospital sees reports sent to it
 * - assignment: qualified doctors only, "my reports"
 * - templates: private per doctor, public with the rights and the scope, limits,
 *   duplicate names (REPORT204), class rename, tree, delete
 * - the demo seed: reports in a spread of states, exam.report_state equal to them
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { loadSchemas } from '../../server/lib/schemas';
import { AJV_OPTIONS } from '../../server/lib/ajv';
import workflow from '../../config/workflows/report.json';

const R = '/api/report/v1';
type Action = (typeof workflow.actions)[keyof typeof workflow.actions];
type Declared = Record<string, Action & { stateErrors?: Record<string, string>; reason?: string; content?: boolean; on?: string[] }>;
// The actions users send (a route each); those the platform performs by itself `on` an event have no route
// and are driven by their event (tests/api/remote.test.ts: externally run, on "examined").
const ACTIONS = Object.fromEntries(Object.entries(workflow.actions as Declared).filter(([, a]) => !a.on)) as Declared;
const STATES = workflow.states.map((s) => s.value);
const fromStates = (a: Action) => a.transitions.flatMap((t) => t.from as number[]);
const long = (n: number) => '字'.repeat(n);

describe.each(dbKinds)('reports on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let docA: string;
  let doc7: string;
  let doc7Central: string;
  let senior: string;
  let clerk: string;
  let docB: string;
  const users: Record<string, number> = {};
  let orgs: Record<string, number>;
  let item: Record<string, { id: number; organ_id: number }>;

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object, headers: Record<string, string> = {}) =>
    p.app.inject({ method, url, headers: authed(token, headers), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const act = (token: string, action: string, id: number, body: object = {}, headers: Record<string, string> = {}) => call('POST', `${R}/report/${action}/${id}`, token, body, headers);
  const detail = (token: string, id: number) => call('GET', `${R}/report/detail/${id}`, token);

  /** The report's state as stored in report and copied on exam. */
  const stored = async (id: number) =>
    (
      await p.db.query<{ report: number | null; exam: number; version: number | null; sent: boolean | null; examSent: boolean }>(
        `SELECT r.report_state AS report, e.report_state AS exam, r.version, r.sent_to_superior AS sent, e.sent_to_superior AS "examSent"
           FROM exam e LEFT JOIN report r ON r.id = e.id WHERE e.id = $1`,
        [id],
      )
    ).rows[0];
  const version = async (id: number) => (await stored(id)).version ?? 0;
  const logTypes = async (id: number) => (await p.db.query<{ action: string }>('SELECT action FROM exam_log WHERE exam_id = $1 ORDER BY id', [id])).rows.map((r) => r.action);

  /** A new examined exam of `hospital`, registered through the API. */
  const examined = async (hospital = 'HOSP_A') => {
    const r = await call('POST', '/api/ris/v1/exam/save', admin, {
      hospitalId: orgs[hospital], hisPatientName: '报告测试', sex: 1, age: 50, ageUnit: 4, patientSource: 1, outPatientNo: 'MZ8', items: [{ itemId: item[hospital].id, organId: item[hospital].organ_id }],
    });
    expect(r.body.status).toBe('0');
    await p.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [r.body.data.id]);
    return r.body.data.id as number;
  };

  /** Puts the report of `id` in `state` (as an earlier action would have), with the columns given; no lock, no assignees. */
  const putInState = async (id: number, state: number, columns: Record<string, unknown> = {}) => {
    const set = { see: null, diagnosis: null, sent_to_superior: false, superior_hospital_id: null, print_state: 0, return_state: false, ...columns, report_state: state };
    const names = Object.keys(set);
    await p.db.query('INSERT INTO report (id) VALUES ($1) ON CONFLICT (id) DO NOTHING', [id]);
    await p.db.query(`UPDATE report SET ${names.map((n, i) => `${n} = $${i + 2}`).join(', ')} WHERE id = $1`, [id, ...Object.values(set)]);
    await p.db.query('DELETE FROM report_lock WHERE report_id = $1', [id]);
    await p.db.query('DELETE FROM report_assignee WHERE report_id = $1', [id]);
    await p.db.query('UPDATE exam SET report_state = $2, sent_to_superior = $3 WHERE id = $1', [id, state, set.sent_to_superior]);
  };
  const lockAs = (id: number, userId: number, name: string, live = true) =>
    p.db.query(`INSERT INTO report_lock (report_id, holder_id, holder_name, expires_at) VALUES ($1, $2, $3, now() + interval '${live ? '' : '-'}1 minute')
                ON CONFLICT (report_id) DO UPDATE SET holder_id = $2, holder_name = $3, expires_at = excluded.expires_at`, [id, userId, name]);
  const content = { see: '双肺纹理清晰。', diagnosis: '未见异常。' };

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    for (const r of (await p.db.query<{ mobile: string; id: number }>('SELECT mobile, id FROM app_user')).rows) users[r.mobile] = r.id;
    item = Object.fromEntries(
      (
        await p.db.query<{ code: string; id: number; organ_id: number }>(
          `SELECT DISTINCT ON (o.code) o.code, i.id, i.organ_id FROM exam_item i JOIN org o ON o.id = i.hospital_id WHERE i.organ_id IS NOT NULL ORDER BY o.code, i.id`,
        )
      ).rows.map((r) => [r.code, r]),
    );
    [admin, docA, senior, clerk] = await Promise.all(['13800000001', '13800000004', '13800000005', '13800000002'].map((m) => login(p.app, m)));
    doc7 = await login(p.app, '13800000007', undefined, { hospitalId: orgs.HOSP_A });
    doc7Central = await login(p.app, '13800000007', undefined, { hospitalId: orgs.CENTRAL });
    // A radiologist of hospital B (the demo's radiologist role there).
    const role = (await p.db.query<{ id: number }>("SELECT id FROM role WHERE name = '报告医生'")).rows[0];
    const made = await call('POST', '/api/ucenter/v1/user/save', admin, {
      mobile: '13900000114', username: 'doctorb114', name: '乙医生', status: 1, password: 'Start#2026', memberships: [{ hospitalId: orgs.HOSP_B, roleId: role.id }],
    });
    expect(made.body.status).toBe('0');
    docB = await login(p.app, '13900000114', 'Start#2026');
    users.docB = made.body.data.id;
  });
  afterAll(() => p.close());

  // First, while every report is the seed's.
  test('the demo seed: examined exams have reports in a spread of states, equal on the exam; the newest stay open for their images', async () => {
    const { rows } = await p.db.query<{ state: number; n: number }>(
      'SELECT r.report_state AS state, count(*)::int AS n FROM report r GROUP BY 1',
    );
    expect(rows.map((r) => r.state).sort((x, y) => x - y)).toEqual(expect.arrayContaining([1, 2, 3, 4, 5, 7]));
    const mismatched = await p.db.query('SELECT 1 FROM report r JOIN exam e ON e.id = r.id WHERE e.report_state <> r.report_state OR e.sent_to_superior <> r.sent_to_superior');
    expect(mismatched.rowCount).toBe(0);
    // Every demo study sent with an exam's accession number found its exam, but the one
    // sent with another sex, which waits on the matching policy's review queue.
    const unmatched = await p.db.query<{ review: { reason: string; fields: Array<{ field: string }> } }>(
      "SELECT match_review AS review FROM dicom_study WHERE exam_id IS NULL AND accession_number <> ''",
    );
    expect(unmatched.rows).toEqual([{ review: expect.objectContaining({ reason: 'conflict', fields: [expect.objectContaining({ field: 'patientSex' })] }) }]);
    expect((await p.db.query('SELECT 1 FROM report_template')).rowCount).toBeGreaterThan(10);
  });

  test('the workflow call answers the table; detail answers a report without a row from its exam', async () => {
    const w = await call('GET', `${R}/report/workflow`, clerk);
    expect(w.body.data.actions.submit.transitions).toEqual(workflow.actions.submit.transitions);
    const id = await examined();
    const d = await detail(docA, id);
    expect(d.body.data).toMatchObject({ id, examId: id, reportState: -1, version: 0, lockState: false, mode: 'own', exam: { id, examState: 2 } });
    expect(d.body.data.actions).toEqual(['lock', 'save', 'submit', 'submitSuperiorWrite']);
    expect((await stored(id)).report).toBeNull();
  });

  /** How each action is driven: who sends it, what it carries, what must hold first. */
  const plans: Record<string, { actor: (from: number) => string; setup?: (id: number, from: number) => Promise<unknown>; body?: (from: number) => object }> = {
    // Opening a report is for who works on it in its state: the writer, or the reviewer.
    lock: { actor: (from) => ([2, 5, 6].includes(from) ? senior : docA) },
    renew: { actor: () => docA, setup: (id) => lockAs(id, users['13800000004'], '陈医生') },
    release: { actor: () => docA, setup: (id) => lockAs(id, users['13800000004'], '陈医生') },
    unlock: { actor: () => senior, setup: (id) => lockAs(id, users['13800000004'], '陈医生') },
    save: { actor: () => docA, body: () => content },
    submit: { actor: () => docA, body: () => content },
    reviewPass: { actor: () => senior, setup: (id, from) => putInState(id, from, content) },
    reviewToRecheck: { actor: () => senior, setup: (id, from) => putInState(id, from, content) },
    reviewReject: { actor: () => senior, body: () => ({ reason: '描述不全' }) },
    recheckPass: { actor: () => senior, setup: (id, from) => putInState(id, from, content) },
    recheckReject: { actor: () => senior, body: () => ({ reason: '请补充测量' }) },
    modify: { actor: () => admin, body: () => ({ reason: '更正诊断', diagnosis: '更正后的诊断。' }) },
    return: { actor: () => senior, body: () => ({ reason: '影像不全，请补扫' }) },
    withdraw: { actor: () => docA, setup: (id, from) => putInState(id, from, { sent_to_superior: true, superior_hospital_id: orgs.CENTRAL }), body: () => ({ reason: '本院书写' }) },
    recall: { actor: () => senior, body: () => ({ reason: '诊断需复核' }) },
    assign: { actor: () => senior, body: (from) => ({ doctorIds: [[-1, 1, 3, 7, 8].includes(from) ? users['13800000004'] : users['13800000005']] }) },
    submitSuperiorWrite: { actor: () => docA, body: () => ({ hospitalId: orgs.CENTRAL }) },
    submitSuperiorReview: { actor: () => docA, setup: (id, from) => putInState(id, from, content), body: () => ({ hospitalId: orgs.CENTRAL }) },
    reportReturn: { actor: () => senior },
    print: { actor: () => docA },
    // The remote centre's claims: a report sent to the central hospital, whose senior serves hospital A.
    claim: { actor: () => senior, setup: (id, from) => putInState(id, from, { sent_to_superior: true, superior_hospital_id: orgs.CENTRAL }) },
    unclaim: {
      actor: () => senior,
      setup: (id, from) => putInState(id, from, { sent_to_superior: true, superior_hospital_id: orgs.CENTRAL, remote_claimed_by: users['13800000005'], remote_claimed_at: new Date() }),
    },
    reassign: {
      actor: () => senior,
      setup: (id, from) => putInState(id, from, { sent_to_superior: true, superior_hospital_id: orgs.CENTRAL }),
      body: () => ({ doctorIds: [users['13800000005']] }),
    },
  };

  test('the test drives every action the table declares', () => {
    expect(Object.keys(plans).sort()).toEqual(Object.keys(ACTIONS).sort());
    // The platform's own: no route answers them.
    expect(Object.keys(workflow.actions).filter((name) => !ACTIONS[name])).toEqual(['sendUpExternallyRun']);
  });

  const transitions = Object.entries(ACTIONS).flatMap(([name, a]) => a.transitions.flatMap((t) => (t.from as number[]).map((from) => [name, from, t.to ?? from] as const)));

  test.each(transitions)('%s from %s leads to %s, on the report and on its exam', async (name, from, to) => {
    const id = await examined();
    await putInState(id, from);
    const plan = plans[name];
    await plan.setup?.(id, from);
    const before = await logTypes(id);
    const body = { ...(ACTIONS[name].versioned === false ? {} : { version: await version(id) }), ...plan.body?.(from) };
    const r = await act(plan.actor(from), name, id, body);
    expect([r.code, r.body.status, r.body.message]).toEqual([200, '0', undefined]);
    expect(r.body.data).toMatchObject({ reportState: to });
    const after = await stored(id);
    expect(after).toMatchObject({ report: to, exam: to, examSent: after.sent });
    const log = ACTIONS[name].log;
    expect((await logTypes(id)).slice(before.length)).toEqual(log ? [log] : []);
  });

  test('every action is refused in every state it does not start from, with the table\'s code', async () => {
    const id = await examined();
    const wrong: string[] = [];
    for (const [name, action] of Object.entries(ACTIONS)) {
      for (const state of STATES.filter((s) => !fromStates(action).includes(s))) {
        await putInState(id, state, content);
        const body = { ...(action.versioned === false ? {} : { version: await version(id) }), ...plans[name].body?.(state) };
        const r = await act(plans[name].actor(state), name, id, body);
        const expected = action.stateErrors?.[String(state)] ?? workflow.wrongState;
        if (r.body.status !== expected || r.code !== 409) wrong.push(`${name} in ${state}: ${r.code} ${r.body.status}, expected ${expected}`);
        if ((await stored(id)).report !== state) wrong.push(`${name} in ${state} changed the state`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('every action is refused without its right (UAA103), before anything is read or written', async () => {
    const id = await examined();
    for (const name of Object.keys(ACTIONS)) {
      const r = await act(clerk, name, id, { version: 0 });
      expect([name, r.code, r.body.status]).toEqual([name, 403, 'UAA103']);
    }
    // A right of the route's list that is not this report's: a radiologist at the central hospital
    // has report:write, but on a report sent to the central hospital writing is the remote centre's (remote:write);
    // without a remote-centre authorization for hospital A the report is not even theirs to find.
    await putInState(id, -1, { sent_to_superior: true, superior_hospital_id: orgs.CENTRAL });
    expect((await act(doc7Central, 'save', id, { version: await version(id), ...content })).body.status).toBe('REPORT004');
    // The reviewer's pass is not the writer's: route-level refusal.
    await putInState(id, 2, content);
    expect((await act(docA, 'reviewPass', id, { version: await version(id) })).body.status).toBe('UAA103');
    expect((await stored(id)).report).toBe(2);
  });

  test('reasons: required, and at most what the action declares (UAA421 naming the field)', async () => {
    const id = await examined();
    for (const [name, action] of Object.entries(ACTIONS).filter(([, a]) => a.reason)) {
      const from = fromStates(action)[0];
      await putInState(id, from, content);
      await plans[name].setup?.(id, from);
      const max = action.reason === 'text200' ? 200 : 3000;
      const base = { ...plans[name].body?.(from), version: await version(id) };
      for (const reason of [undefined, '', long(max + 1)]) {
        const r = await act(plans[name].actor(from), name, id, { ...base, reason });
        expect([name, r.code, r.body.status, r.body.field]).toEqual([name, 400, 'UAA421', 'reason']);
      }
      expect((await stored(id)).report).toBe(from);
      // The limit itself is fine.
      expect((await act(plans[name].actor(from), name, id, { ...base, reason: long(max) })).body.status).toBe('0');
    }
  });

  test('content: limits of the report schema, required to submit, not taken by actions without content', async () => {
    const id = await examined();
    const v = () => version(id);
    const cases: Array<[object, string]> = [
      [{ see: long(3001) }, 'see'],
      [{ diagnosis: long(3001) }, 'diagnosis'],
      [{ diagnosis: '' }, 'diagnosis'],
      [{ remark: long(151) }, 'remark'],
      [{ enableCrisisValue: true, crisisValue: { description: '气胸', recorder: long(11) } }, 'crisisValue.recorder'],
      [{ enableCrisisValue: true, crisisValue: { description: '急' } }, 'crisisValue.description'],
      [{ enableCrisisValue: true }, 'crisisValue'],
    ];
    for (const [body, field] of cases) {
      const r = await act(docA, 'save', id, { version: await v(), ...body });
      expect([r.code, r.body.status, r.body.field]).toEqual([400, 'UAA421', field]);
    }
    expect((await stored(id)).report).toBeNull();
    // Submitting needs findings and diagnosis, given now or saved before.
    expect((await act(docA, 'submit', id, { version: 0, see: '所见' })).body).toMatchObject({ status: 'UAA421', field: 'diagnosis' });
    expect((await act(docA, 'save', id, { version: 0, see: '所见', positive: true, remark: '复查' })).body.data).toMatchObject({ reportState: 1, version: 1, positive: true, remark: '复查' });
    expect((await act(docA, 'submit', id, { version: 1 })).body).toMatchObject({ status: 'UAA421', field: 'diagnosis' });
    const crisis = { enableCrisisValue: true, crisisValue: { recorder: '李四', recordTime: '2026-01-02T03:04:05.000Z', description: '张力性气胸，已电话通知' } };
    const s = await act(docA, 'submit', id, { version: 1, diagnosis: '气胸。', ...crisis });
    expect(s.body.data).toMatchObject({ reportState: 2, see: '所见', diagnosis: '气胸。', enableCrisisValue: true, crisisValue: crisis.crisisValue, firstTrialDoctorName: '陈医生' });
    // A critical value is its own entry of the operation record.
    expect(await logTypes(id)).toEqual(expect.arrayContaining(['saveReport', 'submit', 'criticalValue']));
    // A reject carries a reason, not content.
    expect((await act(senior, 'reviewReject', id, { version: 2, reason: '不对', see: '改' })).body).toMatchObject({ status: 'UAA421', field: 'see' });
  });

  test('version: required, and a stale one is refused without touching the report', async () => {
    const id = await examined();
    expect((await act(docA, 'save', id, { see: 'a' })).body).toMatchObject({ status: 'UAA421', field: 'version' });
    expect((await act(docA, 'save', id, { version: 0, see: '第一版' })).body.data.version).toBe(1);
    await act(docA, 'release', id);
    // doc7 opened the report at version 0 and saves over it: refused, the first text stays.
    const stale = await act(doc7, 'save', id, { version: 0, see: '第二版' });
    expect([stale.code, stale.body.status]).toEqual([409, 'REPORT103']);
    expect((await detail(docA, id)).body.data).toMatchObject({ see: '第一版', version: 1 });
  });

  test('the same action sent twice is applied once (Idempotency-Key, also concurrently; without one the version refuses it)', async () => {
    const id = await examined();
    const key = { 'idempotency-key': `submit-${kind}-1` };
    const first = await act(docA, 'submit', id, { version: 0, ...content }, key);
    const again = await act(docA, 'submit', id, { version: 0, ...content }, key);
    expect([first.body.data.replayed, again.body.status, again.body.data.replayed, again.body.data.version]).toEqual([false, '0', true, 1]);
    expect(await logTypes(id)).toEqual(['registerExam', 'submit']);

    const twin = await examined();
    const both = await Promise.all([0, 1].map(() => act(docA, 'submit', twin, { version: 0, ...content }, { 'idempotency-key': `submit-${kind}-2` })));
    expect(both.map((r) => r.body.status)).toEqual(['0', '0']);
    expect(both.map((r) => r.body.data.replayed).sort()).toEqual([false, true]);
    expect((await stored(twin)).version).toBe(1);
    expect((await logTypes(twin)).filter((t) => t === 'submit')).toHaveLength(1);

    const plain = await examined();
    await putInState(plain, 2, content);
    expect((await act(senior, 'reviewPass', plain, { version: 0 })).body.status).toBe('0');
    expect((await act(senior, 'reviewPass', plain, { version: 0 })).body.status).toBe('REPORT103');
    expect((await logTypes(plain)).filter((t) => t === 'reviewPass')).toHaveLength(1);
    // Keys older than a day are let go.
    await p.db.query("UPDATE report_request SET created_at = now() - interval '2 days' WHERE request_key = $1", [`submit-${kind}-1`]);
    await act(senior, 'reviewPass', twin, { version: 1 }, { 'idempotency-key': `pass-${kind}` });
    expect((await p.db.query('SELECT 1 FROM report_request WHERE request_key = $1', [`submit-${kind}-1`])).rowCount).toBe(0);
    // A refused call with a key leaves the key unused: fixed, it goes through.
    const fix = await examined();
    const k = { 'idempotency-key': `submit-${kind}-3` };
    expect((await act(docA, 'submit', fix, { version: 0 }, k)).body.status).toBe('UAA421');
    expect((await act(docA, 'submit', fix, { version: 0, ...content }, k)).body.data).toMatchObject({ replayed: false, reportState: 2 });
  });

  test('a terminated exam takes no report action (RIS102)', async () => {
    const id = await examined();
    await p.db.query('UPDATE exam SET exam_state = 3 WHERE id = $1', [id]);
    expect((await act(docA, 'save', id, { version: 0, ...content })).body.status).toBe('RIS102');
    expect((await detail(docA, id)).body.data.actions).toEqual([]);
  });

  test('the issue\'s flow: template, save, submit, reject, fix, resubmit, approve, print, recall with confirmation; the record has every step', async () => {
    const id = await examined();
    const tree = (await call('GET', `${R}/template/tree?scope=public`, docA)).body.data;
    const template = tree.find((c: { name: string }) => c.name === 'CT').children[0].children[0];
    expect(template).toMatchObject({ templateName: '胸部平扫正常', hospitalId: orgs.HOSP_A });
    // The list pages the same rows, each as the tree gives it (its reply is declared, not open).
    const listed = (await call('POST', `${R}/template/list`, docA, { filters: { scope: 'public', templateName: '胸部平扫正常' } })).body.data;
    expect(listed).toMatchObject({ total: 1, list: [template] });

    expect((await act(docA, 'lock', id)).body.data).toMatchObject({ lockState: true, lockMine: true, lockedByName: '陈医生' });
    let d = (await act(docA, 'save', id, { version: 0, see: template.see, diagnosis: template.diagnosis })).body.data;
    expect(d).toMatchObject({ reportState: 1, version: 1, lockMine: true });
    expect(d.actions).toEqual(expect.arrayContaining(['save', 'submit', 'release', 'renew']));
    d = (await act(docA, 'submit', id, { version: 1 })).body.data;
    expect(d).toMatchObject({ reportState: 2, lockState: false, firstTrialDoctorName: '陈医生', firstTrialHospitalName: '第一乡镇卫生院' });
    // The writer no longer opens it (no lock): what is left is sending it up for review.
    expect(d.actions).toEqual(['submitSuperiorReview']);
    expect((await detail(senior, id)).body.data.actions).toEqual(expect.arrayContaining(['lock', 'reviewPass', 'reviewToRecheck', 'reviewReject', 'return', 'assign']));

    d = (await act(senior, 'reviewReject', id, { version: 2, reason: '诊断与所见不符' })).body.data;
    expect(d).toMatchObject({ reportState: 3, retrialBackReason: '诊断与所见不符' });
    d = (await act(docA, 'submit', id, { version: 3, diagnosis: '胸部CT平扫未见异常，建议随访。' })).body.data;
    expect(d.reportState).toBe(2);
    d = (await act(senior, 'reviewPass', id, { version: 4 })).body.data;
    expect(d).toMatchObject({ reportState: 4, retrialDoctorName: '林主任' });
    expect(d).not.toHaveProperty('retrialBackReason');
    expect(await stored(id)).toMatchObject({ report: 4, exam: 4 });

    d = (await act(docA, 'print', id, { version: 5 })).body.data;
    expect(d).toMatchObject({ reportState: 4, reportPrintState: 1, printNumber: 1 });
    const unconfirmed = await act(senior, 'recall', id, { version: 6, reason: '需补充诊断' });
    expect([unconfirmed.code, unconfirmed.body.status]).toEqual([409, 'REPORT011']);
    d = (await act(senior, 'recall', id, { version: 6, reason: '需补充诊断', confirm: true })).body.data;
    expect(d.reportState).toBe(2);

    const record = await call('GET', `${R}/report/logs/${id}`, docA);
    const steps = record.body.data.list.map((e: { type: string; action?: string; operatorName: string }) => [e.type, e.action, e.operatorName]).reverse();
    expect(steps).toEqual([
      ['saveReport', 'save', '陈医生'],
      ['submit', 'submit', '陈医生'],
      ['reviewReject', 'reviewReject', '林主任'],
      ['submit', 'submit', '陈医生'],
      ['reviewPass', 'reviewPass', '林主任'],
      ['print', 'print', '陈医生'],
      ['recall', 'recall', '林主任'],
    ]);
    const recall = record.body.data.list[0];
    expect(recall).toMatchObject({ examId: id, reportId: id, fromState: 4, toState: 2, reason: '需补充诊断', hospitalName: '县中心医院' });
    // Every entry is an entities/reportOperationLog.json.
    const ajv = new Ajv({ strict: false, ...AJV_OPTIONS.customOptions, removeAdditional: false, coerceTypes: false });
    for (const plugin of AJV_OPTIONS.plugins) plugin(ajv);
    addFormats(ajv);
    for (const s of loadSchemas()) ajv.addSchema(s);
    const valid = ajv.getSchema('entities/reportOperationLog.json')!;
    for (const entry of record.body.data.list) expect([entry, valid(entry) ? null : valid.errors]).toEqual([entry, null]);
    // The registration's entry (not an operation type of the spec) stays in the exam's own record.
    expect(steps.map((s: string[]) => s[0])).not.toContain('registerExam');
    expect((await call('GET', `${R}/report/logs/${id}`, clerk)).body.status).toBe('UAA103');
  });

  test('to a higher-level hospital: the choice, the lock-out, the remote centre, withdraw and its refusals', async () => {
    const id = await examined();
    // Hospital A has two above it (the central hospital and the region): the choice is asked for.
    expect((await act(docA, 'submitSuperiorWrite', id, { version: 0 })).body).toMatchObject({ status: 'UAA421', field: 'hospitalId' });
    expect((await act(docA, 'submitSuperiorWrite', id, { version: 0, hospitalId: orgs.HOSP_B })).body).toMatchObject({ status: 'UAA421', field: 'hospitalId' });
    let d = (await act(docA, 'submitSuperiorWrite', id, { version: 0, hospitalId: orgs.CENTRAL })).body.data;
    expect(d).toMatchObject({ reportState: -1, sentToSuperior: true, superiorHospitalName: '县中心医院', mode: 'own', actions: ['withdraw'] });
    expect(await stored(id)).toMatchObject({ exam: -1, examSent: true });
    // The primary hospital waits while it is upstairs.
    expect((await act(docA, 'save', id, { version: 1, ...content })).body.status).toBe('REPORT007');
    // The central hospital's doctor without remote rights may not; the senior (remote:*) writes and approves.
    expect((await detail(doc7Central, id)).body.status).toBe('REPORT004');
    expect((await detail(senior, id)).body.data).toMatchObject({ mode: 'remote', actions: expect.arrayContaining(['save', 'submit']) });
    expect((await act(senior, 'submit', id, { version: 1, ...content })).body.data).toMatchObject({ reportState: 2, firstTrialHospitalName: '县中心医院' });
    // Approved upstairs: no longer withdrawn.
    expect((await act(senior, 'reviewPass', id, { version: 2 })).body.data.reportState).toBe(4);
    expect((await act(docA, 'withdraw', id, { version: 3, reason: '撤回' })).body.status).toBe('REPORT009');

    // Withdraw: only what was sent (REPORT008), only by the exam's hospital (REPORT007).
    const other = await examined();
    expect((await act(docA, 'withdraw', other, { version: 0, reason: '撤回' })).body.status).toBe('REPORT008');
    await act(docA, 'submitSuperiorWrite', other, { version: 0, hospitalId: orgs.CENTRAL });
    expect((await act(senior, 'withdraw', other, { version: 1, reason: '撤回' })).body.status).toBe('UAA103');
    d = (await act(docA, 'withdraw', other, { version: 1, reason: '本院医生已到岗' })).body.data;
    expect(d).toMatchObject({ reportState: 8, sentToSuperior: false });
    expect(await stored(other)).toMatchObject({ report: 8, exam: 8, sent: false, examSent: false });
    // Withdrawn by the primary hospital: the central hospital may not submit it (REPORT010); the primary writes it.
    expect((await act(senior, 'submit', other, { version: 2, ...content })).body.status).toBe('REPORT010');
    expect((await act(docA, 'submit', other, { version: 2, ...content })).body.data.reportState).toBe(2);
    // Resubmitted upward by hand, to review this time.
    expect((await act(docA, 'submitSuperiorReview', other, { version: 3, hospitalId: orgs.CENTRAL })).body.data).toMatchObject({ reportState: 2, sentToSuperior: true });
    expect(await logTypes(other)).toEqual(['registerExam', 'submitSuperiorWrite', 'withdraw', 'submit', 'submitSuperiorAudit']);
    // Only unedited reports go up to be written.
    const written = await examined();
    await putInState(written, 8, content);
    expect((await act(docA, 'submitSuperiorWrite', written, { version: await version(written), hospitalId: orgs.CENTRAL })).body.status).toBe('REPORT102');
  });

  test('locks between two users: holder named, lapse and take-over, renew refused after, release, unlock with the right, batch unlock', async () => {
    const id = await examined();
    expect((await act(docA, 'lock', id)).body.data.lockMine).toBe(true);
    const taken = await act(doc7, 'lock', id);
    expect([taken.code, taken.body.status, taken.body.lockedBy]).toEqual([409, 'REPORT101', '陈医生']);
    expect(taken.body.message).toContain('陈医生');
    expect((await act(doc7, 'save', id, { version: 0, ...content })).body.status).toBe('REPORT101');
    const seen = (await detail(doc7, id)).body.data;
    expect(seen).toMatchObject({ lockState: true, lockedByName: '陈医生', lockMine: false });
    expect(seen.actions).toEqual([]);
    expect((await call('GET', `${R}/report/lockState/${id}`, doc7)).body.data).toMatchObject({ lockState: true, lockedByName: '陈医生', lockMine: false });
    // The holder renews while the page is open.
    expect((await act(docA, 'renew', id)).body.status).toBe('0');
    // Two doctors opening a new report at the same moment: one gets it, the other is told who.
    const race = await examined();
    const opened = await Promise.all([act(docA, 'lock', race), act(doc7, 'lock', race)]);
    expect(opened.map((r) => r.body.status).sort()).toEqual(['0', 'REPORT101']);

    // The holder's page stopped renewing: the lock lapses; another doctor takes it.
    await p.db.query("UPDATE report_lock SET expires_at = now() - interval '1 second' WHERE report_id = $1", [id]);
    expect((await detail(doc7, id)).body.data.lockState).toBe(false);
    expect((await act(doc7, 'lock', id)).body.data).toMatchObject({ lockMine: true, lockedByName: '黄医生' });
    expect((await act(docA, 'renew', id)).body.status).toBe('REPORT101');
    expect((await act(docA, 'save', id, { version: 0, ...content })).body.status).toBe('REPORT101');
    // doc7 leaves: free at once; a renew of a lock that is gone says it expired.
    expect((await act(doc7, 'release', id)).body.data.lockState).toBe(false);
    expect((await act(doc7, 'renew', id)).body.status).toBe('REPORT508');
    // Unlock needs the right: the holder's colleague has none, the senior has.
    await act(docA, 'lock', id);
    expect((await act(doc7, 'unlock', id)).body.status).toBe('UAA103');
    expect((await act(senior, 'unlock', id)).body.data.lockState).toBe(false);
    expect((await act(senior, 'unlock', id)).body.status).toBe('REPORT102');
    const entry = (await call('GET', `${R}/report/logs/${id}`, senior)).body.data.list[0];
    expect(entry).toMatchObject({ type: 'unlock', operatorName: '林主任' });

    const [a, b, c] = [await examined(), await examined(), await examined()];
    await act(docA, 'lock', a);
    await act(doc7, 'lock', b);
    // Hospital B's report, in the senior's regional authorization.
    const foreign = await examined('HOSP_B');
    expect((await act(docB, 'lock', foreign)).body.data.lockMine).toBe(true);
    const batch = await call('POST', `${R}/report/batchUnlock`, senior, { ids: [a, b, c, foreign] });
    expect(batch.body.data).toMatchObject({ unlocked: [a, b, foreign], refused: [{ id: c, status: 'REPORT102' }] });
    expect(batch.body.data.refused[0].message).toBeTruthy();
    expect((await call('POST', `${R}/report/batchUnlock`, docA, { ids: [a] })).body.status).toBe('UAA103');
  });

  test('notice counts follow the workflow, per model, in the caller\'s scope', async () => {
    const counts = async (token: string, model = 'report') => (await call('GET', `${R}/notice?model=${model}`, token)).body.data;
    const id = await examined();
    const before = { a: await counts(docA), s: await counts(senior), remote: await counts(senior, 'remote'), b: await counts(docB) };
    // The spec's four counts, and the critical values waiting for the caller (none without the right to acknowledge: tests/api/reportCrisis.test.ts).
    expect(before.a).toEqual({ unwritten: expect.any(Number), firstTrial: expect.any(Number), retrialBack: expect.any(Number), reportReturn: expect.any(Number), crisis: 0 });
    await act(docA, 'submit', id, { version: 0, ...content });
    expect(await counts(docA)).toEqual({ ...before.a, unwritten: before.a.unwritten - 1, firstTrial: before.a.firstTrial + 1 });
    await act(senior, 'reviewReject', id, { version: 1, reason: '不全' });
    expect(await counts(senior)).toEqual({ ...before.s, unwritten: before.s.unwritten - 1, retrialBack: before.s.retrialBack + 1 });
    await act(senior, 'return', id, { version: 2, reason: '补扫' });
    expect(await counts(docA)).toEqual({ ...before.a, unwritten: before.a.unwritten - 1, reportReturn: before.a.reportReturn + 1 });
    // Sent upward: out of hospital A's counts, into the central hospital's remote counts.
    const up = await examined();
    await act(docA, 'submitSuperiorWrite', up, { version: 0, hospitalId: orgs.CENTRAL });
    expect((await counts(senior, 'remote')).unwritten).toBe(before.remote.unwritten + 1);
    expect((await counts(docA)).unwritten).toBe(before.a.unwritten - 1);
    // Hospital B's doctor saw none of it.
    expect(await counts(docB)).toEqual(before.b);
    expect((await call('GET', `${R}/notice?model=remote`, docA)).body.status).toBe('UAA103');
    expect((await call('GET', `${R}/notice?model=report`, clerk)).body.status).toBe('UAA103');
    expect((await call('GET', `${R}/notice?model=other`, docA)).body).toMatchObject({ status: 'UAA421', field: 'model' });
  });

  test('lists: each kind holds its states; hospital B\'s doctor sees none of hospital A\'s reports', async () => {
    const list = async (token: string, kind: string, body: object = {}) => (await call('POST', `${R}/report/list/${kind}`, token, { pageSize: 100, ...body })).body;
    const write = await list(docA, 'write');
    expect(write.data.total).toBeGreaterThan(0);
    for (const row of write.data.list) expect([row.hospitalId, workflow.lists.write.includes(row.reportState), row.sentToSuperior]).toEqual([orgs.HOSP_A, true, false]);
    for (const row of (await list(senior, 'review')).data.list) expect(workflow.lists.review).toContain(row.reportState);
    for (const row of (await list(docA, 'print')).data.list) expect(row.reportState).toBe(4);
    expect((await list(docA, 'review')).status).toBe('UAA103');
    expect((await list(clerk, 'all')).status).toBe('UAA103');
    const filtered = await list(senior, 'all', { filters: { reportState: [3], hospitalId: orgs.HOSP_A } });
    for (const row of filtered.data.list) expect([row.reportState, row.hospitalId]).toEqual([3, orgs.HOSP_A]);

    // Scope: hospital B's doctor, hospital A's reports.
    const a = await examined();
    await act(docA, 'save', a, { version: 0, ...content });
    const all = await list(docB, 'all');
    expect(all.data.total).toBeGreaterThan(0);
    expect(all.data.list.every((r: { hospitalId: number }) => r.hospitalId === orgs.HOSP_B)).toBe(true);
    expect((await detail(docB, a)).body.status).toBe('REPORT004');
    expect((await act(docB, 'save', a, { version: 1, see: '改' })).body.status).toBe('REPORT004');
    expect((await call('GET', `${R}/report/logs/${a}`, docB)).body.status).toBe('REPORT004');
    expect((await list(docA, 'all')).data.list.every((r: { hospitalId: number }) => r.hospitalId === orgs.HOSP_A)).toBe(true);
    // The senior's regional authorization covers A and B.
    const seniorAll = (await list(senior, 'all', { filters: { hospitalId: orgs.HOSP_B } })).data;
    expect(seniorAll.total).toBe(all.data.total);

    // The central hospital's radiologist (no regional, no remote-centre authorization) does not see hospital A's
    // report even once it is sent there: only the hospitals a role serves as a remote centre are its (tests/api/remote.test.ts).
    const code = async (id: number) => ({ examCode: (await detail(admin, id)).body.data.exam.examCode });
    expect((await list(doc7Central, 'all', { filters: await code(a) })).data.total).toBe(0);
    const up = await examined();
    expect((await list(doc7Central, 'all', { filters: await code(up) })).data.total).toBe(0);
    await act(docA, 'submitSuperiorWrite', up, { version: 0, hospitalId: orgs.CENTRAL });
    expect((await list(doc7Central, 'all', { filters: await code(up) })).data.total).toBe(0);
    const remote = (await list(senior, 'write', { model: 'remote' })).data.list;
    expect(remote.map((r: { id: number }) => r.id)).toContain(up);
    // Its rows carry what the remote centre's screen shows (views/remote.json), not whether they were sent: all were.
    for (const r of remote as Array<{ id: number }>) expect((await detail(senior, r.id)).body.data.sentToSuperior).toBe(true);
    expect((await list(senior, 'write', { filters: await code(up) })).data.total).toBe(0);
  });

  test('assignment: to qualified doctors only; assignees find it under my reports and may write it', async () => {
    const id = await examined();
    expect((await act(senior, 'assign', id, { version: 0 })).body).toMatchObject({ status: 'UAA421', field: 'doctorIds' });
    // Hospital B's doctor cannot write hospital A's reports; the clerk writes none.
    expect((await act(senior, 'assign', id, { version: 0, doctorIds: [users.docB] })).body).toMatchObject({ status: 'UAA421', field: 'doctorIds' });
    expect((await act(senior, 'assign', id, { version: 0, doctorIds: [users['13800000002']] })).body).toMatchObject({ status: 'UAA421', field: 'doctorIds' });
    const d = (await act(senior, 'assign', id, { version: 0, doctorIds: [users['13800000004'], users['13800000007']] })).body.data;
    expect(d).toMatchObject({ reportState: -1, reportAssignState: true, assignees: [{ userId: users['13800000004'], name: '陈医生' }, { userId: users['13800000007'], name: '黄医生' }] });
    const mine = (await call('POST', `${R}/report/list/mine`, docA, { pageSize: 100 })).body.data.list.map((r: { id: number }) => r.id);
    expect(mine).toContain(id);
    expect((await call('POST', `${R}/report/list/mine`, docB, { pageSize: 100 })).body.data.list.map((r: { id: number }) => r.id)).not.toContain(id);
    // Either assignee writes; the signature is whoever submits.
    expect((await act(doc7, 'submit', id, { version: 1, ...content })).body.data.firstTrialDoctorName).toBe('黄医生');
    const entry = (await call('GET', `${R}/report/logs/${id}`, senior)).body.data.list.find((e: { type: string }) => e.type === 'assign');
    expect(entry).toMatchObject({ operatorName: '林主任' });
  });

  test('templates: private per doctor, public with the rights and the scope, limits and names, rename, tree, delete', async () => {
    const T = `${R}/template`;
    const mine = { scope: 'private', className1: '胸部', className2: 'CT', templateName: `肺炎${kind}`, see: '双肺散在斑片影。', diagnosis: '双肺炎症。' };
    const made = await call('POST', `${T}/save`, docA, mine);
    expect(made.body.data).toMatchObject({ ...mine, ownerId: users['13800000004'] });
    expect(made.body.data).not.toHaveProperty('hospitalId');
    const id = made.body.data.id;
    expect((await call('GET', `${T}/detail/${id}`, senior)).body.status).toBe('BDT104');
    expect((await call('POST', `${T}/save`, doc7, { ...mine, id, templateName: '改名' })).body.status).toBe('BDT104');
    expect((await call('POST', `${T}/save`, docA, mine)).body.status).toBe('REPORT204');
    // The same name in another class, or another doctor's, is fine.
    expect((await call('POST', `${T}/save`, docA, { ...mine, className2: 'DR' })).body.status).toBe('0');
    expect((await call('POST', `${T}/save`, doc7, mine)).body.status).toBe('0');
    for (const [body, field] of [
      [{ ...mine, templateName: long(17) }, 'templateName'],
      [{ ...mine, className1: '' }, 'className1'],
      [{ ...mine, className2: long(17) }, 'className2'],
      [{ ...mine, see: long(3001) }, 'see'],
      [{ ...mine, scope: 'shared' }, 'scope'],
    ] as const) {
      expect((await call('POST', `${T}/save`, docA, body)).body).toMatchObject({ status: 'UAA421', field });
    }
    // Public: docA may read, not write; the senior writes for its hospital and those of its scope.
    const pub = { scope: 'public', className1: 'CT', className2: '腹部', templateName: `腹部正常${kind}`, see: '肝脾未见异常。', diagnosis: '腹部CT未见异常。' };
    expect((await call('POST', `${T}/save`, docA, pub)).body.status).toBe('UAA103');
    const central = (await call('POST', `${T}/save`, senior, pub)).body.data;
    expect(central).toMatchObject({ hospitalId: orgs.CENTRAL, hospitalName: '县中心医院' });
    expect((await call('POST', `${T}/save`, senior, { ...pub, hospitalId: orgs.HOSP_A })).body.data.hospitalId).toBe(orgs.HOSP_A);
    expect((await call('POST', `${T}/save`, senior, { ...pub, hospitalId: orgs.REGION })).body.status).toBe('UCENTER101');
    expect((await call('POST', `${T}/save`, senior, { ...central, scope: 'private' })).body).toMatchObject({ status: 'UAA421', field: 'scope' });
    expect((await call('GET', `${T}/detail/${central.id}`, docA)).body.status).toBe('BDT104');
    expect((await call('GET', `${T}/detail/${central.id}`, docB)).body.status).toBe('BDT104');

    const tree = (await call('GET', `${T}/tree?scope=private`, docA)).body.data;
    expect(tree).toEqual(expect.arrayContaining([expect.objectContaining({ name: '胸部', children: expect.arrayContaining([expect.objectContaining({ name: 'CT', children: [expect.objectContaining({ id, templateName: mine.templateName })] })]) })]));
    expect((await call('GET', `${T}/tree?scope=public&hospitalId=${orgs.CENTRAL}`, docA)).body.status).toBe('UCENTER101');
    expect((await call('GET', `${T}/tree?scope=public`, clerk)).body.status).toBe('UAA103');
    const listed = (await call('POST', `${T}/list`, docA, { filters: { scope: 'private', templateName: kind } })).body.data;
    expect(listed.list.map((t: { id: number }) => t.id)).toContain(id);
    expect(listed.list.every((t: { ownerId: number }) => t.ownerId === users['13800000004'])).toBe(true);

    // Renaming a class moves its templates; a clash is REPORT204.
    expect((await call('POST', `${T}/class/rename`, docA, { scope: 'private', className1: '胸部', name: `胸${kind}` })).body.data.updated).toBe(2);
    expect((await call('GET', `${T}/detail/${id}`, docA)).body.data.className1).toBe(`胸${kind}`);
    expect((await call('POST', `${T}/class/rename`, docA, { scope: 'private', className1: `胸${kind}`, className2: 'DR', name: 'CT' })).body.status).toBe('REPORT204');
    expect((await call('POST', `${T}/class/rename`, docA, { scope: 'private', className1: '没有', name: '新' })).body.status).toBe('BDT104');

    // Hospital A's public templates are docA's to read, not to delete.
    const ownPublic = (await call('GET', `${T}/tree?scope=public`, docA)).body.data[0].children[0].children[0];
    expect((await call('POST', `${T}/delete/${ownPublic.id}`, docA)).body.status).toBe('UAA103');
    expect((await call('POST', `${T}/delete/${central.id}`, docA)).body.status).toBe('BDT104');
    expect((await call('POST', `${T}/delete/${id}`, doc7)).body.status).toBe('BDT104');
    expect((await call('POST', `${T}/delete/${id}`, docA)).body.status).toBe('0');
    expect((await call('GET', `${T}/detail/${id}`, docA)).body.status).toBe('BDT104');
  });

});
