/**
 * The listener's own C-STORE receive path (server/dicom/pdu.ts, listener.ts, the
 * archive's Arrival), driven by a requester that writes the protocol by hand
 * (rawScu.ts), on each database:
 * - a command and a dataset cut into many values of odd sizes, several values in one
 *   PDU, the bytes written in small pieces: stored byte for byte, a large instance
 *   (its key taken while it arrives) and a small one alike
 * - several presentation contexts on one association: each instance is filed in the
 *   transfer syntax of its context; a C-ECHO in between is answered in turn; a
 *   C-STORE on a context that was not accepted aborts the association
 * - an association aborted mid-dataset, and one whose connection drops, leave no file
 *   (temp or placed) and no index row
 * - two associations at once, their writes interleaved: each instance stored; the same
 *   instance sent by both is stored once and both are told Success
 * - every storage transfer syntax the listener accepts: an encapsulated dataset filed
 *   as received, in the syntax of its context; one cut before its sequence delimiter
 *   refused with a failure status
 * - an instance larger than the part written synchronously (a large multi-frame),
 *   sent in values of 1 MB (the PDU size the listener announces) at once: it goes to
 *   disk through the queue, the socket paused while the disk is behind, byte for byte
 * - the PDU reader refuses a PDU longer than announced and an unknown PDU type
 */
import fs from 'node:fs';
import path from 'node:path';
import * as dcmjs from 'dcmjs';
import { syntheticSeries, type SyntheticInstance } from '../../mock/dicom';
import { startDicomListener, STATUS, type DicomListener } from '../../server/dicom/listener';
import { EXPLICIT_VR_LE, IMPLICIT_VR_LE, STORAGE_TRANSFER_SYNTAXES } from '../../server/dicom/negotiation';
import { PduReader, ProtocolError } from '../../server/dicom/pdu';
import { instanceKey } from '../../server/pacs/archive';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { dbKinds } from '../support/db';
import { echoRequest, EXPLICIT_LE, IMPLICIT_LE, pData, RawScu, storeRequest, VERIFICATION, type Pdv } from './rawScu';

const CT = '1.2.840.10008.5.1.4.1.1.2';
const MR = '1.2.840.10008.5.1.4.1.1.4';

/** The dataset of a Part-10 file: what follows the meta group. */
function datasetOf(file: Buffer): Buffer {
  return file.subarray(144 + file.readUInt32LE(140));
}

/** The same instance as a Part-10 file in implicit VR little endian. */
function implicit(instance: SyntheticInstance): Buffer {
  const bytes = instance.bytes;
  const parsed = dcmjs.data.DicomMessage.readFile(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  parsed.meta['00020010'].Value = [IMPLICIT_LE];
  return Buffer.from(parsed.write());
}

/**
 * The dataset of an explicit little endian instance with its native pixel data
 * replaced by encapsulated data (an empty offset table, one fragment, the sequence
 * delimiter): what a sender holding a compressed image sends. The fragment's bytes
 * need not be a real codestream: the archive files them as received. Without
 * `delimiter` the sequence is cut before its end.
 */
function encapsulated(instance: SyntheticInstance, fragment: Buffer, delimiter = true): Buffer {
  const dataset = datasetOf(instance.bytes);
  // (7FE0,0010) OW, the last element of a synthetic instance.
  const at = dataset.lastIndexOf(Buffer.from([0xe0, 0x7f, 0x10, 0x00, 0x4f, 0x57]));
  expect(at).toBeGreaterThan(0);
  const item = (group: number, element: number, value: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt16LE(group, 0);
    head.writeUInt16LE(element, 2);
    head.writeUInt32LE(value.length, 4);
    return Buffer.concat([head, value]);
  };
  const pixelData = Buffer.from([0xe0, 0x7f, 0x10, 0x00, 0x4f, 0x42, 0, 0, 0xff, 0xff, 0xff, 0xff]);
  return Buffer.concat([
    dataset.subarray(0, at),
    pixelData,
    item(0xfffe, 0xe000, Buffer.alloc(0)),
    item(0xfffe, 0xe000, fragment.length % 2 ? Buffer.concat([fragment, Buffer.alloc(1)]) : fragment),
    delimiter ? item(0xfffe, 0xe0dd, Buffer.alloc(0)) : Buffer.alloc(0),
  ]);
}

/** Cuts `bytes` into values of the given sizes, repeated, the last one flagged. */
function values(contextId: number, command: boolean, bytes: Buffer, sizes: number[]): Pdv[] {
  const out: Pdv[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length];
    out.push({ contextId, command, last: at + size >= bytes.length, value: bytes.subarray(at, at + size) });
    at += size;
  }
  return out;
}

