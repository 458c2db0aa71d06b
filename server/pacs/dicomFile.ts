/**
 * DICOM Part-10 files as the archive sees them: the meta header written in front of a
 * dataset received over the network, the header of a stored file read without its
 * pixel data (a 500 MB multi-frame is never loaded to be indexed), a check that the
 * file is whole, and the dataset as DICOM JSON (PS3.18 F.2) without bulk data.
 */
import fsp from 'node:fs/promises';
import * as dcmjs from 'dcmjs';
import { decodeDataset, decodesHere, findCharsetValue } from './charset';
import { readDataset } from './datasetReader';

const { DicomMessage } = dcmjs.data;
// dcmjs warns on every private or unknown tag it meets; the archive reports what matters itself.
dcmjs.log?.setLevel?.('error');

export const IMPLEMENTATION_CLASS_UID = '1.2.826.0.1.3680043.10.1082.100';
export const IMPLEMENTATION_VERSION = 'RCLOUD_1';
const PIXEL_DATA = '7FE00010';
/** Binary values up to this size go inline (InlineBinary); larger ones are bulk data. */
const INLINE_BINARY_MAX = 256;
/** Whole-file parse limit for datasets without pixel data (SR, encapsulated PDF). */
const FULL_PARSE_MAX = 256 * 1024 * 1024;

/**
 * A malformed, truncated or incomplete dataset: refused with a DICOM failure status or a
 * 4xx. `instance`: its SOP Class and Instance UIDs when its header could be read (the
 * pixel data cut short), for a STOW-RS failure item that names it.
 */
export class InvalidDicomError extends Error {
  constructor(
    message: string,
    readonly instance?: Pick<DicomHeader, 'sopClassUid' | 'sopInstanceUid'>,
  ) {
    super(message);
  }
}

function element(group: number, elementNo: number, vr: string, value: Buffer): Buffer {
  const long = ['OB', 'OW', 'SQ', 'UN', 'UT', 'UC', 'UR'].includes(vr);
  const head = Buffer.alloc(long ? 12 : 8);
  head.writeUInt16LE(group, 0);
  head.writeUInt16LE(elementNo, 2);
  head.write(vr, 4, 'latin1');
  if (long) head.writeUInt32LE(value.length, 8);
  else head.writeUInt16LE(value.length, 6);
  return Buffer.concat([head, value]);
}

/** A UID value padded to even length with NUL, a text value with a space. */
function padded(value: string, pad: '\0' | ' '): Buffer {
  return Buffer.from(value.length % 2 ? value + pad : value, 'latin1');
}

/**
 * Preamble, "DICM" and the File Meta Information group (explicit VR little endian)
 * for a dataset encoded in `transferSyntaxUid`: written before the received bytes so
 * the stored file is a complete Part-10 file.
 */
export function part10Prefix(sopClassUid: string, sopInstanceUid: string, transferSyntaxUid: string): Buffer {
  const group = Buffer.concat([
    element(2, 0x0001, 'OB', Buffer.from([0, 1])),
    element(2, 0x0002, 'UI', padded(sopClassUid, '\0')),
    element(2, 0x0003, 'UI', padded(sopInstanceUid, '\0')),
    element(2, 0x0010, 'UI', padded(transferSyntaxUid, '\0')),
    element(2, 0x0012, 'UI', padded(IMPLEMENTATION_CLASS_UID, '\0')),
    element(2, 0x0013, 'SH', padded(IMPLEMENTATION_VERSION, ' ')),
  ]);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(group.length);
  return Buffer.concat([Buffer.alloc(128), Buffer.from('DICM', 'latin1'), element(2, 0x0000, 'UL', length), group]);
}

/** DICOM JSON attributes: tag (8 hex digits, upper case) → { vr, Value?, InlineBinary? }. */
export type DicomJson = Record<string, { vr: string; Value?: unknown[]; InlineBinary?: string; BulkDataURI?: string }>;

function binaryValue(values: unknown[]): Buffer | undefined {
  const parts = values.filter((v): v is ArrayBuffer => v instanceof ArrayBuffer).map((v) => Buffer.from(v));
  return parts.length ? Buffer.concat(parts) : undefined;
}

const TEXT_VRS = new Set(['SH', 'LO', 'ST', 'LT', 'UT', 'UC', 'PN']);
const BINARY_VRS = new Set(['OB', 'OW', 'OF', 'OD', 'OL', 'OV', 'UN']);

