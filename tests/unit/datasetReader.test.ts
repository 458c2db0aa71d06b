/**
 * server/pacs/datasetReader.ts against dcmjs, whose reading it stands in for in readHead.
 * A dataset is either read exactly as dcmjs reads it (the meta group and the dataset as
 * DICOM JSON, compared as JSON text, so key order counts, and whether the pixel data was
 * reached), or declined, and dcmjs reads it as before. Scenarios:
 * - synthetic studies (CT, CR, MR, DX, US, MG, OT; Chinese names; 16x16 as the bench sends
 *   them, and the first 64 KB of a 512x512 CT), converted by dcmconv to implicit VR and
 *   back, compressed by dcmcrle and dcmcjpeg (read up to the pixel data); big endian and
 *   deflate are declined
 * - a dump2dcm dataset with most VRs, private tags, empty and multi-valued elements and
 *   sequences (nested, an empty item), in explicit and implicit VR, with defined and
 *   undefined lengths, group lengths and trailing padding
 * - datasets written by dcmjs: UTF-8 text in sequence items (dcmjs reads it one byte
 *   per character, toDicomJson repairs it), nested and empty items
 * - values written byte by byte: DS "1.50 ", IS "+3", trailing backslashes, pads, NUL,
 *   empty fixed-length values, Latin-1 and C1 bytes, a UTF-8 BOM, the private tags and
 *   "US or SS" tags of implicit VR, tags JavaScript orders first, item bytes that
 *   mislead dcmjs's search for an item's end
 * - declined: GB18030 (the charset path reads it), ISO_IR 101, several terms, (0008,0005)
 *   in an item, odd lengths, unknown VRs, UV, UN of a known tag, undefined-length OB, a
 *   header cut inside an element
 * - every cut of some headers and random damage to them: what the reader reads, dcmjs reads alike
 * - readHead through the reader: the header dcmjs's path gives, undefined while more bytes are needed
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as dcmjs from 'dcmjs';
import iconv from 'iconv-lite';
import { IMPLICIT_LITTLE_ENDIAN, EXPLICIT_LITTLE_ENDIAN, syntheticSeries, type SyntheticSeriesOptions } from '../../mock/dicom';
import { readDataset } from '../../server/pacs/datasetReader';
import { HEAD_BYTES, part10Prefix, readHead, readWithDcmjs, toDicomJson, utf8Again } from '../../server/pacs/dicomFile';

// dcmjs reports unusual lengths and VRs as it reads them; damaged headers have plenty.
dcmjs.log?.setLevel?.('silent');
dcmjs.log?.getLogger?.('validation.dcmjs')?.setLevel?.('silent');

const { DicomDict, DicomMetaDictionary } = dcmjs.data;
const PIXEL_DATA = '7FE00010';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'datasetreader-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// --- What each reader makes of a buffer ---------------------------------------------------

interface Outcome {
  meta: string;
  dataset: string;
  pixelData: boolean;
}

function outcome(meta: Record<string, any>, dict: Record<string, any>): Outcome {
  return { meta: JSON.stringify(toDicomJson(meta)), dataset: JSON.stringify(toDicomJson(dict)), pixelData: Boolean(dict[PIXEL_DATA]) };
}

/** readHead's dcmjs path (no character set decoded here), or the error it throws. */
function viaDcmjs(bytes: Buffer): Outcome | { error: string } {
  try {
    const { meta, dict } = readWithDcmjs(bytes, true);
    return outcome(meta, dict);
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function direct(bytes: Buffer): Outcome | undefined {
  const read = readDataset(bytes);
  return read && outcome(read.meta, read.dict);
}

/** Read by the reader, exactly as dcmjs reads it. */
function expectRead(bytes: Buffer): Outcome {
  const got = direct(bytes);
  expect(got).toBeDefined();
  expect(got).toEqual(viaDcmjs(bytes));
  return got!;
}

const expectDeclined = (bytes: Buffer) => expect(readDataset(bytes)).toBeUndefined();

/** The dataset's attributes as DICOM JSON, for the cases that check a value as well. */
const json = (bytes: Buffer) => JSON.parse(expectRead(bytes).dataset) as Record<string, { vr: string; Value?: unknown[]; InlineBinary?: string }>;

// --- Datasets -------------------------------------------------------------------------

let files = 0;
/** A dcmtk tool's output for `input`, written to a file and read back. */
function dcmtk(tool: string, args: string[], input: Buffer): Buffer {
  const source = path.join(dir, `in-${++files}`);
  const target = path.join(dir, `out-${files}.dcm`);
  fs.writeFileSync(source, input);
  execFileSync(tool, [...args, source, target], { stdio: 'pipe' });
  return fs.readFileSync(target);
}
const dcmconv = (bytes: Buffer, ...args: string[]) => dcmtk('dcmconv', args, bytes);
const dump2dcm = (dump: string, ...args: string[]) => dcmtk('dump2dcm', args, Buffer.from(dump, 'latin1'));

const synthetic = (options: SyntheticSeriesOptions) => syntheticSeries({ count: 1, rows: 16, columns: 16, ...options }).instances[0].bytes;

const UIDS = { SOPClassUID: '1.2.840.10008.5.1.4.1.1.7', SOPInstanceUID: '1.2.3.4.5.6', StudyInstanceUID: '1.2.3.4', SeriesInstanceUID: '1.2.3.4.5' };

/** A Part-10 file dcmjs writes from a dataset (naturalized: keyword → value). */
function dcmjsFile(dataset: Record<string, unknown>): Buffer {
  const meta = {
    FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
    MediaStorageSOPClassUID: UIDS.SOPClassUID,
    MediaStorageSOPInstanceUID: UIDS.SOPInstanceUID,
    TransferSyntaxUID: EXPLICIT_LITTLE_ENDIAN,
  };
  const file = new DicomDict(DicomMetaDictionary.denaturalizeDataset(meta));
  file.dict = DicomMetaDictionary.denaturalizeDataset(dataset);
  return Buffer.from(file.write());
}

const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);
const UNDEFINED = 0xffffffff;

interface Encoding {
  implicit?: boolean;
  /** A length to write instead of the value's (0xFFFFFFFF: undefined). */
  length?: number;
  /** An odd length is meant (else one is a mistake in the test). */
  odd?: boolean;
}

/** One element of a little endian dataset, its value as given (a string: one byte per character). */
function el(tag: string, vr: string, value: Buffer | string = '', { implicit = false, length, odd = false }: Encoding = {}): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  if (bytes.length % 2 && !odd) throw new Error(`odd length for ${tag}`);
  const long = implicit || LONG_VRS.has(vr);
  const head = Buffer.alloc(implicit ? 8 : long ? 12 : 8);
  head.writeUInt16LE(Number.parseInt(tag.slice(0, 4), 16), 0);
  head.writeUInt16LE(Number.parseInt(tag.slice(4), 16), 2);
  if (!implicit) head.write(vr, 4, 'latin1');
  if (long) head.writeUInt32LE(length ?? bytes.length, implicit ? 4 : 8);
  else head.writeUInt16LE(length ?? bytes.length, 6);
  return Buffer.concat([head, bytes]);
}

