/**
 * Lossless compressed instances through DICOMweb (issue #15 part 5), on each database:
 * native instances (8-bit and 16-bit grey, 12 of 16 bits stored, RGB by pixel and by
 * plane, multi-frame) compressed by dcmtk as RLE Lossless (dcmcrle), JPEG Lossless
 * selection value 1 (dcmcjpeg +e1) and JPEG Lossless process 14 with predictor 6 and 7
 * (dcmcjpeg +el +sv N), stored by STOW-RS:
 * - frames asked as application/octet-stream (Explicit VR Little Endian, or without a
 *   syntax) are the original native frames, byte for byte; transfer-syntax=* gives the
 *   stored compressed bytes
 * - the instance asked for by default is Explicit VR Little Endian with the original
 *   pixel data and the stored attributes
 * - dcmtk's own decoder (dcmdrle / dcmdjpeg) gives the same pixels (the test data is sound)
 * - rendered frames and thumbnails are the pictures of the native instance
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as dcmjs from 'dcmjs';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { login } from '../support/auth';
import { dcmtk } from '../dicom/dcmtk';
import { decodePng, multipartBody, nativeInstance, parseMultipart, type NativeImage } from './helpers';

const DW = '/dicom-web';
const EXPLICIT = '1.2.840.10008.1.2.1';

const IMAGES: Record<string, NativeImage> = {
  grey8: { bitsAllocated: 8, samplesPerPixel: 1, frames: 1, rows: 33, columns: 47 },
  grey16x3: { bitsAllocated: 16, samplesPerPixel: 1, frames: 3, rows: 24, columns: 30 },
  stored12: { bitsAllocated: 16, bitsStored: 12, samplesPerPixel: 1, frames: 1, rows: 20, columns: 18 },
  rgb: { bitsAllocated: 8, samplesPerPixel: 3, frames: 2, rows: 16, columns: 21 },
  rgbByPlane: { bitsAllocated: 8, samplesPerPixel: 3, planarConfiguration: 1, frames: 1, rows: 9, columns: 13 },
};

/** How dcmtk compresses, the syntax it writes and the tool that undoes it. */
const CODECS = [
  { name: 'rle', tool: 'dcmcrle', args: [], ts: '1.2.840.10008.1.2.5', decoder: 'dcmdrle' },
  { name: 'jpeg-sv1', tool: 'dcmcjpeg', args: ['+e1'], ts: '1.2.840.10008.1.2.4.70', decoder: 'dcmdjpeg' },
  { name: 'jpeg-sv6', tool: 'dcmcjpeg', args: ['+el', '+sv', '6'], ts: '1.2.840.10008.1.2.4.57', decoder: 'dcmdjpeg' },
  { name: 'jpeg-sv7', tool: 'dcmcjpeg', args: ['+el', '+sv', '7'], ts: '1.2.840.10008.1.2.4.57', decoder: 'dcmdjpeg' },
];

interface Case {
  label: string;
  /** Whether dcmtk keeps colour planes (RLE) or writes colour by pixel (JPEG: PS3.5 8.2.1). */
  keepsPlanes: boolean;
  image: NativeImage;
  ts: string;
  original: ReturnType<typeof nativeInstance>;
  /** The native twin (other UIDs, same pixels) whose rendering the compressed one must match. */
  twin: ReturnType<typeof nativeInstance>;
  compressed: Buffer;
  /** dcmtk's decoding of the compressed file. */
  dcmtkPixels: Buffer;
}

/** Frame k (1-based) of the original as the compressed instance describes it: colour by pixel after JPEG. */
function expectedFrame(c: Case, k: number): Buffer {
  const frame = c.original.frameBytes(k);
  if (c.image.planarConfiguration !== 1 || c.keepsPlanes) return frame;
  const n = c.image.rows * c.image.columns;
  const out = Buffer.alloc(frame.length);
  for (let i = 0; i < n; i++) for (let s = 0; s < 3; s++) out[i * 3 + s] = frame[s * n + i];
  return out;
}

