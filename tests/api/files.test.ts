/**
 * The file service (/api/file/v1) and wizard drafts through the API, on each database:
 * - policy: a purpose's types, size and pixel limits from schemas/limits.json, the chunk size
 * - a small upload in one request: the signature picture, its SHA-256 stored, attached to
 *   the user (hasSignature, GET user/signature), readable by whoever may view the user
 * - type sniffed from the bytes, not the client's Content-Type: a GIF called PNG is
 *   UCENTER703, a picture of the wrong size UAA421, and nothing is stored
 * - too large: UCENTER704 at init, nothing stored
 * - a chunked upload of an exam attachment (by the clerk) with a broken connection: the status names
 *   the chunks that arrived, completing early names the missing one (FILE004), a chunk
 *   sent twice is harmless; the kept file equals the sent bytes and its hash
 * - a refused type stops at the first chunk; someone else's upload is unknown (FILE001)
 * - scope: an exam attachment is read by whoever has the exam in scope, FILE002 outside,
 *   UAA103 without a right for the owner's kind, FILE001 for an unknown id
 * - delete: the signature goes with its file
 * - drafts: one per user and form, nobody else's
 */
import crypto from 'node:crypto';
import { signaturePng as png } from '../support/images';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

const F = '/api/file/v1';
const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** A PDF-looking file of `size` bytes: the magic, then deterministic filler. */
function pdf(size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + (i >> 9)) & 0xff;
  Buffer.from('%PDF-1.7\n').copy(b, 0);
  return b;
}