const delimiter = (element: number) => Buffer.from([0xfe, 0xff, element & 0xff, element >> 8, 0, 0, 0, 0]);
const ITEM_END = delimiter(0xe00d);
const SEQUENCE_END = delimiter(0xe0dd);

/** An item of a sequence, of defined or undefined length. */
function item(elements: Buffer[], undefinedLength = false): Buffer {
  const content = Buffer.concat(elements);
  const head = Buffer.from([0xfe, 0xff, 0x00, 0xe0, 0, 0, 0, 0]);
  head.writeUInt32LE(undefinedLength ? UNDEFINED : content.length, 4);
  return Buffer.concat([head, content, undefinedLength ? ITEM_END : Buffer.alloc(0)]);
}

function sq(tag: string, items: Buffer[], { implicit = false, undefinedLength = false } = {}): Buffer {
  const content = Buffer.concat([...items, undefinedLength ? SEQUENCE_END : Buffer.alloc(0)]);
  return el(tag, 'SQ', content, { implicit, length: undefinedLength ? UNDEFINED : undefined });
}

/** The UIDs readHead requires, around the elements (neither reader minds the order of tags). */
function withUids(elements: Buffer[], implicit = false): Buffer[] {
  const uid = (value: string) => (value.length % 2 ? `${value}\0` : value);
  return [
    el('00080016', 'UI', uid(UIDS.SOPClassUID), { implicit }),
    el('00080018', 'UI', uid(UIDS.SOPInstanceUID), { implicit }),
    ...elements,
    el('0020000D', 'UI', uid(UIDS.StudyInstanceUID), { implicit }),
    el('0020000E', 'UI', uid(UIDS.SeriesInstanceUID), { implicit }),
  ];
}

/** A Part-10 file: the meta group part10Prefix writes, then the elements. */
function part10(elements: Buffer[], transferSyntaxUid = EXPLICIT_LITTLE_ENDIAN): Buffer {
  return Buffer.concat([part10Prefix(UIDS.SOPClassUID, UIDS.SOPInstanceUID, transferSyntaxUid), ...elements]);
}
const explicitFile = (elements: Buffer[]) => part10(elements);
const implicitFile = (elements: Buffer[]) => part10(elements, IMPLICIT_LITTLE_ENDIAN);

