/**
 * A direct reader of the common Part-10 header: preamble, "DICM", the meta group and the
 * dataset up to its pixel data, in explicit or implicit VR little endian. It gives what
 * dcmjs 0.52's DicomMessage.readFile gives dicomFile.ts (`meta` and `dict`, the same keys
 * in the same order, the same values), several times faster: dcmjs spends its time in
 * stream objects and proxies, not in the bytes. Values are formatted by dcmjs's own VR
 * objects (applyFormatting, dropPadByte); what is read here is the layout.
 *
 * Whatever it is not sure to read exactly as dcmjs does (big endian, deflate, a character
 * set other than the default, Latin-1 or UTF-8, an odd length, a value past the bytes
 * given, anything malformed) makes it answer undefined, and dcmjs reads the file as
 * before; it never throws. tests/unit/datasetReader.test.ts holds it to dcmjs. It reads
 * the buffer and dcmjs's tables and touches nothing else (two bounded memos of its own).
 */
import * as dcmjs from 'dcmjs';

const { DicomMetaDictionary, ValueRepresentation } = dcmjs.data;
const encodingMapping: Record<string, string> = dcmjs.constants.encodingMapping;

/** An attribute as dcmjs's dict holds it: its VR and the values dcmjs makes of its bytes. */
export interface DcmjsElement {
  vr: string | undefined;
  Value: unknown;
}
export type DcmjsDict = Record<string, DcmjsElement>;

/** DicomMessage.readFile's `meta` and `dict`, as far as dicomFile.ts reads them. */
export interface ReadDataset {
  meta: DcmjsDict;
  dict: DcmjsDict;
}

/** dcmjs's VR objects, by type (its VRinstances, which it does not export). */
type VrObject = { isLength32(): boolean; applyFormatting(value: unknown): unknown; dropPadByte<T>(values: T): T };

/** What the reader needs of a VR: dcmjs's object for it and how its bytes are laid out. */
interface VrInfo {
  vr: string;
  rep: VrObject;
  /** In explicit VR, a 32-bit length after two reserved bytes (dcmjs's isLength32). */
  long: boolean;
  /** Bytes per value of a binary number (0 for the others). */
  size: number;
  /** Bytes handed out as they are. */
  bytes: boolean;
  /** Text dcmjs decodes with the character set (readEncodedString); other strings are one character per byte. */
  encoded: boolean;
}

const VR_TYPES = ['AE', 'AS', 'AT', 'CS', 'DA', 'DS', 'DT', 'FL', 'FD', 'IS', 'LO', 'LT', 'OB', 'OD', 'OF', 'OW', 'PN', 'SH', 'SL', 'SQ', 'SS', 'ST', 'TM', 'UC', 'UI', 'UL', 'UN', 'UR', 'US', 'UT', 'UV'];
const NUMBER_SIZE: Record<string, number> = { US: 2, SS: 2, UL: 4, SL: 4, FL: 4, FD: 8, AT: 4, UV: 8 };
const VRS: Record<string, VrInfo> = Object.fromEntries(
  VR_TYPES.map((vr) => {
    const rep: VrObject = ValueRepresentation.createByTypeString(vr);
    const info: VrInfo = { vr, rep, long: rep.isLength32(), size: NUMBER_SIZE[vr] ?? 0, bytes: ['OB', 'OD', 'OF', 'OW', 'UN'].includes(vr), encoded: ['LO', 'LT', 'PN', 'SH', 'ST', 'UC', 'UT'].includes(vr) };
    return [vr, info];
  }),
);
/**
 * Explicit VRs read here, by their two bytes (little endian). dcmjs reads any other as
 * UN (OL, OV, SV: its own VR says UN) or gives a BigInt, which JSON cannot hold (UV).
 */
const EXPLICIT = new Map(VR_TYPES.filter((vr) => vr !== 'UV').map((vr) => [vr.charCodeAt(0) | (vr.charCodeAt(1) << 8), VRS[vr]]));

const UNDEFINED_LENGTH = 0xffffffff;
const ITEM = 0xe000;
const ITEM_END = 0xe00d;
const SEQUENCE_END = 0xe0dd;
const CHARSET = '00080005';
const PIXEL_DATA = '7FE00010';
const IMPLICIT_VR_LITTLE_ENDIAN = '1.2.840.10008.1.2';
const EXPLICIT_VR_BIG_ENDIAN = '1.2.840.10008.1.2.2';
const DEFLATED_EXPLICIT_VR_LITTLE_ENDIAN = '1.2.840.10008.1.2.1.99';

