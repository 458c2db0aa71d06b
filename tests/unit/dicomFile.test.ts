/**
 * server/pacs/dicomFile.ts on files made here:
 * - Chinese text inside a sequence item of a UTF-8 dataset reads back right (dcmjs
 *   decodes nested text byte by byte; the archive re-reads it)
 * - the meta header written before a received dataset is a valid Part-10 prefix
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as dcmjs from 'dcmjs';
import { part10Prefix, readDicomHeader } from '../../server/pacs/dicomFile';

const { DicomDict, DicomMetaDictionary } = dcmjs.data;

function part10(dataset: Record<string, unknown>): Buffer {
  const meta = {
    FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
    MediaStorageSOPClassUID: '1.2.840.10008.5.1.4.1.1.7',
    MediaStorageSOPInstanceUID: '1.2.3.4.5.6',
    TransferSyntaxUID: '1.2.840.10008.1.2.1',
  };
  const dict = new DicomDict(DicomMetaDictionary.denaturalizeDataset(meta));
  dict.dict = DicomMetaDictionary.denaturalizeDataset(dataset);
  return Buffer.from(dict.write());
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dicomfile-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const base = { SOPClassUID: '1.2.840.10008.5.1.4.1.1.7', SOPInstanceUID: '1.2.3.4.5.6', StudyInstanceUID: '1.2.3.4', SeriesInstanceUID: '1.2.3.4.5' };

test('Chinese text in a sequence item of a UTF-8 dataset reads back as written', async () => {
  const file = path.join(dir, 'seq.dcm');
  fs.writeFileSync(file, part10({ ...base, SpecificCharacterSet: 'ISO_IR 192', StudyDescription: '胸部', ProcedureCodeSequence: [{ CodeValue: 'CT01', CodeMeaning: '胸部平扫' }] }));
  const { json } = await readDicomHeader(file);
  expect(json['00081030'].Value).toEqual(['胸部']);
  const item = (json['00081032'].Value as Array<Record<string, { Value: unknown[] }>>)[0];
  expect(item['00080104'].Value).toEqual(['胸部平扫']);
  expect(item['00080100'].Value).toEqual(['CT01']);
});

test('a received dataset behind part10Prefix is a readable Part-10 file', async () => {
  const whole = part10({ ...base, SpecificCharacterSet: 'ISO_IR 192', PatientName: [{ Alphabetic: 'Li^Si', Ideographic: '李四' }] });
  // The dataset part of the file: after the preamble, "DICM" and the meta group.
  const metaLength = whole.readUInt32LE(132 + 8);
  const dataset = whole.subarray(132 + 12 + metaLength);
  const file = path.join(dir, 'prefixed.dcm');
  fs.writeFileSync(file, Buffer.concat([part10Prefix(base.SOPClassUID, base.SOPInstanceUID, '1.2.840.10008.1.2.1'), dataset]));
  const header = await readDicomHeader(file);
  expect(header).toMatchObject({ sopInstanceUid: '1.2.3.4.5.6', studyUid: '1.2.3.4', transferSyntaxUid: '1.2.840.10008.1.2.1' });
  expect(header.json['00100010'].Value).toEqual([{ Alphabetic: 'Li^Si', Ideographic: '李四' }]);
});