/** Groups values into PDUs of `perPdu` values each. */
function pdus(pdvs: Pdv[], perPdu: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i < pdvs.length; i += perPdu) out.push(pData(pdvs.slice(i, i + perPdu)));
  return Buffer.concat(out);
}

/** A C-STORE in one value per PDU, as a tidy sender writes it. */
function store(contextId: number, messageId: number, instance: SyntheticInstance, file = instance.bytes): Buffer {
  return storeDataset(contextId, messageId, instance, datasetOf(file));
}

function storeDataset(contextId: number, messageId: number, instance: SyntheticInstance, dataset: Buffer): Buffer {
  return Buffer.concat([
    pData([{ contextId, command: true, last: true, value: storeRequest(messageId, instance.sopClassUid, instance.sopInstanceUid) }]),
    pData([{ contextId, command: false, last: true, value: dataset }]),
  ]);
}

describe.each(dbKinds)('C-STORE receive path on %s', (kind) => {
  let p: TestPlatform;
  let listener: DicomListener;
  let hospitalId: number;

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    listener = await startDicomListener(p.app, { aeTitle: 'RCLOUD', port: 0, host: '127.0.0.1' });
    hospitalId = (await p.db.query<{ hospital_id: number }>("SELECT hospital_id FROM device WHERE ae_title = 'A_CT1'")).rows[0].hospital_id;
  });
  afterAll(async () => {
    await listener?.close();
    await p?.close();
  });

  const incoming = () => fs.readdirSync(path.join(p.dataDir, 'files', '.incoming'));
  const stored = async (sopInstanceUid: string) =>
    (await p.db.query<{ file_key: string; transfer_syntax_uid: string; n: number }>(
      'SELECT min(file_key) AS file_key, min(transfer_syntax_uid) AS transfer_syntax_uid, count(*)::int AS n FROM dicom_instance WHERE sop_instance_uid = $1',
      [sopInstanceUid],
    )).rows[0];
  const fileOf = (key: string) => fs.readFileSync(path.join(p.dataDir, 'files', key));
  const ctContext = { id: 1, abstractSyntax: CT, transferSyntaxes: [EXPLICIT_LE] };
  /** Polls until `check` holds (a dropped transfer is cleaned up after the connection closes). */
  const eventually = async (check: () => boolean | Promise<boolean>) => {
    for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await check()).toBe(true);
  };

  test('values of odd sizes, several to a PDU, written in small pieces, are stored byte for byte', async () => {
    const [large] = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.91', rows: 256, columns: 256, count: 1 }).instances;
    const [small] = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.92', rows: 8, columns: 8, count: 1 }).instances;
    const scu = await RawScu.open(listener.port, 'A_CT1', [ctContext]);
    for (const [n, instance] of [large, small].entries()) {
      const command = storeRequest(n + 1, CT, instance.sopInstanceUid);
      const bytes = Buffer.concat([
        // The command in two values, each in a PDU of its own.
        pdus(values(1, true, command, [17]), 1),
        // The dataset in values of 1, 7, 4095 and 65539 bytes, three to a PDU.
        pdus(values(1, false, datasetOf(instance.bytes), [1, 7, 4095, 65539]), 3),
      ]);
      // Written in pieces that cut headers and values anywhere.
      await scu.write(bytes, [1, 2, 3, 5, 700, 6, 13, 4096, 9, 70_000, 3, 1, 20_000]);
      expect(await scu.nextCommand()).toMatchObject({ commandField: 0x8001, respondsTo: n + 1, status: 0 });
      const row = await stored(instance.sopInstanceUid);
      expect(row.n).toBe(1);
      expect(datasetOf(fileOf(row.file_key)).equals(datasetOf(instance.bytes))).toBe(true);
    }
    await scu.release();
    expect(incoming()).toEqual([]);
  });

  test('several presentation contexts: each instance filed in its own transfer syntax, an echo answered in between', async () => {
    const [ct] = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.93', rows: 128, columns: 128, count: 1 }).instances;
    const [mr] = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.94', modality: 'MR', rows: 200, columns: 200, count: 1 }).instances;
    const scu = await RawScu.open(listener.port, 'A_CT1', [
      ctContext,
      { id: 3, abstractSyntax: MR, transferSyntaxes: [IMPLICIT_LE] },
      { id: 5, abstractSyntax: VERIFICATION, transferSyntaxes: [IMPLICIT_LE] },
      { id: 7, abstractSyntax: '1.2.826.0.1.3680043.10.1082.99.1', transferSyntaxes: [EXPLICIT_LE] },
    ]);
    expect(Object.fromEntries(scu.accepted)).toEqual({ 1: EXPLICIT_LE, 3: IMPLICIT_LE, 5: IMPLICIT_LE });
    const mrImplicit = implicit(mr);
    // All three requests go out at once: the answers come in order.
    await scu.write(Buffer.concat([store(1, 1, ct), pData([{ contextId: 5, command: true, last: true, value: echoRequest(2) }]), store(3, 3, mr, mrImplicit)]), [50_000]);
    expect(await scu.nextCommand()).toMatchObject({ commandField: 0x8001, respondsTo: 1, status: 0 });
    expect(await scu.nextCommand()).toMatchObject({ commandField: 0x8030, respondsTo: 2, status: 0 });
    expect(await scu.nextCommand()).toMatchObject({ commandField: 0x8001, respondsTo: 3, status: 0 });
    await scu.release();

    const ctRow = await stored(ct.sopInstanceUid);
    const mrRow = await stored(mr.sopInstanceUid);
    expect([ctRow.transfer_syntax_uid, mrRow.transfer_syntax_uid]).toEqual([EXPLICIT_LE, IMPLICIT_LE]);
    expect(datasetOf(fileOf(mrRow.file_key)).equals(datasetOf(mrImplicit))).toBe(true);
    // The stored file says what it holds: its meta header names the context's syntax.
    expect(fileOf(mrRow.file_key).toString('latin1', 0, 400)).toContain(IMPLICIT_LE + '\0');
  });

  test('a C-STORE on a context that was not accepted aborts the association; the listener serves on', async () => {
    const [ct] = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.95', count: 1 }).instances;
    const scu = await RawScu.open(listener.port, 'A_CT1', [ctContext, { id: 3, abstractSyntax: '1.2.826.0.1.3680043.10.1082.99.2', transferSyntaxes: [EXPLICIT_LE] }]);
    await scu.write(store(3, 1, ct));
    expect(await scu.nextPdu()).toBe(0x07);
    await scu.closed;
    expect((await stored(ct.sopInstanceUid)).n).toBe(0);
    const next = await RawScu.open(listener.port, 'A_CT1', [{ id: 1, abstractSyntax: VERIFICATION, transferSyntaxes: [IMPLICIT_LE] }]);
    await next.write(pData([{ contextId: 1, command: true, last: true, value: echoRequest(1) }]));
    expect(await next.nextCommand()).toMatchObject({ commandField: 0x8030, status: 0 });
    await next.release();
  });

  test.each(['aborted', 'dropped'] as const)('an association %s mid-dataset leaves no file and no index row', async (how) => {
    const series = syntheticSeries({ uidRoot: `1.2.826.0.1.3680043.10.1082.96.${how === 'aborted' ? 1 : 2}`, rows: 512, columns: 512, count: 1 });
    const [big] = series.instances;
    const scu = await RawScu.open(listener.port, 'A_CT1', [ctContext]);
    // Well past the first 64 KB: the file has taken its storage key by then.
    await scu.write(store(1, 1, big).subarray(0, 300_000));
    const placed = path.join(p.dataDir, 'files', instanceKey(hospitalId, { ...series, sopInstanceUid: big.sopInstanceUid }));
    await eventually(() => fs.existsSync(placed));
    if (how === 'aborted') scu.abort();
    else scu.socket.destroy();
    await scu.closed;
    await eventually(() => !fs.existsSync(placed) && incoming().length === 0);
    expect((await stored(big.sopInstanceUid)).n).toBe(0);
  });

  test('two associations at once: each instance stored, the one both send stored once and both told Success', async () => {
    const a = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.97', rows: 300, columns: 300, count: 3 }).instances;
    const b = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.98', rows: 300, columns: 300, count: 3 }).instances;
    const [shared] = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.90', rows: 300, columns: 300, count: 1 }).instances;
    const one = await RawScu.open(listener.port, 'A_CT1', [ctContext]);
    const two = await RawScu.open(listener.port, 'A_CT1', [ctContext]);
    const send = async (scu: RawScu, instances: SyntheticInstance[]) => {
      const statuses: number[] = [];
      for (const [n, instance] of instances.entries()) {
        // Small pieces, so both associations' bytes arrive interleaved.
        await scu.write(store(1, n + 1, instance), Array(40).fill(4096));
        statuses.push((await scu.nextCommand()).status!);
      }
      return statuses;
    };
    const [fromOne, fromTwo] = await Promise.all([send(one, [shared, ...a]), send(two, [shared, ...b])]);
    expect({ fromOne, fromTwo }).toEqual({ fromOne: [0, 0, 0, 0], fromTwo: [0, 0, 0, 0] });
    await Promise.all([one.release(), two.release()]);
    for (const instance of [shared, ...a, ...b]) {
      const row = await stored(instance.sopInstanceUid);
      expect({ uid: instance.sopInstanceUid, n: row.n }).toEqual({ uid: instance.sopInstanceUid, n: 1 });
      expect(datasetOf(fileOf(row.file_key)).equals(datasetOf(instance.bytes))).toBe(true);
    }
    const seriesDir = path.dirname(path.join(p.dataDir, 'files', (await stored(shared.sopInstanceUid)).file_key));
    expect(fs.readdirSync(seriesDir)).toHaveLength(1);
    expect(incoming()).toEqual([]);
  });

  test('every accepted storage transfer syntax: an encapsulated dataset is filed as received; a cut one is refused', async () => {
    const syntaxes = STORAGE_TRANSFER_SYNTAXES.filter((ts) => ts !== EXPLICIT_VR_LE && ts !== IMPLICIT_VR_LE);
    const instances = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.89', rows: 8, columns: 8, count: syntaxes.length + 1 }).instances;
    // One context per syntax, each proposing that syntax alone (odd ids, as PS3.8 wants).
    const contexts = syntaxes.map((ts, i) => ({ id: 2 * i + 1, abstractSyntax: CT, transferSyntaxes: [ts] }));
    const scu = await RawScu.open(listener.port, 'A_CT1', contexts);
    expect(Object.fromEntries(scu.accepted)).toEqual(Object.fromEntries(contexts.map((c) => [c.id, c.transferSyntaxes[0]])));
    const sent = new Map<string, Buffer>();
    for (const [i, context] of contexts.entries()) {
      const dataset = encapsulated(instances[i], Buffer.from(`fragment ${context.transferSyntaxes[0]}`));
      sent.set(instances[i].sopInstanceUid, dataset);
      await scu.write(storeDataset(context.id, i + 1, instances[i], dataset));
      expect(await scu.nextCommand()).toMatchObject({ commandField: 0x8001, respondsTo: i + 1, status: STATUS.success });
    }
    const cut = instances[syntaxes.length];
    await scu.write(storeDataset(1, 99, cut, encapsulated(cut, Buffer.from('no delimiter follows'), false)));
    expect(await scu.nextCommand()).toMatchObject({ commandField: 0x8001, respondsTo: 99, status: STATUS.cannotUnderstand });
    await scu.release();

    for (const [i, ts] of syntaxes.entries()) {
      const row = await stored(instances[i].sopInstanceUid);
      expect({ ts, stored: row.transfer_syntax_uid }).toEqual({ ts, stored: ts });
      const file = fileOf(row.file_key);
      expect(datasetOf(file).equals(sent.get(instances[i].sopInstanceUid)!)).toBe(true);
      expect(file.toString('latin1', 0, 400)).toContain(ts.length % 2 ? ts + '\0' : ts);
    }
    expect((await stored(cut.sopInstanceUid)).n).toBe(0);
    expect(incoming()).toEqual([]);
  });

  test('an instance past the synchronously written part, sent in 1 MB values at once, is stored byte for byte', async () => {
    // 2560 x 2560 16-bit: 13 MB, more than the first 8 MB written as they come plus the 4 MB queue.
    const [big] = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.88', rows: 2560, columns: 2560, count: 1 }).instances;
    const scu = await RawScu.open(listener.port, 'A_CT1', [ctContext]);
    const command = pData([{ contextId: 1, command: true, last: true, value: storeRequest(1, CT, big.sopInstanceUid) }]);
    // PDUs of 1 MB less their headers: the most the listener announced it takes.
    await scu.write(Buffer.concat([command, pdus(values(1, false, datasetOf(big.bytes), [(1 << 20) - 6]), 1)]));
    expect(await scu.nextCommand()).toMatchObject({ commandField: 0x8001, respondsTo: 1, status: STATUS.success });
    await scu.release();
    const row = await stored(big.sopInstanceUid);
    expect(row.n).toBe(1);
    expect(datasetOf(fileOf(row.file_key)).equals(datasetOf(big.bytes))).toBe(true);
    expect(incoming()).toEqual([]);
  });
});

describe('PDU reader', () => {
  const reader = () => new PduReader({ pdu: () => undefined, pdv: () => undefined }, 1024);

  test('refuses a P-DATA-TF longer than announced and an unknown PDU type', () => {
    const long = Buffer.from([0x04, 0, 0, 0, 0x10, 0]);
    expect(() => reader().push(long)).toThrow(ProtocolError);
    expect(() => reader().push(Buffer.from([0x09, 0, 0, 0, 0, 4]))).toThrow(ProtocolError);
  });

  test('refuses a value that runs past the end of its PDU', () => {
    // A P-DATA-TF of 8 bytes whose one item claims 100.
    const bad = Buffer.from([0x04, 0, 0, 0, 0, 8, 0, 0, 0, 100, 1, 3, 0, 0]);
    expect(() => reader().push(bad)).toThrow(ProtocolError);
  });
});