/**
 * dcmjs (0.52) decodes text inside sequence items byte by byte, whatever the Specific
 * Character Set: UTF-8 names and code meanings come out as one character per byte.
 * Such a string is re-read as UTF-8 when it only holds byte-sized characters and
 * decodes cleanly, so a later dcmjs that decodes right is left alone.
 */
export function utf8Again(value: string): string {
  if (!/[\u0080-\u00ff]/.test(value) || /[^\u0000-\u00ff]/.test(value)) return value;
  const decoded = Buffer.from(value, 'latin1').toString('utf8');
  return decoded.includes('\ufffd') ? value : decoded;
}

function fixText(vr: string, value: unknown): unknown {
  if (typeof value === 'string') return utf8Again(value);
  if (vr === 'PN' && value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? utf8Again(v) : v]));
  }
  return value;
}

/**
 * dcmjs's dictionary → DICOM JSON, sequences recursively, large binary values left
 * out. `nestedUtf8`: inside an item of a UTF-8 dataset (see utf8Again).
 */
export function toDicomJson(dict: Record<string, any>, nestedUtf8 = false): DicomJson {
  const out: DicomJson = {};
  const utf8 = nestedUtf8 || String(dict['00080005']?.Value?.[0] ?? '').includes('192');
  // Object.keys, not Object.entries: the same keys in the same order without an array
  // per attribute, which was a third of a small header's time once read directly.
  for (const tag of Object.keys(dict)) {
    if (tag === PIXEL_DATA) continue;
    const entry = dict[tag];
    const vr: string = entry.vr;
    const values: unknown[] = Array.isArray(entry.Value) ? entry.Value : [];
    if (vr === 'SQ') {
      out[tag] = values.length ? { vr, Value: values.map((item) => toDicomJson(item as Record<string, any>, utf8)) } : { vr };
    } else if (BINARY_VRS.has(vr)) {
      const bytes = binaryValue(values);
      out[tag] = bytes && bytes.length <= INLINE_BINARY_MAX ? { vr, InlineBinary: bytes.toString('base64') } : { vr };
    } else {
      let kept = values.filter((v) => v !== '' && v !== null && v !== undefined);
      if (nestedUtf8 && TEXT_VRS.has(vr)) kept = kept.map((v) => fixText(vr, v));
      out[tag] = kept.length ? { vr, Value: kept } : { vr };
    }
  }
  return out;
}

/** First value of an attribute as a string ('' when absent); person names give their alphabetic and ideographic parts. */
export function str(json: DicomJson, tag: string): string {
  const value = json[tag]?.Value?.[0];
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') {
    const pn = value as { Alphabetic?: string; Ideographic?: string };
    return [pn.Alphabetic, pn.Ideographic].filter(Boolean).join('=');
  }
  return String(value).trim();
}

export function int(json: DicomJson, tag: string): number | undefined {
  const text = str(json, tag);
  const n = Number.parseInt(text, 10);
  return Number.isFinite(n) ? n : undefined;
}

export interface DicomHeader {
  transferSyntaxUid: string;
  sopClassUid: string;
  sopInstanceUid: string;
  studyUid: string;
  seriesUid: string;
  /** Every attribute but pixel data, as DICOM JSON. */
  json: DicomJson;
}

const EXPLICIT_VR_BIG_ENDIAN = '1.2.840.10008.1.2.2';
const IMPLICIT_VR_LITTLE_ENDIAN = '1.2.840.10008.1.2';
const NATIVE_SYNTAXES = new Set([IMPLICIT_VR_LITTLE_ENDIAN, '1.2.840.10008.1.2.1', EXPLICIT_VR_BIG_ENDIAN]);

/** dcmjs's strict parse of a Part-10 buffer: what datasetReader.ts must read alike (its test compares them). */
export function readWithDcmjs(input: Buffer, stopAtPixels: boolean): { meta: Record<string, any>; dict: Record<string, any> } {
  const ab = input.buffer.slice(input.byteOffset, input.byteOffset + input.length);
  const parsed = DicomMessage.readFile(ab, {
    ignoreErrors: false,
    untilTag: stopAtPixels ? PIXEL_DATA : null,
    includeUntilTagValue: false,
    noCopy: true,
  });
  return { meta: parsed.meta, dict: parsed.dict };
}

/**
 * The meta group and dataset. A header in a character set dcmjs decodes itself is read
 * directly when datasetReader.ts is sure to read it as dcmjs does (most are; dcmjs's
 * streams and proxies were most of a small instance's cost), else by dcmjs. A dataset in
 * a character set charset.ts decodes (a Chinese one, several terms, or none declared
 * and the sending device's default) is parsed by dcmjs from a copy whose (0008,0005) is
 * blanked, so it reads text one byte per character; `charset` then says how to decode it.
 */
