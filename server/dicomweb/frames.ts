/**
 * Frames of a stored instance as WADO-RS sends them: the bytes of a
 * native frame (little endian, read as one range of the file), or the fragments of a
 * compressed one with its media type. Also the Image Pixel module of an instance, from
 * its stored metadata. Reads file storage only.
 */
import type { Readable } from 'node:stream';
import type { FileStorage } from '../storage';
import { int, str, type DicomJson } from '../pacs/dicomFile';
import { TAG } from './dictionary';
import { DicomWebError } from './errors';
import { EXPLICIT_BIG, EXPLICIT_LITTLE, NATIVE_SYNTAXES, PixelLayoutError, StoredFileReader, encapsulatedFrame, locatePixelData } from './pixeldata';
import { notFound, type InstanceRow } from './resources';

/** Media types of compressed frames by transfer syntax (the image media types PS3.18 names for them). */
const FRAME_MEDIA_TYPES: Record<string, string> = {
  '1.2.840.10008.1.2.4.50': 'image/jpeg',
  '1.2.840.10008.1.2.4.51': 'image/jpeg',
  '1.2.840.10008.1.2.4.57': 'image/jpeg',
  '1.2.840.10008.1.2.4.70': 'image/jpeg',
  '1.2.840.10008.1.2.4.80': 'image/jls',
  '1.2.840.10008.1.2.4.81': 'image/jls',
  '1.2.840.10008.1.2.4.90': 'image/jp2',
  '1.2.840.10008.1.2.4.91': 'image/jp2',
  '1.2.840.10008.1.2.4.92': 'image/jpx',
  '1.2.840.10008.1.2.4.93': 'image/jpx',
  '1.2.840.10008.1.2.4.201': 'image/jphc',
  '1.2.840.10008.1.2.4.202': 'image/jphc',
  '1.2.840.10008.1.2.4.203': 'image/jphc',
  '1.2.840.10008.1.2.5': 'image/dicom-rle',
};

export const JPEG_BASELINE = '1.2.840.10008.1.2.4.50';

/** The media type a frame of this transfer syntax is sent as by default. */
export function frameMediaType(transferSyntaxUid: string): string {
  if (NATIVE_SYNTAXES.has(transferSyntaxUid)) return 'application/octet-stream';
  return FRAME_MEDIA_TYPES[transferSyntaxUid] ?? 'application/octet-stream';
}

export interface PixelModule {
  rows: number;
  columns: number;
  samplesPerPixel: number;
  bitsAllocated: number;
  bitsStored: number;
  highBit: number;
  pixelRepresentation: number;
  photometric: string;
  planarConfiguration: number;
  frames: number;
  slope: number;
  intercept: number;
  windowCenter?: number;
  windowWidth?: number;
}

function num(json: DicomJson, tag: string): number | undefined {
  const v = json[tag]?.Value?.[0];
  const n = typeof v === 'number' ? v : Number.parseFloat(String(v ?? ''));
  return Number.isFinite(n) ? n : undefined;
}

export function pixelModule(meta: DicomJson): PixelModule {
  const rows = int(meta, TAG.Rows);
  const columns = int(meta, TAG.Columns);
  if (!rows || !columns) throw notFound();
  const bitsAllocated = int(meta, TAG.BitsAllocated) ?? 8;
  const bitsStored = int(meta, TAG.BitsStored) ?? bitsAllocated;
  return {
    rows,
    columns,
    samplesPerPixel: int(meta, TAG.SamplesPerPixel) ?? 1,
    bitsAllocated,
    bitsStored,
    highBit: int(meta, TAG.HighBit) ?? bitsStored - 1,
    pixelRepresentation: int(meta, TAG.PixelRepresentation) ?? 0,
    photometric: str(meta, TAG.PhotometricInterpretation) || 'MONOCHROME2',
    planarConfiguration: int(meta, TAG.PlanarConfiguration) ?? 0,
    frames: Math.max(1, int(meta, TAG.NumberOfFrames) ?? 1),
    slope: num(meta, TAG.RescaleSlope) ?? 1,
    intercept: num(meta, TAG.RescaleIntercept) ?? 0,
    windowCenter: num(meta, TAG.WindowCenter),
    windowWidth: num(meta, TAG.WindowWidth),
  };
}