/** A dump2dcm dataset with most VRs, in Latin-1, and sequences of each kind dcmtk writes. */
const MANY_VRS = String.raw`
(0002,0010) UI =LittleEndianExplicit
(0008,0005) CS [ISO_IR 100]
(0008,0008) CS [ORIGINAL\PRIMARY]
(0008,0016) UI =SecondaryCaptureImageStorage
(0008,0018) UI [1.2.826.0.1.3680043.10.1082.55.1.1.1]
(0008,0020) DA [20240101]
(0008,002a) DT [20240101120000.5]
(0008,0030) TM [120000.5]
(0008,0050) SH []
(0008,0060) CS [OT]
(0008,0081) ST [a\b]
(0008,0090) PN []
(0008,010e) UR [http://example.org/x]
(0008,0119) UC [long code value]
(0008,1030) LO [Étude  crâne\second]
(0008,1040) LO [Müller Straße]
(0008,1110) SQ (Sequence with explicit length #=0)
(fffe,e0dd) na (SequenceDelimitationItem for re-encod.)
(0009,0010) LO [ACME PRIVATE]
(0009,1001) LO [private text]
(0009,1002) OB 01\02\03\04
(0009,1003) US 7\8
(0009,1004) UN 0a\0b\0c\0d
(0010,0010) PN [Müller^Jürgen=Ideo^Graphic=Pho^Netic\Roe^Jane]
(0010,0020) LO [P123]
(0010,1010) AS [045Y]
(0018,0015) CS []
(0018,0050) DS [1.50\+2\-3e1]
(0018,1060) DS []
(0018,6020) SL -5
(0018,9089) FD 1.5\-2.25
(0018,9219) SS -2
(0018,9310) FD 0.5
(0020,000d) UI [1.2.826.0.1.3680043.10.1082.55.1]
(0020,000e) UI [1.2.826.0.1.3680043.10.1082.55.1.1]
(0020,0013) IS [+3]
(0020,0020) CS [L\R]
(0020,4000) LT [line one\still one]
(0020,9165) AT (0020,0032)\(0020,0037)
(0028,0009) AT (0018,1063)
(0028,0010) US 2
(0028,0011) US 2
(0028,0034) IS [1\1]
(0028,0106) US 0
(0028,0107) US 4095
(0028,1101) US 256\0\16
(0028,9001) UL 5
(0040,0275) SQ (Sequence with explicit length #=3)
  (fffe,e000) na (Item with explicit length #=2)
    (0032,1060) LO [Schädel]
    (0040,0008) SQ (Sequence with explicit length #=1)
      (fffe,e000) na (Item with explicit length #=1)
        (0008,0104) LO [nested élan]
      (fffe,e00d) na (ItemDelimitationItem for re-encoding)
    (fffe,e0dd) na (SequenceDelimitationItem for re-encod.)
  (fffe,e00d) na (ItemDelimitationItem for re-encoding)
  (fffe,e000) na (Item with explicit length #=0)
  (fffe,e00d) na (ItemDelimitationItem for re-encoding)
  (fffe,e000) na (Item with explicit length #=4)
    (0009,0010) LO [ACME PRIVATE]
    (0009,1002) OB 01\02\03\04
    (0009,1005) OB []
    (0028,0106) US 0
  (fffe,e00d) na (ItemDelimitationItem for re-encoding)
(fffe,e0dd) na (SequenceDelimitationItem for re-encod.)
(0040,a160) UT [free\text]
(0088,0200) SQ (Sequence with explicit length #=1)
  (fffe,e000) na (Item with explicit length #=3)
    (0028,0010) US 2
    (0028,0011) US 2
    (7fe0,0010) OW 0001\0002\0003\0004
  (fffe,e00d) na (ItemDelimitationItem for re-encoding)
(fffe,e0dd) na (SequenceDelimitationItem for re-encod.)
(7fe0,0010) OW 0001\0002\0003\0004
`;

/** UTF-8 text in items, nested items and an empty one, as dcmjs writes them (undefined lengths). */
const WITH_SEQUENCES = dcmjsFile({
  ...UIDS,
  SpecificCharacterSet: 'ISO_IR 192',
  StudyDescription: '胸部',
  PatientName: [{ Alphabetic: 'Li^Si', Ideographic: '李四' }],
  ProcedureCodeSequence: [{ CodeValue: 'CT01', CodeMeaning: '胸部平扫' }, {}, { CodeValue: 'CT02', CodeMeaning: 'Thorax ärztlich' }],
  RequestAttributesSequence: [{ RequestedProcedureID: 'R1', ScheduledProtocolCodeSequence: [{ CodeValue: 'P1', CodeMeaning: '王伟' }] }],
  ReferencedStudySequence: [],
});

// --- The corpus meant to be read ----------------------------------------------------------

