/**
 * Implicit VR Little Endian → Explicit VR Little Endian, the transfer syntax WADO-RS
 * answers in by default (PS3.18 8.7.3.5.2). Both are little endian with the same value
 * bytes: only each element header changes, given the VR the data dictionary names for
 * its tag (PS3.5 7.1.2; ambiguous VRs take the dictionary's first, pixel data is OW as
 * Annex A.1 defines it for implicit VR). No value is decoded or re-encoded, so a
 * character set is carried over as it was. Sequences and items are written with
 * undefined lengths, which spares recomputing lengths that the longer headers change.
 * Compressed data of a syntax ./codecs decodes (lossless: the values are the same)
 * gets its frames decoded into a native Pixel Data value; the rest of its explicit VR
 * little endian dataset is copied as it is.
 * Pure: a Part-10 file in, a Part-10 file out.
 */
import { canDecode, decodeFrame } from './codecs';
import { vrOf } from './dictionary';
import type { PixelModule } from './frames';
import { BufferSource, EXPLICIT_LITTLE, IMPLICIT_LITTLE, PixelLayoutError, encapsulatedEnd, encapsulatedFrame, locatePixelData } from './pixeldata';

const UNDEFINED = 0xffffffff;
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);
const PIXEL_DATA = '7FE00010';
const ITEM = 0xe000;
const ITEM_END = 0xe00d;
const SEQUENCE_END = 0xe0dd;

/** Whether a file stored in `stored` can be sent in `wanted` by this module. */
export function canTranscode(stored: string, wanted: string): boolean {
  return wanted === EXPLICIT_LITTLE && (stored === IMPLICIT_LITTLE || canDecode(stored));
}

function header(group: number, element: number, vr: string | null, length: number): Buffer {
  if (vr === null) {
    const b = Buffer.alloc(8);
    b.writeUInt16LE(group, 0);
    b.writeUInt16LE(element, 2);
    b.writeUInt32LE(length, 4);
    return b;
  }
  const long = LONG_VRS.has(vr);
  const b = Buffer.alloc(long ? 12 : 8);
  b.writeUInt16LE(group, 0);
  b.writeUInt16LE(element, 2);
  b.write(vr, 4, 'latin1');
  if (long) b.writeUInt32LE(length, 8);
  else b.writeUInt16LE(length, 6);
  return b;
}

const hex = (group: number, element: number) => (group.toString(16).padStart(4, '0') + element.toString(16).padStart(4, '0')).toUpperCase();

class Converter {
  readonly out: Buffer[] = [];

  constructor(private readonly src: Buffer) {}

  private need(pos: number, n: number) {
    if (pos + n > this.src.length) throw new PixelLayoutError('the stored file ends inside an element');
  }

  /** Elements from `pos` up to `end`, or up to an item delimiter when `end` is undefined; returns the position after. */
  dataset(pos: number, end: number | undefined): number {
    while (end === undefined || pos < end) {
      this.need(pos, 8);
      const group = this.src.readUInt16LE(pos);
      const element = this.src.readUInt16LE(pos + 2);
      const length = this.src.readUInt32LE(pos + 4);
      pos += 8;
      if (group === 0xfffe && element === ITEM_END) {
        if (end === undefined) return pos;
        continue;
      }
      const tag = hex(group, element);
      let vr = element === 0 ? 'UL' : tag === PIXEL_DATA ? 'OW' : vrOf(tag);
      // An undefined length in implicit VR is a sequence whatever the dictionary says (PS3.5 6.2.2).
      if (vr === 'SQ' || length === UNDEFINED) {
        this.out.push(header(group, element, 'SQ', UNDEFINED));
        pos = this.sequence(pos, length);
        this.out.push(header(0xfffe, SEQUENCE_END, null, 0));
        continue;
      }
      this.need(pos, length);
      if (!LONG_VRS.has(vr) && length > 0xffff) vr = 'UN';
      this.out.push(header(group, element, vr, length), this.src.subarray(pos, pos + length));
      pos += length;
    }
    return pos;
  }

