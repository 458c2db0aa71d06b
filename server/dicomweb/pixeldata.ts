/**
 * Where the pixel data of a stored Part-10 file is, found by walking element headers
 * (values are skipped, never read): the offset and length of a native value, or the
 * items of an encapsulated one and which fragments make frame n. A frame of a 500 MB
 * multi-frame is then read as one byte range. Reads file storage; writes nothing.
 */
import type { Readable } from 'node:stream';
import type { FileStorage } from '../storage';

export const IMPLICIT_LITTLE = '1.2.840.10008.1.2';
export const EXPLICIT_LITTLE = '1.2.840.10008.1.2.1';
export const EXPLICIT_BIG = '1.2.840.10008.1.2.2';
const DEFLATED = '1.2.840.10008.1.2.1.99';
export const NATIVE_SYNTAXES = new Set([IMPLICIT_LITTLE, EXPLICIT_LITTLE, EXPLICIT_BIG]);

const UNDEFINED = 0xffffffff;
/** VRs with a 2-byte reserved field and a 4-byte length in explicit VR (PS3.5 7.1.2). */
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);
const WINDOW = 64 * 1024;

/** The stored file cannot be read the way a request needs (deflated, malformed, fragments without frame boundaries). */
export class PixelLayoutError extends Error {}

/** A stream's bytes, whole. */
export async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Random access to a file's bytes, as the header walks below read them. */
export interface ByteSource {
  readonly size: number;
  read(position: number, length: number): Promise<Buffer>;
}

/** A file already in memory (a whole instance being converted). */
export class BufferSource implements ByteSource {
  constructor(readonly bytes: Buffer) {}
  get size() {
    return this.bytes.length;
  }
  async read(position: number, length: number): Promise<Buffer> {
    if (position + length > this.bytes.length) throw new PixelLayoutError('read past the end of the file');
    return this.bytes.subarray(position, position + length);
  }
}

/** Random access to a stored file through a 64 KB window: header walks touch one or two windows. */
export class StoredFileReader implements ByteSource {
  private win: Buffer = Buffer.alloc(0);
  private winStart = 0;

  constructor(
    private readonly storage: FileStorage,
    readonly key: string,
    readonly size: number,
  ) {}

  async read(position: number, length: number): Promise<Buffer> {
    if (position >= this.winStart && position + length <= this.winStart + this.win.length) {
      return this.win.subarray(position - this.winStart, position - this.winStart + length);
    }
    if (position + length > this.size) throw new PixelLayoutError(`read past the end of ${this.key}`);
    const end = Math.min(this.size, position + Math.max(length, WINDOW)) - 1;
    this.win = await collect(await this.storage.get(this.key, { start: position, end }));
    this.winStart = position;
    if (this.win.length < length) throw new PixelLayoutError(`short read of ${this.key}`);
    return this.win.subarray(0, length);
  }

  /** Bytes start..start+length-1 as a stream (a frame), read when consumed. */
  stream(start: number, length: number): Promise<Readable> {
    return this.storage.get(this.key, { start, end: start + length - 1 });
  }
}

interface Header {
  tag: number;
  vr: string;
  length: number;
  headerLength: number;
}

interface Encoding {
  explicit: boolean;
  bigEndian: boolean;
}

async function readHeader(r: ByteSource, pos: number, enc: Encoding): Promise<Header> {
  const b = await r.read(pos, Math.min(12, r.size - pos));
  if (b.length < 8) throw new PixelLayoutError('truncated element header');
  const group = enc.bigEndian ? b.readUInt16BE(0) : b.readUInt16LE(0);
  const element = enc.bigEndian ? b.readUInt16BE(2) : b.readUInt16LE(2);
  const tag = ((group << 16) | element) >>> 0;
  const u32 = (at: number) => (enc.bigEndian ? b.readUInt32BE(at) : b.readUInt32LE(at));
  // Items and delimiters have no VR in any transfer syntax.
  if (group === 0xfffe || !enc.explicit) return { tag, vr: '', length: u32(4), headerLength: 8 };
  const vr = b.toString('latin1', 4, 6);
  if (LONG_VRS.has(vr)) {
    if (b.length < 12) throw new PixelLayoutError('truncated element header');
    return { tag, vr, length: u32(8), headerLength: 12 };
  }
  return { tag, vr, length: enc.bigEndian ? b.readUInt16BE(6) : b.readUInt16LE(6), headerLength: 8 };
}

const ITEM = 0xfffee000;
const ITEM_END = 0xfffee00d;
const SEQUENCE_END = 0xfffee0dd;
const PIXEL_DATA = 0x7fe00010;

/** The contents of an undefined-length UN value are implicit VR little endian (PS3.5 6.2.2). */
function nested(h: Header, enc: Encoding): Encoding {
  return h.vr === 'UN' ? { explicit: false, bigEndian: false } : enc;
}

async function skipSequence(r: ByteSource, pos: number, enc: Encoding): Promise<number> {
  for (;;) {
    const h = await readHeader(r, pos, { ...enc, explicit: false });
    if (h.tag === SEQUENCE_END) return pos + 8;
    if (h.tag !== ITEM) throw new PixelLayoutError(`expected an item at ${pos}`);
    pos = h.length === UNDEFINED ? await skipItem(r, pos + 8, enc) : pos + 8 + h.length;
  }
}

