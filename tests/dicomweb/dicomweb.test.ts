/**
 * DICOMweb under /dicom-web (issue #6 part 3), through the API on each database:
 * - STOW-RS: a synthetic CT series → 200 with ReferencedSOPSequence; the same again →
 *   200 (duplicates are stored); a non-DICOM part beside a good one → 202 with
 *   FailedSOPSequence 0xC000; only bad parts → 409; a study UID other than the URL's →
 *   0xA900; a body that is not multipart → 400; no upload right → 403; the region's
 *   administrator (no hospital) → 403 PACS006; no token → 401
 * - QIDO-RS: by PatientID (keyword and tag), PatientName wildcards on the characters
 *   and on the pinyin, StudyDate single/range/open ends, AccessionNumber,
 *   ModalitiesInStudy, StudyInstanceUID lists, limit/offset with the Warning header,
 *   includefield, series and instance searches with their counts
 * - WADO-RS: an instance, a series and a study byte for byte as sent; a transcoding
 *   demand → 406; metadata with BulkDataURI, a series in display order (space order,
 *   not instance number); frames of a native single-frame, of an
 *   implicit-VR multi-frame, and of a JPEG baseline instance; rendered PNG and JPEG in
 *   the viewport's size, windowed; thumbnails
 * - scope: a user of another hospital sees no study (QIDO []) and gets 404 PACS100
 *   for each of its resources; the central hospital's regional reader sees it
 * - over a real socket with fetch: a streamed STOW-RS upload and a study retrieved
 *   as a stream, with a Bearer token
 */
import type { AddressInfo } from 'node:net';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { syntheticSeries, type SyntheticSeries } from '../../mock/dicom';
import { readImageInfo } from '../../server/lib/images';
import { decodePng, jpegInstance, multiFrameInstance, multipartBody, parseMultipart } from './helpers';

const DW = '/dicom-web';
type Json = Record<string, { vr: string; Value?: any[]; BulkDataURI?: string }>;

const value = (json: Json, tag: string) => json[tag]?.Value?.[0];

