/**
 * The DICOM listener against real dcmtk peers (echoscu, storescu, findscu) on each database:
 * - association: echo from a registered device; an unknown calling AE, a wrong called
 *   AE and a device calling from another address are rejected, each attempt logged
 *   with its reason; a device added through /deviceList is accepted at once
 * - C-STORE: a synthetic CT series carrying the accession number of an exam registered
 *   through the API is indexed and matched (image status, counts), each stored file's
 *   dataset is byte-for-byte the one sent; the same files sent again are stored once;
 *   a dataset the archive cannot use is refused with a failure status and the next
 *   instance on the same association is stored; a truncated dataset (which dcmtk will
 *   not send, so dcmjs-dimse's client plays the broken sender) and a dataset whose SOP
 *   Instance UID is not the announced one are refused; a transfer cut off mid-instance
 *   leaves nothing behind
 * - Modality Worklist: findscu -W finds the registered exam with its Chinese name
 *   (ISO_IR 192) and the PS3.4 K.6 keys, filters by modality, date range, name
 *   wildcards (Chinese or pinyin, any case), patient id and accession number, returns
 *   only the keys asked for, and another hospital's device sees none of it; requested
 *   Type 2 keys without a value come back empty; start date and time ranges (combined)
 *   and the performing physician (pinyin or Chinese) match; a step scheduled on no
 *   station is answered with the asking modality's AE title; a device configured for
 *   GB18030 or ISO_IR 100 gets its answers in that character set; a walk-in waiting
 *   for check-in is found once checked in
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as dcmjs from 'dcmjs';
import { Client, Dataset, constants, requests } from 'dcmjs-dimse';
import { syntheticSeries, type SyntheticInstance } from '../../mock/dicom';
import { startDicomListener, type DicomListener } from '../../server/dicom/listener';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { dbKinds } from '../support/db';
import { examImages, registerExam } from '../support/exam';

const AE = 'RCLOUD';

interface Run {
  code: number;
  output: string;
}

/** Runs a dcmtk tool (no shell); resolves with its exit code and everything it printed. */
function dcmtk(tool: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(tool, args, { encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** The dataset of a Part-10 file: what follows the meta group, whose length (0002,0000) is its first element. */
function datasetOf(file: Buffer): Buffer {
  expect(file.toString('latin1', 128, 132)).toBe('DICM');
  return file.subarray(144 + file.readUInt32LE(140));
}

function readNatural(file: string): Record<string, any> {
  const bytes = fs.readFileSync(file);
  const parsed = dcmjs.data.DicomMessage.readFile(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return dcmjs.data.DicomMetaDictionary.naturalizeDataset(parsed.dict);
}

/** YYYYMMDD in the region's time zone, `days` from today. */
function regionDay(days = 0): string {
  const d = new Date(Date.now() + days * 86400_000);
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit' }).format(d).replace(/-/g, '');
}

/**
 * Sends one dataset as raw bytes with dcmjs-dimse's client (dcmtk re-encodes what it
 * sends and refuses broken files): resolves with the C-STORE status, or undefined when
 * no response came.
 */
function sendRaw(port: number, callingAe: string, instance: SyntheticInstance, dataset: Buffer, affectedSopInstanceUid = instance.sopInstanceUid): Promise<number | undefined> {
  return new Promise((resolve) => {
    const elements = { SOPClassUID: instance.sopClassUid, SOPInstanceUID: instance.sopInstanceUid };
    const raw = new Dataset(elements, constants.TransferSyntax.ExplicitVRLittleEndian);
    // The bytes go on the wire as they are, whatever dcmjs would have written.
    (raw as unknown as { getDenaturalizedDataset(): Buffer }).getDenaturalizedDataset = () => dataset;
    const request = new requests.CStoreRequest(raw);
    request.setAffectedSopInstanceUid(affectedSopInstanceUid);
    let status: number | undefined;
    request.on('response', (response) => (status = response.getStatus()));
    const client = new Client();
    client.addRequest(request);
    client.on('networkError', () => resolve(status));
    client.on('closed', () => resolve(status));
    client.send('127.0.0.1', port, callingAe, AE);
  });
}

describe.each(dbKinds)('DICOM listener on %s', (kind) => {
  let p: TestPlatform;
  let listener: DicomListener;
  let admin: string;
  let work: string;
  let orgs: Record<string, number>;
  const devices: Record<string, { id: number; hospitalId: number }> = {};
  const items: Record<string, { id: number; organId: number }> = {};
  /** The exam the worklist tests look for, and the one the storage tests send images for. */
  let listed: Record<string, any>;
  let imaged: Record<string, any>;

  const port = () => String(listener.port);
  const association = async (callingAe: string) =>
    (
      await p.db.query<{ accepted: boolean; reason: string | null; device_id: number | null; hospital_id: number | null; called_ae: string; peer_address: string }>(
        'SELECT accepted, reason, device_id, hospital_id, called_ae, peer_address FROM dicom_association_log WHERE calling_ae = $1 ORDER BY id DESC LIMIT 1',
        [callingAe],
      )
    ).rows[0];
  const register = (over: Record<string, unknown>) =>
    registerExam(p.app, admin, {
      hospitalId: orgs.HOSP_A,
      sex: 2,
      age: 45,
      ageUnit: 4,
      patientSource: 1,
      outPatientNo: 'MZ0001',
      idNo: '11010519491231002X',
      hisDoctorName: '李医生',
      deviceId: devices.A_CT1.id,
      items: [{ itemId: items.CT002.id, organId: items.CT002.organId }],
      ...over,
    });
  const writeSeries = (name: string, instances: SyntheticInstance[]) => {
    const dir = path.join(work, name);
    fs.mkdirSync(dir, { recursive: true });
    return instances.map((instance, i) => {
      const file = path.join(dir, `${String(i + 1).padStart(4, '0')}.dcm`);
      fs.writeFileSync(file, instance.bytes);
      return file;
    });
  };
  const storescu = (callingAe: string, files: string[]) => dcmtk('storescu', ['-v', '-aet', callingAe, '-aec', AE, '127.0.0.1', port(), ...files]);
  const instancesOf = async (studyUid: string) =>
    (
      await p.db.query<{ sop_instance_uid: string; file_key: string; hospital_id: number; transfer_syntax_uid: string }>(
        `SELECT i.sop_instance_uid, i.file_key, i.hospital_id, i.transfer_syntax_uid FROM dicom_instance i JOIN dicom_study s ON s.id = i.study_id
          WHERE s.study_uid = $1 ORDER BY i.instance_number`,
        [studyUid],
      )
    ).rows;

  /** findscu -W with the given keys: the files of the response identifiers. */
  const worklistFiles = async (callingAe: string, keys: string[]) => {
    const out = fs.mkdtempSync(path.join(work, 'find-'));
    const run = await dcmtk('findscu', ['-W', '-aet', callingAe, '-aec', AE, '-X', '-od', out, ...keys.flatMap((k) => ['-k', k]), '127.0.0.1', port()]);
    expect({ code: run.code, output: run.code ? run.output : '' }).toEqual({ code: 0, output: '' });
    return fs.readdirSync(out).sort().map((f) => path.join(out, f));
  };
  /** findscu -W with the given keys: the response identifiers, naturalized. */
  const worklist = async (callingAe: string, keys: string[]) => (await worklistFiles(callingAe, keys)).map(readNatural);
  const STEP = 'ScheduledProcedureStepSequence[0]';
  const byAccession = (exam: Record<string, any>) => `AccessionNumber=${exam.examCode}`;

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    listener = await startDicomListener(p.app, { aeTitle: AE, port: 0, host: '127.0.0.1' });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-dicom-'));
    admin = await login(p.app, '13800000001');
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    for (const d of (await p.db.query<{ ae: string; id: number; hospital_id: number }>('SELECT ae_title AS ae, id, hospital_id FROM device')).rows) {
      devices[d.ae] = { id: d.id, hospitalId: d.hospital_id };
    }
    const itemRows = await p.db.query<{ code: string; id: number; organ_id: number }>(
      'SELECT i.code, i.id, i.organ_id FROM exam_item i JOIN org o ON o.id = i.hospital_id WHERE o.code = $1',
      ['HOSP_A'],
    );
    for (const r of itemRows.rows) items[r.code] = { id: r.id, organId: r.organ_id };
    listed = await register({ hisPatientName: '诸葛青云' });
    imaged = await register({ hisPatientName: '欧阳青松', outPatientNo: 'MZ0002' });
  });
  afterAll(async () => {
    await listener?.close();
    await p?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  test('echo from a registered device is accepted and logged with its device and hospital', async () => {
    const run = await dcmtk('echoscu', ['-aet', 'A_CT1', '-aec', AE, '127.0.0.1', port()]);
    expect(run).toEqual({ code: 0, output: '' });
    expect(await association('A_CT1')).toEqual({
      accepted: true,
      reason: null,
      device_id: devices.A_CT1.id,
      hospital_id: orgs.HOSP_A,
      called_ae: AE,
      peer_address: '127.0.0.1',
    });
  });

  test('unknown calling AE, wrong called AE and a device calling from elsewhere are rejected and logged', async () => {
    const unknown = await dcmtk('echoscu', ['-aet', 'NOBODY', '-aec', AE, '127.0.0.1', port()]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.output).toMatch(/Association Rejected/);
    expect(unknown.output).toMatch(/Calling AE Title Not Recognized/i);
    expect(await association('NOBODY')).toMatchObject({ accepted: false, reason: 'callingAeNotRecognized', device_id: null, hospital_id: null });

    const wrongCalled = await dcmtk('echoscu', ['-aet', 'A_DR1', '-aec', 'NOT_US', '127.0.0.1', port()]);
    expect(wrongCalled.code).not.toBe(0);
    expect(wrongCalled.output).toMatch(/Called AE Title Not Recognized/i);
    expect(await association('A_DR1')).toMatchObject({ accepted: false, reason: 'calledAeNotRecognized', called_ae: 'NOT_US', device_id: devices.A_DR1.id });

    // A device registered in /deviceList from another address: its AE title alone is not enough.
    const far = await p.app.inject({
      method: 'POST',
      url: '/api/ris/v1/device/save',
      headers: authed(admin),
      payload: { hospitalId: orgs.HOSP_A, name: '远程 CT', modality: 'CT', ip: '10.20.30.40', port: 104, aeTitle: 'A_FAR1' },
    });
    expect(far.json().status).toBe('0');
    const spoofed = await dcmtk('echoscu', ['-aet', 'A_FAR1', '-aec', AE, '127.0.0.1', port()]);
    expect(spoofed.code).not.toBe(0);
    expect(spoofed.output).toMatch(/Association Rejected/);
    expect(await association('A_FAR1')).toMatchObject({ accepted: false, reason: 'addressMismatch', device_id: far.json().data.id, hospital_id: orgs.HOSP_A });
  });

  test('a device added in /deviceList is accepted without a restart', async () => {
    const before = await dcmtk('echoscu', ['-aet', 'A_NEW1', '-aec', AE, '127.0.0.1', port()]);
    expect(before.code).not.toBe(0);
    const added = await p.app.inject({
      method: 'POST',
      url: '/api/ris/v1/device/save',
      headers: authed(admin),
      payload: { hospitalId: orgs.HOSP_A, name: '新 CT', modality: 'CT', ip: '127.0.0.1', port: 11399, aeTitle: 'A_NEW1' },
    });
    expect(added.json().status).toBe('0');
    expect(await dcmtk('echoscu', ['-aet', 'A_NEW1', '-aec', AE, '127.0.0.1', port()])).toEqual({ code: 0, output: '' });
    expect(await association('A_NEW1')).toMatchObject({ accepted: true, device_id: added.json().data.id });
  });

  test('worklist: the registered exam with its Chinese name and the K.6 keys', async () => {
    const files = await worklistFiles('A_CT1', [
      'SpecificCharacterSet=ISO_IR 192',
      byAccession(listed),
      'PatientName',
      'PatientID',
      'PatientBirthDate',
      'PatientSex',
      'StudyInstanceUID',
      'RequestedProcedureID',
      'RequestedProcedureDescription',
      'ReferringPhysicianName',
      `${STEP}.Modality`,
      `${STEP}.ScheduledStationAETitle`,
      `${STEP}.ScheduledProcedureStepStartDate`,
      `${STEP}.ScheduledProcedureStepStartTime`,
      `${STEP}.ScheduledProcedureStepID`,
      `${STEP}.ScheduledProcedureStepDescription`,
      `${STEP}.ScheduledPerformingPhysicianName`,
    ]);
    expect(files).toHaveLength(1);
    const r = readNatural(files[0]);
    expect(r).toMatchObject({
      SpecificCharacterSet: 'ISO_IR 192',
      PatientName: [{ Alphabetic: 'Zhuge^Qingyun', Ideographic: '诸葛青云' }],
      PatientID: listed.patientId,
      PatientBirthDate: '19491231',
      PatientSex: 'F',
      AccessionNumber: listed.examCode,
      StudyInstanceUID: listed.studyUID,
      RequestedProcedureID: listed.examCode,
      RequestedProcedureDescription: listed.itemNames,
      ReferringPhysicianName: [{ Alphabetic: 'Li^Yisheng', Ideographic: '李医生' }],
    });
    expect(r.ScheduledProcedureStepSequence).toHaveLength(1);
    expect(r.ScheduledProcedureStepSequence[0]).toMatchObject({
      Modality: 'CT',
      ScheduledStationAETitle: 'A_CT1',
      ScheduledProcedureStepStartDate: regionDay(),
      ScheduledProcedureStepID: listed.examCode,
    });
    expect(r.ScheduledProcedureStepSequence[0].ScheduledProcedureStepStartTime).toMatch(/^\d{6}$/);
    // dcmjs decodes text inside sequences as Latin-1 whatever the character set; dcmtk reads it right.
    const dump = await dcmtk('dcmdump', [files[0]]);
    expect(dump.output).toContain(`(0040,0007) LO [${listed.itemNames}]`);
  });

  test('worklist: only the keys asked for; an empty sequence asks for the whole step', async () => {
    const [r] = await worklist('A_CT1', [byAccession(listed), 'PatientName', 'ScheduledProcedureStepSequence']);
    expect(Object.keys(r).filter((k) => !k.startsWith('_')).sort()).toEqual(['AccessionNumber', 'PatientName', 'ScheduledProcedureStepSequence', 'SpecificCharacterSet']);
    expect(Object.keys(r.ScheduledProcedureStepSequence[0]).filter((k) => !k.startsWith('_'))).toEqual(
      expect.arrayContaining(['Modality', 'ScheduledStationAETitle', 'ScheduledProcedureStepStartDate', 'ScheduledProcedureStepID']),
    );
  });

  test('worklist filters: modality, date range, name wildcards, patient id, accession', async () => {
    const accessions = async (keys: string[]) => (await worklist('A_CT1', ['SpecificCharacterSet=ISO_IR 192', 'AccessionNumber', ...keys])).map((r) => r.AccessionNumber);
    const mine = listed.examCode;
    const today = regionDay();
    const yesterday = regionDay(-1);
    const tomorrow = regionDay(1);
    const cases: Array<[string[], boolean]> = [
      [[`AccessionNumber=${mine}`, `${STEP}.Modality=CT`], true],
      [[`AccessionNumber=${mine}`, `${STEP}.Modality=MR`], false],
      [[`AccessionNumber=${mine}`, `${STEP}.ScheduledStationAETitle=A_CT1`], true],
      [[`AccessionNumber=${mine}`, `${STEP}.ScheduledStationAETitle=A_DR1`], false],
      [[`AccessionNumber=${mine}`, `${STEP}.ScheduledProcedureStepStartDate=${today}`], true],
      [[`AccessionNumber=${mine}`, `${STEP}.ScheduledProcedureStepStartDate=${yesterday}-${tomorrow}`], true],
      [[`AccessionNumber=${mine}`, `${STEP}.ScheduledProcedureStepStartDate=${today}-`], true],
      [[`AccessionNumber=${mine}`, `${STEP}.ScheduledProcedureStepStartDate=-${yesterday}`], false],
      [[`AccessionNumber=${mine}`, `${STEP}.ScheduledProcedureStepStartDate=${tomorrow}-`], false],
      [['PatientName=诸葛*'], true],
      [['PatientName=诸葛??'], true],
      [['PatientName=zhuge^qing*'], true],
      [['PatientName=ZHUGE*'], true],
      [[`AccessionNumber=${mine}`, 'PatientName=欧阳*'], false],
      [[`PatientID=${listed.patientId}`], true],
      [[`AccessionNumber=${mine}`, `PatientID=${imaged.patientId}`], false],
      [[`AccessionNumber=${mine.slice(0, -2)}*`], true],
    ];
    for (const [keys, expected] of cases) {
      const got = await accessions(keys);
      expect({ keys, found: got.includes(mine) }).toEqual({ keys, found: expected });
      // Name and id queries match nobody else's exam.
      if (expected && !keys.some((k) => k.startsWith('AccessionNumber='))) expect({ keys, got }).toEqual({ keys, got: [mine] });
    }
  });

  test('worklist K.6: requested Type 2 keys without a value come back, empty', async () => {
    const files = await worklistFiles('A_CT1', [
      byAccession(listed),
      'AdmissionID',
      'CurrentPatientLocation',
      'PatientWeight',
      `${STEP}.ScheduledStationName`,
      `${STEP}.ScheduledProcedureStepLocation`,
      `${STEP}.Modality`,
    ]);
    expect(files).toHaveLength(1);
    const dump = (await dcmtk('dcmdump', [files[0]])).output;
    for (const tag of ['(0038,0010)', '(0038,0300)', '(0010,1030)', '(0040,0010)', '(0040,0011)']) expect(dump).toContain(tag);
    expect(dump).toContain('(0008,0060) CS [CT]');
  });

  test('worklist K.6: start date and time ranges, performing physician, station AE title never empty', async () => {
    await p.db.query("UPDATE exam SET performing_physician = '王技师' WHERE id = $1", [listed.id]);
    const [step] = (await worklist('A_CT1', [byAccession(listed), `${STEP}.ScheduledProcedureStepStartTime`])).map((r) => r.ScheduledProcedureStepSequence[0]);
    const time: string = step.ScheduledProcedureStepStartTime;
    const minute = time.slice(0, 4);
    // The minutes around the scheduled one (the step is never scheduled at midnight in these tests' data).
    const shifted = (minutes: number) => new Date(Date.UTC(2000, 0, 1, Number(time.slice(0, 2)), Number(time.slice(2, 4)) + minutes)).toISOString().slice(11, 16).replace(':', '');
    const before = shifted(-1);
    const after = shifted(1);
    const found = async (keys: string[]) => (await worklist('A_CT1', ['AccessionNumber', byAccession(listed), ...keys])).length === 1;
    const today = regionDay();
    expect(await found([`${STEP}.ScheduledProcedureStepStartTime=${minute}-${minute}`])).toBe(true);
    expect(await found([`${STEP}.ScheduledProcedureStepStartTime=-${before}`])).toBe(false);
    expect(await found([`${STEP}.ScheduledProcedureStepStartDate=${today}`, `${STEP}.ScheduledProcedureStepStartTime=${minute}-`])).toBe(true);
    expect(await found([`${STEP}.ScheduledProcedureStepStartDate=${today}`, `${STEP}.ScheduledProcedureStepStartTime=-${before}`])).toBe(false);
    // Date and time together are one range (yesterday a minute after the step's time to
    // today at it), not a time of day on each date (a minute after to the minute: none).
    expect(await found([`${STEP}.ScheduledProcedureStepStartDate=${regionDay(-1)}-${today}`, `${STEP}.ScheduledProcedureStepStartTime=${after}-${minute}`])).toBe(true);
    expect(await found([`${STEP}.ScheduledPerformingPhysicianName=wang*`])).toBe(true);
    expect(await found([`${STEP}.ScheduledPerformingPhysicianName=Zhao*`])).toBe(false);
    expect(await found(['SpecificCharacterSet=ISO_IR 192', `${STEP}.ScheduledPerformingPhysicianName=王*`])).toBe(true);

    // An exam scheduled on no device: answered with the asking modality's AE title, which matches it.
    const unscheduled = await register({ hisPatientName: '东方未明', outPatientNo: 'MZ0003', deviceId: undefined });
    const [r] = await worklist('A_DR1', [byAccession(unscheduled), `${STEP}.ScheduledStationAETitle=A_DR1`]);
    expect(r.ScheduledProcedureStepSequence[0].ScheduledStationAETitle).toBe('A_DR1');
  });

  test("worklist answers in the device's character set: GB18030, or Latin-1 with the pinyin only", async () => {
    const iconv = (await import('iconv-lite')).default;
    const answer = async (ae: string) => (await worklistFiles(ae, [byAccession(listed), 'PatientName']))[0];
    try {
      await p.db.query("UPDATE device SET default_charset = 'GB18030' WHERE ae_title = 'A_CT1'");
      const gbFile = await answer('A_CT1');
      const gb = fs.readFileSync(gbFile);
      expect(gb.includes(Buffer.from('GB18030'))).toBe(true);
      expect(gb.includes(iconv.encode('Zhuge^Qingyun=诸葛青云', 'gb18030'))).toBe(true);
      expect(gb.includes(Buffer.from('诸葛青云'))).toBe(false);
      // dcmtk reads it back as the same name.
      expect((await dcmtk('dcmdump', ['+U8', gbFile])).output).toContain('Zhuge^Qingyun=诸葛青云');

      await p.db.query("UPDATE device SET default_charset = 'ISO_IR 100' WHERE ae_title = 'A_CT1'");
      const latin = fs.readFileSync(await answer('A_CT1'));
      expect(latin.includes(Buffer.from('ISO_IR 100'))).toBe(true);
      expect(latin.includes(Buffer.from('Zhuge^Qingyun'))).toBe(true);
      expect(latin.includes(Buffer.from('诸葛青云'))).toBe(false);
    } finally {
      await p.db.query("UPDATE device SET default_charset = NULL WHERE ae_title = 'A_CT1'");
    }
  });

  test("worklist: another hospital's device sees none of hospital A's steps", async () => {
    // Exam codes are unique per hospital: the central hospital may have its own exam with
    // the same code, never hospital A's (told apart by the pre-assigned study UID).
    const sameCode = await worklist('C_CT1', [byAccession(listed), 'StudyInstanceUID']);
    expect(sameCode.map((r) => r.StudyInstanceUID)).not.toContain(listed.studyInstanceUid);
    expect(await worklist('B_CT1', ['PatientName=诸葛*', 'AccessionNumber'])).toEqual([]);
    // Its own hospital's open steps, and only those.
    const central = await worklist('C_CT1', ['AccessionNumber', 'PatientID']);
    const codes = central.map((r) => r.AccessionNumber);
    const { rows } = await p.db.query<{ accession_number: string }>('SELECT accession_number FROM worklist_steps WHERE hospital_id = $1', [orgs.CENTRAL]);
    expect(codes.sort()).toEqual(rows.map((r) => r.accession_number).sort());
  });

  test('worklist: a walk-in that waits for check-in is found once checked in (到检)', async () => {
    const setting = async (on: boolean) => {
      await p.db.query('UPDATE org SET check_in_on_registration = $2 WHERE id = $1', [orgs.HOSP_A, on]);
    };
    await setting(false);
    let walkIn: Record<string, any>;
    try {
      walkIn = await register({ hisPatientName: '司马到检', outPatientNo: 'MZ0003' });
    } finally {
      await setting(true);
    }
    const keys = ['SpecificCharacterSet=ISO_IR 192', 'PatientName', byAccession(walkIn), `${STEP}.ScheduledProcedureStepStartDate=${regionDay()}`];
    expect(await worklist('A_CT1', keys)).toEqual([]);
    const r = await p.app.inject({ method: 'POST', url: `/api/ris/v1/exam/checkin/${walkIn.id}`, headers: authed(admin) });
    expect(r.json().status).toBe('0');
    const found = await worklist('A_CT1', keys);
    expect(found.map((f) => [f.AccessionNumber, f.PatientName[0].Ideographic])).toEqual([[walkIn.examCode, '司马到检']]);
  });

  test('a malformed date range is refused with a failure status', async () => {
    const run = await dcmtk('findscu', ['-W', '-v', '-aet', 'A_CT1', '-aec', AE, '-k', `${STEP}.ScheduledProcedureStepStartDate=2026-11-20`, '127.0.0.1', port()]);
    expect(run.output).toMatch(/Received Final Find Response \(Failed: UnableToProcess\)/);
  });

  describe('C-STORE', () => {
    const series = () =>
      syntheticSeries({
        patientName: '欧阳青松',
        patientNameEn: 'Ouyang^Qingsong',
        patientId: imaged.patientId,
        // The registered patient, as the matching policy compares her: female, born on the
        // day her identity number says, examined today.
        sex: 'F',
        birthDate: '19491231',
        studyDate: regionDay(),
        accessionNumber: imaged.examCode,
        uidRoot: '1.2.826.0.1.3680043.10.1082.61',
        count: 8,
        rows: 128,
        columns: 128,
      });

    test('a CT series is indexed, matched to its exam and stored byte for byte', async () => {
      const ct = series();
      const files = writeSeries('ct', ct.instances);
      const run = await storescu('A_CT1', files);
      expect({ code: run.code, failed: /Failed|Error/i.test(run.output) }).toEqual({ code: 0, failed: false });

      const stored = await instancesOf(ct.studyUid);
      expect(stored.map((i) => i.sop_instance_uid)).toEqual(ct.instances.map((i) => i.sopInstanceUid));
      expect(new Set(stored.map((i) => i.hospital_id))).toEqual(new Set([orgs.HOSP_A]));
      for (const [n, instance] of ct.instances.entries()) {
        const file = fs.readFileSync(path.join(p.dataDir, 'files', stored[n].file_key));
        expect(datasetOf(file).equals(datasetOf(instance.bytes))).toBe(true);
        expect(stored[n].transfer_syntax_uid).toBe('1.2.840.10008.1.2.1');
      }
      const study = (await p.db.query<{ exam_id: number; source_ae: string; source_device_id: number }>('SELECT exam_id, source_ae, source_device_id FROM dicom_study WHERE study_uid = $1', [ct.studyUid])).rows[0];
      expect(study).toEqual({ exam_id: imaged.id, source_ae: 'A_CT1', source_device_id: devices.A_CT1.id });
      expect(await examImages(p.db, imaged.id)).toMatchObject({ image_status: 1, series_count: 1, instance_count: ct.instances.length });
    });

    test('the same files sent again are stored once', async () => {
      const ct = series();
      const files = writeSeries('ct-again', ct.instances);
      const run = await storescu('A_CT1', files);
      expect({ code: run.code, failed: /Failed|Error/i.test(run.output) }).toEqual({ code: 0, failed: false });
      expect(await instancesOf(ct.studyUid)).toHaveLength(ct.instances.length);
      const seriesDir = path.dirname(path.join(p.dataDir, 'files', (await instancesOf(ct.studyUid))[0].file_key));
      expect(fs.readdirSync(seriesDir)).toHaveLength(ct.instances.length);
      expect((await examImages(p.db, imaged.id)).instance_count).toBe(ct.instances.length);
    });

    test('a dataset the archive cannot use is refused; the next one on the association is stored', async () => {
      const [bad, good] = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.62', count: 2 }).instances;
      // No Series Instance UID: dcmtk sends it, the archive cannot file it.
      const parsed = dcmjs.data.DicomMessage.readFile(bad.bytes.buffer.slice(bad.bytes.byteOffset, bad.bytes.byteOffset + bad.bytes.length));
      delete parsed.dict['0020000E'];
      const [badFile, goodFile] = writeSeries('malformed', [{ ...bad, bytes: Buffer.from(parsed.write()) }, good]);
      // -nh: carry on after a refused instance (storescu stops at the first by default).
      const run = await dcmtk('storescu', ['-v', '-nh', '-aet', 'A_CT1', '-aec', AE, '127.0.0.1', port(), badFile, goodFile]);
      expect(run.output).toMatch(/Received Store Response \(Error: CannotUnderstand\)/);
      expect(run.output).toMatch(/Received Store Response \(Success\)/);
      const rows = await p.db.query<{ sop_instance_uid: string }>('SELECT sop_instance_uid FROM dicom_instance WHERE sop_instance_uid = ANY($1::text[])', [[bad.sopInstanceUid, good.sopInstanceUid]]);
      expect(rows.rows.map((r) => r.sop_instance_uid)).toEqual([good.sopInstanceUid]);
      expect(fs.readdirSync(path.join(p.dataDir, 'files', '.incoming'))).toEqual([]);
    });

    test('a truncated dataset and one that is not the announced instance are refused; the listener keeps serving', async () => {
      const [cut, mismatched, good] = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.63', count: 3 }).instances;
      const cutData = datasetOf(cut.bytes);
      expect(await sendRaw(listener.port, 'A_CT1', cut, cutData.subarray(0, cutData.length - 1000))).toBe(0xc000);
      expect(await sendRaw(listener.port, 'A_CT1', mismatched, datasetOf(mismatched.bytes), `${mismatched.sopInstanceUid}.9`)).toBe(0xc001);
      expect(await sendRaw(listener.port, 'A_CT1', good, datasetOf(good.bytes))).toBe(0);
      const rows = await p.db.query<{ sop_instance_uid: string }>('SELECT sop_instance_uid FROM dicom_instance WHERE sop_instance_uid LIKE $1', ['1.2.826.0.1.3680043.10.1082.63.%']);
      expect(rows.rows.map((r) => r.sop_instance_uid)).toEqual([good.sopInstanceUid]);
      expect(fs.readdirSync(path.join(p.dataDir, 'files', '.incoming'))).toEqual([]);
      // dcmtk still gets through afterwards.
      expect(await dcmtk('echoscu', ['-aet', 'A_CT1', '-aec', AE, '127.0.0.1', port()])).toEqual({ code: 0, output: '' });
    });

    test('a transfer cut off mid-instance leaves no file and no index row', async () => {
      const [big] = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.65', count: 1, rows: 1024, columns: 1024 }).instances;
      const [file] = writeSeries('cut-off', [big]);
      // A relay that drops both ends once half the instance has gone through.
      const relay = net.createServer((client) => {
        const upstream = net.connect(listener.port, '127.0.0.1');
        let forwarded = 0;
        client.on('data', (chunk) => {
          forwarded += chunk.length;
          if (forwarded > big.bytes.length / 2) {
            client.destroy();
            upstream.destroy();
          } else upstream.write(chunk);
        });
        upstream.on('data', (chunk) => client.write(chunk));
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
      await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
      const run = await dcmtk('storescu', ['-aet', 'A_CT1', '-aec', AE, '127.0.0.1', String((relay.address() as net.AddressInfo).port), file]);
      relay.close();
      expect(run.code).not.toBe(0);
      // The listener drops the partial file when it sees the connection close.
      const incoming = path.join(p.dataDir, 'files', '.incoming');
      for (let i = 0; i < 100 && fs.readdirSync(incoming).length; i++) await new Promise((r) => setTimeout(r, 100));
      expect(fs.readdirSync(incoming)).toEqual([]);
      expect((await p.db.query('SELECT 1 FROM dicom_instance WHERE sop_instance_uid = $1', [big.sopInstanceUid])).rowCount).toBe(0);
    });

    test('images from a hospital B device belong to hospital B and do not match hospital A exams', async () => {
      const b = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.64', count: 2, accessionNumber: imaged.examCode });
      const run = await storescu('B_CT1', writeSeries('hosp-b', b.instances));
      expect(run.code).toBe(0);
      const stored = await instancesOf(b.studyUid);
      expect(stored.map((i) => i.hospital_id)).toEqual([orgs.HOSP_B, orgs.HOSP_B]);
      // Hospital A's exam code sent from hospital B matches nothing of A's.
      const study = (await p.db.query('SELECT exam_id FROM dicom_study WHERE study_uid = $1', [b.studyUid])).rows[0];
      expect(study.exam_id).toBeNull();
    });
  });
});
