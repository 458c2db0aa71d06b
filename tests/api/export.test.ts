/**
 * Exam-list export as a background job (issue #5) through the API on each database:
 * - the range: createdAt missing or over 31 days → UAA421 naming createdAt, nothing queued;
 *   31 days is accepted; no registration:export → UAA103
 * - a job runs to done; the downloaded .xlsx (read with exceljs) has exactly the rows the
 *   list gives for the same filters, headers in the requester's language and code texts,
 *   masked names when grade safety is on; the download is recorded
 * - another user neither sees nor downloads it (UCENTER001)
 * - a job left 'running' by a dead instance is claimed again and finishes; one abandoned
 *   too often is failed
 */
import ExcelJS from 'exceljs';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

const RIS = '/api/ris/v1';
const DAY = 86_400_000;

describe.each(dbKinds)('exam export on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let clerkA: string;
  let doctorA: string;
  let orgs: Record<string, number>;
  const call = (method: 'GET' | 'POST', url: string, payload?: object, token = admin, headers: Record<string, string> = {}) =>
    p.app.inject({ method, url, headers: authed(token, headers), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const jobCount = async () => Number((await p.db.query<{ n: number }>('SELECT count(*)::int AS n FROM export_job')).rows[0].n);

  /** Whole local days ending tomorrow 00:00, as the query bar sends them. */
  const lastDays = (days: number): [string, string] => {
    const d = new Date();
    const end = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1);
    const start = new Date(end.getFullYear(), end.getMonth(), end.getDate() - days);
    return [start.toISOString(), end.toISOString()];
  };

  /** Every row the list gives for these filters, page by page. */
  const listAll = async (filters: object, token: string) => {
    const rows: Array<Record<string, unknown>> = [];
    for (let page = 1; ; page++) {
      const r = await call('POST', `${RIS}/exam/list`, { page, pageSize: 100, filters }, token);
      expect(r.body.status).toBe('0');
      rows.push(...r.body.data.list);
      if (rows.length >= r.body.data.total || !r.body.data.list.length) return rows;
    }
  };

  const waitDone = async (id: number, token: string) => {
    const until = Date.now() + 30_000;
    for (;;) {
      const r = await call('GET', `${RIS}/export/list`, undefined, token);
      const job = r.body.data.list.find((j: { id: number }) => j.id === id);
      if (job && (job.state === 'done' || job.state === 'failed')) return job;
      if (Date.now() > until) throw new Error(`export ${id} not finished: ${JSON.stringify(job)}`);
      await new Promise((res) => setTimeout(res, 150));
    }
  };

  const sheetOf = async (payload: Buffer) => {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(payload as unknown as ExcelJS.Buffer);
    const ws = wb.worksheets[0];
    const rows: string[][] = [];
    ws.eachRow((row) => rows.push((row.values as unknown[]).slice(1).map((v) => (v === null || v === undefined ? '' : String(v)))));
    return rows;
  };

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    [admin, clerkA, doctorA] = await Promise.all([login(p.app, '13800000001'), login(p.app, '13800000002'), login(p.app, '13800000004')]);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
  });
  afterAll(() => p.close());

  test('the range must be given and span at most 31 days; the right is registration:export', async () => {
    const before = await jobCount();
    const [, end] = lastDays(1);
    const cases: object[] = [
      {},
      { createdAt: [null, end] },
      { createdAt: [new Date(Date.parse(end) - 32 * DAY).toISOString(), end] },
      { createdAt: [end, new Date(Date.parse(end) - DAY).toISOString()] },
    ];
    for (const filters of cases) {
      const r = await call('POST', `${RIS}/exam/export`, { filters }, clerkA, { 'accept-language': 'en-US' });
      expect({ filters, code: r.code, status: r.body.status, field: r.body.field }).toEqual({ filters, code: 400, status: 'UAA421', field: 'createdAt' });
      expect(r.body.message).toContain('Created at');
    }
    const tooLong = await call('POST', `${RIS}/exam/export`, { filters: { createdAt: [new Date(Date.parse(end) - 32 * DAY).toISOString(), end] } }, clerkA, {
      'accept-language': 'en-US',
    });
    expect(tooLong.body.detail).toBe('Created at may span at most 31 days');
    // A missing range is asked for in words, the export dialog's own.
    const missing = await call('POST', `${RIS}/exam/export`, { filters: {} }, clerkA);
    expect(missing.body.detail).toBe('请选择创建时间');
    expect(await jobCount()).toBe(before);
    expect((await call('POST', `${RIS}/exam/export`, { filters: { createdAt: lastDays(7) } }, doctorA)).body.status).toBe('UAA103');
    const ok31 = await call('POST', `${RIS}/exam/export`, { filters: { createdAt: lastDays(31) } }, clerkA);
    expect(ok31.body).toMatchObject({ status: '0', data: { id: expect.any(Number), state: 'queued' } });
    await waitDone(ok31.body.data.id, clerkA);
  });

  test('a job runs to done; the file has exactly the list rows, masked as the list is; only its owner gets it', async () => {
    await call('POST', '/api/ucenter/v1/config/gradeSafety', { enabled: true });
    try {
      const filters = { createdAt: lastDays(7) };
      const r = await call('POST', `${RIS}/exam/export`, { filters }, clerkA, { 'accept-language': 'en-US' });
      expect(r.body.status).toBe('0');
      const job = await waitDone(r.body.data.id, clerkA);
      expect(job).toMatchObject({ state: 'done', kind: 'exam', fileName: expect.stringMatching(/\.xlsx$/) });
      expect(job.downloadedAt).toBeUndefined();

      const listed = await listAll(filters, clerkA);
      expect(listed.length).toBeGreaterThan(5);
      expect(job.rowsTotal).toBe(listed.length);
      expect(job.rowsDone).toBe(listed.length);

      const file = await p.app.inject({ method: 'GET', url: `${RIS}/export/download/${job.id}`, headers: authed(clerkA) });
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toContain('spreadsheetml');
      const rows = await sheetOf(file.rawPayload);
      const [header, ...data] = rows;
      expect(header).toEqual(expect.arrayContaining(['Exam number', 'Patient name', 'Sex', 'Exam state', 'Hospital']));
      expect(data).toHaveLength(listed.length);
      const col = (name: string) => header.indexOf(name);
      // Same rows in the same order: the list's default order is the file's.
      expect(data.map((d) => d[col('Exam number')])).toEqual(listed.map((e) => e.examCode));
      expect(data.map((d) => d[col('Patient name')])).toEqual(listed.map((e) => e.hisPatientName));
      expect(data.every((d) => /^.\*+$/u.test(d[col('Patient name')]))).toBe(true);
      expect(new Set(data.map((d) => d[col('Sex')]))).toEqual(new Set(listed.map((e) => (e.sex === 1 ? 'Male' : 'Female'))));
      expect(new Set(data.map((d) => d[col('Hospital')]))).toEqual(new Set(['第一乡镇卫生院']));

      const after = await call('GET', `${RIS}/export/list`, undefined, clerkA);
      expect(after.body.data.list[0]).toMatchObject({ id: job.id, downloadedAt: expect.any(String) });

      // Someone else: not in their list, and no file.
      const other = await call('GET', `${RIS}/export/list`, undefined, doctorA);
      expect(other.body.data.list.map((j: { id: number }) => j.id)).not.toContain(job.id);
      const stolen = await call('GET', `${RIS}/export/download/${job.id}`, undefined, doctorA);
      expect(stolen).toMatchObject({ code: 404, body: { status: 'UCENTER001' } });
      expect((await call('GET', `${RIS}/export/download/${job.id}`, undefined, admin)).code).toBe(404);
    } finally {
      await call('POST', '/api/ucenter/v1/config/gradeSafety', { enabled: false });
    }
  });

  test('an admin export of one hospital has exactly its rows, unmasked', async () => {
    const filters = { createdAt: lastDays(31), hospitalId: orgs.CENTRAL };
    const r = await call('POST', `${RIS}/exam/export`, { filters });
    const job = await waitDone(r.body.data.id, admin);
    expect(job.state).toBe('done');
    const listed = await listAll(filters, admin);
    const file = await p.app.inject({ method: 'GET', url: `${RIS}/export/download/${job.id}`, headers: authed(admin) });
    const [header, ...data] = await sheetOf(file.rawPayload);
    expect(header[0]).toBe('检查号');
    expect(data.map((d) => d[0])).toEqual(listed.map((e) => e.examCode));
    expect(data.some((d) => d[1].includes('*'))).toBe(false);
  });

  test("a job left running by a dead instance is claimed again; one abandoned too often fails", async () => {
    const { rows } = await p.db.query<{ id: number }>(
      `INSERT INTO export_job (user_id, kind, lang, filters, scope, sees_plain, state, attempts, claimed_by, heartbeat_at, started_at)
       SELECT u.id, 'exam', 'zh-CN', $1::jsonb, '{"all": true, "hospitalIds": [], "conditionSets": []}'::jsonb, true, 'running', 1, 'dead-instance',
              now() - interval '1 hour', now() - interval '1 hour'
         FROM app_user u WHERE u.mobile = '13800000001' RETURNING id`,
      [JSON.stringify({ createdAt: lastDays(3) })],
    );
    const job = await waitDone(rows[0].id, admin);
    expect(job.state).toBe('done');
    const stored = await p.db.query<{ attempts: number; claimed_by: string }>('SELECT attempts, claimed_by FROM export_job WHERE id = $1', [rows[0].id]);
    expect(stored.rows[0].attempts).toBe(2);
    expect(stored.rows[0].claimed_by).not.toBe('dead-instance');

    const poisoned = await p.db.query<{ id: number }>(
      `INSERT INTO export_job (user_id, kind, lang, filters, scope, sees_plain, state, attempts, claimed_by, heartbeat_at)
       SELECT u.id, 'exam', 'zh-CN', '{}'::jsonb, '{"all": true, "hospitalIds": [], "conditionSets": []}'::jsonb, true, 'running', 3, 'dead-instance', now() - interval '1 hour'
         FROM app_user u WHERE u.mobile = '13800000001' RETURNING id`,
    );
    expect((await waitDone(poisoned.rows[0].id, admin)).state).toBe('failed');
  });
});