describe.each(dbKinds)('file service on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let docA: string;
  let clerk: string;
  let auditor: string;
  let doctorId: number;
  let examA: number;
  let examB: number;

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    p.app.inject({ method, url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const raw = (method: 'POST' | 'PUT', url: string, token: string, bytes: Buffer, type = 'application/octet-stream') =>
    p.app.inject({ method, url, headers: authed(token, { 'content-type': type }), payload: bytes }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const count = async () => (await p.db.query<{ n: number }>('SELECT count(*)::int AS n FROM stored_file')).rows[0].n;

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    [admin, docA, clerk, auditor] = await Promise.all(['13800000001', '13800000004', '13800000002', '13800000009'].map((m) => login(p.app, m)));
    doctorId = (await p.db.query<{ id: number }>("SELECT id FROM app_user WHERE mobile = '13800000004'")).rows[0].id;
    const exam = async (code: string) =>
      (await p.db.query<{ id: number }>('SELECT e.id FROM exam e JOIN org o ON o.id = e.hospital_id WHERE o.code = $1 ORDER BY e.id LIMIT 1', [code])).rows[0].id;
    examA = await exam('HOSP_A');
    examB = await exam('HOSP_B');
  });
  afterAll(() => p.close());

  test('policy: types, sizes and pixels from the limits, the chunk size', async () => {
    const sig = await call('GET', `${F}/policy/signature`, admin);
    expect(sig.body.data).toEqual({ purpose: 'signature', ownerKind: 'user', types: ['image/jpeg', 'image/png'], maxBytes: 1048576, chunkSize: 1048576, pixels: { width: 200, height: 130 } });
    const att = await call('GET', `${F}/policy/examAttachment`, docA);
    expect(att.body.data).toMatchObject({ ownerKind: 'exam', maxBytes: 52428800, types: expect.arrayContaining(['application/pdf', 'application/dicom']) });
    expect((await call('GET', `${F}/policy/nothing`, admin)).code).toBe(400);
  });

  test('a signature in one request: sniffed, hashed, attached to the user, read like the user', async () => {
    const picture = png(200, 130);
    const up = await raw('POST', `${F}/upload?purpose=signature&ownerId=${doctorId}&name=${encodeURIComponent('签名.png')}`, admin, picture, 'image/jpeg');
    expect(up.code).toBe(200);
    expect(up.body.data).toMatchObject({ purpose: 'signature', ownerKind: 'user', ownerId: doctorId, name: '签名.png', type: 'image/png', size: picture.length, sha256: sha(picture) });
    const row = (await p.db.query('SELECT sha256, complete, storage_key FROM stored_file WHERE id = $1', [up.body.data.id])).rows[0];
    expect(row).toMatchObject({ sha256: sha(picture), complete: true });
    expect((await p.db.query('SELECT signature_key FROM app_user WHERE id = $1', [doctorId])).rows[0].signature_key).toBe(row.storage_key);
    expect((await call('GET', `/api/ucenter/v1/user/detail/${doctorId}`, admin)).body.data.hasSignature).toBe(true);
    const back = await p.app.inject({ method: 'GET', url: `/api/ucenter/v1/user/signature/${doctorId}`, headers: authed(admin) });
    expect(back.headers['content-type']).toBe('image/png');
    expect(back.rawPayload.equals(picture)).toBe(true);
    const download = await p.app.inject({ method: 'GET', url: `${F}/download/${up.body.data.id}`, headers: authed(admin) });
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.equals(picture)).toBe(true);

    // A second picture replaces the first: one signature per user, the old file gone.
    const again = await raw('POST', `${F}/upload?purpose=signature&ownerId=${doctorId}&name=b.png`, admin, png(200, 130));
    expect(again.body.status).toBe('0');
    expect((await p.db.query("SELECT count(*)::int AS n FROM stored_file WHERE purpose = 'signature' AND owner_id = $1", [doctorId])).rows[0].n).toBe(1);
    expect((await call('GET', `${F}/detail/${up.body.data.id}`, admin)).body.status).toBe('FILE001');

    // Whoever may not view users does not read it (the clerk has no system.user:view).
    expect((await call('GET', `${F}/download/${again.body.data.id}`, clerk)).body.status).toBe('UAA103');
  });

  test('the type is read from the bytes; wrong pixels and wrong types leave nothing', async () => {
    const before = await count();
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(200)]);
    const asPng = await raw('POST', `${F}/upload?purpose=signature&ownerId=${doctorId}&name=x.png`, admin, gif, 'image/png');
    expect(asPng).toMatchObject({ code: 400, body: { status: 'UCENTER703' } });
    expect(asPng.body.message).toBeTruthy();
    const wide = await raw('POST', `${F}/upload?purpose=signature&ownerId=${doctorId}&name=x.png`, admin, png(201, 130));
    expect(wide.body).toMatchObject({ status: 'UAA421', field: 'file' });
    expect(await count()).toBe(before);
  });

  test('too large: refused at init, nothing kept', async () => {
    const before = await count();
    const big = await call('POST', `${F}/upload/init`, admin, { purpose: 'examAttachment', ownerId: examA, name: 'ct.pdf', size: 52428801 });
    expect(big).toMatchObject({ code: 413, body: { status: 'UCENTER704' } });
    const sig = await call('POST', `${F}/upload/init`, admin, { purpose: 'signature', ownerId: doctorId, name: 's.png', size: 1048577 });
    expect(sig.body.status).toBe('UCENTER704');
    expect(await count()).toBe(before);
  });

  test('chunked upload resumed after a broken connection', async () => {
    const content = pdf(2 * 1024 * 1024 + 12345);
    const init = await call('POST', `${F}/upload/init`, clerk, { purpose: 'examAttachment', ownerId: examA, name: '病理报告.pdf', size: content.length });
    expect(init.body.data).toMatchObject({ chunkSize: 1048576, chunkCount: 3, received: [], complete: false });
    const id: string = init.body.data.id;
    const part = (n: number) => content.subarray(n * 1048576, Math.min(content.length, (n + 1) * 1048576));
    expect((await raw('PUT', `${F}/upload/${id}/chunk/0`, clerk, part(0))).body.data.received).toEqual([0]);
    await raw('PUT', `${F}/upload/${id}/chunk/2`, clerk, part(2));
    // The connection broke during chunk 1: the client asks what arrived.
    expect((await call('GET', `${F}/upload/${id}`, clerk)).body.data).toMatchObject({ received: [0, 2], complete: false });
    const early = await call('POST', `${F}/upload/${id}/complete`, clerk);
    expect(early).toMatchObject({ code: 409, body: { status: 'FILE004', missing: [1] } });
    // A chunk of the wrong size, or past the end, is refused.
    expect((await raw('PUT', `${F}/upload/${id}/chunk/1`, clerk, part(2))).body.status).toBe('FILE003');
    expect((await raw('PUT', `${F}/upload/${id}/chunk/3`, clerk, part(2))).body.status).toBe('FILE003');
    // Someone else cannot add to it.
    expect((await raw('PUT', `${F}/upload/${id}/chunk/1`, admin, part(1))).body.status).toBe('FILE001');
    await raw('PUT', `${F}/upload/${id}/chunk/1`, clerk, part(1));
    // Sent again (the client did not see the answer): replaces it.
    expect((await raw('PUT', `${F}/upload/${id}/chunk/1`, clerk, part(1))).body.data.received).toEqual([0, 1, 2]);
    const done = await call('POST', `${F}/upload/${id}/complete`, clerk);
    expect(done.body.data).toMatchObject({ id, type: 'application/pdf', size: content.length, sha256: sha(content), ownerKind: 'exam', ownerId: examA });
    expect((await p.db.query('SELECT count(*)::int AS n FROM stored_file_chunk WHERE file_id = $1', [id])).rows[0].n).toBe(0);
    expect((await p.db.query('SELECT sha256 FROM stored_file WHERE id = $1', [id])).rows[0].sha256).toBe(sha(content));
    const back = await p.app.inject({ method: 'GET', url: `${F}/download/${id}`, headers: authed(clerk) });
    expect(back.headers['content-type']).toBe('application/pdf');
    expect(back.rawPayload.equals(content)).toBe(true);
    // Completing twice: it is no longer an upload.
    expect((await call('POST', `${F}/upload/${id}/complete`, clerk)).body.status).toBe('FILE001');
  });

  test('a refused type stops at the first chunk', async () => {
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(1048576 - 4)]);
    const init = await call('POST', `${F}/upload/init`, clerk, { purpose: 'examAttachment', ownerId: examA, name: 'a.pdf', size: 2 * 1048576 });
    expect((await raw('PUT', `${F}/upload/${init.body.data.id}/chunk/0`, clerk, zip, 'application/pdf')).body.status).toBe('UCENTER703');
    expect((await call('GET', `${F}/upload/${init.body.data.id}`, clerk)).body.data.received).toEqual([]);
    expect((await call('POST', `${F}/delete/${init.body.data.id}`, clerk)).body.status).toBe('0');
    expect((await call('GET', `${F}/upload/${init.body.data.id}`, clerk)).body.status).toBe('FILE001');
  });

  test('scope: exam attachments follow the exam, users follow the user', async () => {
    const content = pdf(5000);
    const inB = await raw('POST', `${F}/upload?purpose=examAttachment&ownerId=${examB}&name=b.pdf`, admin, content);
    expect(inB.body.status).toBe('0');
    // The radiologist of hospital A does not have hospital B's exams in scope.
    expect(await call('GET', `${F}/download/${inB.body.data.id}`, docA)).toMatchObject({ code: 403, body: { status: 'FILE002' } });
    expect((await call('GET', `${F}/detail/${inB.body.data.id}`, docA)).body.status).toBe('FILE002');
    // The clerk of hospital A attaches to A's exams, not to B's; the auditor has no right to attach
    // (the radiologist has: consult:start, the materials of a consultation application).
    expect((await raw('POST', `${F}/upload?purpose=examAttachment&ownerId=${examB}&name=b.pdf`, clerk, content)).body.status).toBe('FILE002');
    expect((await raw('POST', `${F}/upload?purpose=examAttachment&ownerId=${examA}&name=a.pdf`, auditor, content)).body.status).toBe('UAA103');
    // The auditor has no right over exams at all.
    expect(await call('GET', `${F}/download/${inB.body.data.id}`, auditor)).toMatchObject({ code: 403, body: { status: 'UAA103' } });
    expect(await call('GET', `${F}/download/${crypto.randomUUID()}`, admin)).toMatchObject({ code: 404, body: { status: 'FILE001' } });
    // The senior radiologist sees hospitals A and B.
    const senior = await login(p.app, '13800000005');
    const seen = await p.app.inject({ method: 'GET', url: `${F}/download/${inB.body.data.id}`, headers: authed(senior) });
    expect(seen.rawPayload.equals(content)).toBe(true);
  });

  test('deleting the signature file removes the signature', async () => {
    const up = await raw('POST', `${F}/upload?purpose=signature&ownerId=${doctorId}&name=s.png`, admin, png(200, 130));
    expect((await call('POST', `${F}/delete/${up.body.data.id}`, docA)).body.status).toBe('UAA103');
    expect((await call('POST', `${F}/delete/${up.body.data.id}`, admin)).body.status).toBe('0');
    expect((await call('GET', `/api/ucenter/v1/user/detail/${doctorId}`, admin)).body.data.hasSignature).toBe(false);
    expect((await call('GET', `${F}/download/${up.body.data.id}`, admin)).body.status).toBe('FILE001');
  });

  test('drafts: one per user and form, nobody else’s', async () => {
    const D = '/api/ucenter/v1/draft/consultationApply';
    expect((await call('GET', D, docA)).body.data).toBeNull();
    const saved = await call('POST', D, docA, { step: 2, data: { question: '肺结节性质？' } });
    expect(saved.body.data).toMatchObject({ step: 2, data: { question: '肺结节性质？' } });
    expect((await call('GET', D, docA)).body.data).toMatchObject({ step: 2, data: { question: '肺结节性质？' } });
    expect((await call('GET', D, admin)).body.data).toBeNull();
    expect((await call('POST', D, docA, { step: 99, data: {} })).code).toBe(400);
    expect((await call('POST', `${D}/delete`, docA)).body.status).toBe('0');
    expect((await call('GET', D, docA)).body.data).toBeNull();
  });
});
