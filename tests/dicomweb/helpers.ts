/**
 * What the DICOMweb tests build and read: multipart bodies (as a client sends them and
 * as the server answers), instances mock/dicom.ts does not make (multi-frame in
 * implicit VR, a JPEG baseline encapsulated one), and the pixels of a PNG.
 */
import zlib from 'node:zlib';
import * as dcmjs from 'dcmjs';
import { encodeJpeg } from '../../server/lib/jpeg';

const { DicomDict, DicomMetaDictionary } = dcmjs.data;

export function multipartBody(parts: Array<{ body: Buffer; type?: string }>, boundary = 'test-5f1c9a-boundary'): { payload: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Type: ${p.type ?? 'application/dicom'}\r\n\r\n`));
    chunks.push(p.body, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/related; type="application/dicom"; boundary=${boundary}` };
}

export interface ReceivedPart {
  headers: Record<string, string>;
  body: Buffer;
}

export function parseMultipart(body: Buffer, contentType: string): ReceivedPart[] {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (!boundary) throw new Error(`no boundary in ${contentType}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const parts: ReceivedPart[] = [];
  let pos = body.indexOf(`--${boundary}`) + boundary.length + 2;
  for (;;) {
    if (body.subarray(pos, pos + 2).toString() === '--') return parts;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    const headers = Object.fromEntries(
      body
        .subarray(pos + 2, headerEnd)
        .toString()
        .split('\r\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const next = body.indexOf(delimiter, headerEnd + 4);
    if (next < 0) throw new Error('multipart body without its close delimiter');
    parts.push({ headers, body: body.subarray(headerEnd + 4, next) });
    pos = next + delimiter.length;
  }
}

function part10(dataset: Record<string, unknown>, transferSyntaxUid: string, pixelData?: { vr: string; value: ArrayBuffer }): Buffer {
  const meta = {
    FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
    MediaStorageSOPClassUID: dataset.SOPClassUID,
    MediaStorageSOPInstanceUID: dataset.SOPInstanceUID,
    TransferSyntaxUID: transferSyntaxUid,
    ImplementationClassUID: '1.2.826.0.1.3680043.10.1082.98',
    ImplementationVersionName: 'RCLOUD_TEST',
  };
  const dict = new DicomDict(DicomMetaDictionary.denaturalizeDataset(meta));
  dict.dict = DicomMetaDictionary.denaturalizeDataset(dataset);
  if (pixelData) dict.dict['7FE00010'] = { vr: pixelData.vr, Value: [pixelData.value] };
  return Buffer.from(dict.write());
}

function baseDataset(uidRoot: string, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    SpecificCharacterSet: 'ISO_IR 192',
    SOPClassUID: '1.2.840.10008.5.1.4.1.1.7',
    SOPInstanceUID: `${uidRoot}.1.1.1`,
    StudyInstanceUID: `${uidRoot}.1`,
    SeriesInstanceUID: `${uidRoot}.1.1`,
    StudyDate: '20261001',
    StudyTime: '080000',
    Modality: 'OT',
    PatientName: [{ Alphabetic: 'Zhao^Liu', Ideographic: '赵六' }],
    PatientID: 'DWFRAMES',
    AccessionNumber: '',
    StudyID: '1',
    SeriesNumber: '1',
    InstanceNumber: '1',
    // Sequences are written with undefined lengths: the pixel data locator walks past them.
    ReferencedStudySequence: [{ ReferencedSOPClassUID: '1.2.840.10008.3.1.2.3.1', ReferencedSOPInstanceUID: `${uidRoot}.9` }],
    ...extra,
  };
}

/** A native multi-frame instance in implicit VR little endian: frame k's pixels are all 100·k + position. */
export function multiFrameInstance(uidRoot: string, frames: number, rows: number, columns: number) {
  const pixels = new Uint16Array(frames * rows * columns);
  for (let f = 0; f < frames; f++) for (let i = 0; i < rows * columns; i++) pixels[f * rows * columns + i] = 100 * (f + 1) + (i % 50);
  const bytes = part10(
    baseDataset(uidRoot, {
      NumberOfFrames: String(frames),
      SamplesPerPixel: 1,
      PhotometricInterpretation: 'MONOCHROME2',
      Rows: rows,
      Columns: columns,
      BitsAllocated: 16,
      BitsStored: 16,
      HighBit: 15,
      PixelRepresentation: 0,
    }),
    '1.2.840.10008.1.2',
    { vr: 'OW', value: pixels.buffer },
  );
  const frameBytes = (k: number) => Buffer.from(pixels.buffer, (k - 1) * rows * columns * 2, rows * columns * 2);
  return { studyUid: `${uidRoot}.1`, seriesUid: `${uidRoot}.1.1`, sopInstanceUid: `${uidRoot}.1.1.1`, bytes, frameBytes };
}

/**
 * A JPEG baseline (1.2.840.10008.1.2.4.50) grayscale instance: the dataset written by
 * dcmjs, the encapsulated pixel data (empty offset table, one fragment) appended.
 */
export function jpegInstance(uidRoot: string, rows: number, columns: number) {
  const gray = new Uint8Array(rows * columns);
  for (let y = 0; y < rows; y++) for (let x = 0; x < columns; x++) gray[y * columns + x] = (x * 4 + y * 2) & 0xff;
  const jpeg = encodeJpeg(columns, rows, 1, gray, 90);
  const dataset = part10(
    baseDataset(uidRoot, {
      SamplesPerPixel: 1,
      PhotometricInterpretation: 'MONOCHROME2',
      Rows: rows,
      Columns: columns,
      BitsAllocated: 8,
      BitsStored: 8,
      HighBit: 7,
      PixelRepresentation: 0,
      PatientID: 'DWJPEG',
    }),
    '1.2.840.10008.1.2.4.50',
  );
  const fragment = jpeg.length % 2 ? Buffer.concat([jpeg, Buffer.from([0])]) : jpeg;
  const item = (data: Buffer) => {
    const head = Buffer.from([0xfe, 0xff, 0x00, 0xe0, 0, 0, 0, 0]);
    head.writeUInt32LE(data.length, 4);
    return Buffer.concat([head, data]);
  };
  const pixelHeader = Buffer.from([0xe0, 0x7f, 0x10, 0x00, 0x4f, 0x42, 0, 0, 0xff, 0xff, 0xff, 0xff]);
  const bytes = Buffer.concat([dataset, pixelHeader, item(Buffer.alloc(0)), item(fragment), Buffer.from([0xfe, 0xff, 0xdd, 0xe0, 0, 0, 0, 0])]);
  return { studyUid: `${uidRoot}.1`, seriesUid: `${uidRoot}.1.1`, sopInstanceUid: `${uidRoot}.1.1.1`, bytes, fragment };
}

/** Width, height, channels and pixels of a PNG from server/lib/png.ts (8-bit, filter 0 rows). */
export function decodePng(png: Buffer): { width: number; height: number; channels: number; pixels: Buffer } {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const channels = ({ 0: 1, 2: 3, 6: 4 } as Record<number, number>)[png[25]];
  const idat: Buffer[] = [];
  for (let pos = 8; pos < png.length; ) {
    const len = png.readUInt32BE(pos);
    if (png.toString('ascii', pos + 4, pos + 8) === 'IDAT') idat.push(png.subarray(pos + 8, pos + 8 + len));
    pos += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    if (raw[y * (stride + 1)] !== 0) throw new Error('decodePng reads unfiltered rows only');
    raw.copy(pixels, y * stride, y * (stride + 1) + 1, (y + 1) * (stride + 1));
  }
  return { width, height, channels, pixels };
}

export interface NativeImage {
  bitsAllocated: 8 | 16;
  bitsStored?: number;
  samplesPerPixel: 1 | 3;
  planarConfiguration?: 0 | 1;
  frames: number;
  rows: number;
  columns: number;
}

/**
 * A native instance in Explicit VR Little Endian whose pixels are hard to compress
 * losslessly: smooth ramps, every seventh sample noise over the whole stored range,
 * and jumps of exactly half the 16-bit range (the JPEG difference category 16).
 */
export function nativeInstance(uidRoot: string, image: NativeImage) {
  const { bitsAllocated, samplesPerPixel, frames, rows, columns } = image;
  const bitsStored = image.bitsStored ?? bitsAllocated;
  const perFrame = rows * columns * samplesPerPixel;
  const samples = bitsAllocated === 8 ? new Uint8Array(perFrame * frames) : new Uint16Array(perFrame * frames);
  const range = 2 ** bitsStored;
  let seed = 20261126;
  for (let i = 0; i < samples.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const x = Math.floor(i / samplesPerPixel) % columns;
    const y = Math.floor(i / samplesPerPixel / columns) % rows;
    const ramp = (x * 37 + y * 11 + Math.floor(i / perFrame) * 101) % range;
    samples[i] = i % 7 === 0 ? seed % range : bitsStored === 16 && x === 1 && y % 3 === 0 ? (samples[i - samplesPerPixel] + 32768) % range : ramp;
  }
  const bytes = part10(
    baseDataset(uidRoot, {
      SOPClassUID: '1.2.840.10008.5.1.4.1.1.7',
      NumberOfFrames: String(frames),
      SamplesPerPixel: samplesPerPixel,
      PhotometricInterpretation: samplesPerPixel === 3 ? 'RGB' : 'MONOCHROME2',
      ...(samplesPerPixel === 3 ? { PlanarConfiguration: image.planarConfiguration ?? 0 } : {}),
      Rows: rows,
      Columns: columns,
      BitsAllocated: bitsAllocated,
      BitsStored: bitsStored,
      HighBit: bitsStored - 1,
      PixelRepresentation: 0,
      PatientID: 'DWCODEC',
    }),
    '1.2.840.10008.1.2.1',
    { vr: bitsAllocated === 8 ? 'OB' : 'OW', value: samples.buffer as ArrayBuffer },
  );
  const frameSize = perFrame * (bitsAllocated / 8);
  const frameBytes = (k: number) => Buffer.from(samples.buffer, (k - 1) * frameSize, frameSize);
  return { studyUid: `${uidRoot}.1`, seriesUid: `${uidRoot}.1.1`, sopInstanceUid: `${uidRoot}.1.1.1`, bytes, frameBytes };
}
