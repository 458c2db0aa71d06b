/**
 * DICOMweb conformance to PS3.18 (issue #15 part 5), through the API on each database:
 * - an unknown /dicom-web path is 404 UAA102 (401 without a token), never the UI's page,
 *   also with a built UI whose wildcard route would serve index.html
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { login } from '../support/auth';

const DW = '/dicom-web';

describe.each(dbKinds)('DICOMweb conformance on %s', (kind) => {
  let p: TestPlatform;
  let clerk: string; // hospital A clerk: image view only
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-dist-'));

  const headers = (token: string | null, extra: Record<string, string> = {}) => ({ ...(token ? { 'x-auth-token': token } : {}), ...extra });
  const get = (url: string, token: string | null = clerk, extra: Record<string, string> = {}) => p.app.inject({ method: 'GET', url: `${DW}${url}`, headers: headers(token, extra) });

  beforeAll(async () => {
    // A built UI: its wildcard route and SPA fallback are in place.
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>ui</title>');
    p = await startTestPlatform(kind, { DIST_DIR: dist });
    clerk = await login(p.app, '13800000002');
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
});
