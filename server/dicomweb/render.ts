/**
 * Rendering a native frame to 8-bit pixels for WADO-RS /rendered and /thumbnail: modality rescale, then the VOI window (the request's, else the
 * dataset's first WindowCenter/Width, else the frame's min/max), MONOCHROME1 inverted;
 * RGB and YBR_FULL colour as is; scaled to fit a viewport with an area average. Pure.
 */
import { DicomWebError } from './errors';
import type { PixelModule } from './frames';

export interface RenderedImage {
  width: number;
  height: number;
  channels: 1 | 3;
  data: Uint8Array;
}

export interface Window {
  center: number;
  width: number;
}

/** Largest rendered side: a viewport beyond it is refused rather than allocated. */
export const MAX_VIEWPORT = 4096;

const unsupported = (what: string) => new DicomWebError(406, `Rendering ${what} is not supported; retrieve the frame or the instance instead.`);

/** PS3.3 C.11.2.1.2.1, linear VOI LUT function, to 0..255. */
function windowed(x: number, w: Window): number {
  const c = w.center - 0.5;
  const width = Math.max(1, w.width) - 1;
  if (width === 0) return x <= c ? 0 : 255;
  if (x <= c - width / 2) return 0;
  if (x > c + width / 2) return 255;
  return Math.round(((x - c) / width + 0.5) * 255);
}

function renderGray(frame: Buffer, pm: PixelModule, requested?: Window): RenderedImage {
  const n = pm.rows * pm.columns;
  const bytes = pm.bitsAllocated / 8;
  if (![1, 2, 4].includes(bytes)) throw unsupported(`${pm.bitsAllocated}-bit pixels`);
  if (frame.length < n * bytes) throw new DicomWebError(500, 'The frame is shorter than its image pixel module says.');
  const bitsStored = Math.min(pm.bitsStored, pm.bitsAllocated);
  const shift = Math.max(0, pm.highBit + 1 - bitsStored);
  const mask = bitsStored >= 32 ? 0xffffffff : 2 ** bitsStored - 1;
  const signBit = 2 ** (bitsStored - 1);
  const raw = (i: number) => {
    const v = bytes === 1 ? frame[i] : bytes === 2 ? frame.readUInt16LE(i * 2) : frame.readUInt32LE(i * 4);
    return (v >>> shift) & mask;
  };
  const value = (u: number) => (pm.pixelRepresentation === 1 && u >= signBit ? u - 2 * signBit : u) * pm.slope + pm.intercept;
  const window = requested ?? (pm.windowCenter !== undefined && pm.windowWidth !== undefined ? { center: pm.windowCenter, width: pm.windowWidth } : undefined);
  let map: (m: number) => number;
  if (window) map = (m) => windowed(m, window);
  else {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const m = value(raw(i));
      if (m < lo) lo = m;
      if (m > hi) hi = m;
    }
    map = hi > lo ? (m) => Math.round(((m - lo) * 255) / (hi - lo)) : () => 128;
  }
  const invert = pm.photometric === 'MONOCHROME1';
  const out = new Uint8Array(n);
  if (bitsStored <= 16) {
    // One output value per possible stored value: a lookup beats arithmetic per pixel.
    const lut = new Uint8Array(mask + 1);
    for (let u = 0; u <= mask; u++) {
      const y = map(value(u));
      lut[u] = invert ? 255 - y : y;
    }
    for (let i = 0; i < n; i++) out[i] = lut[raw(i)];
  } else {
    for (let i = 0; i < n; i++) {
      const y = map(value(raw(i)));
      out[i] = invert ? 255 - y : y;
    }
  }
  return { width: pm.columns, height: pm.rows, channels: 1, data: out };
}

function renderColor(frame: Buffer, pm: PixelModule): RenderedImage {
  if (pm.bitsAllocated !== 8) throw unsupported(`${pm.bitsAllocated}-bit colour`);
  if (pm.photometric !== 'RGB' && pm.photometric !== 'YBR_FULL') throw unsupported(pm.photometric);
  const n = pm.rows * pm.columns;
  if (frame.length < n * 3) throw new DicomWebError(500, 'The frame is shorter than its image pixel module says.');
  const out = new Uint8Array(n * 3);
  const planar = pm.planarConfiguration === 1;
  const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));
  for (let i = 0; i < n; i++) {
    const a = planar ? frame[i] : frame[i * 3];
    const b = planar ? frame[n + i] : frame[i * 3 + 1];
    const c = planar ? frame[2 * n + i] : frame[i * 3 + 2];
    if (pm.photometric === 'RGB') {
      out[i * 3] = a;
      out[i * 3 + 1] = b;
      out[i * 3 + 2] = c;
    } else {
      // PS3.3 C.7.6.3.1.2, YBR_FULL to RGB.
      out[i * 3] = clamp(a + 1.402 * (c - 128));
      out[i * 3 + 1] = clamp(a - 0.344136 * (b - 128) - 0.714136 * (c - 128));
      out[i * 3 + 2] = clamp(a + 1.772 * (b - 128));
    }
  }
  return { width: pm.columns, height: pm.rows, channels: 3, data: out };
}

/** A native frame (little endian) as 8-bit grayscale or RGB. */
export function renderFrame(frame: Buffer, pm: PixelModule, window?: Window): RenderedImage {
  if (pm.samplesPerPixel === 1 && (pm.photometric === 'MONOCHROME1' || pm.photometric === 'MONOCHROME2')) return renderGray(frame, pm, window);
  if (pm.samplesPerPixel === 3) return renderColor(frame, pm);
  throw unsupported(pm.photometric);
}

/** The size that fits `width`×`height` into the viewport, keeping the aspect ratio; either side may be open. */
export function fitViewport(width: number, height: number, vw?: number, vh?: number): { width: number; height: number } {
  if (!vw && !vh) return { width, height };
  const scale = Math.min(vw ? vw / width : Infinity, vh ? vh / height : Infinity);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** Resamples to `width`×`height`: the average of the covered source pixels when shrinking, the nearest when growing. */
export function resize(img: RenderedImage, width: number, height: number): RenderedImage {
  if (width === img.width && height === img.height) return img;
  const ch = img.channels;
  const out = new Uint8Array(width * height * ch);
  const sx = img.width / width;
  const sy = img.height / height;
  const sum = new Float64Array(ch);
  for (let oy = 0; oy < height; oy++) {
    const y0 = Math.min(img.height - 1, Math.floor(oy * sy));
    const y1 = Math.max(y0 + 1, Math.min(img.height, Math.floor((oy + 1) * sy)));
    for (let ox = 0; ox < width; ox++) {
      const x0 = Math.min(img.width - 1, Math.floor(ox * sx));
      const x1 = Math.max(x0 + 1, Math.min(img.width, Math.floor((ox + 1) * sx)));
      sum.fill(0);
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const at = (y * img.width + x) * ch;
          for (let c = 0; c < ch; c++) sum[c] += img.data[at + c];
        }
      }
      const count = (y1 - y0) * (x1 - x0);
      const to = (oy * width + ox) * ch;
      for (let c = 0; c < ch; c++) out[to + c] = Math.round(sum[c] / count);
    }
  }
  return { width, height, channels: ch, data: out };
}