describe.each(dbKinds)('DICOMweb on %s', (kind) => {
  let p: TestPlatform;
  let tech: string; // hospital A technician: image upload and view
  let clerk: string; // hospital A clerk: image view only
  let expert: string; // central hospital, own data only: outside hospital A's scope
  let senior: string; // central hospital with regional authorization over A and B

  const ct: SyntheticSeries = syntheticSeries({
    uidRoot: '1.2.826.0.1.3680043.10.1082.601',
    patientName: '王小明',
    patientNameEn: 'Wang^Xiaoming',
    patientId: 'DW0001',
    accessionNumber: 'ACCDW1',
    studyDate: '20261105',
    studyTime: '101500',
    studyDescription: 'Chest CT',
    modality: 'CT',
    count: 3,
  });
  const mr: SyntheticSeries = syntheticSeries({
    uidRoot: '1.2.826.0.1.3680043.10.1082.602',
    patientName: '李四',
    patientNameEn: 'Li^Si',
    patientId: 'DW0002',
    accessionNumber: 'ACCDW2',
    studyDate: '20261012',
    studyTime: '153000',
    modality: 'MR',
    count: 2,
  });
  const multiFrame = multiFrameInstance('1.2.826.0.1.3680043.10.1082.603', 3, 8, 10);
  const jpeg = jpegInstance('1.2.826.0.1.3680043.10.1082.604', 24, 40);

  // A null token sends none.
  const headers = (token: string | null, extra: Record<string, string> = {}) => ({ ...(token ? { 'x-auth-token': token } : {}), ...extra });
  const get = (url: string, token: string | null = clerk, extra: Record<string, string> = {}) => p.app.inject({ method: 'GET', url: `${DW}${url}`, headers: headers(token, extra) });
  const stow = (url: string, body: { payload: Buffer; contentType: string }, token: string | null = tech) =>
    p.app.inject({ method: 'POST', url: `${DW}${url}`, headers: headers(token, { 'content-type': body.contentType }), payload: body.payload });
  const qido = async (query: string, token = clerk) => {
    const r = await get(`/studies?${query}`, token);
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/dicom\+json/);
    return r.json() as Json[];
  };
  const studyUids = (results: Json[]) => results.map((s) => value(s, '0020000D')).sort();
  const instanceUrl = (s: { studyUid: string; seriesUid: string }, sop: string) => `/studies/${s.studyUid}/series/${s.seriesUid}/instances/${sop}`;

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    [tech, clerk, expert, senior] = await Promise.all(['13800000003', '13800000002', '13800000006', '13800000005'].map((m) => login(p.app, m)));
  });
  afterAll(() => p.close());

  describe('STOW-RS', () => {
    test('stores a series and answers with the ReferencedSOPSequence', async () => {
      const r = await stow('/studies', multipartBody(ct.instances.map((i) => ({ body: i.bytes }))));
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/dicom\+json/);
      const body = r.json() as Json;
      expect(value(body, '00081190')).toMatch(new RegExp(`/dicom-web/studies/${ct.studyUid}$`));
      expect(body['00081198']).toBeUndefined();
      const refs = body['00081199'].Value as Json[];
      expect(refs.map((x) => value(x, '00081155'))).toEqual(ct.instances.map((i) => i.sopInstanceUid));
      expect(refs.map((x) => value(x, '00081150'))).toEqual(ct.instances.map((i) => i.sopClassUid));
      expect(value(refs[0], '00081190')).toMatch(new RegExp(`${instanceUrl(ct, ct.instances[0].sopInstanceUid)}$`));
      const study = (await p.db.query('SELECT hospital_id, instance_count, source_ae FROM dicom_study WHERE study_uid = $1', [ct.studyUid])).rows[0];
      const hospitalA = (await p.db.query("SELECT id FROM org WHERE code = 'HOSP_A'")).rows[0].id;
      // The uploader's hospital owns the study; the exam log names the uploading user.
      expect(study).toMatchObject({ hospital_id: hospitalA, instance_count: 3, source_ae: '技师小吴' });
    });

    test('the same instances again count as stored', async () => {
      const r = await stow('/studies', multipartBody([{ body: ct.instances[0].bytes }]));
      expect(r.statusCode).toBe(200);
      expect((r.json()['00081199'].Value as Json[]).length).toBe(1);
      expect((await p.db.query('SELECT instance_count FROM dicom_study WHERE study_uid = $1', [ct.studyUid])).rows[0].instance_count).toBe(3);
    });

    test('stores into a named study; another study in the body is refused with 0xA900', async () => {
      const r = await stow(`/studies/${mr.studyUid}`, multipartBody([...mr.instances.map((i) => ({ body: i.bytes })), { body: ct.instances[1].bytes }]));
      expect(r.statusCode).toBe(202);
      const body = r.json() as Json;
      expect((body['00081199'].Value as Json[]).map((x) => value(x, '00081155'))).toEqual(mr.instances.map((i) => i.sopInstanceUid));
      const failed = body['00081198'].Value as Json[];
      expect(failed.length).toBe(1);
      expect(value(failed[0], '00081155')).toBe(ct.instances[1].sopInstanceUid);
      expect(value(failed[0], '00081197')).toBe(0xa900);
    });

    test('a non-DICOM part fails with 0xC000 beside a stored one (202); only bad parts → 409', async () => {
      const some = await stow('/studies', multipartBody([{ body: Buffer.from('this is not DICOM'.repeat(20)) }, { body: multiFrame.bytes }]));
      expect(some.statusCode).toBe(202);
      const body = some.json() as Json;
      expect(value((body['00081198'].Value as Json[])[0], '00081197')).toBe(0xc000);
      expect((body['00081199'].Value as Json[]).map((x) => value(x, '00081155'))).toEqual([multiFrame.sopInstanceUid]);

      const truncated = ct.instances[2].bytes.subarray(0, ct.instances[2].bytes.length - 500);
      const none = await stow('/studies', multipartBody([{ body: truncated }, { body: Buffer.from('x'), type: 'text/plain' }]));
      expect(none.statusCode).toBe(409);
      expect((none.json()['00081198'].Value as Json[]).map((x) => value(x, '00081197'))).toEqual([0xc000, 0xc000]);
      // The truncated one is named (its header was read); the text part has no UIDs to give.
      expect((none.json()['00081198'].Value as Json[]).map((x) => [value(x, '00081150'), value(x, '00081155')])).toEqual([
        [ct.instances[2].sopClassUid, ct.instances[2].sopInstanceUid],
        [undefined, undefined],
      ]);
      expect(none.json()['00081199']).toBeUndefined();
    });

    test('stores a JPEG baseline instance as received', async () => {
      const r = await stow('/studies', multipartBody([{ body: jpeg.bytes }]));
      expect(r.statusCode).toBe(200);
      const row = (await p.db.query('SELECT transfer_syntax_uid FROM dicom_instance WHERE sop_instance_uid = $1', [jpeg.sopInstanceUid])).rows[0];
      expect(row.transfer_syntax_uid).toBe('1.2.840.10008.1.2.4.50');
    });

    test('a body that is not multipart → 400; no upload right → 403; no token → 401', async () => {
      const json = await p.app.inject({ method: 'POST', url: `${DW}/studies`, headers: headers(tech, { 'content-type': 'application/json' }), payload: '{}' });
      expect(json.statusCode).toBe(400);
      expect(json.json().status).toBe('UAA421');
      const noBoundary = await stow('/studies', { payload: Buffer.from('abc'), contentType: 'multipart/related; type="application/dicom"' });
      expect(noBoundary.statusCode).toBe(400);
      const garbage = await stow('/studies', { payload: Buffer.from('no parts here'), contentType: 'multipart/related; type="application/dicom"; boundary=xyz' });
      expect(garbage.statusCode).toBe(400);
      const wrongType = await stow('/studies', { ...multipartBody([{ body: ct.instances[0].bytes }]), contentType: 'multipart/related; type="application/dicom+xml"; boundary=test-5f1c9a-boundary' });
      expect(wrongType.statusCode).toBe(415);

      const clerkTry = await stow('/studies', multipartBody([{ body: ct.instances[0].bytes }]), clerk);
      expect(clerkTry.statusCode).toBe(403);
      expect(clerkTry.json().status).toBe('UAA103');
      // The region's administrator has every right, but the region keeps no images.
      const region = await stow('/studies', multipartBody([{ body: ct.instances[0].bytes }]), await login(p.app, '13800000001'));
      expect(region.statusCode).toBe(403);
      expect(region.json().status).toBe('PACS006');
      const anonymous = await stow('/studies', multipartBody([{ body: ct.instances[0].bytes }]), null);
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json().status).toBe('UAA005');
    });
  });

  describe('QIDO-RS', () => {
    test('a study result carries the study attributes, counts and RetrieveURL', async () => {
      const [study] = await qido('PatientID=DW0001');
      expect(value(study, '0020000D')).toBe(ct.studyUid);
      expect(value(study, '00100010')).toEqual({ Alphabetic: 'Wang^Xiaoming', Ideographic: '王小明' });
      expect(study['00080061'].Value).toEqual(['CT']);
      expect(value(study, '00201206')).toBe(1);
      expect(value(study, '00201208')).toBe(3);
      expect(value(study, '00080020')).toBe('20261105');
      expect(value(study, '00080050')).toBe('ACCDW1');
      expect(value(study, '00081190')).toMatch(new RegExp(`/dicom-web/studies/${ct.studyUid}$`));
      // Attributes in tag order, as DICOM JSON writes them.
      expect(Object.keys(study)).toEqual(Object.keys(study).sort());
      expect(await qido('00100020=DW0001')).toHaveLength(1);
      expect(await qido('0010%2C0020=DW0001')).toHaveLength(1);
      expect(await qido('PatientID=DW000*')).toHaveLength(2);
      expect(await qido('PatientID=DW000')).toEqual([]);
    });

    test('PatientName matches the ideographic or the alphabetic component, with wildcards, case-insensitively', async () => {
      // Within this test's patients: the demo seed has studies of its own.
      const names = async (name: string) => studyUids(await qido(`PatientID=DW000*&PatientName=${encodeURIComponent(name)}`));
      expect(await names('王*')).toEqual([ct.studyUid]);
      expect(await names('王小明')).toEqual([ct.studyUid]);
      expect(await names('?小明')).toEqual([ct.studyUid]);
      expect(await names('wang*')).toEqual([ct.studyUid]);
      expect(await names('Wang^Xiaoming')).toEqual([ct.studyUid]);
      expect(await names('*^Si')).toEqual([mr.studyUid]);
      expect(await names('Li*=李*')).toEqual([mr.studyUid]);
      expect(await names('Li*=王*')).toEqual([]);
      expect(await names('Wang')).toEqual([]);
      expect(await names('Zhou*')).toEqual([]);
      expect(await names('王*\\李*')).toEqual([ct.studyUid, mr.studyUid].sort());
    });

    test('StudyDate: a day, a range, open ends; StudyTime ranges', async () => {
      expect(studyUids(await qido('PatientID=DW000*&StudyDate=20261105'))).toEqual([ct.studyUid]);
      expect(studyUids(await qido('PatientID=DW000*&StudyDate=20261101-20261130'))).toEqual([ct.studyUid]);
      expect(studyUids(await qido('PatientID=DW000*&StudyDate=-20261031'))).toEqual([mr.studyUid]);
      expect(studyUids(await qido('PatientID=DW000*&StudyDate=20261001-'))).toEqual([ct.studyUid, mr.studyUid].sort());
      expect(studyUids(await qido('PatientID=DW000*&StudyDate=2026-11-05'))).toEqual([ct.studyUid]);
      expect(studyUids(await qido('PatientID=DW000*&StudyTime=1000-1100'))).toEqual([ct.studyUid]);
      expect(studyUids(await qido('PatientID=DW000*&StudyTime=1500-'))).toEqual([mr.studyUid]);
      const bad = await get('/studies?StudyDate=yesterday');
      expect(bad.statusCode).toBe(400);
    });

    test('AccessionNumber, ModalitiesInStudy, StudyInstanceUID lists', async () => {
      expect(studyUids(await qido('AccessionNumber=ACCDW1'))).toEqual([ct.studyUid]);
      expect(studyUids(await qido('PatientID=DW000*&ModalitiesInStudy=MR'))).toEqual([mr.studyUid]);
      expect(studyUids(await qido('PatientID=DW000*&ModalitiesInStudy=MR%5CCT'))).toEqual([ct.studyUid, mr.studyUid].sort());
      const both = [ct.studyUid, mr.studyUid].sort();
      expect(studyUids(await qido(`StudyInstanceUID=${ct.studyUid},${mr.studyUid}`))).toEqual(both);
      expect(studyUids(await qido(`StudyInstanceUID=${ct.studyUid}%5C${mr.studyUid}`))).toEqual(both);
      expect(studyUids(await qido(`StudyInstanceUID=${ct.studyUid}&StudyInstanceUID=${mr.studyUid}`))).toEqual(both);
    });

    test('limit and offset page through the results, with a Warning while more remain', async () => {
      const all = await qido('PatientID=DW000*');
      expect(all.map((s) => value(s, '00080020'))).toEqual(['20261105', '20261012']); // newest first
      const first = await get('/studies?PatientID=DW000*&limit=1');
      expect(first.json().map((s: Json) => value(s, '0020000D'))).toEqual([ct.studyUid]);
      expect(first.headers.warning).toMatch(/^299 .*Additional results can be requested/);
      const second = await get('/studies?PatientID=DW000*&limit=1&offset=1');
      expect(second.json().map((s: Json) => value(s, '0020000D'))).toEqual([mr.studyUid]);
      expect(second.headers.warning).toBeUndefined();
      expect(await qido('PatientID=DW000*&offset=2')).toEqual([]);
      expect((await get('/studies?limit=-1')).statusCode).toBe(400);
    });

    test('includefield adds attributes by keyword or tag, or all', async () => {
      const [plain] = await qido('PatientID=DW0001');
      expect(plain['00080080']).toBeUndefined();
      const [byKeyword] = await qido('PatientID=DW0001&includefield=InstitutionName');
      expect(value(byKeyword, '00080080')).toBe('Demo Hospital');
      const [byTag] = await qido('PatientID=DW0001&includefield=00080080,0008103E');
      expect(value(byTag, '00080080')).toBe('Demo Hospital');
      const [all] = await qido('PatientID=DW0001&includefield=all');
      expect(value(all, '00100030')).toBe('19700101');
      expect(value(all, '00081030')).toBe('Chest CT');
      expect((await get('/studies?includefield=NoSuchKeyword')).statusCode).toBe(400);
    });

    test('series and instances of a study, and searches across studies', async () => {
      const series = await get(`/studies/${ct.studyUid}/series`);
      expect(series.statusCode).toBe(200);
      const [s] = series.json() as Json[];
      expect(value(s, '0020000E')).toBe(ct.seriesUid);
      expect(value(s, '00080060')).toBe('CT');
      expect(value(s, '00201209')).toBe(3);
      expect(value(s, '00081190')).toMatch(new RegExp(`/studies/${ct.studyUid}/series/${ct.seriesUid}$`));

      const instances = (await get(`/studies/${ct.studyUid}/series/${ct.seriesUid}/instances`)).json() as Json[];
      expect(instances.map((i) => value(i, '00080018'))).toEqual(ct.instances.map((i) => i.sopInstanceUid));
      expect(instances.map((i) => value(i, '00200013'))).toEqual([1, 2, 3]);
      expect(value(instances[0], '00280010')).toBe(64);
      expect(value(instances[0], '00083002')).toBe('1.2.840.10008.1.2.1');

      const one = (await get(`/studies/${ct.studyUid}/instances?SOPInstanceUID=${ct.instances[1].sopInstanceUid}`)).json() as Json[];
      expect(one.map((i) => value(i, '00080018'))).toEqual([ct.instances[1].sopInstanceUid]);

      const mrSeries = (await get('/series?Modality=MR&PatientID=DW0002')).json() as Json[];
      expect(mrSeries.map((x) => value(x, '0020000E'))).toEqual([mr.seriesUid]);
      // Across studies, a series carries its study's attributes too.
      expect(value(mrSeries[0], '0020000D')).toBe(mr.studyUid);
      expect(value(mrSeries[0], '00100020')).toBe('DW0002');

      const bySop = (await get(`/instances?SOPInstanceUID=${mr.instances[0].sopInstanceUid}`)).json() as Json[];
      expect(bySop.map((x) => value(x, '0020000E'))).toEqual([mr.seriesUid]);

      expect((await get('/studies/1.2.3.4.5/series')).statusCode).toBe(404);
    });

    test('a study of another hospital is not found; the regional reader of the central hospital finds it', async () => {
      expect(await qido('PatientID=DW0001', expert)).toEqual([]);
      expect(await qido(`StudyInstanceUID=${ct.studyUid}`, expert)).toEqual([]);
      expect((await get('/series?PatientID=DW0001', expert)).json()).toEqual([]);
      expect((await get(`/instances?SOPInstanceUID=${ct.instances[0].sopInstanceUid}`, expert)).json()).toEqual([]);
      const hidden = await get(`/studies/${ct.studyUid}/series`, expert);
      expect(hidden.statusCode).toBe(404);
      expect(hidden.json().status).toBe('PACS100');
      expect(studyUids(await qido('PatientID=DW0001', senior))).toEqual([ct.studyUid]);
    });

    test('no token → 401; Bearer works like X-Auth-Token; JSON only', async () => {
      const anonymous = await get('/studies', null);
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json().status).toBe('UAA005');
      expect((await get('/studies', null, { authorization: 'Bearer not-a-session' })).statusCode).toBe(401);
      const bearer = await get('/studies?PatientID=DW0001', null, { authorization: `Bearer ${clerk}` });
      expect(bearer.statusCode).toBe(200);
      expect(bearer.json()).toHaveLength(1);
      expect((await get('/studies', clerk, { accept: 'application/dicom+xml' })).statusCode).toBe(406);
      expect((await get('/no-such-resource')).statusCode).toBe(404);
    });
  });

  describe('WADO-RS', () => {
    test('an instance, a series and a study come back byte for byte as sent', async () => {
      const one = await get(instanceUrl(ct, ct.instances[1].sopInstanceUid));
      expect(one.statusCode).toBe(200);
      expect(one.headers['content-type']).toMatch(/^multipart\/related; type="application\/dicom"; boundary=/);
      const [part] = parseMultipart(one.rawPayload, String(one.headers['content-type']));
      expect(part.headers['content-type']).toBe('application/dicom; transfer-syntax=1.2.840.10008.1.2.1');
      expect(part.body.equals(ct.instances[1].bytes)).toBe(true);

      const series = await get(`/studies/${ct.studyUid}/series/${ct.seriesUid}`, clerk, { accept: 'multipart/related; type="application/dicom"; transfer-syntax=*' });
      const parts = parseMultipart(series.rawPayload, String(series.headers['content-type']));
      expect(parts.map((x) => x.body.equals(ct.instances[parts.indexOf(x)].bytes))).toEqual([true, true, true]);

      const study = await get(`/studies/${mr.studyUid}`, clerk, { accept: 'multipart/related; type="application/dicom"; transfer-syntax=1.2.840.10008.1.2.1' });
      expect(study.statusCode).toBe(200);
      expect(parseMultipart(study.rawPayload, String(study.headers['content-type'])).map((x) => x.body.length)).toEqual(mr.instances.map((i) => i.bytes.length));
    });

    test('a transcoding demand is refused with 406', async () => {
      const r = await get(`/studies/${ct.studyUid}`, clerk, { accept: 'multipart/related; type="application/dicom"; transfer-syntax=1.2.840.10008.1.2.4.50' });
      expect(r.statusCode).toBe(406);
      // The catalogue's code and text, and the precise diagnostic DICOMweb clients log.
      expect(r.json()).toMatchObject({ status: 'PACS517', message: '无法按所需格式提供该影像', detail: expect.stringMatching(/not supported/) });
      expect((await get(`/studies/${ct.studyUid}`, clerk, { accept: 'application/zip' })).statusCode).toBe(406);
    });

    test('metadata at study, series and instance level, with a BulkDataURI for the pixels', async () => {
      const study = await get(`/studies/${ct.studyUid}/metadata`);
      expect(study.statusCode).toBe(200);
      expect(study.headers['content-type']).toMatch(/^application\/dicom\+json/);
      const items = study.json() as Json[];
      expect(items.map((i) => value(i, '00080018'))).toEqual(ct.instances.map((i) => i.sopInstanceUid));
      expect(value(items[0], '00100010')).toEqual({ Alphabetic: 'Wang^Xiaoming', Ideographic: '王小明' });
      expect(value(items[0], '00280010')).toBe(64);
      expect(value(items[0], '00281050')).toBe(700);
      expect(items[0]['7FE00010']).toEqual({ vr: 'OW', BulkDataURI: expect.stringMatching(new RegExp(`${instanceUrl(ct, ct.instances[0].sopInstanceUid)}/frames/1$`)) });
      expect((await get(`/studies/${ct.studyUid}/series/${ct.seriesUid}/metadata`)).json()).toHaveLength(3);
      // A series numbered from the top down is listed in space order, the order a viewer shows (its first image first).
      const topDown = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.611', patientId: 'DW0005', count: 4, sliceSpacing: -2.5 });
      expect((await stow('/studies', multipartBody(topDown.instances.map((i) => ({ body: i.bytes }))))).statusCode).toBe(200);
      const listed = (await get(`/studies/${topDown.studyUid}/series/${topDown.seriesUid}/metadata`)).json() as Json[];
      expect(listed.map((i) => value(i, '00080018'))).toEqual(topDown.instances.map((i) => i.sopInstanceUid).reverse());
      expect(listed.map((i) => value(i, '00200013'))).toEqual([4, 3, 2, 1]);
      // The viewer is told that first instance with the study, to ask for its image beside the series' metadata.
      const opened = await p.app.inject({ method: 'POST', url: '/api/pacs/v1/study/viewer', headers: authed(clerk), payload: { studyUids: [topDown.studyUid] } });
      expect(opened.json().data.list[0].series[0].firstInstanceUid).toBe(value(listed[0], '00080018'));
      // A multi-frame's pixel data is a resource of its own: all frames in order.
      const inst = (await get(`${instanceUrl(multiFrame, multiFrame.sopInstanceUid)}/metadata`)).json() as Json[];
      const bulk = inst[0]['7FE00010'].BulkDataURI!;
      expect(bulk).toMatch(new RegExp(`${instanceUrl(multiFrame, multiFrame.sopInstanceUid)}/bulkdata/7FE00010$`));
      const pixels = await get(new URL(bulk).pathname.slice(DW.length));
      expect(parseMultipart(pixels.rawPayload, String(pixels.headers['content-type'])).map((f) => f.body)).toEqual([1, 2, 3].map(multiFrame.frameBytes));
    });

    test('frames of a native instance are its pixel data, read by range', async () => {
      const sent = ct.instances[0].bytes;
      const r = await get(`${instanceUrl(ct, ct.instances[0].sopInstanceUid)}/frames/1`, clerk, { accept: 'multipart/related; type="application/octet-stream"; transfer-syntax=*' });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toMatch(/^multipart\/related; type="application\/octet-stream"/);
      const [frame] = parseMultipart(r.rawPayload, String(r.headers['content-type']));
      expect(frame.headers['content-type']).toBe('application/octet-stream; transfer-syntax=1.2.840.10008.1.2.1');
      expect(frame.body.length).toBe(64 * 64 * 2);
      // The pixel data is the last element of the file.
      expect(frame.body.equals(sent.subarray(sent.length - 64 * 64 * 2))).toBe(true);
      expect((await get(`${instanceUrl(ct, ct.instances[0].sopInstanceUid)}/frames/2`)).statusCode).toBe(404);
      expect((await get(`${instanceUrl(ct, ct.instances[0].sopInstanceUid)}/frames/1`, clerk, { accept: 'multipart/related; type="image/jpeg"' })).statusCode).toBe(406);

      const many = await get(`${instanceUrl(multiFrame, multiFrame.sopInstanceUid)}/frames/3,1`);
      const frames = parseMultipart(many.rawPayload, String(many.headers['content-type']));
      expect(frames.map((f) => f.body.equals(multiFrame.frameBytes([3, 1][frames.indexOf(f)])))).toEqual([true, true]);
      expect(frames[0].headers['content-location']).toMatch(/\/frames\/3$/);
    });

    test('frames of a JPEG baseline instance are its fragments, as image/jpeg', async () => {
      const url = `${instanceUrl(jpeg, jpeg.sopInstanceUid)}/frames/1`;
      const r = await get(url, clerk, { accept: 'multipart/related; type="image/jpeg"' });
      expect(r.statusCode).toBe(200);
      const [frame] = parseMultipart(r.rawPayload, String(r.headers['content-type']));
      expect(frame.headers['content-type']).toBe('image/jpeg; transfer-syntax=1.2.840.10008.1.2.4.50');
      expect(frame.body.equals(jpeg.fragment)).toBe(true);
      const octet = await get(url, clerk, { accept: 'multipart/related; type="application/octet-stream"; transfer-syntax=*' });
      expect(parseMultipart(octet.rawPayload, String(octet.headers['content-type']))[0].headers['content-type']).toBe('application/octet-stream; transfer-syntax=1.2.840.10008.1.2.4.50');
      // Uncompressed bytes would need decoding.
      expect((await get(url, clerk, { accept: 'multipart/related; type="application/octet-stream"' })).statusCode).toBe(406);
    });

    test('rendered: a windowed PNG in the viewport size, or JPEG when asked', async () => {
      const url = `${instanceUrl(ct, ct.instances[0].sopInstanceUid)}/rendered`;
      const full = await get(url);
      expect(full.statusCode).toBe(200);
      expect(full.headers['content-type']).toBe('image/png');
      const png = decodePng(full.rawPayload);
      expect([png.width, png.height, png.channels]).toEqual([64, 64, 1]);
      // The centre pixel is stored 1101, i.e. 77 HU after the rescale: in the dataset's window
      // (700/1400) just above its lower edge; the background (below -900 HU) is black.
      expect(png.pixels[32 * 64 + 32]).toBe(Math.round(((77 - 699.5) / 1399 + 0.5) * 255));
      expect(png.pixels[0]).toBe(0);
      // A window centred on it shows it mid-grey.
      const centred = decodePng((await get(`${url}?window=77.5,101`)).rawPayload);
      expect(centred.pixels[32 * 64 + 32]).toBe(128);

      const small = await get(`${url}?viewport=32,32`);
      expect(readImageInfo(small.rawPayload)).toEqual({ type: 'png', width: 32, height: 32 });
      const wideBox = await get(`${url}?viewport=48,16`);
      expect(readImageInfo(wideBox.rawPayload)).toEqual({ type: 'png', width: 16, height: 16 });
      const asJpeg = await get(`${url}?viewport=20,20`, clerk, { accept: 'image/jpeg' });
      expect(asJpeg.headers['content-type']).toBe('image/jpeg');
      expect(readImageInfo(asJpeg.rawPayload)).toEqual({ type: 'jpg', width: 20, height: 20 });
      expect((await get(`${url}?viewport=0,10`)).statusCode).toBe(400);
      expect((await get(url, clerk, { accept: 'image/gif' })).statusCode).toBe(406);

      const frame2 = decodePng((await get(`${instanceUrl(multiFrame, multiFrame.sopInstanceUid)}/frames/2/rendered`)).rawPayload);
      expect([frame2.width, frame2.height]).toEqual([10, 8]);
    });

    test('rendered JPEG baseline data is the stored JPEG; other renderings of it → 406', async () => {
      const url = `${instanceUrl(jpeg, jpeg.sopInstanceUid)}/rendered`;
      const r = await get(url);
      expect(r.headers['content-type']).toBe('image/jpeg');
      expect(r.rawPayload.equals(jpeg.fragment)).toBe(true);
      expect((await get(url, clerk, { accept: 'image/png' })).statusCode).toBe(406);
    });

    test('thumbnails of a study, a series and an instance fit 128 pixels', async () => {
      const study = await get(`/studies/${ct.studyUid}/thumbnail`);
      expect(study.statusCode).toBe(200);
      // A 64-pixel image is not enlarged to the default 128; a viewport given is filled.
      expect(readImageInfo(study.rawPayload)).toEqual({ type: 'png', width: 64, height: 64 });
      const big = await get(`${instanceUrl(multiFrame, multiFrame.sopInstanceUid)}/thumbnail?viewport=100,100`);
      expect(readImageInfo(big.rawPayload)).toEqual({ type: 'png', width: 100, height: 80 });
      const series = await get(`/studies/${ct.studyUid}/series/${ct.seriesUid}/thumbnail?viewport=16,16`);
      expect(readImageInfo(series.rawPayload)).toEqual({ type: 'png', width: 16, height: 16 });
      expect(series.headers['cache-control']).toMatch(/private/);
    });

    test('outside the caller\'s scope every resource is 404 PACS100', async () => {
      const sop = ct.instances[0].sopInstanceUid;
      for (const url of [
        `/studies/${ct.studyUid}`,
        `/studies/${ct.studyUid}/metadata`,
        `/studies/${ct.studyUid}/series/${ct.seriesUid}`,
        instanceUrl(ct, sop),
        `${instanceUrl(ct, sop)}/metadata`,
        `${instanceUrl(ct, sop)}/frames/1`,
        `${instanceUrl(ct, sop)}/rendered`,
        `/studies/${ct.studyUid}/thumbnail`,
      ]) {
        const r = await get(url, expert);
        expect([url, r.statusCode, r.json().status]).toEqual([url, 404, 'PACS100']);
      }
      expect((await get(instanceUrl(ct, sop), senior)).statusCode).toBe(200);
      expect((await get(instanceUrl(ct, sop), null)).statusCode).toBe(401);
      expect((await get(`/studies/${ct.studyUid}/series/${ct.seriesUid}/instances/1.2.3`)).statusCode).toBe(404);
      expect((await get('/studies/not-a-uid')).statusCode).toBe(400);
    });
  });

  test('over a socket: a streamed STOW-RS upload, then the study streamed back (Bearer token)', async () => {
    await p.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(p.app.server.address() as AddressInfo).port}${DW}`;
    const big = syntheticSeries({ uidRoot: '1.2.826.0.1.3680043.10.1082.605', patientId: 'DWSOCK', count: 4, rows: 256, columns: 256 });
    const { payload, contentType } = multipartBody(big.instances.map((i) => ({ body: i.bytes })));
    // Sent in 16 KB pieces, as a browser's upload arrives.
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= payload.length) return controller.close();
        controller.enqueue(payload.subarray(at, at + 16384));
        at += 16384;
      },
    });
    const stored = await fetch(`${base}/studies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tech}`, 'content-type': contentType },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(stored.status).toBe(200);
    expect(((await stored.json())['00081199'].Value as Json[]).length).toBe(4);

    const r = await fetch(`${base}/studies/${big.studyUid}`, { headers: { authorization: `Bearer ${clerk}`, accept: 'multipart/related; type="application/dicom"' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('transfer-encoding')).toBe('chunked');
    const chunks: Buffer[] = [];
    for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
    const parts = parseMultipart(Buffer.concat(chunks), r.headers.get('content-type')!);
    expect(parts.map((x, k) => x.body.equals(big.instances[k].bytes))).toEqual([true, true, true, true]);
  });
});