async function skipItem(r: ByteSource, pos: number, enc: Encoding): Promise<number> {
  for (;;) {
    const h = await readHeader(r, pos, enc);
    if (h.tag === ITEM_END) return pos + 8;
    pos = h.length === UNDEFINED ? await skipSequence(r, pos + h.headerLength, nested(h, enc)) : pos + h.headerLength + h.length;
  }
}

export interface PixelDataLocation {
  transferSyntaxUid: string;
  /** First byte of the value (native) or of the Basic Offset Table item (encapsulated). */
  offset: number;
  /** Bytes of a native value; -1 when encapsulated. */
  length: number;
}

/** Finds the top-level Pixel Data element; undefined when the dataset has none (SR, PDF). */
export async function locatePixelData(r: ByteSource, transferSyntaxUid: string): Promise<PixelDataLocation | undefined> {
  if (transferSyntaxUid === DEFLATED) throw new PixelLayoutError('deflated datasets are not read by range');
  let pos = 0;
  if (r.size >= 132 && (await r.read(128, 4)).toString('latin1') === 'DICM') pos = 132;
  // The meta group is always explicit VR little endian.
  const meta: Encoding = { explicit: true, bigEndian: false };
  while (pos + 8 <= r.size) {
    const h = await readHeader(r, pos, meta);
    if (h.tag >>> 16 !== 0x0002) break;
    pos += h.headerLength + h.length;
  }
  const enc: Encoding = { explicit: transferSyntaxUid !== IMPLICIT_LITTLE, bigEndian: transferSyntaxUid === EXPLICIT_BIG };
  while (pos + 8 <= r.size) {
    const h = await readHeader(r, pos, enc);
    if (h.tag === PIXEL_DATA) return { transferSyntaxUid, offset: pos + h.headerLength, length: h.length === UNDEFINED ? -1 : h.length };
    if (h.tag > PIXEL_DATA) return undefined; // trailing padding and the like
    pos = h.length === UNDEFINED ? await skipSequence(r, pos + h.headerLength, nested(h, enc)) : pos + h.headerLength + h.length;
  }
  return undefined;
}

export interface Fragment {
  /** File offset of the fragment's bytes. */
  offset: number;
  length: number;
}

const LE: Encoding = { explicit: false, bigEndian: false };

/** Fragments from `pos` until the sequence delimiter or `until` (an item offset), with their first two bytes. */
async function walkFragments(r: ByteSource, pos: number, until = Number.POSITIVE_INFINITY): Promise<Array<Fragment & { marker: number }>> {
  const out: Array<Fragment & { marker: number }> = [];
  while (pos < until) {
    const h = await readHeader(r, pos, LE);
    if (h.tag === SEQUENCE_END) break;
    if (h.tag !== ITEM || h.length === UNDEFINED) throw new PixelLayoutError(`expected a fragment at ${pos}`);
    const marker = h.length >= 2 ? (await r.read(pos + 8, 2)).readUInt16BE(0) : 0;
    out.push({ offset: pos + 8, length: h.length, marker });
    pos += 8 + h.length;
  }
  return out;
}

/** Where an encapsulated value ends: the byte after its sequence delimiter. */
export async function encapsulatedEnd(r: ByteSource, at: PixelDataLocation): Promise<number> {
  const all = await walkFragments(r, at.offset);
  const last = all[all.length - 1];
  const end = last.offset + last.length;
  if ((await readHeader(r, end, LE)).tag !== SEQUENCE_END) throw new PixelLayoutError('encapsulated pixel data without its sequence delimiter');
  return end + 8;
}

/** Markers a compressed frame's first fragment starts with: JPEG and JPEG-LS SOI, a JPEG 2000 codestream's SOC. */
const FRAME_STARTS = new Set([0xffd8, 0xff4f]);

/**
 * The fragments of frame `index` (0-based) of an encapsulated value of `frames`
 * frames: by the Basic Offset Table when there is one, else one fragment per frame
 * when the counts agree, else split where a fragment starts a new codestream.
 */
export async function encapsulatedFrame(r: ByteSource, at: PixelDataLocation, index: number, frames: number): Promise<Fragment[]> {
  const bot = await readHeader(r, at.offset, LE);
  if (bot.tag !== ITEM || bot.length === UNDEFINED) throw new PixelLayoutError('encapsulated pixel data without a Basic Offset Table item');
  const first = at.offset + 8 + bot.length;
  if (frames <= 1) return walkFragments(r, first);
  if (bot.length >= frames * 4) {
    const table = await r.read(at.offset + 8, bot.length);
    const start = first + table.readUInt32LE(index * 4);
    const end = index + 1 < frames ? first + table.readUInt32LE((index + 1) * 4) : Number.POSITIVE_INFINITY;
    return walkFragments(r, start, end);
  }
  const all = await walkFragments(r, first);
  if (all.length === frames) return [all[index]];
  const groups: Fragment[][] = [];
  for (const f of all) {
    if (FRAME_STARTS.has(f.marker) || !groups.length) groups.push([f]);
    else groups[groups.length - 1].push(f);
  }
  if (groups.length !== frames) throw new PixelLayoutError(`cannot tell the ${frames} frames apart in ${all.length} fragments`);
  return groups[index];
}
