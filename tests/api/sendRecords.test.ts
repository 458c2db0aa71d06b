/**
 * The send records (resource sendJob, view sendJob: /sendRecord) through the API on each
 * database. The sends themselves (C-STORE, STOW-RS, retries, resend) are tested against
 * Orthanc in tests/dicom/send.test.ts; here the records of sends are stored as the
 * worker leaves them (one per state), and:
 * - hospital A's clerk (registration:send) lists the sends of hospital A's exams with
 *   their state and progress, queries them by exam code and by state, reads one;
 * - a send of another hospital's exam is neither listed nor readable (RIS101);
 * - without the send right the list is refused (UAA103).
 */
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

const S = '/api/ris/v1/exam/send';

describe.each(dbKinds)('send records on %s', (kind) => {
  let p: TestPlatform;
  let clerk: string;
  let doctor: string;
  const ids: Record<string, number> = {};
  let codeA: string;

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    [clerk, doctor] = await Promise.all(['13800000002', '13800000004'].map((m) => login(p.app, m)));
    const exam = async (code: string) =>
      (await p.db.query<{ id: number; exam_code: string }>(`SELECT e.id, e.exam_code FROM exam e JOIN org o ON o.id = e.hospital_id WHERE o.code = $1 ORDER BY e.id LIMIT 1`, [code])).rows[0];
    const a = await exam('HOSP_A');
    const b = await exam('HOSP_B');
    codeA = a.exam_code;
    const device = (await p.db.query<{ id: number; hospital_id: number }>('SELECT id, hospital_id FROM device ORDER BY id LIMIT 1')).rows[0];
    const put = async (examId: number, state: string, done: number, error: string | null) =>
      (
        await p.db.query<{ id: number }>(
          `INSERT INTO send_job (exam_id, hospital_id, destination_id, destination_name, state, total, done, failed, attempts, last_error, user_name, finished_at)
           SELECT $1, hospital_id, $2, '上级 PACS', $3, 4, $4, 4 - $4, 1, $5, '登记员小周', CASE WHEN $3 = 'sending' THEN NULL ELSE now() END FROM exam WHERE id = $1 RETURNING id`,
          [examId, device.id, state, done, error],
        )
      ).rows[0].id;
    ids.success = await put(a.id, 'success', 4, null);
    ids.failure = await put(a.id, 'failure', 1, 'association rejected');
    ids.foreign = await put(b.id, 'success', 4, null);
  });
  afterAll(() => p.close());

  test("hospital A's clerk lists and queries the sends of its exams, with state and progress", async () => {
    const all = await call('POST', `${S}/list`, clerk, { page: 1, pageSize: 100 });
    expect(all.code).toBe(200);
    const listed = all.body.data.list as Array<Record<string, unknown>>;
    expect(listed.map((r) => r.id)).toEqual(expect.arrayContaining([ids.success, ids.failure]));
    expect(listed.map((r) => r.id)).not.toContain(ids.foreign);
    expect(listed.find((r) => r.id === ids.failure)).toMatchObject({ examCode: codeA, state: 'failure', done: 1, total: 4, lastError: 'association rejected', destinationName: '上级 PACS' });

    const failed = await call('POST', `${S}/list`, clerk, { page: 1, pageSize: 100, filters: { state: ['failure'], examCode: codeA } });
    expect((failed.body.data.list as Array<{ id: number; state: string }>).map((r) => [r.id, r.state])).toEqual([[ids.failure, 'failure']]);
    expect((await call('GET', `${S}/detail/${ids.success}`, clerk)).body.data).toMatchObject({ id: ids.success, state: 'success', done: 4 });
  });

  test("another hospital's send is not readable; without the send right the list is refused", async () => {
    expect((await call('GET', `${S}/detail/${ids.foreign}`, clerk)).body.status).toBe('RIS101');
    expect((await call('POST', `${S}/list`, doctor, { page: 1, pageSize: 10 })).body.status).toBe('UAA103');
  });
});
