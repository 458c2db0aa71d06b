/**
 * A small PNG encoder (8-bit grayscale, RGB or RGBA, no filtering, zlib deflate):
 * enough for rendered DICOM frames, thumbnails and the demo pictures of mock/, so
 * neither needs an image library. Pure: bytes in, bytes out.
 */
import zlib from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, sum]);
}

const COLOR_TYPE = { 1: 0, 3: 2, 4: 6 } as const;

/**
 * Encodes `pixels` (row-major, `channels` samples of 8 bits per pixel, no padding)
 * as a PNG. `level` is zlib's compression level (default: zlib's default).
 */
export function encodePng(width: number, height: number, channels: 1 | 3 | 4, pixels: Uint8Array, level?: number): Buffer {
  const stride = width * channels;
  if (pixels.length < stride * height) throw new Error(`encodePng: ${pixels.length} bytes for ${width}x${height}x${channels}`);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = COLOR_TYPE[channels];
  // Each scanline starts with its filter type; 0 (none) keeps encoding a copy.
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (stride + 1)] = 0;
    raw.set(pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, level === undefined ? {} : { level })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