describe('read exactly as dcmjs reads it', () => {
  const modalities = ['CT', 'CR', 'MR', 'DX', 'US', 'MG', 'OT'] as const;

  test.each(modalities)('a synthetic %s study, as written and in implicit VR', (modality) => {
    const bytes = synthetic({ modality, patientName: '张伟', patientNameEn: 'Zhang^Wei', accessionNumber: `A${modality}` });
    expect(expectRead(bytes).pixelData).toBe(true);
    const implicit = dcmconv(bytes, '+ti');
    expectRead(implicit);
    expectRead(dcmconv(implicit, '+te'));
  });

  test('synthetic studies with other names and options', () => {
    for (const options of [{}, { patientName: '欧阳娜娜', patientNameEn: 'Ouyang^Nana', sex: 'F' as const }, { patientName: 'Müller', patientNameEn: '', accessionNumber: '', institutionName: '' }, { studyDescription: 'A\\B', seriesNumber: 12 }]) {
      expectRead(synthetic(options));
    }
  });

  test('the first 64 KB of a 512x512 CT: read up to its pixel data', () => {
    const [ct] = syntheticSeries({ count: 1, rows: 512, columns: 512, modality: 'CT' }).instances;
    const head = ct.bytes.subarray(0, HEAD_BYTES);
    expect(expectRead(head).pixelData).toBe(true);
    expect(expectRead(dcmconv(ct.bytes, '+ti').subarray(0, HEAD_BYTES)).pixelData).toBe(true);
  });

  test('compressed syntaxes: the dataset before the encapsulated pixel data', () => {
    const bytes = synthetic({ modality: 'CR' });
    expect(expectRead(dcmtk('dcmcrle', [], bytes)).pixelData).toBe(true);
    expect(expectRead(dcmtk('dcmcjpeg', [], bytes)).pixelData).toBe(true);
  });

  test.each([
    ['explicit lengths', []],
    ['undefined lengths', ['-e']],
    ['implicit VR', ['+ti']],
    ['implicit VR, undefined lengths', ['+ti', '-e']],
    ['group lengths', ['+g']],
    ['implicit VR with group lengths', ['+ti', '+g']],
    ['trailing padding', ['+p', '256', '16']],
  ])('the dump2dcm dataset of most VRs, %s', (_, args) => {
    expectRead(dump2dcm(MANY_VRS, ...args));
  });

  test('what dcmjs makes of the dump2dcm dataset, which the reader repeats', () => {
    const got = json(dump2dcm(MANY_VRS, '+ti'));
    // (0008,0005) says UTF-8 once read; text is Unicode.
    expect(got['00080005'].Value).toEqual(['ISO_IR 192']);
    expect(got['00081030'].Value).toEqual(['Étude  crâne', 'second']);
    expect(got['00100010'].Value).toEqual([{ Alphabetic: 'Müller^Jürgen', Ideographic: 'Ideo^Graphic', Phonetic: 'Pho^Netic' }, { Alphabetic: 'Roe^Jane' }]);
    expect(got['00180050'].Value).toEqual([1.5, 2, -30]);
    expect(got['00200013'].Value).toEqual([3]);
    // ST and UT are split at backslashes, LT is not.
    expect(got['00080081'].Value).toEqual(['a', 'b']);
    expect(got['0040A160'].Value).toEqual(['free', 'text']);
    expect(got['00204000'].Value).toEqual(['line one\\still one']);
    // AT values are numbers (group << 16 | element).
    expect(got['00209165'].Value).toEqual([0x00200032, 0x00200037]);
    // Implicit VR: private data elements are UN, their creators LO; "US or SS" reads as US.
    expect(got['00090010']).toEqual({ vr: 'LO', Value: ['ACME PRIVATE'] });
    expect(got['00091003']).toEqual({ vr: 'UN' });
    expect(got['00280106']).toEqual({ vr: 'US', Value: [0] });
    // Binary values are InlineBinary only inside items: at the top level dcmjs (noCopy)
    // hands out Uint8Arrays, which toDicomJson does not take for bytes. The empty item is gone.
    expect(got['00091002']).toEqual({ vr: 'UN' });
    const items = got['00400275'].Value as Array<Record<string, { vr: string; InlineBinary?: string }>>;
    expect(items).toHaveLength(2);
    expect(items[1]['00091002']).toEqual({ vr: 'UN', InlineBinary: 'AQIDBA==' });
    expect(items[1]['00091005']).toEqual({ vr: 'UN', InlineBinary: '' });
    expect(got['00081110']).toEqual({ vr: 'SQ' });
  });

  test('UTF-8 text in sequence items, nested items and an empty one (dcmjs writes undefined lengths)', () => {
    const got = json(WITH_SEQUENCES);
    const items = got['00081032'].Value as Array<Record<string, { Value: unknown[] }>>;
    // The empty item is left out, as dcmjs leaves it out; utf8Again repairs 胸部平扫.
    expect(items.map((i) => i['00080100'].Value[0])).toEqual(['CT01', 'CT02']);
    expect(items[0]['00080104'].Value).toEqual(['胸部平扫']);
    expect(items[1]['00080104'].Value).toEqual(['Thorax ärztlich']);
    expectRead(dcmconv(WITH_SEQUENCES, '+e'));
    expectRead(dcmconv(WITH_SEQUENCES, '+ti'));
    expectRead(dcmconv(WITH_SEQUENCES, '+ti', '+e'));
  });

  test('values as their bytes were written', () => {
    const bytes = explicitFile(
      withUids([
        el('00080005', 'CS', 'ISO_IR 100'),
        el('00080008', 'CS', 'ORIGINAL\\PRIMARY\\ '),
        el('00080020', 'DA', '2024010 '),
        el('0008002A', 'DT', '202401011200  '),
        el('00080030', 'TM', '120000 \\130000  '),
        el('00080050', 'SH', ' A \\ B  '),
        el('00080054', 'AE', ' AET1 \\AET2 '),
        el('00080060', 'CS', ' OT '),
        el('00080070', 'LO', 'ACME\0\0'),
        el('00080080', 'LO', 'Hôpital Saint-Éloi\xa0\xa0'),
        el('00080081', 'ST', 'a\\b '),
        el('00080090', 'PN', 'Doe^John=Ideo=Pho\\\\=Only'),
        el('0008010E', 'UR', 'http://x  '),
        el('00080119', 'UC', 'x\\y '),
        el('00081030', 'LO', '\x80\x9f C1 '),
        el('00081040', 'LO', ''),
        el('00081048', 'PN', 'A^B   '),
        el('00081050', 'PN', ''),
        el('00100010', 'PN', 'Müller^Jörg '),
        el('00101010', 'AS', '045Y\\050Y '),
        el('00180015', 'CS', '\x80X'),
        el('00180050', 'DS', '1.50  '),
        el('00180088', 'DS', '1.50\\+2\\-3e1\\abc\\1,5\\ \\ '),
        el('00181050', 'DS', ''),
        el('00181060', 'DS', '  '),
        el('00186020', 'SL', Buffer.from([0xfe, 0xff, 0xff, 0xff])),
        el('00189089', 'FD', Buffer.from(new Float64Array([1.5, Number.NaN, -0]).buffer)),
        el('00189310', 'FL', Buffer.alloc(0)),
        el('00189219', 'SS', Buffer.from([0xfe, 0xff, 0x02, 0x00])),
      ]).concat([
        el('00200013', 'IS', '+3'),
        el('00200012', 'IS', '003 \\ -7 \\1.0\\'),
        el('00204000', 'LT', 'a\\b '),
        el('00209165', 'AT', Buffer.alloc(0)),
        el('00209167', 'AT', Buffer.from([0x20, 0x00, 0x32, 0x00, 0x18, 0x00, 0x63, 0x10])),
        el('00209161', 'UI', '1.2.3\\4.5\0'),
        el('00209162', 'UI', '1.2.3 '),
        el('00209163', 'UI', ''),
        el('00280010', 'US', Buffer.alloc(0)),
        el('00280011', 'US', Buffer.from([0x10, 0x00, 0x20, 0x00])),
        el('00289001', 'UL', Buffer.from([1, 2, 3, 4])),
        el('00290010', 'LO', 'ACME'),
        el('00291001', 'OB', Buffer.from([1, 2, 3, 4])),
        el('00291002', 'UN', Buffer.from([5, 6])),
        el('00291003', 'OW', Buffer.alloc(0)),
        el('00291004', 'OF', Buffer.alloc(8)),
        el('00291005', 'OD', Buffer.alloc(8)),
        el('0040A160', 'UT', 'free\\text '),
      ]),
    );
    const got = json(bytes);
    expect(got['00080008'].Value).toEqual(['ORIGINAL', 'PRIMARY']);
    expect(got['00080020'].Value).toEqual(['2024010 ']);
    expect(got['00080030'].Value).toEqual(['120000 ', '130000']);
    expect(got['00080050'].Value).toEqual(['A ', ' B']);
    expect(got['00080080'].Value).toEqual(['Hôpital Saint-Éloi']);
    expect(got['00080090'].Value).toEqual([{ Alphabetic: 'Doe^John', Ideographic: 'Ideo', Phonetic: 'Pho' }, { Ideographic: 'Only' }]);
    // One trailing space goes from a person name; the rest stay.
    expect(got['00081048'].Value).toEqual([{ Alphabetic: 'A^B  ' }]);
    expect(got['0008010E'].Value).toEqual(['http://x  ']);
    expect(got['00080070'].Value).toEqual(['ACME\0\0']);
    // As dcmjs's "latin1" decoder reads them (see the next test), not one character per byte.
    expect(got['00081030'].Value).toEqual([`${new TextDecoder('latin1').decode(Buffer.from([0x80, 0x9f]))} C1`]);
    expect(got['00101010'].Value).toEqual(['045Y', '050Y']);
    expect(got['00180015'].Value).toEqual(['\x80X']);
    expect(got['00180088'].Value).toEqual([1.5, 2, -30, 15]);
    expect(got['00200012'].Value).toEqual([3, -7]);
    expect(got['00209161'].Value).toEqual(['1.2.3', '4.5']);
    expect(got['00280010']).toEqual({ vr: 'US', Value: [0] });
    expect(got['00209165']).toEqual({ vr: 'AT' });
    expect(got['00291001']).toEqual({ vr: 'OB' });
    expect(readHead(bytes, bytes.length)?.header.sopInstanceUid).toBe(UIDS.SOPInstanceUID);
  });

  test('character sets dcmjs decodes itself: none, ISO_IR 6, ISO 2022 IR 100, UTF-8 with a BOM, UTF-8 in an item', () => {
    const text = [el('00081030', 'LO', 'Straße\xe9 '), el('00081032', 'SQ', item([el('00080104', 'LO', 'Schädel ')]))];
    expectRead(explicitFile(withUids(text)));
    for (const charset of ['ISO_IR 6', 'ISO 2022 IR 100 ', 'ISO_IR 100  ', '']) expectRead(explicitFile(withUids([el('00080005', 'CS', charset), ...text])));
    // UTF-8: the decoder drops a byte order mark. In an item dcmjs reads "latin1", which
    // WHATWG makes windows-1252 (0x80-0x9F letters beyond U+00FF) but this Node decodes as
    // ISO-8859-1: utf8Again repairs 伟 (E4 BC 9F) only while that holds. The reader takes
    // the same decoder, so it reads what dcmjs reads either way.
    const name = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('王伟 ')]);
    const got = json(explicitFile(withUids([el('00080005', 'CS', 'ISO_IR 192'), el('00100010', 'PN', name), sq('00081032', [item([el('00080104', 'LO', Buffer.from('王伟'))])])])));
    expect(got['00100010'].Value).toEqual([{ Alphabetic: '王伟' }]);
    const meaning = (got['00081032'].Value as Array<Record<string, { Value: string[] }>>)[0]['00080104'].Value;
    expect(meaning).toEqual([utf8Again(new TextDecoder('latin1').decode(Buffer.from('王伟')))]);
  });

  test('sequences of every layout, explicit and implicit VR', () => {
    for (const implicit of [false, true]) {
      const e = (tag: string, vr: string, value: Buffer | string) => el(tag, vr, value, { implicit });
      const code = (value: string) => [e('00080100', 'SH', value), e('00080104', 'LO', `meaning ${value}`)];
      const nested = (undefinedLength: boolean) =>
        sq('00400008', [item([...code('N1'), sq('00400440', [item(code('N2'), undefinedLength)], { implicit, undefinedLength })], undefinedLength)], { implicit, undefinedLength });
      const bytes = (implicit ? implicitFile : explicitFile)(
        withUids(
          [
            sq('00081032', [item(code('A1')), item([]), item([], true), item(code('B1'), true)], { implicit }),
            sq('00081110', [], { implicit }),
            sq('00081111', [], { implicit, undefinedLength: true }),
            sq('00081115', [item([]), item([], true)], { implicit, undefinedLength: true }),
            sq('00081140', [item([e('00081150', 'UI', '1.2.3\0'), e('00091010', 'OB', Buffer.alloc(300, 7)), e('00091011', 'OB', Buffer.from([1, 2])), e('00091012', 'OB', Buffer.alloc(0))], true)], { implicit, undefinedLength: true }),
          ],
          implicit,
        ).concat([
          sq('00400275', [item([e('00401001', 'SH', 'R1'), nested(false)]), item([e('00401001', 'SH', 'R2'), nested(true)], true)], { implicit, undefinedLength: true }),
          // An icon: pixel data inside an item is read, and left out of the JSON.
          sq('00880200', [item([e('00280010', 'US', Buffer.from([1, 0])), e('7FE00010', 'OW', Buffer.from([1, 2, 3, 4]))], true)], { implicit }),
          e('7FE00010', 'OW', Buffer.alloc(16)),
        ]),
      );
      const got = json(bytes);
      expect((got['00081032'].Value as unknown[]).length).toBe(2);
      expect(got['00081115']).toEqual({ vr: 'SQ' });
    }
  });

  test('implicit VR: private creators, private data, private sequences, repeating groups and group lengths as dcmjs types them', () => {
    const i = { implicit: true };
    const got = json(
      implicitFile([
        el('00080000', 'UL', Buffer.from([4, 0, 0, 0]), i),
        ...withUids([el('00090010', 'LO', 'ACME  ', i), el('00091001', 'LO', 'data', i), el('00091002', 'SQ', Buffer.concat([item([el('00100010', 'PN', 'In^Private', i)], true), SEQUENCE_END]), { implicit: true, length: UNDEFINED })], true),
        el('00280106', 'US', Buffer.from([0xfe, 0xff]), i),
        el('00281101', 'US', Buffer.from([0, 1, 0, 0, 16, 0]), i),
        el('60000010', 'US', Buffer.from([2, 0]), i),
        el('60010010', 'LO', 'OVERLAY CREATOR ', i),
        el('60003000', 'OW', Buffer.alloc(4), i),
      ]),
    );
    expect(got['00080000']).toEqual({ vr: 'UN' });
    expect(got['00090010']).toEqual({ vr: 'LO', Value: ['ACME'] });
    expect(got['00091001']).toEqual({ vr: 'UN' });
    expect(got['00091002'].vr).toBe('SQ');
    expect(got['00280106']).toEqual({ vr: 'US', Value: [0xfffe] });
    // (6001,0010) is a private creator, but dcmjs's dictionary matches it as 60xx Overlay Rows.
    expect(got['60010010'].vr).toBe('US');
  });

  test('tags JavaScript takes for array indices come first in both readers, whatever the file order', () => {
    const got = json(explicitFile(withUids([el('00100020', 'LO', 'P1'), el('20100010', 'ST', 'STANDARD\\1,1'), el('30060002', 'SH', 'RS')])));
    expect(Object.keys(got).slice(0, 3)).toEqual(['20100010', '30060002', '00080016']);
  });

  test('explicit UN of a private tag, compared to UN of a tag dcmjs knows (declined: it re-reads it)', () => {
    expectRead(explicitFile(withUids([el('00291001', 'UN', Buffer.from([1, 2, 3, 4]))])));
    expectDeclined(explicitFile(withUids([el('00100010', 'UN', 'Doe^John')])));
  });

  test('item bytes that look like delimiters to dcmjs: read as dcmjs reads them, or declined', () => {
    // A nested item tag with a defined length inside a value does not move dcmjs.
    const looksLikeItem = Buffer.from([0xfe, 0xff, 0x00, 0xe0, 0x02, 0x00, 0x00, 0x00]);
    expectRead(explicitFile(withUids([sq('00081140', [item([el('00091010', 'OB', looksLikeItem)], true)], { undefinedLength: true })])));
    // A delimitation item inside a value ends dcmjs's item early; one that opens an item makes it read on.
    for (const fake of [ITEM_END, Buffer.from([0xfe, 0xff, 0x00, 0xe0, 0xff, 0xff, 0xff, 0xff]), Buffer.from([0xfe, 0xff, 0x0d, 0xe0, 0x02, 0x00, 0x00, 0x00])]) {
      const bytes = explicitFile(withUids([sq('00081140', [item([el('00091010', 'OB', Buffer.concat([Buffer.alloc(4), fake, Buffer.alloc(4)]))], true)], { undefinedLength: true })]));
      expectDeclined(bytes);
    }
  });
});