/** dcmjs's first decoder of every stream (the dataset's before (0008,0005), each item's, the meta group's). */
const LATIN1 = new TextDecoder('latin1');
/** The decoders of the character sets read here, by dcmjs's label for them. */
const DECODERS = new Map(['iso-8859-1', 'latin1', 'utf-8'].map((label) => [label, new TextDecoder(label)]));
const NON_ASCII = /[^\x00-\x7f]/;
/**
 * Bytes turned into text at a time: one conversion serves the short values that follow
 * (a conversion costs as much as reading several elements). Values of 13 characters or
 * more are slices of it and keep it alive while they live: about a header's own size.
 */
const TEXT_WINDOW = 2048;

/**
 * Memos by tag (group << 16 | element): its key in dcmjs's dict, and its dictionary VR
 * (null: not in the dictionary, which the archive never adds to). Bounded: a dataset of
 * made-up private tags only makes the reader compute them again.
 */
const MEMO_MAX = 20_000;
const KEYS = new Map<number, string>();
const DICTIONARY_VRS = new Map<number, string | null>();

function keyOf(tag: number): string {
  let key = KEYS.get(tag);
  if (key === undefined) {
    key = tag.toString(16).toUpperCase().padStart(8, '0');
    if (KEYS.size < MEMO_MAX) KEYS.set(tag, key);
  }
  return key;
}

/** The VR dcmjs's dictionary gives a tag, as DicomMessage.lookupTag finds it ("(GGGG,EEEE)"). */
function dictionaryVr(tag: number, key: string): string | null {
  let vr = DICTIONARY_VRS.get(tag);
  if (vr === undefined) {
    vr = (DicomMetaDictionary.dictionary[`(${key.slice(0, 4)},${key.slice(4)})`]?.vr as string | undefined) || null;
    if (DICTIONARY_VRS.size < MEMO_MAX) DICTIONARY_VRS.set(tag, vr);
  }
  return vr;
}

/** Where the reader stops being sure; readDataset turns it into undefined. */
const UNSURE = new Error('not read here');
function unsure(): never {
  throw UNSURE;
}

/** Where a run of elements is: the meta group, the dataset itself, or an item of a sequence. */
type Level = 'meta' | 'top' | 'item';

class Reader {
  implicit = false;
  /** The bytes from `charsAt` as text, one character per byte (see latin1). */
  private chars = '';
  private charsAt = 0;

  constructor(private readonly buf: Buffer) {}

  private u16(at: number): number {
    return this.buf[at] | (this.buf[at + 1] << 8);
  }

  private u32(at: number): number {
    return this.buf.readUInt32LE(at);
  }

  /**
   * The elements from `at` to exactly `end`; at the top level, up to the pixel data's
   * tag (dcmjs's untilTag: its value is not read, the tag is recorded).
   */
  elements(at: number, end: number, level: Level): DcmjsDict {
    const { buf } = this;
    const dict: DcmjsDict = {};
    let decoder = LATIN1;
    while (at < end) {
      if (at + 4 > end) unsure();
      const group = this.u16(at);
      const tag = group * 0x10000 + this.u16(at + 2);
      const key = keyOf(tag);
      if (level === 'top' && key === PIXEL_DATA) {
        dict[key] = { vr: undefined, Value: 0 };
        return dict;
      }
      // Items and delimiters only in sequences, the meta group only before the dataset.
      if (group === 0xfffe || (level === 'meta') !== (group === 2)) unsure();
      if (at + 8 > end) unsure();
      let info: VrInfo | undefined;
      let length: number;
      let valueAt: number;
      if (this.implicit && level !== 'meta') {
        length = this.u32(at + 4);
        valueAt = at + 8;
        info = implicitVr(tag, key, length);
      } else {
        info = EXPLICIT.get(this.u16(at + 4));
        // dcmjs reads a UN value of a tag it knows as the dictionary's VR.
        if (!info || (info.vr === 'UN' && dictionaryVr(tag, key))) unsure();
        if (info.long) {
          if (at + 12 > end) unsure();
          length = this.u32(at + 8);
          valueAt = at + 12;
        } else {
          length = this.u16(at + 6);
          valueAt = at + 8;
        }
      }
      const { vr } = info;
      if (vr === 'SQ') {
        const { items, next } = this.sequence(valueAt, length, end);
        dict[key] = { vr, Value: items };
        at = next;
        continue;
      }
      if (length === UNDEFINED_LENGTH || length % 2 === 1 || valueAt + length > end) unsure();
      let values = this.values(info, valueAt, valueAt + length, decoder, level);
      if (key === CHARSET) {
        decoder = charsetDecoder(vr, values, level);
        // dcmjs's dict declares UTF-8 whatever was read: its text is Unicode from here on.
        values = ['ISO_IR 192'];
      }
      dict[key] = { vr, Value: values };
      at = valueAt + length;
    }
    return dict;
  }