function parse(buffer: Buffer, stopAtPixels: boolean, deviceCharset?: string | null): { meta: Record<string, any>; dict: Record<string, any>; charset?: string } {
  const declared = findCharsetValue(buffer);
  const charset = decodesHere(declared?.value, deviceCharset);
  if (!charset) return (stopAtPixels ? readDataset(buffer) : undefined) ?? readWithDcmjs(buffer, stopAtPixels);
  let input = buffer;
  if (declared) {
    input = Buffer.from(buffer);
    input.fill(0x20, declared.offset, declared.offset + declared.length);
  }
  return { ...readWithDcmjs(input, stopAtPixels), charset };
}

/** Explicit VRs whose length is 32 bits (after two reserved bytes). */
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);

/**
 * Whether `rest` is nothing but whole elements after the pixel data (trailing padding,
 * a digital signature: tags beyond 7FE0,0010), ending exactly at the end of the file.
 */
function onlyTrailingElements(rest: Buffer, implicit: boolean, bigEndian: boolean): boolean {
  let at = 0;
  while (at < rest.length) {
    if (at + 8 > rest.length) return false;
    const group = bigEndian ? rest.readUInt16BE(at) : rest.readUInt16LE(at);
    if (group < 0x7fe0) return false;
    let length: number;
    let header: number;
    if (implicit) {
      length = rest.readUInt32LE(at + 4);
      header = 8;
    } else {
      const vr = rest.toString('latin1', at + 4, at + 6);
      if (LONG_VRS.has(vr)) {
        if (at + 12 > rest.length) return false;
        length = bigEndian ? rest.readUInt32BE(at + 8) : rest.readUInt32LE(at + 8);
        header = 12;
      } else {
        length = bigEndian ? rest.readUInt16BE(at + 6) : rest.readUInt16LE(at + 6);
        header = 8;
      }
    }
    if (length === 0xffffffff) return false;
    at += header + length;
  }
  return at === rest.length;
}

/**
 * Where a header is read from: the file's size, its first bytes (the header of most
 * files fits in them), and a way to read any range. The listener keeps the first and
 * last bytes of what it received, so a received file is not read back to be indexed.
 */
export interface HeaderSource {
  size: number;
  head: Buffer;
  read(position: number, length: number): Promise<Buffer>;
}

/** The first bytes read of a file; more only when its header is longer. */
export const HEAD_BYTES = 64 * 1024;

/**
 * Whether the pixel data is whole. A native (uncompressed) value's element header is
 * in the bytes already read (parsing stopped at it); its length must reach the end of
 * the file, or whole trailing elements must. Pixel bytes that happen to look like the
 * tag do not also carry such a length. An encapsulated value ends with the sequence
 * delimitation item.
 */
async function pixelDataIsWhole(source: HeaderSource, head: Buffer, transferSyntaxUid: string): Promise<boolean> {
  const fileSize = source.size;
  if (!NATIVE_SYNTAXES.has(transferSyntaxUid)) {
    // FFFE,E0DD with a zero length, little endian.
    return fileSize >= 8 && (await source.read(fileSize - 8, 8)).equals(Buffer.from([0xfe, 0xff, 0xdd, 0xe0, 0, 0, 0, 0]));
  }
  const bigEndian = transferSyntaxUid === EXPLICIT_VR_BIG_ENDIAN;
  const implicit = transferSyntaxUid === IMPLICIT_VR_LITTLE_ENDIAN;
  const tag = bigEndian ? Buffer.from([0x7f, 0xe0, 0x00, 0x10]) : Buffer.from([0xe0, 0x7f, 0x10, 0x00]);
  const headerLength = implicit ? 8 : 12;
  for (let at = head.indexOf(tag, 132); at >= 0; at = head.indexOf(tag, at + 1)) {
    if (at + headerLength > head.length) break;
    const length = implicit ? head.readUInt32LE(at + 4) : bigEndian ? head.readUInt32BE(at + 8) : head.readUInt32LE(at + 8);
    const end = at + headerLength + length;
    if (end === fileSize) return true;
    if (end < fileSize && fileSize - end <= 1024 * 1024 && onlyTrailingElements(await source.read(end, fileSize - end), implicit, bigEndian)) return true;
  }
  return false;
}

