/**
 * An exam's operation record through the API (POST /api/ris/v1/exam/logs) on each
 * database:
 * - the clerk of hospital A registers, updates, terminates and cancels the
 *   termination: the record lists the four, newest first, each with the clerk's name
 *   and a time; registration names the items and patient id, the update names the
 *   changed fields as exam fields (no worklist columns); each entry is an
 *   entities/examLog.json; nothing of another exam
 * - scope: a clerk of hospital B (same role, own-hospital data) asking for hospital
 *   A's exam gets RIS101, as for an exam that does not exist
 * - rights: a radiologist of hospital A (registration without operationRecord) is
 *   refused (403 UAA103); a body without examId is refused (UAA421)
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { hashPassword } from '../../server/identity/passwords';
import { AJV_OPTIONS } from '../../server/lib/ajv';
import { loadSchemas } from '../../server/lib/schemas';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

const EXAM = '/api/ris/v1/exam';
const CLERK_B_PASSWORD = 'Clerk#2026';

/** entities/examLog.json as the server's ajv reads it: every entry of the record is one. */
function examLogValidator() {
  const ajv = new Ajv({ ...AJV_OPTIONS.customOptions, strict: false });
  for (const plugin of AJV_OPTIONS.plugins) plugin(ajv);
  addFormats(ajv);
  for (const s of loadSchemas()) ajv.addSchema(s);
  return ajv.getSchema('entities/examLog.json')!;
}

describe.each(dbKinds)('exam operation record on %s', (kind) => {
  let p: TestPlatform;
  let clerkA: string;
  let clerkB: string;
  let doctorA: string;
  let hospitalA: number;
  let item: { id: number; organ_id: number; name: string };
  const call = (url: string, payload: object, token: string) =>
    p.app.inject({ method: 'POST', url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const logs = (examId: number, token: string) => call(`${EXAM}/logs`, { examId }, token);

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    const orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    hospitalA = orgs.HOSP_A;
    item = (await p.db.query<{ id: number; organ_id: number; name: string }>("SELECT id, organ_id, name FROM exam_item WHERE hospital_id = $1 AND code = 'DR002'", [hospitalA])).rows[0];
    // A clerk of hospital B: the demo clerk's role (own-hospital data scope) in another hospital.
    const role = (await p.db.query<{ id: number; data_scope: string }>("SELECT r.id, r.data_scope FROM role r JOIN user_membership m ON m.role_id = r.id JOIN app_user u ON u.id = m.user_id WHERE u.mobile = '13800000002'")).rows[0];
    expect(role.data_scope).toBe('own');
    const user = await p.db.query<{ id: number }>("INSERT INTO app_user (mobile, name, status, password_hash) VALUES ('13700000012', '登记员小王', 1, $1) RETURNING id", [
      await hashPassword(CLERK_B_PASSWORD),
    ]);
    await p.db.query('INSERT INTO user_membership (user_id, hospital_id, role_id) VALUES ($1, $2, $3)', [user.rows[0].id, orgs.HOSP_B, role.id]);
    [clerkA, clerkB, doctorA] = await Promise.all([login(p.app, '13800000002'), login(p.app, '13700000012', CLERK_B_PASSWORD), login(p.app, '13800000004')]);
  });
  afterAll(() => p.close());

  const register = async () => {
    const r = await call(
      `${EXAM}/save`,
      { hospitalId: hospitalA, hisPatientName: '王五', sex: 1, age: 52, ageUnit: 4, patientSource: 1, outPatientNo: 'MZ0052', items: [{ itemId: item.id, organId: item.organ_id }] },
      clerkA,
    );
    expect(r.body.status).toBe('0');
    return r.body.data as Record<string, unknown> & { id: number; patientId: string };
  };

  test('register, update, terminate, cancel the termination: the record lists them newest first', async () => {
    const exam = await register();
    const other = await register();
    expect((await call(`${EXAM}/save`, { ...exam, clinicalDiagnosis: '胸痛三天' }, clerkA)).body.status).toBe('0');
    expect((await call(`${EXAM}/terminate/${exam.id}`, {}, clerkA)).body.status).toBe('0');
    expect((await call(`${EXAM}/restore/${exam.id}`, {}, clerkA)).body.status).toBe('0');

    const r = await logs(exam.id, clerkA);
    expect(r).toMatchObject({ code: 200, body: { status: '0' } });
    const list = r.body.data.list as Array<{ id: number; examId: number; action: string; userName: string; createdAt: string; detail: Record<string, unknown> }>;
    expect(list.map((l) => l.action)).toEqual(['cancelSuspend', 'suspend', 'updateExam', 'registerExam']);
    const valid = examLogValidator();
    for (const l of list) {
      expect(valid(l) ? null : valid.errors).toBeNull();
      expect(l.examId).toBe(exam.id);
      expect(l.userName).toBe('登记员小周');
      expect(Number.isNaN(Date.parse(l.createdAt))).toBe(false);
    }
    const times = list.map((l) => Date.parse(l.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(list[0].detail).toEqual({ fromState: 3 });
    expect(list[1].detail).toEqual({ fromState: 1 });
    expect(list[2].detail.changed).toContain('clinicalDiagnosis');
    // Named as exam fields; the worklist's own columns are not fields of the exam.
    expect((list[2].detail.changed as string[]).every((f) => /^[a-z][A-Za-z0-9]*$/.test(f))).toBe(true);
    expect(list[2].detail.changed).not.toContain('scheduledStart');
    expect(list[3].detail).toEqual({ patientId: exam.patientId, items: [item.name] });

    // Another exam's record is its own.
    expect((await logs(other.id, clerkA)).body.data.list.map((l: { action: string }) => l.action)).toEqual(['registerExam']);
  });

  test("another hospital's clerk gets RIS101, as for an exam that does not exist", async () => {
    const exam = await register();
    const foreign = await logs(exam.id, clerkB);
    expect(foreign.body.status).toBe('RIS101');
    expect(JSON.stringify(foreign.body)).not.toContain('registerExam');
    const missing = await logs(2_000_000_000, clerkA);
    expect(missing.body.status).toBe('RIS101');
    expect(foreign.code).toBe(missing.code);
  });

  test('the right registration:operationRecord and an examId are needed', async () => {
    const exam = await register();
    expect(await logs(exam.id, doctorA)).toMatchObject({ code: 403, body: { status: 'UAA103' } });
    expect((await call(`${EXAM}/logs`, {}, clerkA)).body.status).toBe('UAA421');
    expect((await call(`${EXAM}/logs`, { examId: 'x' }, clerkA)).body.status).toBe('UAA421');
  });
});
