/**
 * Regional send against a real peer PACS: Debian's Orthanc with its DICOMweb plugin,
 * started here on loopback, known to the platform as two send targets of hospital A
 * (its DICOM AE, and its STOW-RS URL), on each database:
 * - a send by C-STORE delivers every instance of the exam byte for byte; sending again
 *   while it runs answers the running send's status, not a second job
 * - a destination that is down is tried again with backoff up to SEND_MAX_ATTEMPTS,
 *   then the send fails with the reason; a resend once it is up succeeds
 * - a send by STOW-RS delivers the other exam's instances byte for byte
 * - a destination neither of the exam's hospital nor serving it is refused (PACS530)
 * Orthanc or its DICOMweb plugin missing (apt-get install -y orthanc orthanc-dicomweb)
 * fails the suite.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syntheticSeries } from '../../mock/dicom';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { dbKinds } from '../support/db';
import { ORTHANC, orthancConfig } from '../support/orthanc';
import { expectOrthancHoldsStored } from '../support/orthancFiles';
import { freePort, startPeer, type Peer } from './dcmtk';

const DICOMWEB_PLUGIN = '/usr/share/orthanc/plugins/libOrthancDicomWeb.so';
const MAX_ATTEMPTS = 3;

describe.each(dbKinds)('regional send to Orthanc on %s', (kind) => {
  let p: TestPlatform;
  let orthanc: Peer;
  let dir: string;
  let http: string;
  let dicomPort: number;
  let token: string;
  let hospitalA: number;
  const exams: number[] = [];
  const dest: Record<'dicom' | 'down' | 'stow' | 'foreign', number> = { dicom: 0, down: 0, stow: 0, foreign: 0 };
  const uidRoot = '1.2.826.0.1.3680043.10.1082.93';
  const studies = [
    syntheticSeries({ uidRoot, patientId: 'SD100', patientName: '黄蓉', patientNameEn: 'Huang^Rong', count: 5, seriesNumber: 1 }),
    syntheticSeries({ uidRoot: `${uidRoot}.2`, patientId: 'SD200', patientName: '洪七公', patientNameEn: 'Hong^Qigong', count: 3, seriesNumber: 1 }),
  ];

  const orthancApi = async (method: string, url: string, body?: unknown) => {
    const r = await fetch(`${http}${url}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    if (!r.ok) throw new Error(`${method} ${url}: ${r.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const send = (examId: number, destinationId: number) =>
    p.app.inject({ method: 'POST', url: '/api/ris/v1/exam/send', headers: authed(token), payload: { examId, destinationId } });
  const statusOf = async (examId: number, destinationId: number) => {
    const r = await p.app.inject({ method: 'GET', url: `/api/ris/v1/exam/send/status/${examId}`, headers: authed(token) });
    expect(r.json().status).toBe('0');
    return r.json().data.list.find((s: { destinationId: number }) => s.destinationId === destinationId);
  };
  /** Polls the send's status until it is no longer sending (the worker runs in the background). */
  const finished = async (examId: number, destinationId: number) => {
    for (;;) {
      const status = await statusOf(examId, destinationId);
      if (status.state !== 'sending') return status;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** Every instance of the study in Orthanc holds, byte for byte, the dataset the platform stored. */
  const expectDelivered = async (studyUid: string, count: number) => {
    const ids: string[] = await orthancApi('POST', '/tools/find', { Level: 'Instance', Query: { StudyInstanceUID: studyUid } });
    expect(ids).toHaveLength(count);
    await expectOrthancHoldsStored(http, p, studyUid, ids);
  };

  beforeAll(async () => {
    expect(fs.existsSync(ORTHANC)).toBe(true);
    expect(fs.existsSync(DICOMWEB_PLUGIN)).toBe(true);
    p = await startTestPlatform(kind, { SEND_RETRY_SECONDS: '0.2', SEND_MAX_ATTEMPTS: String(MAX_ATTEMPTS) });
    const { rows: ct } = await p.db.query<{ id: number; hospital_id: number }>("SELECT id, hospital_id FROM device WHERE ae_title = 'A_CT1'");
    hospitalA = ct[0].hospital_id;
    // Two exams of hospital A without images of their own, each given one study.
    const { rows: free } = await p.db.query<{ id: number }>(
      'SELECT e.id FROM exam e WHERE e.hospital_id = $1 AND NOT EXISTS (SELECT 1 FROM dicom_study s WHERE s.exam_id = e.id) ORDER BY e.id LIMIT 2',
      [hospitalA],
    );
    for (const [i, series] of studies.entries()) {
      for (const instance of series.instances) await p.app.archive.storeBuffer(instance.bytes, { hospitalId: hospitalA, deviceId: ct[0].id, sender: 'A_CT1' });
      await p.db.query('UPDATE dicom_study SET exam_id = $1 WHERE study_uid = $2', [free[i].id, series.studyUid]);
      exams.push(free[i].id);
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-send-'));
    const httpPort = await freePort();
    dicomPort = await freePort();
    const config = {
      ...orthancConfig(dir, { name: 'RCLOUD-SEND-PEER', aet: 'A_ORTHANC', httpPort, dicomPort }),
      Plugins: [DICOMWEB_PLUGIN],
      DicomWeb: { Enable: true, Root: '/dicom-web/' },
      DefaultEncoding: 'Utf8',
    };
    fs.writeFileSync(path.join(dir, 'orthanc.json'), JSON.stringify(config, null, 2));
    orthanc = await startPeer(ORTHANC, [path.join(dir, 'orthanc.json'), `--logdir=${dir}`], httpPort);
    http = `http://127.0.0.1:${httpPort}`;
    const { rows: b } = await p.db.query<{ id: number }>("SELECT id FROM org WHERE id <> $1 AND id IN (SELECT hospital_id FROM device) ORDER BY id LIMIT 1", [hospitalA]);
    const device = async (name: string, ae: string, port: number | null, stowUrl: string | null, hospitalId = hospitalA) => {
      const { rows } = await p.db.query<{ id: number }>(
        'INSERT INTO device (hospital_id, name, modality, ip, port, ae_title, send_target, stow_url) VALUES ($1, $2, $3, $4, $5, $6, true, $7) RETURNING id',
        [hospitalId, name, 'OT', port ? '127.0.0.1' : null, port, ae, stowUrl],
      );
      return rows[0].id;
    };
    dest.dicom = await device('中心医院 PACS', 'A_ORTHANC', dicomPort, null);
    // Nothing listens there: connections are refused.
    dest.down = await device('停机的 PACS', 'A_DOWN', await freePort(), null);
    dest.stow = await device('中心医院 DICOMweb', 'A_STOW', null, `${http}/dicom-web/studies`);
    dest.foreign = await device('别院 PACS', 'B_PACS', await freePort(), null, b[0].id);
    token = await login(p.app, '13800000002');
  }, 180_000);
  afterAll(async () => {
    await orthanc?.stop();
    await p?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the destinations of an exam are its hospital send targets; another hospital one is refused (PACS530)', async () => {
    const r = await p.app.inject({ method: 'GET', url: `/api/ris/v1/exam/send/destinations/${exams[0]}`, headers: authed(token) });
    const ids = r.json().data.list.map((d: { id: number }) => d.id);
    expect(ids).toEqual(expect.arrayContaining([dest.dicom, dest.down, dest.stow]));
    expect(ids).not.toContain(dest.foreign);
    const refused = await send(exams[0], dest.foreign);
    expect(refused.statusCode).toBe(404);
    expect(refused.json().status).toBe('PACS530');
    const { rows } = await p.db.query('SELECT 1 FROM send_job WHERE destination_id = $1', [dest.foreign]);
    expect(rows).toHaveLength(0);
  });

  test('C-STORE send: every instance byte for byte; sending again while it runs answers its status', async () => {
    const first = await send(exams[0], dest.dicom);
    expect(first.json().status).toBe('0');
    expect(first.json().data.started).toBe(true);
    const again = await send(exams[0], dest.dicom);
    const { rows: running } = await p.db.query<{ state: string }>('SELECT state FROM send_job WHERE exam_id = $1 AND destination_id = $2', [exams[0], dest.dicom]);
    expect(running).toHaveLength(1);
    // Unless the first finished in between, the second answer is the same job's status.
    if (running[0].state === 'sending') {
      expect(again.json().data.started).toBe(false);
      expect(again.json().data.status.id).toBe(first.json().data.status.id);
    }
    const status = await finished(exams[0], dest.dicom);
    expect(status).toMatchObject({ state: 'success', total: 5, done: 5, failed: 0 });
    await expectDelivered(studies[0].studyUid, 5);
    const log = await p.db.query<{ action: string }>('SELECT action FROM exam_log WHERE exam_id = $1 AND action IN ($2, $3)', [exams[0], 'sendExam', 'resendExam']);
    expect(log.rows.length).toBeGreaterThanOrEqual(1);
  });

  test('a destination that is down: retried with backoff, then failed with the reason; a resend once it is up succeeds', async () => {
    const r = await send(exams[1], dest.down);
    expect(r.json().data.started).toBe(true);
    const status = await finished(exams[1], dest.down);
    expect(status.state).toBe('failure');
    expect(status.attempts).toBe(MAX_ATTEMPTS);
    expect(status.done).toBe(0);
    expect(status.lastError).toMatch(/no connection/);
    // The destination is back (now at Orthanc's address, which one device only may hold): the resend is a new job that succeeds.
    await p.db.query('UPDATE device SET ip = NULL, port = NULL WHERE id = $1', [dest.dicom]);
    await p.db.query("UPDATE device SET ip = '127.0.0.1', port = $2 WHERE id = $1", [dest.down, dicomPort]);
    const resend = await send(exams[1], dest.down);
    expect(resend.json().data.started).toBe(true);
    expect(resend.json().data.status.id).not.toBe(status.id);
    expect(await finished(exams[1], dest.down)).toMatchObject({ state: 'success', total: 3, done: 3, attempts: 1 });
    await expectDelivered(studies[1].studyUid, 3);
    const log = await p.db.query<{ action: string }>("SELECT action FROM exam_log WHERE exam_id = $1 AND action IN ('sendExam', 'resendExam') ORDER BY id", [exams[1]]);
    expect(log.rows.map((l) => l.action)).toEqual(['sendExam', 'resendExam']);
  });

  test('STOW-RS send: every instance byte for byte', async () => {
    // Orthanc holds them from the C-STORE send: removed first, so what arrives is this send's.
    const ids: string[] = await orthancApi('POST', '/tools/find', { Level: 'Study', Query: { StudyInstanceUID: studies[0].studyUid } });
    for (const id of ids) await orthancApi('DELETE', `/studies/${id}`);
    const r = await send(exams[0], dest.stow);
    expect(r.json().data.started).toBe(true);
    expect(await finished(exams[0], dest.stow)).toMatchObject({ state: 'success', total: 5, done: 5, failed: 0 });
    await expectDelivered(studies[0].studyUid, 5);
  });
});