const pixelDataOf = (file: Buffer): Buffer => {
  const d = dcmjs.data.DicomMessage.readFile(new Uint8Array(file).buffer);
  return Buffer.concat((d.dict['7FE00010'].Value as ArrayBuffer[]).map((b) => Buffer.from(b)));
};

describe.each(dbKinds)('lossless compressed instances through DICOMweb on %s', (kind) => {
  let p: TestPlatform;
  let clerk: string;
  let tech: string;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-codecs-'));
  const cases: Case[] = [];
  const url = (s: { studyUid: string; seriesUid: string; sopInstanceUid: string }) => `${DW}/studies/${s.studyUid}/series/${s.seriesUid}/instances/${s.sopInstanceUid}`;
  const get = (u: string, accept?: string) => p.app.inject({ method: 'GET', url: u, headers: { 'x-auth-token': clerk, ...(accept ? { accept } : {}) } });
  const partsOf = (r: { rawPayload: Buffer; headers: Record<string, unknown> }) => parseMultipart(r.rawPayload, String(r.headers['content-type']));

  beforeAll(async () => {
    const specs = Object.entries(IMAGES).flatMap(([imageName, image]) => CODECS.map((codec) => ({ imageName, image, codec })));
    // dcmtk compresses and decompresses every case side by side: four runs a case.
    const made = await Promise.all(
      specs.map(async ({ imageName, image, codec }, k) => {
        const n = k + 1;
        const original = nativeInstance(`1.2.826.0.1.3680043.10.1082.641.${n}`, image);
        const twin = nativeInstance(`1.2.826.0.1.3680043.10.1082.642.${n}`, image);
        const source = path.join(dir, `${n}.dcm`);
        const target = path.join(dir, `${n}.${codec.name}.dcm`);
        const decoded = path.join(dir, `${n}.${codec.name}.decoded.dcm`);
        fs.writeFileSync(source, original.bytes);
        const run = await dcmtk(codec.tool, [...codec.args, source, target]);
        expect(run).toEqual({ code: 0, output: '' });
        expect((await dcmtk(codec.decoder, [target, decoded])).code).toBe(0);
        const compressed = fs.readFileSync(target);
        expect(compressed.includes(Buffer.from(codec.ts))).toBe(true);
        const c: Case = { label: `${imageName} ${codec.name}`, keepsPlanes: codec.name === 'rle', image, ts: codec.ts, original, twin, compressed, dcmtkPixels: pixelDataOf(fs.readFileSync(decoded)) };
        return c;
      }),
    );
    cases.push(...made);
    p = await startTestPlatform(kind);
    [clerk, tech] = await Promise.all(['13800000002', '13800000003'].map((m) => login(p.app, m)));
    const { payload, contentType } = multipartBody(cases.flatMap((c) => [{ body: c.compressed }, { body: c.twin.bytes }]));
    const r = await p.app.inject({ method: 'POST', url: `${DW}/studies`, headers: { 'x-auth-token': tech, 'content-type': contentType }, payload });
    expect(r.statusCode).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await p.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('dcmtk decodes its own files to the original pixels (the test data is sound)', () => {
    for (const c of cases) {
      const frames = Buffer.concat(Array.from({ length: c.image.frames }, (_, k) => expectedFrame(c, k + 1)));
      expect([c.label, c.dcmtkPixels.subarray(0, frames.length).equals(frames)]).toEqual([c.label, true]);
    }
  });

  test('frames asked uncompressed are the original native frames, byte for byte', async () => {
    for (const c of cases) {
      const all = Array.from({ length: c.image.frames }, (_, k) => k + 1);
      for (const accept of [`multipart/related; type="application/octet-stream"; transfer-syntax=${EXPLICIT}`, 'multipart/related; type="application/octet-stream"']) {
        const r = await get(`${url(c.original)}/frames/${all.join(',')}`, accept);
        expect([c.label, accept, r.statusCode]).toEqual([c.label, accept, 200]);
        const parts = partsOf(r);
        expect(parts.map((part) => part.headers['content-type'])).toEqual(all.map(() => `application/octet-stream; transfer-syntax=${EXPLICIT}`));
        expect([c.label, parts.map((part, k) => part.body.equals(expectedFrame(c, k + 1)))]).toEqual([c.label, all.map(() => true)]);
      }
      // The pixel data's bulk data resource too (every frame, in order).
      const bulk = await get(`${url(c.original)}/bulkdata/7FE00010`, 'multipart/related; type="application/octet-stream"');
      expect(partsOf(bulk).map((part, k) => part.body.equals(expectedFrame(c, k + 1)))).toEqual(all.map(() => true));
      // Taken as stored: the compressed bytes in the stored syntax.
      const [stored] = partsOf(await get(`${url(c.original)}/frames/1`, 'multipart/related; type="application/octet-stream"; transfer-syntax=*'));
      expect(stored.headers['content-type']).toBe(`application/octet-stream; transfer-syntax=${c.ts}`);
      expect(stored.body.equals(c.original.frameBytes(1))).toBe(false);
      expect(c.compressed.includes(stored.body.subarray(0, Math.min(64, stored.body.length)))).toBe(true);
    }
  });

  test('the instance is Explicit VR Little Endian by default, with the original pixels and the stored attributes', async () => {
    for (const c of cases) {
      const r = await get(url(c.original));
      expect([c.label, r.statusCode]).toEqual([c.label, 200]);
      const [part] = partsOf(r);
      expect(part.headers['content-type']).toBe(`application/dicom; transfer-syntax=${EXPLICIT}`);
      const converted = dcmjs.data.DicomMessage.readFile(new Uint8Array(part.body).buffer);
      const stored = dcmjs.data.DicomMessage.readFile(new Uint8Array(c.compressed).buffer);
      expect(converted.meta['00020010'].Value).toEqual([EXPLICIT]);
      const natural = (d: { dict: unknown }) => dcmjs.data.DicomMetaDictionary.naturalizeDataset(d.dict);
      const { PixelData: pixels, _vrMap: vrs, ...rest } = natural(converted);
      const { PixelData: _compressed, _vrMap: _storedVrs, ...storedRest } = natural(stored);
      expect(rest).toEqual(storedRest);
      // Native 16-bit samples are OW, bytes OB (PS3.5 8.2).
      expect(vrs.PixelData).toBe(c.image.bitsAllocated === 16 ? 'OW' : 'OB');
      const frames = Buffer.concat(Array.from({ length: c.image.frames }, (_, k) => expectedFrame(c, k + 1)));
      expect([c.label, Buffer.concat((pixels as ArrayBuffer[]).map((b) => Buffer.from(b))).subarray(0, frames.length).equals(frames)]).toEqual([c.label, true]);
      // As stored when asked so.
      const [asStored] = partsOf(await get(url(c.original), 'multipart/related; type="application/dicom"; transfer-syntax=*'));
      expect(asStored.body.equals(c.compressed)).toBe(true);
    }
  });

  test('rendered frames and thumbnails are the pictures of the native instance', async () => {
    for (const c of cases) {
      const frame = c.image.frames;
      const compressed = await get(`${url(c.original)}/frames/${frame}/rendered`, 'image/png');
      const native = await get(`${url(c.twin)}/frames/${frame}/rendered`, 'image/png');
      expect([c.label, compressed.statusCode, compressed.headers['content-type']]).toEqual([c.label, 200, 'image/png']);
      const a = decodePng(compressed.rawPayload);
      const b = decodePng(native.rawPayload);
      expect([a.width, a.height, a.channels]).toEqual([c.image.columns, c.image.rows, c.image.samplesPerPixel]);
      expect([c.label, a.pixels.equals(b.pixels)]).toEqual([c.label, true]);
      const thumbnail = await get(`${url(c.original)}/thumbnail`, 'image/jpeg');
      expect([c.label, thumbnail.statusCode, thumbnail.headers['content-type']]).toEqual([c.label, 200, 'image/jpeg']);
    }
    const first = cases[0];
    const study = await get(`${DW}/studies/${first.original.studyUid}/rendered`, 'multipart/related; type="image/png"');
    expect(partsOf(study).map((part) => part.headers['content-type'])).toEqual(['image/png']);
  });
});
