/**
 * The modality side beyond storage, with dcmjs-dimse's client and the raw SCU (dcmtk
 * has no MPPS or storage commitment SCU), on each database:
 * - MPPS: N-CREATE (IN PROGRESS) of a step naming the exam's accession number is
 *   logged on the exam; N-SET COMPLETED makes it examined (logged); a step cannot be
 *   set after it ended; DISCONTINUED is logged and leaves the exam registered; a step
 *   whose Patient ID disagrees, or from another hospital's device, touches no exam
 * - storage commitment: N-ACTION over stored and unknown instances answered with an
 *   N-EVENT-REPORT on the same association (committed and failed references, failure
 *   reason), and, when the requester has gone, on a new association to the device's
 *   registered address, proposing the SCP role
 */
import { Client, Dataset, Scp, Server, constants, requests, responses, type association } from 'dcmjs-dimse';
import { syntheticSeries } from '../../mock/dicom';
import { startDicomListener, type DicomListener } from '../../server/dicom/listener';
import { commandSet } from '../../server/dicom/pdu';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { login } from '../support/auth';
import { dbKinds } from '../support/db';
import { registerExam } from '../support/exam';
import { freePort } from './dcmtk';
import { EXPLICIT_LE, pData, RawScu } from './rawScu';

const AE = 'RCLOUD';
const MPPS = '1.2.840.10008.3.1.2.3.3';
const COMMITMENT = '1.2.840.10008.1.20.1';
const COMMITMENT_INSTANCE = '1.2.840.10008.1.20.1.1';

/** Sends requests on one association; resolves with each response's status and the N-EVENT-REPORTs received meanwhile. */
function associate(port: number, callingAe: string, list: requests.Request[], lingerMs = 0) {
  return new Promise<{ statuses: number[]; reports: Array<{ eventTypeId: number; dataset: Record<string, any> }> }>((resolve) => {
    const statuses: number[] = [];
    const reports: Array<{ eventTypeId: number; dataset: Record<string, any> }> = [];
    const client = new Client();
    for (const request of list) {
      request.on('response', (response: responses.Response) => statuses.push(response.getStatus()));
      client.addRequest(request);
    }
    client.on('nEventReportRequest', (request: requests.NEventReportRequest, callback: (r: responses.NEventReportResponse) => void) => {
      reports.push({ eventTypeId: request.getEventTypeId(), dataset: request.getDataset()?.getElements() ?? {} });
      const response = responses.NEventReportResponse.fromRequest(request);
      response.setStatus(0);
      callback(response);
    });
    client.on('networkError', () => resolve({ statuses, reports }));
    client.on('closed', () => resolve({ statuses, reports }));
    client.send('127.0.0.1', port, callingAe, AE, { associationLingerTimeout: lingerMs });
  });
}

function nCreate(uid: string, attrs: Record<string, unknown>): requests.NCreateRequest {
  const request = new requests.NCreateRequest(MPPS, uid);
  request.setDataset(new Dataset({ SpecificCharacterSet: 'ISO_IR 192', ...attrs }, constants.TransferSyntax.ExplicitVRLittleEndian));
  return request;
}

function nSet(uid: string, status: string): requests.NSetRequest {
  const request = new requests.NSetRequest(MPPS, uid);
  request.setDataset(new Dataset({ PerformedProcedureStepStatus: status, PerformedProcedureStepEndDate: '20261126', PerformedProcedureStepEndTime: '101500' }, constants.TransferSyntax.ExplicitVRLittleEndian));
  return request;
}

function nAction(transactionUid: string, refs: Array<{ sopClassUid: string; sopInstanceUid: string }>): requests.NActionRequest {
  const request = new requests.NActionRequest(COMMITMENT, COMMITMENT_INSTANCE, 1);
  request.setDataset(new Dataset(commitmentDataset(transactionUid, refs), constants.TransferSyntax.ExplicitVRLittleEndian));
  return request;
}

const commitmentDataset = (transactionUid: string, refs: Array<{ sopClassUid: string; sopInstanceUid: string }>) => ({
  TransactionUID: transactionUid,
  ReferencedSOPSequence: refs.map((r) => ({ ReferencedSOPClassUID: r.sopClassUid, ReferencedSOPInstanceUID: r.sopInstanceUid })),
});

