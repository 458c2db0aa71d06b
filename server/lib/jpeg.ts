/**
 * A baseline JPEG encoder (ITU T.81, JFIF): 8-bit grayscale, or RGB as YCbCr 4:4:4,
 * with the standard tables of Annex K scaled by a quality factor. Used for rendered
 * DICOM frames when a client asks for image/jpeg; small and slow-ish (a plain
 * separable DCT), which is fine for frames and thumbnails. Pure: bytes in, bytes out.
 */

const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50,
  43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

// Annex K.1, natural (row-major) order.
const LUMA_QUANT = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56,
  68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const CHROMA_QUANT = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
];

// Annex K.3: code counts per length (1..16) and the symbols.
const DC_LUMA_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_LUMA_VALS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const DC_CHROMA_BITS = [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
const DC_CHROMA_VALS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const AC_LUMA_BITS = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d];
const AC_LUMA_VALS = [
  0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08,
  0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
  0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
  0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
  0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6,
  0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
  0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
];
const AC_CHROMA_BITS = [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77];
const AC_CHROMA_VALS = [
  0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91,
  0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
  0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
  0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
  0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4,
  0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
  0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
];

interface HuffTable {
  bits: number[];
  vals: number[];
  /** symbol → [code, length] */
  codes: Array<[number, number]>;
}

function huffTable(bits: number[], vals: number[]): HuffTable {
  const codes: Array<[number, number]> = [];
  let code = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    for (let i = 0; i < bits[len - 1]; i++) codes[vals[k++]] = [code++, len];
    code <<= 1;
  }
  return { bits, vals, codes };
}

const DC_LUMA = huffTable(DC_LUMA_BITS, DC_LUMA_VALS);
const DC_CHROMA = huffTable(DC_CHROMA_BITS, DC_CHROMA_VALS);
const AC_LUMA = huffTable(AC_LUMA_BITS, AC_LUMA_VALS);
const AC_CHROMA = huffTable(AC_CHROMA_BITS, AC_CHROMA_VALS);

/** cos((2x+1)uπ/16) · C(u)/2, [u][x]: the 1-D DCT basis, applied to rows then columns. */
const BASIS = Array.from({ length: 8 }, (_, u) =>
  Float64Array.from({ length: 8 }, (_, x) => (u === 0 ? Math.SQRT1_2 : 1) * 0.5 * Math.cos(((2 * x + 1) * u * Math.PI) / 16)),
);

function scaledQuant(base: number[], quality: number): number[] {
  const q = Math.min(100, Math.max(1, Math.round(quality)));
  const scale = q < 50 ? 5000 / q : 200 - 2 * q;
  return base.map((v) => Math.min(255, Math.max(1, Math.floor((v * scale + 50) / 100))));
}

class BitWriter {
  private readonly out: number[] = [];
  private acc = 0;
  private n = 0;

  bytes(values: ArrayLike<number>): void {
    for (let i = 0; i < values.length; i++) this.out.push(values[i]);
  }

  bits(code: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) {
      this.acc = (this.acc << 1) | ((code >> i) & 1);
      if (++this.n === 8) {
        this.out.push(this.acc);
        // A 0xFF in entropy-coded data is stuffed with a zero byte (T.81 F.1.2.3).
        if (this.acc === 0xff) this.out.push(0);
        this.acc = 0;
        this.n = 0;
      }
    }
  }

  /** Pads the last byte with one bits. */
  flush(): void {
    if (this.n > 0) this.bits((1 << (8 - this.n)) - 1, 8 - this.n);
  }

  result(): Buffer {
    return Buffer.from(this.out);
  }
}

function magnitude(v: number): [number, number] {
  const a = Math.abs(v);
  let size = 0;
  while (a >> size) size++;
  return [size, v >= 0 ? v : v + (1 << size) - 1];
}

function marker(w: BitWriter, code: number, payload: number[]): void {
  w.bytes([0xff, code, (payload.length + 2) >> 8, (payload.length + 2) & 0xff]);
  w.bytes(payload);
}

/**
 * Encodes 8-bit pixels (`channels` 1 = grayscale, 3 = RGB interleaved) as a baseline
 * JPEG of `quality` 1-100.
 */
