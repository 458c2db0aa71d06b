/**
 * Deterministic pictures for demo data and tests, encoded here so nothing is fetched:
 * a PNG signature (white, one dark pen stroke) of any size.
 */
import zlib from 'node:zlib';

/** A PNG of the given size: white, with a dark pen stroke across (a stand-in for a signature). */
export function signaturePng(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const raw = Buffer.alloc((width * 3 + 1) * height, 0xff);
  for (let y = 0; y < height; y++) raw[y * (width * 3 + 1)] = 0; // filter: none
  for (let x = 10; x < width - 10; x++) {
    const yc = Math.round(height / 2 + (height / 4) * Math.sin(x / 14) * Math.cos(x / 47));
    for (let dy = -1; dy <= 1; dy++) {
      const at = (yc + dy) * (width * 3 + 1) + 1 + x * 3;
      raw[at] = 0x1f;
      raw[at + 1] = 0x2a;
      raw[at + 2] = 0x44;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
