/**
 * DICOM RLE Lossless (1.2.840.10008.1.2.5, PS3.5 Annex G): a frame is a 64-byte header
 * (segment count and offsets) and PackBits segments, one per byte of each sample: for
 * each sample, its most significant byte first (G.2). Decoded to native little endian
 * samples, interleaved by pixel or by plane as the dataset's Planar Configuration says.
 * Pure: a frame's bytes in, native bytes out.
 */

export class RleError extends Error {}

export interface RleLayout {
  rows: number;
  columns: number;
  samplesPerPixel: number;
  bitsAllocated: number;
  /** 0: c0 c1 c2 per pixel; 1: one plane per sample. */
  planarConfiguration: number;
}

/** G.3.2: PackBits. Writes `out.length` bytes (a segment may end with a pad byte). */
function unpack(src: Uint8Array, start: number, end: number, out: Uint8Array) {
  let pos = start;
  let o = 0;
  while (o < out.length && pos < end) {
    const n = src[pos++];
    if (n < 128) {
      // n + 1 literal bytes
      const count = Math.min(n + 1, out.length - o, end - pos);
      out.set(src.subarray(pos, pos + count), o);
      o += count;
      pos += n + 1;
    } else if (n > 128) {
      // the next byte 257 - n times
      const count = Math.min(257 - n, out.length - o);
      out.fill(src[pos++], o, o + count);
      o += count;
    } // 128 (-128): no operation
  }
  if (o < out.length) throw new RleError(`an RLE segment decodes to ${o} bytes, not ${out.length}`);
}

export function decodeRle(frame: Uint8Array, layout: RleLayout): Buffer {
  const { rows, columns, samplesPerPixel: samples, bitsAllocated } = layout;
  if (bitsAllocated % 8) throw new RleError(`${bitsAllocated}-bit samples are not byte segments`);
  const bytes = bitsAllocated / 8;
  const pixels = rows * columns;
  if (frame.length < 64) throw new RleError('an RLE frame shorter than its header');
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const count = view.getUint32(0, true);
  if (count !== samples * bytes) throw new RleError(`${count} RLE segments where ${samples} samples of ${bytes} bytes need ${samples * bytes}`);
  const offsets = Array.from({ length: count }, (_, k) => view.getUint32(4 + k * 4, true));
  const out = Buffer.alloc(pixels * samples * bytes);
  const segment = new Uint8Array(pixels);
  for (let k = 0; k < count; k++) {
    const start = offsets[k];
    const end = k + 1 < count ? offsets[k + 1] : frame.length;
    if (start < 64 || end > frame.length || end < start) throw new RleError(`RLE segment ${k + 1} is outside the frame`);
    unpack(frame, start, end, segment);
    const sample = Math.floor(k / bytes);
    // Segments go most significant byte first; native samples are little endian.
    const byte = bytes - 1 - (k % bytes);
    if (layout.planarConfiguration === 1) {
      const base = sample * pixels * bytes + byte;
      for (let i = 0; i < pixels; i++) out[base + i * bytes] = segment[i];
    } else {
      const step = samples * bytes;
      const base = sample * bytes + byte;
      for (let i = 0; i < pixels; i++) out[base + i * step] = segment[i];
    }
  }
  return out;
}
