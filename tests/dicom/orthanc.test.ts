/**
 * A peer PACS against the platform: Debian's Orthanc, started here on loopback with a
 * config of its own (the platform's listener as its modality "rcloud"; the platform
 * knows it as a registered device of hospital A), on each database:
 * - Orthanc's C-FIND (its /modalities/rcloud/query) finds the study with its patient
 * - Orthanc's C-MOVE retrieve to itself takes the whole study, and every instance file
 *   Orthanc stored holds, byte for byte, the dataset the platform stored
 * Orthanc missing (apt-get install -y orthanc) fails the suite: the interoperability
 * is part of what is delivered.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syntheticSeries } from '../../mock/dicom';
import { startDicomListener, type DicomListener } from '../../server/dicom/listener';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { dbKinds } from '../support/db';
import { ORTHANC, orthancConfig } from '../support/orthanc';
import { expectOrthancHoldsStored } from '../support/orthancFiles';
import { datasetOf, freePort, startPeer, type Peer } from './dcmtk';

const AE = 'RCLOUD';
const ORTHANC_AE = 'A_ORTHANC';

describe.each(dbKinds)('Orthanc finds and moves from the platform on %s', (kind) => {
  let p: TestPlatform;
  let listener: DicomListener;
  let orthanc: Peer;
  let dir: string;
  let http: string;
  const series = [
    syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.91', patientId: 'OR100', patientName: '郭靖', patientNameEn: 'Guo^Jing', count: 4, seriesNumber: 1 }),
  ];
  series.push(syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.91', patientId: 'OR100', patientName: '郭靖', patientNameEn: 'Guo^Jing', count: 2, seriesNumber: 2, studyUid: series[0].studyUid }));
  const studyUid = series[0].studyUid;

  const api = async (method: string, url: string, body?: unknown) => {
    const r = await fetch(`${http}${url}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    if (!r.ok) throw new Error(`${method} ${url}: ${r.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  beforeAll(async () => {
    expect(fs.existsSync(ORTHANC)).toBe(true);
    p = await startTestPlatform(kind);
    listener = await startDicomListener(p.app, { aeTitle: AE, port: 0, host: '127.0.0.1' });
    const { rows } = await p.db.query<{ id: number; hospital_id: number }>("SELECT id, hospital_id FROM device WHERE ae_title = 'A_CT1'");
    for (const s of series) {
      for (const instance of s.instances) await p.app.archive.storeBuffer(instance.bytes, { hospitalId: rows[0].hospital_id, deviceId: rows[0].id, sender: 'A_CT1' });
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-orthanc-'));
    const [httpPort, dicomPort] = [await freePort(), await freePort()];
    const config = {
      ...orthancConfig(dir, { name: 'RCLOUD-TEST-PEER', aet: ORTHANC_AE, httpPort, dicomPort }),
      Plugins: [],
      // Answers and queries in UTF-8 (its default, Latin-1, cannot hold the Chinese names).
      DefaultEncoding: 'Utf8',
      DicomModalities: { rcloud: [AE, '127.0.0.1', listener.port] },
    };
    fs.writeFileSync(path.join(dir, 'orthanc.json'), JSON.stringify(config, null, 2));
    orthanc = await startPeer(ORTHANC, [path.join(dir, 'orthanc.json'), `--logdir=${dir}`], httpPort);
    http = `http://127.0.0.1:${httpPort}`;
    // Orthanc as the platform knows it: a device of hospital A at its DICOM address.
    await p.db.query('INSERT INTO device (hospital_id, name, modality, ip, port, ae_title) VALUES ($1, $2, $3, $4, $5, $6)', [
      rows[0].hospital_id,
      'Orthanc 参考 PACS',
      'OT',
      '127.0.0.1',
      dicomPort,
      ORTHANC_AE,
    ]);
    // The platform starts (migrations, demo seed) slowly on a busy machine: the hook may take longer than a test.
  }, 180_000);
  afterAll(async () => {
    await orthanc?.stop();
    await listener?.close();
    await p?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("Orthanc's C-FIND finds the study with its patient and counts", async () => {
    const query = await api('POST', '/modalities/rcloud/query', {
      Level: 'Study',
      Query: { PatientID: 'OR100', StudyInstanceUID: '', PatientName: '', NumberOfStudyRelatedInstances: '', ModalitiesInStudy: '' },
    });
    const answers: Array<Record<string, { Name: string; Value: string }>> = await api('GET', `/queries/${query.ID}/answers?expand`);
    expect(answers).toHaveLength(1);
    const value = (tag: string) => answers[0][tag]?.Value;
    expect(value('0020,000d')).toBe(studyUid);
    expect(value('0010,0020')).toBe('OR100');
    expect(value('0020,1208')).toBe('6');
    expect(value('0010,0010')).toBe('Guo^Jing=郭靖');
  });

  test('C-MOVE retrieve to Orthanc: every instance, byte for byte', async () => {
    const query = await api('POST', '/modalities/rcloud/query', { Level: 'Study', Query: { StudyInstanceUID: studyUid } });
    await api('POST', `/queries/${query.ID}/answers/0/retrieve`, { TargetAet: ORTHANC_AE, Synchronous: true });
    const instances: string[] = await api('GET', '/instances');
    expect(instances).toHaveLength(6);
    await expectOrthancHoldsStored(http, p, studyUid, instances);
  });
});