// --- Declined: dcmjs reads these as before ------------------------------------------------------

describe('declined', () => {
  const text = (...elements: Buffer[]) => explicitFile(withUids(elements));

  test('big endian and deflate', () => {
    const bytes = synthetic({ modality: 'CT' });
    expectDeclined(dcmconv(bytes, '+tb'));
    expectDeclined(dcmconv(bytes, '+td'));
    expectDeclined(dump2dcm(MANY_VRS, '+tb'));
  });

  test('GB18030: the charset path reads it, as before', () => {
    const bytes = text(el('00080005', 'CS', 'GB18030 '), el('00100010', 'PN', Buffer.concat([Buffer.from('Zhang^Wei='), iconv.encode('张伟', 'gb18030')])));
    expectDeclined(bytes);
    const header = readHead(bytes, bytes.length)!.header;
    expect(header.json['00100010'].Value).toEqual([{ Alphabetic: 'Zhang^Wei', Ideographic: '张伟' }]);
    expect(header.json['00080005'].Value).toEqual(['ISO_IR 192']);
  });

  test('a device default character set for a dataset that declares none: the charset path', () => {
    const bytes = text(el('00100010', 'PN', Buffer.concat([Buffer.from('Zhang^Wei='), iconv.encode('张伟', 'gbk')])));
    expect(readHead(bytes, bytes.length, 'GBK')!.header.json['00100010'].Value).toEqual([{ Alphabetic: 'Zhang^Wei', Ideographic: '张伟' }]);
    // Without one, it is read directly, each byte a character, as dcmjs reads it.
    expectRead(bytes);
  });

  test('character sets dcmjs decodes with other tables, several terms, or an item of its own', () => {
    expectDeclined(text(el('00080005', 'CS', 'ISO_IR 101'), el('00100010', 'PN', 'Dvo\xf8\xe1k')));
    expectDeclined(text(el('00080005', 'CS', 'ISO_IR 100\\ISO_IR 192 '), el('00100010', 'PN', 'Doe ')));
    expectDeclined(text(el('00080005', 'CS', 'ISO_IR 999'), el('00100010', 'PN', 'Doe ')));
    expectDeclined(text(sq('00081032', [item([el('00080005', 'CS', 'ISO_IR 100'), el('00080104', 'LO', 'x ')])])));
  });

  test('lengths and VRs not read here', () => {
    expectDeclined(text(el('00100010', 'PN', 'Doe', { odd: true })));
    expectDeclined(text(el('00280010', 'US', Buffer.alloc(3, 1), { odd: true })));
    expectDeclined(text(el('00189089', 'FD', Buffer.alloc(4))));
    expectDeclined(text(el('00291001', 'ZZ', 'ab')));
    expectDeclined(text(el('00291001', 'OL', Buffer.alloc(4))));
    expectDeclined(text(el('00291001', 'UV', Buffer.alloc(8))));
    expectDeclined(text(el('00291001', 'OB', Buffer.concat([delimiter(0xe000), SEQUENCE_END]), { length: UNDEFINED })));
    // An item delimitation with a length, and an item tag out of a sequence.
    expectDeclined(text(sq('00081032', [Buffer.concat([item([el('00080100', 'SH', 'A ')], true).subarray(0, -8), delimiter(0xe00d).fill(2, 4, 5)])], { undefinedLength: true })));
    expectDeclined(text(delimiter(0xe000)));
    // The meta group's elements in the dataset.
    expectDeclined(text(el('00020016', 'AE', 'AE1 ')));
  });

  test('a header cut inside an element: declined, and readHead waits for more bytes as before', () => {
    const bytes = synthetic({ modality: 'CR' });
    const patientName = bytes.indexOf(Buffer.from([0x10, 0x00, 0x10, 0x00]), 132);
    for (const cut of [patientName + 3, patientName + 7, patientName + 10]) {
      const head = bytes.subarray(0, cut);
      expectDeclined(head);
      expect(readHead(head, bytes.length)).toBeUndefined();
      expect(readHead(head, Infinity)).toBeUndefined();
    }
  });
});

