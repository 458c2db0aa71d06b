/**
 * The DICOMweb decoders on streams dcmtk does not write (tests/dicomweb/codecs.test.ts
 * covers dcmtk's own files):
 * - JPEG lossless with restart intervals (each interval starts as the scan does), made
 *   by a small selection-value-1 encoder here, 16-bit samples with differences of every
 *   category (32768 included) and 8-bit ones
 * - a corrupt JPEG stream and an RLE frame whose segments come short are errors, not pixels
 * - RLE: PackBits runs, literals and the -128 no-op, a segment's pad byte, 16-bit
 *   samples from their two segments (most significant first)
 */
import { decodeJpegLossless, JpegLosslessError } from '../../server/dicomweb/codecs/jpegLossless';
import { decodeRle, RleError } from '../../server/dicomweb/codecs/rle';

/** JPEG lossless, one component, predictor 1, one Huffman table (every category a 5-bit code), restart every `linesPerInterval` lines. */
function encodeSv1(samples: number[], width: number, height: number, precision: number, linesPerInterval = 0): Buffer {
  const out: number[] = [0xff, 0xd8];
  const segment = (marker: number, body: number[]) => out.push(0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body);
  segment(0xc3, [precision, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0]);
  const bits = new Array(16).fill(0);
  bits[4] = 17;
  segment(0xc4, [0x00, ...bits, ...Array.from({ length: 17 }, (_, k) => k)]);
  if (linesPerInterval) segment(0xdd, [(width * linesPerInterval) >> 8, (width * linesPerInterval) & 0xff]);
  segment(0xda, [1, 1, 0x00, 1, 0, 0]);
  let acc = 0;
  let n = 0;
  const put = (value: number, count: number) => {
    for (let b = count - 1; b >= 0; b--) {
      acc = (acc << 1) | ((value >> b) & 1);
      if (++n === 8) {
        out.push(acc);
        if (acc === 0xff) out.push(0);
        acc = 0;
        n = 0;
      }
    }
  };
  const flush = () => {
    if (n) put(0xff, 8 - n); // pad with ones
  };
  let restarts = 0;
  for (let y = 0; y < height; y++) {
    const first = y === 0 || (linesPerInterval > 0 && y % linesPerInterval === 0);
    if (y > 0 && first) {
      flush();
      out.push(0xff, 0xd0 + (restarts++ % 8));
    }
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const predicted = first ? (x === 0 ? 1 << (precision - 1) : samples[i - 1]) : x === 0 ? samples[i - width] : samples[i - 1];
      let diff = (samples[i] - predicted) & 0xffff;
      if (diff > 32768) diff -= 65536;
      const ssss = diff === 0 ? 0 : diff === 32768 ? 16 : Math.floor(Math.log2(Math.abs(diff))) + 1;
      put(ssss, 5);
      if (ssss > 0 && ssss < 16) put(diff > 0 ? diff : diff + (1 << ssss) - 1, ssss);
    }
  }
  flush();
  out.push(0xff, 0xd9);
  return Buffer.from(out);
}

function image(width: number, height: number, precision: number): number[] {
  let seed = 7;
  return Array.from({ length: width * height }, (_, i) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    // Noise, a ramp and half-range jumps: differences of every size, both signs.
    if (i % 5 === 0) return seed % 2 ** precision;
    if (precision === 16 && i % 11 === 1) return i % 2 ? 32768 : 0;
    return (i * 13) % 2 ** precision;
  });
}

describe('JPEG lossless decoder', () => {
  test.each([
    [16, 0],
    [16, 1],
    [16, 3],
    [8, 2],
    [12, 0],
  ])('%i-bit samples, restart every %i lines: the encoded samples back', (precision, lines) => {
    const [width, height] = [23, 9];
    const samples = image(width, height, precision);
    const decoded = decodeJpegLossless(encodeSv1(samples, width, height, precision, lines));
    expect([decoded.width, decoded.height, decoded.components, decoded.precision]).toEqual([width, height, 1, precision]);
    expect(Array.from(decoded.samples)).toEqual(samples);
  });

  test('a stream that is not JPEG lossless is an error', () => {
    const good = encodeSv1(image(8, 4, 12), 8, 4, 12);
    expect(() => decodeJpegLossless(good.subarray(2))).toThrow(JpegLosslessError);
    const baseline = Buffer.from(good);
    baseline[3] = 0xc0; // SOF0 where SOF3 was
    expect(() => decodeJpegLossless(baseline)).toThrow(/not JPEG lossless/);
  });
});

describe('RLE decoder', () => {
  const header = (offsets: number[]) => {
    const b = Buffer.alloc(64);
    b.writeUInt32LE(offsets.length, 0);
    offsets.forEach((o, k) => b.writeUInt32LE(o, 4 + k * 4));
    return b;
  };

  test('runs, literals, the no-op and a pad byte; 16-bit samples from their two segments', () => {
    // Most significant bytes: 0x12 three times, then 0x01; least significant: 0xAB, 0xCD, 0xEF, 0x00.
    const high = Buffer.from([0xfe, 0x12, 0x80, 0x00, 0x01, 0x00]); // run of 3, no-op, literal of 1, pad
    const low = Buffer.from([0x03, 0xab, 0xcd, 0xef, 0x00]);
    const frame = Buffer.concat([header([64, 64 + high.length]), high, low]);
    const out = decodeRle(frame, { rows: 2, columns: 2, samplesPerPixel: 1, bitsAllocated: 16, planarConfiguration: 0 });
    expect([0, 1, 2, 3].map((i) => out.readUInt16LE(i * 2))).toEqual([0x12ab, 0x12cd, 0x12ef, 0x0100]);
  });

  test('colour by pixel or by plane as the dataset says', () => {
    const planes = [Buffer.from([0x01, 1, 2]), Buffer.from([0x01, 3, 4]), Buffer.from([0x01, 5, 6])];
    const frame = Buffer.concat([header([64, 67, 70]), ...planes]);
    const layout = { rows: 1, columns: 2, samplesPerPixel: 3, bitsAllocated: 8 };
    expect([...decodeRle(frame, { ...layout, planarConfiguration: 0 })]).toEqual([1, 3, 5, 2, 4, 6]);
    expect([...decodeRle(frame, { ...layout, planarConfiguration: 1 })]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test('segments that come short, or too few of them, are errors', () => {
    const short = Buffer.concat([header([64]), Buffer.from([0x00, 7])]);
    expect(() => decodeRle(short, { rows: 2, columns: 2, samplesPerPixel: 1, bitsAllocated: 8, planarConfiguration: 0 })).toThrow(RleError);
    expect(() => decodeRle(short, { rows: 1, columns: 1, samplesPerPixel: 1, bitsAllocated: 16, planarConfiguration: 0 })).toThrow(/segments/);
  });
});