/** Bytes of one native frame (bit-packed 1-bit frames only when they end on a byte). */
export function nativeFrameBytes(pm: PixelModule): number {
  const bits = pm.rows * pm.columns * pm.samplesPerPixel * pm.bitsAllocated;
  if (bits % 8) throw new DicomWebError(406, 'Frames of bit-packed pixel data that do not end on a byte boundary are not available.');
  return bits / 8;
}

export interface FrameSource {
  /** 1-based. */
  number: number;
  transferSyntaxUid: string;
  encapsulated: boolean;
  /** The frame's bytes, opened when the response reaches it. */
  open(): Promise<AsyncIterable<Buffer> | Iterable<Buffer>>;
}

/** "1,3" → [1, 3], each within the instance's frames (404 otherwise). */
export function parseFrameList(text: string, frames: number): number[] {
  if (!/^\d{1,9}(,\d{1,9})*$/.test(text)) throw new DicomWebError(400, `Invalid frame list: ${text}`);
  const numbers = text.split(',').map(Number);
  if (numbers.some((n) => n < 1 || n > frames)) throw notFound();
  return numbers;
}

function swap16(frame: Buffer): Buffer {
  const out = Buffer.from(frame);
  out.swap16();
  return out;
}

async function* concat(streams: Array<() => Promise<Readable>>): AsyncGenerator<Buffer> {
  for (const open of streams) for await (const chunk of await open()) yield chunk as Buffer;
}

/**
 * Where the requested frames are in the stored file: found once per request (one
 * header walk), each frame read only when sent.
 */
export async function frameSources(storage: FileStorage, instance: InstanceRow, pm: PixelModule, numbers: number[]): Promise<FrameSource[]> {
  const reader = new StoredFileReader(storage, instance.fileKey, instance.fileSize);
  const at = await locatePixelData(reader, instance.transferSyntaxUid).catch((e) => {
    if (e instanceof PixelLayoutError) throw new DicomWebError(406, `The stored pixel data cannot be read as frames: ${e.message}`);
    throw e;
  });
  if (!at) throw notFound();
  const ts = instance.transferSyntaxUid;
  if (at.length >= 0) {
    const size = nativeFrameBytes(pm);
    return numbers.map((n) => {
      const start = at.offset + (n - 1) * size;
      if (start + size > at.offset + at.length) throw new DicomWebError(404, `Frame ${n} is beyond the stored pixel data.`);
      return {
        number: n,
        transferSyntaxUid: EXPLICIT_LITTLE,
        encapsulated: false,
        async open() {
          // Frames go out little endian; a big-endian file's 16-bit samples are swapped.
          if (ts === EXPLICIT_BIG && pm.bitsAllocated === 16) {
            const chunks: Buffer[] = [];
            for await (const c of await reader.stream(start, size)) chunks.push(c as Buffer);
            return [swap16(Buffer.concat(chunks))];
          }
          return concat([() => reader.stream(start, size)]);
        },
      };
    });
  }
  const sources: FrameSource[] = [];
  for (const n of numbers) {
    let fragments;
    try {
      fragments = await encapsulatedFrame(reader, at, n - 1, pm.frames);
    } catch (e) {
      if (e instanceof PixelLayoutError) throw new DicomWebError(406, `Frame ${n} cannot be located: ${e.message}`);
      throw e;
    }
    sources.push({
      number: n,
      transferSyntaxUid: ts,
      encapsulated: true,
      open: async () => concat(fragments.filter((f) => f.length > 0).map((f) => () => reader.stream(f.offset, f.length))),
    });
  }
  return sources;
}

/** A frame's bytes in memory (rendering needs them whole; one frame is small). */
export async function readFrame(source: FrameSource): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await source.open()) chunks.push(c);
  return Buffer.concat(chunks);
}