// --- Properties over many inputs ------------------------------------------------------------------

/** Whatever the reader reads of `bytes` is what dcmjs reads; the number of buffers it read. */
function readAlike(inputs: Buffer[]): number {
  let read = 0;
  for (const bytes of inputs) {
    const got = direct(bytes);
    if (!got) continue;
    read++;
    const reference = viaDcmjs(bytes);
    if (JSON.stringify(got) !== JSON.stringify(reference)) {
      // One readable failure, not thousands.
      expect({ length: bytes.length, got }).toEqual({ length: bytes.length, got: reference });
    }
  }
  return read;
}

const SWEPT = () => [synthetic({ modality: 'CR' }), dcmconv(synthetic({ modality: 'MR' }), '+ti'), dump2dcm(MANY_VRS, '-e'), dump2dcm(MANY_VRS, '+ti'), WITH_SEQUENCES];

test('every cut of a header: what is read is what dcmjs reads, and readHead waits for more bytes', () => {
  for (const bytes of SWEPT()) {
    const cuts = Array.from({ length: bytes.length + 1 }, (_, n) => bytes.subarray(0, n));
    // Cuts at element boundaries are read; the whole file is.
    expect(readAlike(cuts)).toBeGreaterThan(10);
    expectRead(bytes);
    // Short of the (last, top-level) pixel data tag, more bytes are needed.
    const pixelData = bytes.lastIndexOf(Buffer.from([0xe0, 0x7f, 0x10, 0x00]));
    const short = cuts.filter((c) => c.length % 31 === 0 && (pixelData < 0 || c.length < pixelData + 4));
    for (const cut of short) expect(readHead(cut, bytes.length)).toBeUndefined();
  }
});

