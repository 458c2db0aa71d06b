/**
 * A JPEG lossless decoder (ITU T.81 Annex H, process 14: Huffman coded, predictors
 * 1-7, 2-16 bit precision, point transform), what DICOM stores as JPEG Lossless
 * (1.2.840.10008.1.2.4.57) and its selection value 1 subset (1.2.840.10008.1.2.4.70).
 * One scan with every component interleaved, or one scan per component; restart
 * intervals; components without subsampling (what DICOM lossless encoders write).
 * Pure: a codestream in, the samples (interleaved by pixel) out.
 */

export class JpegLosslessError extends Error {}

export interface LosslessImage {
  width: number;
  height: number;
  components: number;
  precision: number;
  /** Samples interleaved by pixel (c0 c1 c2 c0 …), each below 2^precision. */
  samples: Uint16Array;
}

interface Huffman {
  /** 16-bit lookahead → (code length << 8) | symbol; 0 where no code starts so. */
  lookup: Uint16Array;
}

/** Annex C: the codes of a DHT table (BITS, HUFFVAL) as a 16-bit lookahead table. */
function huffman(bits: Uint8Array, values: Uint8Array): Huffman {
  const lookup = new Uint16Array(65536);
  let code = 0;
  let k = 0;
  for (let length = 1; length <= 16; length++) {
    for (let i = 0; i < bits[length - 1]; i++) {
      if (k >= values.length) throw new JpegLosslessError('Huffman table with fewer symbols than codes');
      const shift = 16 - length;
      const first = code << shift;
      const entry = (length << 8) | values[k++];
      for (let j = 0; j < 1 << shift; j++) lookup[first + j] = entry;
      code++;
    }
    code <<= 1;
  }
  return { lookup };
}

interface Frame {
  precision: number;
  height: number;
  width: number;
  /** Component identifiers in frame order. */
  ids: number[];
}

/** Entropy-coded bits: byte stuffing undone, a marker read as endless zero bits (F.2.2.5). */
class BitReader {
  private buf = 0;
  private count = 0;
  constructor(
    private readonly data: Uint8Array,
    public pos: number,
  ) {}

  private fill() {
    while (this.count <= 24) {
      let byte = 0;
      if (this.pos < this.data.length) {
        byte = this.data[this.pos];
        if (byte === 0xff) {
          const next = this.data[this.pos + 1];
          if (next === 0) this.pos += 2;
          else byte = 0; // a marker: not consumed
        } else this.pos++;
      }
      this.buf = (this.buf << 8) | byte;
      this.count += 8;
    }
  }

  decode(table: Huffman): number {
    if (this.count < 16) this.fill();
    const entry = table.lookup[(this.buf >>> (this.count - 16)) & 0xffff];
    if (entry === 0) throw new JpegLosslessError('invalid Huffman code');
    this.count -= entry >>> 8;
    return entry & 0xff;
  }

  receive(n: number): number {
    if (this.count < n) this.fill();
    this.count -= n;
    return (this.buf >>> this.count) & ((1 << n) - 1);
  }

  /** At a restart: drop the padding bits, step over RSTn. */
  restart() {
    this.count = 0;
    this.buf = 0;
    while (this.pos + 1 < this.data.length && !(this.data[this.pos] === 0xff && this.data[this.pos + 1] >= 0xd0 && this.data[this.pos + 1] <= 0xd7)) this.pos++;
    this.pos += 2;
  }

  /** The position of the next marker after the entropy-coded data. */
  end(): number {
    let p = this.pos;
    while (p + 1 < this.data.length && !(this.data[p] === 0xff && this.data[p + 1] !== 0 && !(this.data[p + 1] >= 0xd0 && this.data[p + 1] <= 0xd7))) p++;
    return p;
  }
}

/** F.2.2.1 EXTEND: the difference coded by `bits` extra bits of category `ssss`. */
function difference(r: BitReader, ssss: number): number {
  if (ssss === 0) return 0;
  if (ssss === 16) return 32768;
  const v = r.receive(ssss);
  return v < 1 << (ssss - 1) ? v - (1 << ssss) + 1 : v;
}