  /**
   * A sequence's items, as dcmjs reads them: an item of length zero, or of undefined
   * length with nothing before its delimiter, is left out.
   */
  private sequence(at: number, length: number, end: number): { items: DcmjsDict[]; next: number } {
    const items: DcmjsDict[] = [];
    if (length === 0) return { items, next: at };
    const defined = length !== UNDEFINED_LENGTH;
    const bound = defined ? at + length : end;
    if (bound > end) unsure();
    for (;;) {
      if (at + 8 > bound || this.u16(at) !== 0xfffe) unsure();
      const tag = this.u16(at + 2);
      const itemLength = this.u32(at + 4);
      at += 8;
      if (tag === SEQUENCE_END) {
        if (defined || itemLength !== 0) unsure();
        return { items, next: at };
      }
      if (tag !== ITEM) unsure();
      const contentEnd = itemLength === UNDEFINED_LENGTH ? this.undefinedItemEnd(at, end) : at + itemLength;
      const next = itemLength === UNDEFINED_LENGTH ? contentEnd + 8 : contentEnd;
      if (next > bound) unsure();
      if (contentEnd > at) items.push(this.elements(at, contentEnd, 'item'));
      at = next;
      if (defined && at === bound) return { items, next: at };
    }
  }

  /**
   * Where an item of undefined length ends, found the way dcmjs finds it: not by reading
   * its elements but by looking at each 16-bit word from its start for an item
   * delimitation (FFFE,E00D) with a zero length, counting the items of undefined length
   * opened meanwhile. Value bytes that look like those tags mislead it; reading the same
   * way gives the same item (or an item whose elements do not fit, refused).
   */
  private undefinedItemEnd(at: number, end: number): number {
    let depth = 0;
    for (;;) {
      if (at + 2 > end) unsure();
      if (this.u16(at) !== 0xfffe) {
        at += 2;
        continue;
      }
      if (at + 8 > end) unsure();
      const tag = this.u16(at + 2);
      const length = this.u32(at + 4);
      if (tag === ITEM_END) {
        // A delimiter with a length moves dcmjs by more than it counts: its item goes wrong.
        if (length !== 0) unsure();
        if (--depth < 0) return at;
        at += 4;
      } else if (tag === ITEM) {
        if (length === UNDEFINED_LENGTH) depth++;
        at += 4;
      } else {
        at += 2;
      }
    }
  }

  /** The values of an element other than a sequence, as DicomMessage._readTag makes them. */
  private values(info: VrInfo, at: number, end: number, decoder: TextDecoder, level: Level): unknown[] {
    const { buf } = this;
    const { vr, rep, size } = info;
    if (size) {
      if (vr === 'UV') unsure();
      // An empty value is dcmjs's default for the VR, without formatting: 0, none for AT.
      if (at === end) return [vr === 'AT' ? undefined : 0];
      if ((end - at) % size) unsure();
      const numbers: number[] = [];
      for (let p = at; p < end; p += size) numbers.push(readNumber(buf, vr, p));
      return numbers;
    }
    if (info.bytes) {
      // dcmjs reads the dataset with noCopy, which hands out Uint8Arrays; the meta group
      // and items are streams of their own, which hand out ArrayBuffers. Only the latter
      // are InlineBinary to toDicomJson: the difference is kept.
      return [level === 'top' ? buf.subarray(at, end) : buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + end)];
    }
    let raw: unknown;
    if (info.encoded) {
      const text = this.latin1(at, end);
      const decoded = NON_ASCII.test(text) ? decoder.decode(buf.subarray(at, end)) : text;
      // PersonName drops one trailing pad character, the other VRs trim when formatting.
      raw = vr === 'PN' && (!decoded || decoded.endsWith(' ')) ? decoded.slice(0, -1) : decoded;
    } else if (vr === 'UI') {
      // A trailing NUL pad goes; backslashes part several UIDs.
      const text = this.latin1(at, end > at && buf[end - 1] === 0 ? end - 1 : end);
      raw = text.includes('\\') ? rep.dropPadByte(text.split('\\')) : text;
    } else {
      const text = this.latin1(at, end);
      // CS, DS and IS are split into values before they are formatted, the others after.
      raw = vr === 'CS' || vr === 'DS' || vr === 'IS' ? rep.dropPadByte(split(text)) : text;
    }
    const formatted = rep.applyFormatting(raw);
    // LT is one value, backslashes included; ST and UT are split like the others.
    if (vr === 'LT') return [formatted];
    return typeof formatted === 'string' ? rep.dropPadByte(split(formatted)) : (formatted as unknown[]);
  }

  /** The bytes as text, one character per byte (dcmjs's readAsciiString), from a window converted at once. */
  private latin1(at: number, end: number): string {
    if (at < this.charsAt || end > this.charsAt + this.chars.length) {
      this.charsAt = at;
      this.chars = this.buf.toString('latin1', at, Math.min(this.buf.length, Math.max(end, at + TEXT_WINDOW)));
    }
    return this.chars.slice(at - this.charsAt, end - this.charsAt);
  }
}