test('random damage: what is read is what dcmjs reads', () => {
  // Deterministic: a small linear congruential generator.
  let seed = 20261202;
  const random = (n: number) => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed % n;
  };
  let read = 0;
  let tried = 0;
  for (const bytes of SWEPT()) {
    const damaged: Buffer[] = [];
    for (let k = 0; k < 300; k++) {
      const copy = Buffer.from(bytes);
      for (let changes = 1 + random(3); changes > 0; changes--) copy[132 + random(copy.length - 132)] = random(4) ? random(256) : [0x00, 0x5c, 0x20, 0xff, 0xfe, 0xe0, 0x0d][random(7)];
      damaged.push(copy);
    }
    tried += damaged.length;
    read += readAlike(damaged);
  }
  // Most damage lands in values, which are read (and read alike).
  expect(read).toBeGreaterThan(tried / 4);
});

// --- readHead ------------------------------------------------------------------------

test('readHead through the reader: the header of dcmjs path, the pixel data found', () => {
  const [ct] = syntheticSeries({ count: 1, rows: 512, columns: 512, modality: 'CT' }).instances;
  for (const [bytes, size] of [
    [synthetic({ modality: 'DX' }), undefined],
    [ct.bytes.subarray(0, HEAD_BYTES), ct.bytes.length],
    [dump2dcm(MANY_VRS, '+ti'), undefined],
    [WITH_SEQUENCES, undefined],
  ] as const) {
    const head = readHead(bytes, size ?? bytes.length)!;
    expect(readDataset(bytes)).toBeDefined();
    const { meta, dict } = readWithDcmjs(bytes, true);
    expect(JSON.stringify(head.header.json)).toBe(JSON.stringify(toDicomJson(dict)));
    expect(head.header.transferSyntaxUid).toBe(String(meta['00020010'].Value[0]));
    expect(head.hasPixelData).toBe(Boolean(dict[PIXEL_DATA]));
  }
  // A dataset without pixel data: whole, it is read; a part of a longer file is not enough.
  const withoutPixels = explicitFile(withUids([el('00100010', 'PN', 'Doe^John')]));
  expect(readHead(withoutPixels, withoutPixels.length)?.hasPixelData).toBe(false);
  expect(readHead(withoutPixels, withoutPixels.length + 100)).toBeUndefined();
});
