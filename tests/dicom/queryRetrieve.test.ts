/**
 * Query/Retrieve against dcmtk's findscu, movescu and getscu, on each database:
 * - C-FIND, Study Root (-S) and Patient Root (-P), every level: universal matching,
 *   single values, wildcards on the pinyin or the Chinese name in any case, date
 *   ranges, UID lists; the requested keys answered (counts, modalities in study, the
 *   Chinese name), unknown ones empty; a Study Root PATIENT query refused
 * - scope: a hospital A device finds none of hospital B's studies until it is declared
 *   to serve hospital B
 * - C-MOVE to a storescp started here and registered as a device: pending responses,
 *   every instance received with its dataset byte for byte the stored one; a
 *   destination that only takes implicit VR gets the same instances re-encoded; an
 *   unknown destination and one of another hospital are refused (Move Destination
 *   unknown), a compressed instance a destination cannot take counts as failed; an RLE
 *   one goes decoded, pixels unchanged, to a destination taking only uncompressed data
 * - C-GET on the same association: the study's files, byte for byte
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syntheticSeries, type SyntheticSeries } from '../../mock/dicom';
import { startDicomListener, type DicomListener } from '../../server/dicom/listener';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { dbKinds } from '../support/db';
import { datasetOf, dcmtk, freePort, readNatural, startPeer, type Peer } from './dcmtk';

const AE = 'RCLOUD';

describe.each(dbKinds)('DICOM query/retrieve on %s', (kind) => {
  let p: TestPlatform;
  let listener: DicomListener;
  let work: string;
  let orgs: Record<string, number>;
  const devices: Record<string, { id: number; hospitalId: number }> = {};
  let ctA: SyntheticSeries;
  let mrA: SyntheticSeries;
  let ctB: SyntheticSeries;
  const peers: Peer[] = [];

  const port = () => String(listener.port);
  /** findscu with a model flag (-S, -P) and keys: the answers, naturalized. */
  const find = async (model: string, callingAe: string, keys: string[]) => {
    const out = fs.mkdtempSync(path.join(work, 'find-'));
    const run = await dcmtk('findscu', [model, '-aet', callingAe, '-aec', AE, '-X', '-od', out, ...keys.flatMap((k) => ['-k', k]), '127.0.0.1', port()]);
    expect({ code: run.code, output: run.code ? run.output : '' }).toEqual({ code: 0, output: '' });
    return fs
      .readdirSync(out)
      .sort()
      .map((f) => readNatural(path.join(out, f)));
  };
  const store = async (series: SyntheticSeries, hospitalId: number, ae: string) => {
    for (const instance of series.instances) await p.app.archive.storeBuffer(instance.bytes, { hospitalId, deviceId: devices[ae].id, sender: ae });
  };
  /** A storescp on a free port registered as device `ae` of hospital A; its output folder. */
  const storescp = async (ae: string, extra: string[] = []) => {
    const peerPort = await freePort();
    const dir = fs.mkdtempSync(path.join(work, `${ae}-`));
    peers.push(await startPeer('storescp', ['-aet', ae, '-od', dir, ...extra, String(peerPort)], peerPort));
    await p.db.query('INSERT INTO device (hospital_id, name, modality, ip, port, ae_title) VALUES ($1, $2, $3, $4, $5, $6)', [orgs.HOSP_A, ae, 'OT', '127.0.0.1', peerPort, ae]);
    return dir;
  };
  /** The stored file of each instance of a study: SOP Instance UID → bytes. */
  const storedFiles = async (studyUid: string, hospitalId: number) => {
    const { rows } = await p.db.query<{ sop_instance_uid: string; file_key: string }>(
      'SELECT i.sop_instance_uid, i.file_key FROM dicom_instance i JOIN dicom_study s ON s.id = i.study_id WHERE s.study_uid = $1 AND s.hospital_id = $2',
      [studyUid, hospitalId],
    );
    return new Map(rows.map((r) => [r.sop_instance_uid, fs.readFileSync(path.join(p.dataDir, 'files', r.file_key))]));
  };
  /** The files in a folder by the SOP Instance UID of their meta header. */
  const received = (dir: string) =>
    new Map(
      fs.readdirSync(dir).map((f) => {
        const bytes = fs.readFileSync(path.join(dir, f));
        return [readNatural(path.join(dir, f))._meta.MediaStorageSOPInstanceUID as string, bytes];
      }),
    );

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    listener = await startDicomListener(p.app, { aeTitle: AE, port: 0, host: '127.0.0.1' });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-qr-'));
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    for (const d of (await p.db.query<{ ae: string; id: number; hospital_id: number }>('SELECT ae_title AS ae, id, hospital_id FROM device')).rows) {
      devices[d.ae] = { id: d.id, hospitalId: d.hospital_id };
    }
    ctA = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.71', patientId: 'QR100', patientName: '张三丰', patientNameEn: 'Zhang^Sanfeng', studyDate: '20261101', accessionNumber: 'QRACC1', count: 3 });
    mrA = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.72', patientId: 'QR200', patientName: '李四', patientNameEn: 'Li^Si', studyDate: '20261115', modality: 'MR', count: 2 });
    ctB = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.73', patientId: 'QR300', patientName: '王五', patientNameEn: 'Wang^Wu', studyDate: '20261110', count: 1 });
    await store(ctA, orgs.HOSP_A, 'A_CT1');
    await store(mrA, orgs.HOSP_A, 'A_CT1');
    await store(ctB, devices.B_CT1.hospitalId, 'B_CT1');
    // The platform starts (migrations, demo seed) slowly on a busy machine: the hook may take longer than a test.
  }, 180_000);
  afterAll(async () => {
    for (const peer of peers) await peer.stop();
    await listener?.close();
    await p?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  test('study root, STUDY level: universal matching finds the hospital\'s studies with the keys asked for', async () => {
    const all = await find('-S', 'A_CT1', [
      'QueryRetrieveLevel=STUDY',
      'StudyInstanceUID',
      'PatientName',
      'PatientID',
      'StudyDate',
      'AccessionNumber',
      'ModalitiesInStudy',
      'NumberOfStudyRelatedSeries',
      'NumberOfStudyRelatedInstances',
      'InstitutionName',
      'InstanceAvailability',
    ]);
    const byUid = Object.fromEntries(all.map((r) => [r.StudyInstanceUID, r]));
    // Every study of hospital A (the demo's and these two), none of hospital B's.
    const { rows } = await p.db.query<{ study_uid: string }>('SELECT study_uid FROM dicom_study WHERE hospital_id = $1', [orgs.HOSP_A]);
    expect(Object.keys(byUid).sort()).toEqual(rows.map((r) => r.study_uid).sort());
    expect(Object.keys(byUid)).toEqual(expect.arrayContaining([ctA.studyUid, mrA.studyUid]));
    expect(Object.keys(byUid)).not.toContain(ctB.studyUid);
    expect(byUid[ctA.studyUid]).toMatchObject({
      SpecificCharacterSet: 'ISO_IR 192',
      QueryRetrieveLevel: 'STUDY',
      PatientID: 'QR100',
      PatientName: [{ Alphabetic: 'Zhang^Sanfeng', Ideographic: '张三丰' }],
      StudyDate: '20261101',
      AccessionNumber: 'QRACC1',
      ModalitiesInStudy: 'CT',
      NumberOfStudyRelatedSeries: 1,
      NumberOfStudyRelatedInstances: 3,
    });
    // A key the archive does not index at this level is still answered, empty.
    expect('InstitutionName' in byUid[ctA.studyUid]).toBe(true);
    expect(byUid[ctA.studyUid]).toMatchObject({ RetrieveAETitle: AE, InstanceAvailability: 'ONLINE' });
    // Keys not asked for are not answered.
    expect('StudyDescription' in byUid[ctA.studyUid]).toBe(false);
  });

  test('study matching: wildcards on pinyin or Chinese in any case, date ranges, single values, UID lists', async () => {
    // Among this test's patients (QR*): the demo's studies are in the same hospital.
    const uids = async (keys: string[]) => (await find('-S', 'A_CT1', ['QueryRetrieveLevel=STUDY', 'StudyInstanceUID', 'PatientID=QR*', ...keys])).map((r) => r.StudyInstanceUID).sort();
    expect(await uids(['PatientName=zhang*'])).toEqual([ctA.studyUid]);
    expect(await uids(['SpecificCharacterSet=ISO_IR 192', 'PatientName=李*'])).toEqual([mrA.studyUid]);
    expect(await uids(['PatientName=L?^SI'])).toEqual([mrA.studyUid]);
    expect(await uids(['StudyDate=20261110-'])).toEqual([mrA.studyUid]);
    expect(await uids(['StudyDate=-20261110'])).toEqual([ctA.studyUid]);
    expect(await uids(['StudyDate=20261101-20261115'])).toEqual([ctA.studyUid, mrA.studyUid].sort());
    expect(await uids(['AccessionNumber=QRACC1'])).toEqual([ctA.studyUid]);
    expect(await uids(['AccessionNumber=QRACC'])).toEqual([]);
    expect(await uids(['ModalitiesInStudy=MR'])).toEqual([mrA.studyUid]);
    expect(await uids([`StudyInstanceUID=${ctA.studyUid}\\${mrA.studyUid}`])).toEqual([ctA.studyUid, mrA.studyUid].sort());
  });

  test('series and image levels', async () => {
    const series = await find('-S', 'A_CT1', ['QueryRetrieveLevel=SERIES', `StudyInstanceUID=${ctA.studyUid}`, 'SeriesInstanceUID', 'Modality', 'SeriesNumber', 'NumberOfSeriesRelatedInstances']);
    expect(series).toHaveLength(1);
    expect(series[0]).toMatchObject({ SeriesInstanceUID: ctA.seriesUid, Modality: 'CT', SeriesNumber: 1, NumberOfSeriesRelatedInstances: 3 });
    expect(await find('-S', 'A_CT1', ['QueryRetrieveLevel=SERIES', `StudyInstanceUID=${ctA.studyUid}`, 'Modality=MR'])).toHaveLength(0);

    const images = await find('-S', 'A_CT1', ['QueryRetrieveLevel=IMAGE', `StudyInstanceUID=${ctA.studyUid}`, `SeriesInstanceUID=${ctA.seriesUid}`, 'SOPInstanceUID', 'SOPClassUID', 'InstanceNumber', 'Rows']);
    expect(images.map((r) => r.SOPInstanceUID)).toEqual(ctA.instances.map((i) => i.sopInstanceUid));
    expect(images[1]).toMatchObject({ InstanceNumber: 2, SOPClassUID: ctA.instances[0].sopClassUid, Rows: 64 });
    const one = await find('-S', 'A_CT1', ['QueryRetrieveLevel=IMAGE', `StudyInstanceUID=${ctA.studyUid}`, `SeriesInstanceUID=${ctA.seriesUid}`, 'SOPInstanceUID', 'InstanceNumber=3']);
    expect(one.map((r) => r.SOPInstanceUID)).toEqual([ctA.instances[2].sopInstanceUid]);
  });

  test('patient root: PATIENT level with counts, STUDY level under a patient; Study Root has no PATIENT level', async () => {
    const patients = await find('-P', 'A_CT1', ['QueryRetrieveLevel=PATIENT', 'PatientID=QR*', 'PatientName', 'PatientSex', 'NumberOfPatientRelatedStudies', 'NumberOfPatientRelatedInstances']);
    expect(patients.map((r) => r.PatientID).sort()).toEqual(['QR100', 'QR200']);
    expect(patients.find((r) => r.PatientID === 'QR100')).toMatchObject({ PatientSex: 'M', NumberOfPatientRelatedStudies: 1, NumberOfPatientRelatedInstances: 3 });
    const studies = await find('-P', 'A_CT1', ['QueryRetrieveLevel=STUDY', 'PatientID=QR200', 'StudyInstanceUID']);
    expect(studies.map((r) => r.StudyInstanceUID)).toEqual([mrA.studyUid]);

    const refused = await dcmtk('findscu', ['-v', '-S', '-aet', 'A_CT1', '-aec', AE, '-k', 'QueryRetrieveLevel=PATIENT', '-k', 'PatientID', '127.0.0.1', port()]);
    expect(refused.output).toMatch(/Final Find Response \(Failed: UnableToProcess\)/);
  });

  test("scope: hospital B's studies only for a device declared to serve hospital B", async () => {
    const uids = async (ae: string) => (await find('-S', ae, ['QueryRetrieveLevel=STUDY', 'StudyInstanceUID', 'PatientID=QR*'])).map((r) => r.StudyInstanceUID).sort();
    expect(await uids('B_CT1')).toEqual([ctB.studyUid]);
    expect(await uids('A_CT1')).not.toContain(ctB.studyUid);
    await p.db.query('UPDATE device SET served_hospital_ids = $2::int[] WHERE ae_title = $1', ['A_DR1', [devices.B_CT1.hospitalId]]);
    expect(await uids('A_DR1')).toEqual([ctA.studyUid, mrA.studyUid, ctB.studyUid].sort());
  });

  test('C-MOVE to a registered storescp: every instance, byte for byte, with pending responses', async () => {
    const dir = await storescp('A_STORE1');
    const run = await dcmtk('movescu', ['-d', '-S', '-aet', 'A_CT1', '-aec', AE, '-aem', 'A_STORE1', '-k', 'QueryRetrieveLevel=STUDY', '-k', `StudyInstanceUID=${ctA.studyUid}`, '127.0.0.1', port()]);
    const final = run.output.slice(run.output.lastIndexOf('Received Final Move Response'));
    expect({ code: run.code, final: /DIMSE Status\s*:\s*0x0000: Success/.test(final) ? '' : run.output }).toEqual({ code: 0, final: '' });
    const got = received(dir);
    const stored = await storedFiles(ctA.studyUid, orgs.HOSP_A);
    // A pending response after each sub-operation but the last, with the counts so far (as dcmtk read them).
    const pending = run.output
      .split('C-MOVE RSP')
      .slice(1)
      .filter((part) => /DIMSE Status\s*:\s*0xff00/i.test(part))
      .map((part) => [Number(/Remaining Suboperations\s*:\s*(\d+)/.exec(part)?.[1]), Number(/Completed Suboperations\s*:\s*(\d+)/.exec(part)?.[1])]);
    expect(pending).toEqual([...Array(stored.size - 1).keys()].map((k) => [stored.size - 1 - k, k + 1]));
    expect([...got.keys()].sort()).toEqual([...stored.keys()].sort());
    for (const [uid, bytes] of stored) expect(datasetOf(got.get(uid)!).equals(datasetOf(bytes))).toBe(true);
  });

  test('C-MOVE to a destination that takes implicit VR only: the instances re-encoded', async () => {
    const dir = await storescp('A_STORE2', ['+xi']);
    const run = await dcmtk('movescu', ['-S', '-aet', 'A_CT1', '-aec', AE, '-aem', 'A_STORE2', '-k', 'QueryRetrieveLevel=SERIES', '-k', `SeriesInstanceUID=${mrA.seriesUid}`, '127.0.0.1', port()]);
    expect({ code: run.code, output: run.code ? run.output : '' }).toEqual({ code: 0, output: '' });
    const got = received(dir);
    expect(got.size).toBe(2);
    for (const [uid] of got) {
      const file = readNatural(path.join(dir, fs.readdirSync(dir).find((f) => readNatural(path.join(dir, f))._meta.MediaStorageSOPInstanceUID === uid)!));
      expect(file._meta.TransferSyntaxUID).toBe('1.2.840.10008.1.2');
      expect(file.SOPInstanceUID).toBe(uid);
      expect(file.PatientID).toBe('QR200');
    }
  });

  test('C-MOVE refused for an unknown destination and for a device of another hospital', async () => {
    const unknown = await dcmtk('movescu', ['-S', '-aet', 'A_CT1', '-aec', AE, '-aem', 'NOWHERE', '-k', 'QueryRetrieveLevel=STUDY', '-k', `StudyInstanceUID=${ctA.studyUid}`, '127.0.0.1', port()]);
    expect(unknown.output).toMatch(/Refused: MoveDestinationUnknown/);
    const foreign = await dcmtk('movescu', ['-S', '-aet', 'B_CT1', '-aec', AE, '-aem', 'A_STORE1', '-k', 'QueryRetrieveLevel=STUDY', '-k', `StudyInstanceUID=${ctB.studyUid}`, '127.0.0.1', port()]);
    expect(foreign.output).toMatch(/Refused: MoveDestinationUnknown/);
  });

  test('a compressed instance the destination cannot take counts as failed; the rest of the study goes', async () => {
    const dir = await storescp('A_STORE3', ['+xi']);
    // The archive keeps what modalities send: one instance stored as lossy JPEG, which is never decoded here (its bytes are not read).
    const [first] = ctA.instances;
    await p.db.query("UPDATE dicom_instance SET transfer_syntax_uid = '1.2.840.10008.1.2.4.50' WHERE sop_instance_uid = $1", [first.sopInstanceUid]);
    try {
      const run = await dcmtk('movescu', ['-d', '-S', '-aet', 'A_CT1', '-aec', AE, '-aem', 'A_STORE3', '-k', 'QueryRetrieveLevel=STUDY', '-k', `StudyInstanceUID=${ctA.studyUid}`, '127.0.0.1', port()]);
      const final = run.output.slice(run.output.lastIndexOf('C-MOVE RSP'));
      expect(final).toMatch(/Completed Suboperations\s*:\s*2/);
      expect(final).toMatch(/Failed Suboperations\s*:\s*1/);
      expect(final).toMatch(/Warning: Sub-operations complete/i);
      expect(received(dir).size).toBe(2);
    } finally {
      await p.db.query("UPDATE dicom_instance SET transfer_syntax_uid = '1.2.840.10008.1.2.1' WHERE sop_instance_uid = $1", [first.sopInstanceUid]);
    }
  });

  test('an RLE instance goes decoded to a destination that takes only uncompressed data, its pixels unchanged', async () => {
    const series = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.74', patientId: 'QR400', patientName: '赵六', patientNameEn: 'Zhao^Liu', studyDate: '20261112', count: 1 });
    const [native] = series.instances;
    const plain = path.join(work, 'rle-in.dcm');
    const packed = path.join(work, 'rle-out.dcm');
    fs.writeFileSync(plain, native.bytes);
    const compress = await dcmtk('dcmcrle', [plain, packed]);
    expect({ code: compress.code, output: compress.code ? compress.output : '' }).toEqual({ code: 0, output: '' });
    expect(readNatural(packed)._meta.TransferSyntaxUID).toBe('1.2.840.10008.1.2.5');
    await p.app.archive.storeBuffer(fs.readFileSync(packed), { hospitalId: orgs.HOSP_A, deviceId: devices.A_CT1.id, sender: 'A_CT1' });
    // storescp's default: the uncompressed syntaxes only (implicit VR with +xi).
    for (const [ae, extra, ts] of [
      ['A_STORE4', [], '1.2.840.10008.1.2.1'],
      ['A_STORE5', ['+xi'], '1.2.840.10008.1.2'],
    ] as const) {
      const dir = await storescp(ae, [...extra]);
      const run = await dcmtk('movescu', ['-S', '-aet', 'A_CT1', '-aec', AE, '-aem', ae, '-k', 'QueryRetrieveLevel=STUDY', '-k', `StudyInstanceUID=${series.studyUid}`, '127.0.0.1', port()]);
      expect({ code: run.code, output: run.code ? run.output : '' }).toEqual({ code: 0, output: '' });
      const got = received(dir);
      expect([...got.keys()]).toEqual([native.sopInstanceUid]);
      const file = path.join(dir, fs.readdirSync(dir)[0]);
      const sent = readNatural(file);
      const original = readNatural(plain);
      expect(sent._meta.TransferSyntaxUID).toBe(ts);
      expect([sent.Rows, sent.Columns, sent.PatientID]).toEqual([original.Rows, original.Columns, 'QR400']);
      expect(Buffer.from(sent.PixelData[0]).equals(Buffer.from(original.PixelData[0]))).toBe(true);
    }
  });

  test('C-GET: the study on the same association, byte for byte', async () => {
    const dir = fs.mkdtempSync(path.join(work, 'get-'));
    const run = await dcmtk('getscu', ['-S', '-aet', 'A_CT1', '-aec', AE, '-od', dir, '-k', 'QueryRetrieveLevel=STUDY', '-k', `StudyInstanceUID=${ctA.studyUid}`, '127.0.0.1', port()]);
    expect({ code: run.code, output: run.code ? run.output : '' }).toEqual({ code: 0, output: '' });
    const got = received(dir);
    const stored = await storedFiles(ctA.studyUid, orgs.HOSP_A);
    expect([...got.keys()].sort()).toEqual([...stored.keys()].sort());
    for (const [uid, bytes] of stored) expect(datasetOf(got.get(uid)!).equals(datasetOf(bytes))).toBe(true);
  });
});