/** A string's values (most have one, and need no array built by split). */
function split(text: string): string[] {
  return text.includes('\\') ? text.split('\\') : [text];
}

function readNumber(buf: Buffer, vr: string, at: number): number {
  switch (vr) {
    case 'US':
      return buf.readUInt16LE(at);
    case 'SS':
      return buf.readInt16LE(at);
    case 'UL':
      return buf.readUInt32LE(at);
    case 'SL':
      return buf.readInt32LE(at);
    case 'FL':
      return buf.readFloatLE(at);
    case 'FD':
      return buf.readDoubleLE(at);
    default:
      // AT: group and element as one number, as dcmjs's Tag holds them.
      return ((buf.readUInt16LE(at) << 16) | buf.readUInt16LE(at + 2)) >>> 0;
  }
}

/**
 * The VR dcmjs gives an element of an implicit VR dataset (DicomMessage._readTag): the
 * dictionary's; for a tag it does not know, SQ when of undefined length, LO for a
 * private creator, UN otherwise. Its "OB or OW" reads as OW, "US or SS" as US, any VR
 * it has no class for as UN (ValueRepresentation.createByTypeString).
 */
function implicitVr(tag: number, key: string, length: number): VrInfo {
  let type = dictionaryVr(tag, key);
  if (!type) {
    const group = tag >>> 16;
    const element = tag & 0xffff;
    type = length === UNDEFINED_LENGTH ? 'SQ' : key === PIXEL_DATA ? 'OW' : group % 2 === 1 && element > 0 && element < 0x100 ? 'LO' : 'UN';
  }
  if (type === 'ox') return VRS.OW;
  if (type === 'xs') return VRS.US;
  return VRS[type] ?? VRS.UN;
}

/**
 * The decoder dcmjs takes for the rest of the dataset from (0008,0005): one term, one
 * of the character sets that need no decoding beyond the text decoder's. An item's own
 * (0008,0005) switches dcmjs's decoder for that item only: not read here.
 */
function charsetDecoder(vr: string, values: unknown[], level: Level): TextDecoder {
  if (level !== 'top' || vr !== 'CS' || values.length !== 1) unsure();
  const coding = String(values[0]).replace(/[_ ]/g, '-').toLowerCase();
  const decoder = Object.hasOwn(encodingMapping, coding) ? DECODERS.get(encodingMapping[coding]) : undefined;
  return decoder ?? unsure();
}

function read(buf: Buffer): ReadDataset {
  const reader = new Reader(buf);
  // Preamble, "DICM", then the meta group's length: (0002,0000) UL of 4 bytes.
  if (buf.length < 144 || buf.toString('latin1', 128, 140) !== 'DICM\x02\x00\x00\x00UL\x04\x00') unsure();
  const metaEnd = 144 + buf.readUInt32LE(140);
  if (metaEnd > buf.length) unsure();
  const meta = reader.elements(144, metaEnd, 'meta');
  const syntax = (meta['00020010']?.Value as unknown[] | undefined)?.[0];
  if (typeof syntax !== 'string' || !syntax || syntax === EXPLICIT_VR_BIG_ENDIAN || syntax === DEFLATED_EXPLICIT_VR_LITTLE_ENDIAN) unsure();
  // dcmjs reads every other syntax's dataset (compressed ones up to their pixel data) as explicit VR little endian.
  reader.implicit = syntax === IMPLICIT_VR_LITTLE_ENDIAN;
  return { meta, dict: reader.elements(metaEnd, buf.length, 'top') };
}

/**
 * A Part-10 buffer's meta group and dataset up to its pixel data, as dcmjs reads them
 * with untilTag (7FE0,0010) and noCopy, or undefined for anything this reader does not
 * read exactly as dcmjs does (dcmjs then reads it, and decides what is wrong).
 */
export function readDataset(buffer: Buffer): ReadDataset | undefined {
  try {
    return read(buffer);
  } catch {
    return undefined;
  }
}