  private sequence(pos: number, length: number): number {
    const end = length === UNDEFINED ? undefined : pos + length;
    while (end === undefined || pos < end) {
      this.need(pos, 8);
      const group = this.src.readUInt16LE(pos);
      const element = this.src.readUInt16LE(pos + 2);
      const itemLength = this.src.readUInt32LE(pos + 4);
      pos += 8;
      if (group === 0xfffe && element === SEQUENCE_END) return pos;
      if (group !== 0xfffe || element !== ITEM) throw new PixelLayoutError(`an item was expected in a sequence, not (${hex(group, element)})`);
      this.out.push(header(0xfffe, ITEM, null, UNDEFINED));
      pos = this.dataset(pos, itemLength === UNDEFINED ? undefined : pos + itemLength);
      this.out.push(header(0xfffe, ITEM_END, null, 0));
    }
    return pos;
  }
}

/** The file meta group with its Transfer Syntax UID replaced and its group length recomputed. */
function metaGroup(src: Buffer, transferSyntaxUid: string): { meta: Buffer; end: number } {
  if (src.length < 132 || src.toString('latin1', 128, 132) !== 'DICM') throw new PixelLayoutError('not a Part-10 file');
  const elements: Buffer[] = [];
  let pos = 132;
  while (pos + 8 <= src.length && src.readUInt16LE(pos) === 0x0002) {
    const element = src.readUInt16LE(pos + 2);
    const vr = src.toString('latin1', pos + 4, pos + 6);
    const long = LONG_VRS.has(vr);
    const length = long ? src.readUInt32LE(pos + 8) : src.readUInt16LE(pos + 6);
    const size = (long ? 12 : 8) + length;
    if (element === 0x0010) {
      const value = Buffer.from(transferSyntaxUid.length % 2 ? `${transferSyntaxUid}\0` : transferSyntaxUid, 'latin1');
      elements.push(header(0x0002, 0x0010, 'UI', value.length), value);
    } else if (element !== 0x0000) elements.push(src.subarray(pos, pos + size));
    pos += size;
  }
  const body = Buffer.concat(elements);
  const groupLength = Buffer.concat([header(0x0002, 0x0000, 'UL', 4), Buffer.alloc(4)]);
  groupLength.writeUInt32LE(body.length, 8);
  return { meta: Buffer.concat([src.subarray(0, 132), groupLength, body]), end: pos };
}

/** A Part-10 file stored in Implicit VR Little Endian, rewritten in Explicit VR Little Endian. */
export function implicitToExplicit(file: Buffer): Buffer {
  const { meta, end } = metaGroup(file, EXPLICIT_LITTLE);
  const converter = new Converter(file);
  converter.dataset(end, file.length);
  return Buffer.concat([meta, ...converter.out]);
}

/** A Part-10 file of a compressed syntax ./codecs decodes, rewritten in Explicit VR Little Endian with native pixel data. */
export async function decompressToExplicit(file: Buffer, transferSyntaxUid: string, pm: PixelModule | undefined): Promise<Buffer> {
  const { meta, end } = metaGroup(file, EXPLICIT_LITTLE);
  const src = new BufferSource(file);
  const at = await locatePixelData(src, transferSyntaxUid);
  if (!at) return Buffer.concat([meta, file.subarray(end)]);
  if (at.length >= 0) throw new PixelLayoutError(`pixel data of a ${transferSyntaxUid} file is not encapsulated`);
  if (!pm) throw new PixelLayoutError('pixel data in an instance indexed without an image pixel module');
  const frames: Buffer[] = [];
  for (let n = 0; n < pm.frames; n++) {
    const fragments = await encapsulatedFrame(src, at, n, pm.frames);
    frames.push(decodeFrame(transferSyntaxUid, Buffer.concat(fragments.map((f) => file.subarray(f.offset, f.offset + f.length))), pm));
  }
  let length = frames.reduce((n, f) => n + f.length, 0);
  if (length % 2) {
    frames.push(Buffer.alloc(1)); // values have an even length
    length++;
  }
  // The encapsulated value's header is OB with an undefined length: 12 bytes before its offset table.
  return Buffer.concat([
    meta,
    file.subarray(end, at.offset - 12),
    header(0x7fe0, 0x0010, pm.bitsAllocated > 8 ? 'OW' : 'OB', length),
    ...frames,
    file.subarray(await encapsulatedEnd(src, at)),
  ]);
}
