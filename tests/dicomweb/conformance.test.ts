/**
 * DICOMweb conformance to PS3.18 (issue #15 part 5), through the API on each database:
 * - an unknown /dicom-web path is 404 UAA102 (401 without a token), never the UI's page,
 *   also with a built UI whose wildcard route would serve index.html
 * - a single application/dicom part for an instance when the Accept asks for it; a
 *   study or series asking only for that → 406, with multipart also accepted → multipart
 * - Explicit VR Little Endian by default: an instance stored in Implicit VR comes back
 *   converted (same attributes, same pixels, explicit headers); transfer-syntax=* and
 *   the stored UID give the stored bytes; a JPEG-stored instance → 406 unless it is
 *   taken as stored
 * - study and series /rendered: multipart/related, one picture per image (first frame),
 *   PNG or JPEG as asked; a JPEG-stored series asked for PNG → 406
 * - grade safety on: QIDO-RS results and WADO-RS metadata carry the patient's name and
 *   ID masked for a caller without privacy:phoneVisible; the instance file is as stored
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { login } from '../support/auth';
import * as dcmjs from 'dcmjs';
import { syntheticSeries } from '../../mock/dicom';
import { readImageInfo } from '../../server/lib/images';
import { jpegInstance, multiFrameInstance, multipartBody, parseMultipart } from './helpers';

const DW = '/dicom-web';

describe.each(dbKinds)('DICOMweb conformance on %s', (kind) => {
  let p: TestPlatform;
  let clerk: string; // hospital A clerk: image view only
  let tech: string; // hospital A technician: image upload
  const ct = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.621', patientId: 'DWC0001', patientName: '王小明', patientNameEn: 'Wang^Xiaoming', count: 2 });
  const implicit = multiFrameInstance('1.2.826.0.1.3680043.10.1082.622', 2, 6, 8);
  const jpeg = jpegInstance('1.2.826.0.1.3680043.10.1082.623', 16, 16);
  const instanceUrl = (s: { studyUid: string; seriesUid: string }, sop: string) => `/studies/${s.studyUid}/series/${s.seriesUid}/instances/${sop}`;
  const DICOM = 'multipart/related; type="application/dicom"';
  const partsOf = (r: { rawPayload: Buffer; headers: Record<string, unknown> }) => parseMultipart(r.rawPayload, String(r.headers['content-type']));
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-dist-'));

  const headers = (token: string | null, extra: Record<string, string> = {}) => ({ ...(token ? { 'x-auth-token': token } : {}), ...extra });
  const get = (url: string, token: string | null = clerk, extra: Record<string, string> = {}) => p.app.inject({ method: 'GET', url: `${DW}${url}`, headers: headers(token, extra) });

  beforeAll(async () => {
    // A built UI: its wildcard route and SPA fallback are in place.
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>ui</title>');
    p = await startTestPlatform(kind, { DIST_DIR: dist });
    [clerk, tech] = await Promise.all(['13800000002', '13800000003'].map((m) => login(p.app, m)));
    for (const files of [ct.instances.map((i) => i.bytes), [implicit.bytes], [jpeg.bytes]]) {
      const { payload, contentType } = multipartBody(files.map((body) => ({ body })));
      const r = await p.app.inject({ method: 'POST', url: `${DW}/studies`, headers: headers(tech, { 'content-type': contentType }), payload });
      expect(r.statusCode).toBe(200);
    }
  });
  afterAll(async () => {
    await p.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  test('unknown paths are 404 with the catalogue code (401 without a token), never the UI page', async () => {
    for (const url of ['', '/', '/nothing', '/studies/1.2.3/nothing/else', '/workitems']) {
      const signedIn = await get(url);
      expect([url, signedIn.statusCode, signedIn.headers['content-type'], signedIn.json().status]).toEqual([url, 404, expect.stringMatching(/^application\/json/), 'UAA102']);
      const anonymous = await get(url, null);
      expect([url, anonymous.statusCode, anonymous.json().status]).toEqual([url, 401, 'UAA005']);
    }
    const post = await p.app.inject({ method: 'POST', url: `${DW}/nothing`, headers: headers(clerk) });
    expect(post.statusCode).toBe(404);
    // The SPA still answers its own routes, and an unknown API path is JSON too.
    expect((await p.app.inject({ method: 'GET', url: '/exam/list' })).headers['content-type']).toMatch(/^text\/html/);
    const api = await p.app.inject({ method: 'GET', url: '/api' });
    expect([api.statusCode, api.json().status]).toEqual([404, 'UAA102']);
  });

  test('a single application/dicom part for an instance; a study or series is multipart only', async () => {
    const sop = ct.instances[0].sopInstanceUid;
    const single = await get(instanceUrl(ct, sop), clerk, { accept: 'application/dicom' });
    expect(single.statusCode).toBe(200);
    expect(single.headers['content-type']).toBe('application/dicom; transfer-syntax=1.2.840.10008.1.2.1');
    expect(single.rawPayload.equals(ct.instances[0].bytes)).toBe(true);
    // The first acceptable range decides the form.
    const multi = await get(instanceUrl(ct, sop), clerk, { accept: `${DICOM}, application/dicom;q=0.5` });
    expect(multi.headers['content-type']).toMatch(/^multipart\/related; type="application\/dicom"; boundary=/);

    const series = `/studies/${ct.studyUid}/series/${ct.seriesUid}`;
    for (const url of [series, `/studies/${ct.studyUid}`]) {
      const refused = await get(url, clerk, { accept: 'application/dicom' });
      expect([url, refused.statusCode, refused.json().status]).toEqual([url, 406, 'PACS517']);
      const either = await get(url, clerk, { accept: `application/dicom, ${DICOM}` });
      expect([url, either.statusCode, partsOf(either).length]).toEqual([url, 200, 2]);
    }
  });

  test('Explicit VR Little Endian by default: implicit VR data is converted, * and the stored syntax give the stored bytes', async () => {
    const url = instanceUrl(implicit, implicit.sopInstanceUid);
    for (const accept of [undefined, DICOM, `${DICOM}; transfer-syntax=1.2.840.10008.1.2.1`, 'application/dicom']) {
      const r = await get(url, clerk, accept ? { accept } : {});
      expect(r.statusCode).toBe(200);
      const body = accept === 'application/dicom' ? r.rawPayload : partsOf(r)[0].body;
      const type = accept === 'application/dicom' ? r.headers['content-type'] : partsOf(r)[0].headers['content-type'];
      expect(type).toBe('application/dicom; transfer-syntax=1.2.840.10008.1.2.1');
      const converted = dcmjs.data.DicomMessage.readFile(new Uint8Array(body).buffer);
      const original = dcmjs.data.DicomMessage.readFile(new Uint8Array(implicit.bytes).buffer);
      expect(converted.meta['00020010'].Value).toEqual(['1.2.840.10008.1.2.1']);
      // The same attributes (sequence items included) and the same pixels.
      const natural = (d: { dict: unknown }) => dcmjs.data.DicomMetaDictionary.naturalizeDataset(d.dict);
      const { PixelData: convertedPixels, ...convertedRest } = natural(converted);
      const { PixelData: originalPixels, ...originalRest } = natural(original);
      expect(convertedRest).toEqual(originalRest);
      expect(Buffer.from(convertedPixels[0]).equals(Buffer.concat([1, 2].map(implicit.frameBytes)))).toBe(true);
      expect(Buffer.from(originalPixels[0]).length).toBe(2 * 6 * 8 * 2);
      // Explicit headers: Patient ID (0010,0020) is followed by its VR.
      expect(body.includes(Buffer.from([0x10, 0x00, 0x20, 0x00, 0x4c, 0x4f]))).toBe(true);
    }
    for (const ts of ['*', '1.2.840.10008.1.2']) {
      const [part] = partsOf(await get(url, clerk, { accept: `${DICOM}; transfer-syntax=${ts}` }));
      expect(part.headers['content-type']).toBe('application/dicom; transfer-syntax=1.2.840.10008.1.2');
      expect(part.body.equals(implicit.bytes)).toBe(true);
    }
  });

  test('compressed data without a decoder: 406 with the reason, or as stored when taken so', async () => {
    const url = instanceUrl(jpeg, jpeg.sopInstanceUid);
    const refused = await get(url);
    expect([refused.statusCode, refused.json().status]).toEqual([406, 'PACS517']);
    expect(refused.json().detail).toMatch(/stored as 1\.2\.840\.10008\.1\.2\.4\.50.*transfer-syntax=\*/);
    // Preferences in order: the first the instance can go out in wins.
    const r = await get(url, clerk, { accept: `${DICOM}; transfer-syntax=1.2.840.10008.1.2.1, ${DICOM}; transfer-syntax=*;q=0.5` });
    expect(r.statusCode).toBe(200);
    expect(partsOf(r)[0].body.equals(jpeg.bytes)).toBe(true);
  });

  test('grade safety masks names and IDs in QIDO-RS and metadata; the files stay as stored', async () => {
    const setting = (on: boolean) =>
      p.db.query(`INSERT INTO app_meta (key, value) VALUES ('grade_safety', to_jsonb($1::boolean)) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [on]);
    await setting(true);
    try {
      const [study] = (await get(`/studies?StudyInstanceUID=${ct.studyUid}`)).json();
      expect(study['00100010'].Value).toEqual([{ Alphabetic: 'Wang^********', Ideographic: '王**' }]);
      expect(study['00100020'].Value).toEqual(['DW****']);
      // Searching by the plain value still finds it: the server matches, the caller sees it masked.
      expect((await get('/studies?PatientID=DWC0001')).json()).toHaveLength(1);
      const [series] = (await get(`/studies/${ct.studyUid}/series?includefield=all`)).json();
      expect(series['00100010'].Value).toEqual([{ Alphabetic: 'Wang^********', Ideographic: '王**' }]);
      const [instance] = (await get(`/studies/${ct.studyUid}/instances?includefield=00100020`)).json();
      expect(instance['00100020'].Value).toEqual(['DW****']);
      const metadata = (await get(`/studies/${ct.studyUid}/metadata`)).json();
      expect(metadata.map((m: any) => [m['00100010'].Value[0].Ideographic, m['00100020'].Value[0]])).toEqual([['王**', 'DW****'], ['王**', 'DW****']]);
      const [part] = partsOf(await get(instanceUrl(ct, ct.instances[0].sopInstanceUid)));
      expect(part.body.equals(ct.instances[0].bytes)).toBe(true);
    } finally {
      await setting(false);
    }
    const [plain] = (await get(`/studies?StudyInstanceUID=${ct.studyUid}`)).json();
    expect(plain['00100020'].Value).toEqual(['DWC0001']);
  });

  test('study and series /rendered: one picture per image, as multipart', async () => {
    for (const url of [`/studies/${ct.studyUid}/rendered`, `/studies/${ct.studyUid}/series/${ct.seriesUid}/rendered`]) {
      const r = await get(url);
      expect([url, r.statusCode]).toEqual([url, 200]);
      expect(r.headers['content-type']).toMatch(/^multipart\/related; type="image\/png"; boundary=/);
      const parts = partsOf(r);
      expect(parts.map((x) => readImageInfo(x.body))).toEqual([1, 2].map(() => ({ type: 'png', width: 64, height: 64 })));
      expect(parts.map((x) => x.headers['content-location'].replace(/^.*\/instances\//, ''))).toEqual(ct.instances.map((i) => `${i.sopInstanceUid}/rendered`));
    }
    const jpegParts = partsOf(await get(`/studies/${ct.studyUid}/rendered?viewport=32,32`, clerk, { accept: 'multipart/related; type="image/jpeg"' }));
    expect(jpegParts.map((x) => [x.headers['content-type'], readImageInfo(x.body)])).toEqual([1, 2].map(() => ['image/jpeg', { type: 'jpg', width: 32, height: 32 }]));
    // A multi-frame shows its first frame.
    const [first] = partsOf(await get(`/studies/${implicit.studyUid}/rendered`));
    expect(readImageInfo(first.body)).toEqual({ type: 'png', width: 8, height: 6 });
    // A stored JPEG is a picture only as JPEG.
    const [stored] = partsOf(await get(`/studies/${jpeg.studyUid}/series/${jpeg.seriesUid}/rendered`));
    expect(stored.body.equals(jpeg.fragment)).toBe(true);
    expect((await get(`/studies/${jpeg.studyUid}/rendered`, clerk, { accept: 'multipart/related; type="image/png"' })).statusCode).toBe(406);
  });
});