function decodeScan(
  data: Uint8Array,
  pos: number,
  frame: Frame,
  scanComponents: number[],
  tables: Huffman[],
  predictor: number,
  pointTransform: number,
  restartInterval: number,
  out: Uint16Array,
): number {
  const { width, height } = frame;
  const nf = frame.ids.length;
  const ns = scanComponents.length;
  const r = new BitReader(data, pos);
  const initial = 1 << (frame.precision - pointTransform - 1);
  // Restart intervals are whole lines in the lossless mode (H.2): each starts like the scan.
  if (restartInterval && restartInterval % width) throw new JpegLosslessError('restart intervals that are not whole lines are not supported');
  const linesPerInterval = restartInterval / width;
  const stride = width * nf;
  for (let y = 0; y < height; y++) {
    // The first line of the scan or of an interval predicts from the left only (H.1.2.1).
    let firstLine = y === 0;
    if (linesPerInterval && y > 0 && y % linesPerInterval === 0) {
      r.restart();
      firstLine = true;
    }
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * nf;
      for (let s = 0; s < ns; s++) {
        const i = at + scanComponents[s];
        let p: number;
        if (firstLine) p = x === 0 ? initial : out[i - nf];
        else if (x === 0) p = out[i - stride];
        else {
          const ra = out[i - nf];
          const rb = out[i - stride];
          const rc = out[i - stride - nf];
          switch (predictor) {
            case 1: p = ra; break;
            case 2: p = rb; break;
            case 3: p = rc; break;
            case 4: p = ra + rb - rc; break;
            case 5: p = ra + ((rb - rc) >> 1); break;
            case 6: p = rb + ((ra - rc) >> 1); break;
            case 7: p = (ra + rb) >> 1; break;
            default: throw new JpegLosslessError(`predictor ${predictor}`);
          }
        }
        out[i] = (p + difference(r, r.decode(tables[s]))) & 0xffff;
      }
    }
  }
  return r.end();
}

/** Decodes one JPEG lossless codestream (a frame's fragments joined). */
export function decodeJpegLossless(data: Uint8Array): LosslessImage {
  if (data[0] !== 0xff || data[1] !== 0xd8) throw new JpegLosslessError('no SOI marker');
  let pos = 2;
  const dc: Array<Huffman | undefined> = [];
  let frame: Frame | undefined;
  let out: Uint16Array | undefined;
  let restartInterval = 0;
  let pointTransform = 0;
  const u16 = (at: number) => (data[at] << 8) | data[at + 1];
  while (pos + 4 <= data.length) {
    if (data[pos] !== 0xff) {
      pos++; // fill or stray bytes between segments
      continue;
    }
    const marker = data[pos + 1];
    if (marker === 0xff) {
      pos++;
      continue;
    }
    if (marker === 0xd9) break; // EOI
    const length = u16(pos + 2);
    const seg = pos + 4;
    const next = pos + 2 + length;
    if (next > data.length) throw new JpegLosslessError('a segment runs past the end of the data');
    if (marker === 0xc3) {
      const nf = data[seg + 5];
      frame = { precision: data[seg], height: u16(seg + 1), width: u16(seg + 3), ids: [] };
      if (frame.precision < 2 || frame.precision > 16) throw new JpegLosslessError(`precision ${frame.precision}`);
      for (let k = 0; k < nf; k++) {
        frame.ids.push(data[seg + 6 + k * 3]);
        if (data[seg + 7 + k * 3] !== 0x11) throw new JpegLosslessError('subsampled components are not supported');
      }
      if (!frame.width || !frame.height) throw new JpegLosslessError('a frame without its size (DNL) is not supported');
      out = new Uint16Array(frame.width * frame.height * nf);
    } else if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      throw new JpegLosslessError(`SOF${marker - 0xc0} is not JPEG lossless (process 14)`);
    } else if (marker === 0xc4) {
      let p = seg;
      while (p < next) {
        const id = data[p] & 0x0f;
        const bits = data.subarray(p + 1, p + 17);
        const total = bits.reduce((a, b) => a + b, 0);
        dc[id] = huffman(bits, data.subarray(p + 17, p + 17 + total));
        p += 17 + total;
      }
    } else if (marker === 0xdd) {
      restartInterval = u16(seg);
    } else if (marker === 0xda) {
      if (!frame || !out) throw new JpegLosslessError('a scan before the frame header');
      const ns = data[seg];
      const comps: number[] = [];
      const tables: Huffman[] = [];
      for (let k = 0; k < ns; k++) {
        const index = frame.ids.indexOf(data[seg + 1 + k * 2]);
        const table = dc[data[seg + 2 + k * 2] >> 4];
        if (index < 0 || !table) throw new JpegLosslessError('a scan names an unknown component or table');
        comps.push(index);
        tables.push(table);
      }
      const predictor = data[seg + 1 + ns * 2];
      pointTransform = data[seg + 3 + ns * 2] & 0x0f;
      pos = decodeScan(data, next, frame, comps, tables, predictor, pointTransform, restartInterval, out);
      continue;
    }
    pos = next;
  }
  if (!frame || !out) throw new JpegLosslessError('no frame in the data');
  if (pointTransform) for (let i = 0; i < out.length; i++) out[i] = (out[i] << pointTransform) & 0xffff;
  const mask = frame.precision === 16 ? 0xffff : (1 << frame.precision) - 1;
  if (mask !== 0xffff) for (let i = 0; i < out.length; i++) out[i] &= mask;
  return { width: frame.width, height: frame.height, components: frame.ids.length, precision: frame.precision, samples: out };
}