export function encodeJpeg(width: number, height: number, channels: 1 | 3, pixels: Uint8Array, quality = 85): Buffer {
  if (width < 1 || height < 1 || width > 65535 || height > 65535) throw new Error(`encodeJpeg: bad size ${width}x${height}`);
  const quants = [scaledQuant(LUMA_QUANT, quality), scaledQuant(CHROMA_QUANT, quality)];
  const w = new BitWriter();
  w.bytes([0xff, 0xd8]);
  marker(w, 0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]); // JFIF 1.1, no density, no thumbnail
  // Table 0 for luma, table 1 (colour only) for both chroma components.
  for (let t = 0; t < (channels === 1 ? 1 : 2); t++) marker(w, 0xdb, [t, ...ZIGZAG.map((i) => quants[t][i])]);
  const components = channels === 1 ? [[1, 0]] : [[1, 0], [2, 1], [3, 1]];
  marker(w, 0xc0, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, channels, ...components.flatMap(([id, tq]) => [id, 0x11, tq])]);
  const tables: Array<[number, HuffTable]> = channels === 1 ? [[0x00, DC_LUMA], [0x10, AC_LUMA]] : [[0x00, DC_LUMA], [0x10, AC_LUMA], [0x01, DC_CHROMA], [0x11, AC_CHROMA]];
  for (const [id, t] of tables) marker(w, 0xc4, [id, ...t.bits, ...t.vals]);
  marker(w, 0xda, [channels, ...components.flatMap(([id, tq]) => [id, tq === 0 ? 0x00 : 0x11]), 0, 63, 0]);

  const block = new Float64Array(64);
  const tmp = new Float64Array(64);
  const coef = new Int32Array(64);
  const prevDc = [0, 0, 0];
  const sample = (x: number, y: number, c: number): number => {
    // Edge blocks repeat the last row and column.
    const xi = Math.min(x, width - 1);
    const yi = Math.min(y, height - 1);
    const at = (yi * width + xi) * channels;
    if (channels === 1) return pixels[at];
    const r = pixels[at];
    const g = pixels[at + 1];
    const b = pixels[at + 2];
    if (c === 0) return 0.299 * r + 0.587 * g + 0.114 * b;
    if (c === 1) return -0.168736 * r - 0.331264 * g + 0.5 * b + 128;
    return 0.5 * r - 0.418688 * g - 0.081312 * b + 128;
  };

  for (let by = 0; by < height; by += 8) {
    for (let bx = 0; bx < width; bx += 8) {
      for (let c = 0; c < channels; c++) {
        for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) block[y * 8 + x] = sample(bx + x, by + y, c) - 128;
        // Rows, then columns.
        for (let y = 0; y < 8; y++) {
          for (let u = 0; u < 8; u++) {
            let s = 0;
            for (let x = 0; x < 8; x++) s += BASIS[u][x] * block[y * 8 + x];
            tmp[y * 8 + u] = s;
          }
        }
        const q = quants[c === 0 ? 0 : 1];
        for (let u = 0; u < 8; u++) {
          for (let v = 0; v < 8; v++) {
            let s = 0;
            for (let y = 0; y < 8; y++) s += BASIS[v][y] * tmp[y * 8 + u];
            coef[v * 8 + u] = Math.round(s / q[v * 8 + u]);
          }
        }
        const dcTable = c === 0 ? DC_LUMA : DC_CHROMA;
        const acTable = c === 0 ? AC_LUMA : AC_CHROMA;
        const diff = coef[0] - prevDc[c];
        prevDc[c] = coef[0];
        const [dcSize, dcBits] = magnitude(diff);
        w.bits(...dcTable.codes[dcSize]);
        if (dcSize) w.bits(dcBits, dcSize);
        let run = 0;
        for (let k = 1; k < 64; k++) {
          const v = coef[ZIGZAG[k]];
          if (v === 0) {
            run++;
            continue;
          }
          while (run > 15) {
            w.bits(...acTable.codes[0xf0]);
            run -= 16;
          }
          const [size, bits] = magnitude(v);
          w.bits(...acTable.codes[(run << 4) | size]);
          w.bits(bits, size);
          run = 0;
        }
        if (run > 0) w.bits(...acTable.codes[0x00]);
      }
    }
  }
  w.flush();
  w.bytes([0xff, 0xd9]);
  return w.result();
}