async function readRange(handle: fsp.FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/**
 * Reads and checks a Part-10 file's header: required UIDs present, dataset parseable,
 * pixel data (when present) complete. Reads the first 64 KB, more only when the header
 * is longer; a file without pixel data is parsed whole (up to 256 MB).
 */
export async function readDicomHeader(path: string, deviceCharset?: string | null): Promise<DicomHeader> {
  const handle = await fsp.open(path, 'r');
  try {
    const { size } = await handle.stat();
    const head = await readRange(handle, 0, Math.min(size, HEAD_BYTES));
    return await parseDicomHeader({ size, head, read: (position, length) => readRange(handle, position, length) }, undefined, deviceCharset);
  } finally {
    await handle.close();
  }
}

/** A header read from a file's first bytes: the bytes it was read from hold the pixel data's element header. */
export interface HeadHeader {
  header: DicomHeader;
  bytes: Buffer;
  hasPixelData: boolean;
}

/**
 * The header in the first bytes of a file of `size` bytes (Infinity while the size is
 * not known yet: a file still arriving), or undefined when it goes on past them.
 * Throws InvalidDicomError for a header that cannot be archived. The pixel data is
 * not checked here (parseDicomHeader does, once the file is whole).
 */
export function readHead(head: Buffer, size: number, deviceCharset?: string | null): HeadHeader | undefined {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(head, true, deviceCharset);
  } catch (e) {
    if (head.length >= size) throw new InvalidDicomError(`unreadable dataset: ${(e as Error).message}`);
    return undefined;
  }
  const hasPixelData = Boolean(parsed.dict[PIXEL_DATA]);
  // Stopped early without reaching pixel data: the header is longer than these bytes
  // unless they are the whole file.
  if (!hasPixelData && head.length < size) return undefined;
  const { meta, dict } = parsed;
  const transferSyntaxUid = String(meta['00020010']?.Value?.[0] ?? '').replace(/\0/g, '').trim();
  if (!transferSyntaxUid) throw new InvalidDicomError('no transfer syntax in the meta header');
  let json: DicomJson;
  if (parsed.charset) {
    delete dict['00080005'];
    json = toDicomJson(dict);
    decodeDataset(json, parsed.charset);
    // Decoded: the archive's JSON is Unicode, as for every other dataset dcmjs reads.
    json['00080005'] = { vr: 'CS', Value: ['ISO_IR 192'] };
  } else {
    json = toDicomJson(dict);
  }
  const header: DicomHeader = {
    transferSyntaxUid,
    sopClassUid: str(json, '00080016') || String(meta['00020002']?.Value?.[0] ?? '').trim(),
    sopInstanceUid: str(json, '00080018') || String(meta['00020003']?.Value?.[0] ?? '').trim(),
    studyUid: str(json, '0020000D'),
    seriesUid: str(json, '0020000E'),
    json,
  };
  for (const key of ['sopClassUid', 'sopInstanceUid', 'studyUid', 'seriesUid'] as const) {
    if (!header[key]) throw new InvalidDicomError(`missing ${key}`);
    if (header[key].length > 64 || !/^[0-9.]+$/.test(header[key])) throw new InvalidDicomError(`invalid ${key}`);
  }
  return { header, bytes: head, hasPixelData };
}

/**
 * readDicomHeader's checks on a file given by a HeaderSource; `read` is the header
 * already read from the file's first bytes (the listener reads it while the rest of
 * the file arrives).
 */
export async function parseDicomHeader(source: HeaderSource, read?: HeadHeader, deviceCharset?: string | null): Promise<DicomHeader> {
  const { size } = source;
  if (size < 132) throw new InvalidDicomError('file too short for a DICOM header');
  let found = read;
  // Headers are a few KB; a long private sequence or an icon makes one longer.
  for (let head = source.head.subarray(0, Math.min(size, HEAD_BYTES)); !found; ) {
    found = readHead(head, size, deviceCharset);
    if (found) break;
    const more = Math.min(size, head.length * 4);
    if (more > FULL_PARSE_MAX) throw new InvalidDicomError('header larger than 256 MB');
    head = source.head.length >= more ? source.head.subarray(0, more) : await source.read(0, more);
  }
  if (found.hasPixelData && !(await pixelDataIsWhole(source, found.bytes, found.header.transferSyntaxUid))) {
    const { sopClassUid, sopInstanceUid } = found.header;
    throw new InvalidDicomError('pixel data truncated', { sopClassUid, sopInstanceUid });
  }
  return found.header;
}