describe.each(dbKinds)('DICOM MPPS and storage commitment on %s', (kind) => {
  let p: TestPlatform;
  let listener: DicomListener;
  let admin: string;
  let orgs: Record<string, number>;
  const devices: Record<string, { id: number; hospitalId: number }> = {};
  let item: { itemId: number; organId: number };

  const register = async (name: string) =>
    (await registerExam(p.app, admin, {
      hospitalId: orgs.HOSP_A,
      hisPatientName: name,
      sex: 1,
      age: 50,
      ageUnit: 4,
      patientSource: 1,
      outPatientNo: `MZ${Math.floor(Math.random() * 1e6)}`,
      deviceId: devices.A_CT1.id,
      items: [item],
    })) as { id: number; examCode: string; patientId: string };
  const examState = async (id: number) => (await p.db.query<{ exam_state: number; exam_time: Date | null }>('SELECT exam_state, exam_time FROM exam WHERE id = $1', [id])).rows[0];
  const logs = async (id: number) => (await p.db.query<{ action: string; user_name: string }>('SELECT action, user_name FROM exam_log WHERE exam_id = $1 ORDER BY id', [id])).rows;
  const step = (exam: { examCode: string; patientId: string }, over: Record<string, unknown> = {}) => ({
    PerformedProcedureStepStatus: 'IN PROGRESS',
    PatientID: exam.patientId,
    PerformedProcedureStepID: 'PPS1',
    PerformedProcedureStepStartDate: '20261126',
    PerformedProcedureStepStartTime: '100000',
    Modality: 'CT',
    ScheduledStepAttributesSequence: [{ AccessionNumber: exam.examCode, ScheduledProcedureStepID: '1' }],
    ...over,
  });

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    listener = await startDicomListener(p.app, { aeTitle: AE, port: 0, host: '127.0.0.1' });
    admin = await login(p.app, '13800000001');
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    for (const d of (await p.db.query<{ ae: string; id: number; hospital_id: number }>('SELECT ae_title AS ae, id, hospital_id FROM device')).rows) {
      devices[d.ae] = { id: d.id, hospitalId: d.hospital_id };
    }
    const { rows } = await p.db.query<{ id: number; organ_id: number }>(
      "SELECT i.id, i.organ_id FROM exam_item i JOIN org o ON o.id = i.hospital_id WHERE o.code = 'HOSP_A' AND i.code = 'CT002'",
    );
    item = { itemId: rows[0].id, organId: rows[0].organ_id };
    // The platform starts (migrations, demo seed) slowly on a busy machine: the hook may take longer than a test.
  }, 180_000);
  afterAll(async () => {
    await listener?.close();
    await p?.close();
  });

  test('MPPS: in progress is noted, completed makes the exam examined, an ended step takes no more changes', async () => {
    const exam = await register('钱多多');
    const uid = '1.2.826.0.1.3680043.10.1082.81.1';
    expect((await associate(listener.port, 'A_CT1', [nCreate(uid, step(exam))])).statuses).toEqual([0]);
    expect(await examState(exam.id)).toMatchObject({ exam_state: 1, exam_time: null });
    expect((await logs(exam.id)).map((l) => l.action)).toEqual(['registerExam', 'mppsInProgress']);

    expect((await associate(listener.port, 'A_CT1', [nSet(uid, 'COMPLETED')])).statuses).toEqual([0]);
    const after = await examState(exam.id);
    expect(after.exam_state).toBe(2);
    expect(after.exam_time).not.toBeNull();
    expect(await logs(exam.id)).toEqual([
      { action: 'registerExam', user_name: expect.any(String) },
      { action: 'mppsInProgress', user_name: 'A_CT1' },
      { action: 'mppsCompleted', user_name: 'A_CT1' },
    ]);
    // PS3.4 F.7.2.2: a step that ended may no longer be updated.
    expect((await associate(listener.port, 'A_CT1', [nSet(uid, 'DISCONTINUED')])).statuses).toEqual([0x0110]);
    // The same step created twice, and one that does not start IN PROGRESS, are refused.
    expect((await associate(listener.port, 'A_CT1', [nCreate(uid, step(exam))])).statuses).toEqual([0x0111]);
    expect((await associate(listener.port, 'A_CT1', [nCreate('1.2.826.0.1.3680043.10.1082.81.9', step(exam, { PerformedProcedureStepStatus: 'COMPLETED' }))])).statuses).toEqual([0x0106]);
    const { rows } = await p.db.query('SELECT status, exam_id FROM mpps WHERE sop_instance_uid = $1', [uid]);
    expect(rows).toEqual([{ status: 'COMPLETED', exam_id: exam.id }]);
  });

  test("MPPS: completed on an externally run hospital's exam sends its report up to write (the workflow's action on examined)", async () => {
    await p.db.query('UPDATE org SET business_mode = 2 WHERE id = $1', [orgs.HOSP_A]);
    try {
      const exam = (await registerExam(p.app, admin, {
        hospitalId: orgs.HOSP_A, hisPatientName: '孙一', sex: 1, age: 61, ageUnit: 4, patientSource: 1, outPatientNo: `MZ${Math.floor(Math.random() * 1e6)}`,
        deviceId: devices.A_CT1.id, items: [item], superiorHospitalId: orgs.CENTRAL,
      })) as { id: number; examCode: string; patientId: string };
      const uid = '1.2.826.0.1.3680043.10.1082.81.5';
      expect((await associate(listener.port, 'A_CT1', [nCreate(uid, step(exam))])).statuses).toEqual([0]);
      const before = (await p.db.query('SELECT sent_to_superior FROM exam WHERE id = $1', [exam.id])).rows[0];
      expect(before).toEqual({ sent_to_superior: false });
      expect((await associate(listener.port, 'A_CT1', [nSet(uid, 'COMPLETED')])).statuses).toEqual([0]);
      const { rows } = await p.db.query<{ exam_state: number; sent: boolean; superior: number; due: Date | null }>(
        'SELECT e.exam_state, r.sent_to_superior AS sent, r.superior_hospital_id AS superior, r.due_at AS due FROM exam e JOIN report r ON r.id = e.id WHERE e.id = $1',
        [exam.id],
      );
      expect(rows).toEqual([{ exam_state: 2, sent: true, superior: orgs.CENTRAL, due: expect.any(Date) }]);
      expect((await logs(exam.id)).map((l) => l.action)).toEqual(['registerExam', 'mppsInProgress', 'mppsCompleted', 'submitSuperiorWrite']);
    } finally {
      await p.db.query('UPDATE org SET business_mode = NULL WHERE id = $1', [orgs.HOSP_A]);
    }
  });

  test('MPPS: discontinued is noted and leaves the exam registered', async () => {
    const exam = await register('孙不二');
    const uid = '1.2.826.0.1.3680043.10.1082.81.2';
    const run = await associate(listener.port, 'A_CT1', [nCreate(uid, step(exam)), nSet(uid, 'DISCONTINUED')]);
    expect(run.statuses).toEqual([0, 0]);
    expect((await examState(exam.id)).exam_state).toBe(1);
    expect((await logs(exam.id)).map((l) => l.action)).toEqual(['registerExam', 'mppsInProgress', 'mppsDiscontinued']);
  });

  test("MPPS: a step whose patient disagrees, or from another hospital's device, touches no exam", async () => {
    const exam = await register('周伯通');
    const wrongPatient = '1.2.826.0.1.3680043.10.1082.81.3';
    const otherHospital = '1.2.826.0.1.3680043.10.1082.81.4';
    expect((await associate(listener.port, 'A_CT1', [nCreate(wrongPatient, step(exam, { PatientID: 'SOMEONE-ELSE' })), nSet(wrongPatient, 'COMPLETED')])).statuses).toEqual([0, 0]);
    expect((await associate(listener.port, 'B_CT1', [nCreate(otherHospital, step(exam)), nSet(otherHospital, 'COMPLETED')])).statuses).toEqual([0, 0]);
    expect((await examState(exam.id)).exam_state).toBe(1);
    expect((await logs(exam.id)).map((l) => l.action)).toEqual(['registerExam']);
    const { rows } = await p.db.query<{ exam_id: number | null }>('SELECT exam_id FROM mpps WHERE sop_instance_uid = ANY($1::text[])', [[wrongPatient, otherHospital]]);
    expect(rows).toEqual([{ exam_id: null }, { exam_id: null }]);
  });

  describe('storage commitment', () => {
    const series = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.82', patientId: 'SC100', count: 3 });
    const unknown = { sopClassUid: series.instances[0].sopClassUid, sopInstanceUid: '1.2.826.0.1.3680043.10.1082.82.404' };
    const refs = series.instances.map((i) => ({ sopClassUid: i.sopClassUid, sopInstanceUid: i.sopInstanceUid }));

    beforeAll(async () => {
      for (const instance of series.instances) await p.app.archive.storeBuffer(instance.bytes, { hospitalId: orgs.HOSP_A, deviceId: devices.A_CT1.id, sender: 'A_CT1' });
    });

    test('the report comes on the same association: committed and failed references', async () => {
      const run = await associate(listener.port, 'A_CT1', [nAction('1.2.826.0.1.3680043.10.1082.82.900', [...refs, unknown])], 2000);
      expect(run.statuses).toEqual([0]);
      expect(run.reports).toHaveLength(1);
      const [report] = run.reports;
      expect(report.eventTypeId).toBe(2);
      expect(report.dataset.TransactionUID).toBe('1.2.826.0.1.3680043.10.1082.82.900');
      expect(report.dataset.ReferencedSOPSequence.map((r: any) => r.ReferencedSOPInstanceUID)).toEqual(refs.map((r) => r.sopInstanceUid));
      expect(report.dataset.FailedSOPSequence).toMatchObject([{ ReferencedSOPClassUID: unknown.sopClassUid, ReferencedSOPInstanceUID: unknown.sopInstanceUid, FailureReason: 0x0112 }]);
    });

    test("when the requester has gone, the report goes on a new association to the device's address", async () => {
      const reports: Array<{ eventTypeId: number; dataset: Record<string, any>; calling: string }> = [];
      // Settled by the first report that arrives: the test waits for it, not for a time.
      let reported!: () => void;
      const firstReport = new Promise<void>((resolve) => (reported = resolve));
      let calling = '';
      class CommitmentScu extends Scp {
        override associationRequested(a: association.Association): void {
          calling = a.getCallingAeTitle().trim();
          for (const { id } of a.getPresentationContexts()) {
            const context = a.getPresentationContext(id);
            context.setResult(constants.PresentationContextResult.Accept, EXPLICIT_LE);
          }
          this.sendAssociationAccept();
        }
        override associationReleaseRequested(): void {
          this.sendAssociationReleaseResponse();
        }
        override nEventReportRequest(request: requests.NEventReportRequest, callback: (r: responses.NEventReportResponse) => void): void {
          reports.push({ eventTypeId: request.getEventTypeId(), dataset: request.getDataset()?.getElements() ?? {}, calling });
          reported();
          const response = responses.NEventReportResponse.fromRequest(request);
          response.setStatus(0);
          callback(response);
        }
      }
      const port = await freePort();
      const server = new Server(CommitmentScu);
      server.listen(port);
      await p.db.query('INSERT INTO device (hospital_id, name, modality, ip, port, ae_title) VALUES ($1, $2, $3, $4, $5, $6)', [orgs.HOSP_A, 'SC 工作站', 'OT', '127.0.0.1', port, 'A_COMMIT']);
      try {
        // The raw SCU takes the N-ACTION's answer and goes away without answering the report.
        const scu = await RawScu.open(listener.port, 'A_COMMIT', [{ id: 1, abstractSyntax: COMMITMENT, transferSyntaxes: [EXPLICIT_LE] }]);
        const command = commandSet([
          [0x0003, { uid: COMMITMENT }],
          [0x0100, { us: 0x0130 }],
          [0x0110, { us: 1 }],
          [0x0800, { us: 0 }],
          [0x1001, { uid: COMMITMENT_INSTANCE }],
          [0x1008, { us: 1 }],
        ]);
        const dataset = new Dataset(commitmentDataset('1.2.826.0.1.3680043.10.1082.82.901', refs), EXPLICIT_LE).getDenaturalizedDataset();
        await scu.write(pData([{ contextId: 1, command: true, last: true, value: command }, { contextId: 1, command: false, last: true, value: dataset }]));
        expect((await scu.nextCommand()).status).toBe(0);
        scu.abort();
        await firstReport;
        expect(reports).toHaveLength(1);
        expect(reports[0]).toMatchObject({ eventTypeId: 1, calling: AE, dataset: { TransactionUID: '1.2.826.0.1.3680043.10.1082.82.901' } });
        expect(reports[0].dataset.ReferencedSOPSequence).toHaveLength(3);
        expect(reports[0].dataset.FailedSOPSequence).toBeUndefined();
      } finally {
        server.close();
      }
    });
  });
});
