/**
 * The compressed transfer syntaxes the server decodes, one entry each: a frame's
 * encapsulated bytes (its fragments joined) to the native little endian bytes of that
 * frame as the Image Pixel module describes them. WADO-RS sends such frames
 * uncompressed, renders them and converts whole instances to Explicit VR Little Endian.
 * A syntax missing here is sent only as stored (406 otherwise). Pure.
 */
import os from 'node:os';
import { DicomWebError } from '../errors';
import type { PixelModule } from '../frames';
import { decodeJpegLossless, JpegLosslessError } from './jpegLossless';
import { decodeRle, RleError } from './rle';

type Decoder = (frame: Buffer, pm: PixelModule) => Buffer;

/** Lossless JPEG samples as native ones: one byte each up to 8 bits allocated, else two. */
function jpegLossless(frame: Buffer, pm: PixelModule): Buffer {
  const img = decodeJpegLossless(frame);
  if (img.width !== pm.columns || img.height !== pm.rows || img.components !== pm.samplesPerPixel) {
    throw new DicomWebError(500, `The JPEG frame is ${img.width}×${img.height}×${img.components}, the dataset says ${pm.columns}×${pm.rows}×${pm.samplesPerPixel}.`);
  }
  if (pm.bitsAllocated === 8) return Buffer.from(Uint8Array.from(img.samples));
  if (pm.bitsAllocated !== 16) throw new DicomWebError(406, `JPEG lossless frames of ${pm.bitsAllocated} bits allocated are not decoded.`);
  // The samples' own memory is little endian on a little-endian machine: no copy then.
  if (os.endianness() === 'LE') return Buffer.from(img.samples.buffer, img.samples.byteOffset, img.samples.byteLength);
  const out = Buffer.alloc(img.samples.length * 2);
  for (let i = 0; i < img.samples.length; i++) out.writeUInt16LE(img.samples[i], i * 2);
  return out;
}

function rle(frame: Buffer, pm: PixelModule): Buffer {
  return decodeRle(frame, pm);
}

export const DECODERS: Record<string, Decoder> = {
  '1.2.840.10008.1.2.4.57': jpegLossless, // JPEG Lossless, process 14, any predictor
  '1.2.840.10008.1.2.4.70': jpegLossless, // JPEG Lossless, process 14, selection value 1
  '1.2.840.10008.1.2.5': rle, // RLE Lossless
};

export const canDecode = (transferSyntaxUid: string): boolean => transferSyntaxUid in DECODERS;

/** A compressed frame's native bytes; a corrupt frame is the stored data's fault (500). */
export function decodeFrame(transferSyntaxUid: string, frame: Buffer, pm: PixelModule): Buffer {
  const decoder = DECODERS[transferSyntaxUid];
  if (!decoder) throw new DicomWebError(406, `Pixel data stored as ${transferSyntaxUid} is not decoded on this server.`);
  try {
    return decoder(frame, pm);
  } catch (e) {
    if (e instanceof JpegLosslessError || e instanceof RleError) throw new DicomWebError(500, `The stored ${transferSyntaxUid} frame cannot be decoded: ${e.message}`);
    throw e;
  }
}
