/**
 * The request wrapper (src/services/request.ts), spec sections 7 and 8, with a fake UI
 * and a fake fetch. Scenarios:
 * - reply handling: "0", empty 200, UAA004 (toast + reload), 001001 (modal, then clear
 *   token + reload), silent codes, BDT201/202, UCENTER408 (common text), any other code
 *   (catalogue text, else server message; the server's message when the catalogue
 *   text has placeholders only the server could fill, e.g. UAA421's {{detail}}),
 *   no status (non-JSON, no status, empty 5xx),
 *   network failure and abort;
 * - headers: X-App-Id, X-Auth-Token only with a token, Remember-Me only on login,
 *   skip-headers; bodies (JSON, form) and query strings;
 * - `quiet` calls show no toast (the caller shows the failure) but keep modals and
 *   reloads; every failure with a status reaches ui.onFailure (the session hook).
 * - responseType "blob": a 2xx is the body as it came (a picture), with the same
 *   headers; a failure is still the envelope.
 */
import app from '../../config/app.json';
import errors from '../../config/errors.json';
import { resources } from '../../locales';
import {
  buildHeaders,
  createRequest,
  handleReply,
  NETWORK_ERROR,
  NO_STATUS,
  ABORTED,
  RequestError,
  type ReplyUi,
} from '@/services/request';

const zh = resources['zh-CN'];

interface Recorded {
  errors: Array<[string, number]>;
  confirms: Array<{ title: string; content: string; onOk: () => void }>;
  reloads: number[];
  cleared: number;
}

function fakeUi(): ReplyUi & { rec: Recorded } {
  const rec: Recorded = { errors: [], confirms: [], reloads: [], cleared: 0 };
  return {
    rec,
    error: (text, seconds) => rec.errors.push([text, seconds]),
    confirm: (title, content, onOk) => rec.confirms.push({ title, content, onOk }),
    reload: (ms) => rec.reloads.push(ms),
    clearToken: () => {
      rec.cleared += 1;
    },
    t: (key, fallback) => zh[key] ?? fallback ?? key,
  };
}

function fail(status: string, httpStatus: number, message = `server says ${status}`) {
  return { httpStatus, body: JSON.stringify({ status, message, requestId: 'req-1' }) };
}

function rejection(fn: () => unknown): RequestError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(RequestError);
    return e as RequestError;
  }
  throw new Error('expected a rejection');
}

const noUi = (rec: Recorded) => {
  expect(rec.errors).toEqual([]);
  expect(rec.confirms).toEqual([]);
  expect(rec.reloads).toEqual([]);
  expect(rec.cleared).toBe(0);
};

describe('handleReply', () => {
  test('status "0" resolves the data', () => {
    const ui = fakeUi();
    const data = { items: [1, 2], total: 2 };
    expect(handleReply({ httpStatus: 200, body: JSON.stringify({ status: '0', data }) }, ui)).toEqual(data);
    noUi(ui.rec);
  });

  test('an empty 200 body resolves undefined', () => {
    const ui = fakeUi();
    expect(handleReply({ httpStatus: 200, body: '' }, ui)).toBeUndefined();
    noUi(ui.rec);
  });

  test('UAA004: red message from the catalogue, then reload after reloadAfterNoAccessMs', () => {
    const ui = fakeUi();
    const e = rejection(() => handleReply(fail('UAA004', 403), ui));
    expect(e.code).toBe('UAA004');
    expect(e.httpStatus).toBe(403);
    expect(e.requestId).toBe('req-1');
    expect(zh['error.UAA004']).toBeTruthy();
    expect(ui.rec.errors).toEqual([[zh['error.UAA004'], app.errorToastSeconds]]);
    expect(ui.rec.reloads).toEqual([app.reloadAfterNoAccessMs]);
    expect(ui.rec.cleared).toBe(0);
  });

  test('001001: login-timeout modal; the token is cleared and the page reloads only on confirm', () => {
    const ui = fakeUi();
    const e = rejection(() => handleReply(fail('001001', 401), ui));
    expect(e.code).toBe('001001');
    expect(ui.rec.confirms).toHaveLength(1);
    expect(ui.rec.confirms[0].title).toBe(zh['error.loginTimeout']);
    expect(ui.rec.confirms[0].content).toBe(zh['error.loginTimeoutContent']);
    expect(ui.rec.cleared).toBe(0);
    expect(ui.rec.reloads).toEqual([]);
    ui.rec.confirms[0].onOk();
    expect(ui.rec.cleared).toBe(1);
    expect(ui.rec.reloads).toEqual([0]);
    expect(ui.rec.errors).toEqual([]);
  });

  test.each(['UAA010', 'UAA002', 'UCENTER407', 'PACS510', 'PACS511'])('%s is rejected silently', (code) => {
    const ui = fakeUi();
    const e = rejection(() => handleReply(fail(code, 409), ui));
    expect(e.code).toBe(code);
    noUi(ui.rec);
  });

  test.each(['BDT201', 'BDT202'])('%s shows its message and rejects', (code) => {
    const ui = fakeUi();
    const e = rejection(() => handleReply(fail(code, 409), ui));
    expect(e.code).toBe(code);
    expect(ui.rec.errors).toEqual([[zh[`error.${code}`], app.errorToastSeconds]]);
    expect(ui.rec.reloads).toEqual([]);
  });

  test('UCENTER408 shows the fixed common message, not its own text', () => {
    const ui = fakeUi();
    rejection(() => handleReply(fail('UCENTER408', 500), ui));
    expect(ui.rec.errors).toEqual([[zh['error.common'], app.errorToastSeconds]]);
  });

  test('any other catalogued code shows its localized text for errorToastSeconds', () => {
    const ui = fakeUi();
    const e = rejection(() => handleReply(fail('RIS101', 404, 'server text'), ui));
    expect(e.code).toBe('RIS101');
    expect(e.message).toBe(zh['error.RIS101']);
    expect(e.data).toMatchObject({ status: 'RIS101' });
    expect(ui.rec.errors).toEqual([[zh['error.RIS101'], 3]]);
  });

  test("an unknown code falls back to the server's message", () => {
    const ui = fakeUi();
    const e = rejection(() => handleReply(fail('ZZZ999', 400, 'Texte du serveur'), ui));
    expect(e.message).toBe('Texte du serveur');
    expect(ui.rec.errors).toEqual([['Texte du serveur', 3]]);
  });

  test("a catalogue text with placeholders gives way to the server's message (UAA421 with its detail)", () => {
    const ui = fakeUi();
    expect(zh['error.UAA421']).toContain('{{detail}}');
    const said = '参数错误：签名图片尺寸须为 200x130 像素';
    const e = rejection(() => handleReply(fail('UAA421', 400, said), ui));
    expect(e.message).toBe(said);
    expect(ui.rec.errors).toEqual([[said, 3]]);
    // Without a server message the catalogue text is all there is.
    expect(rejection(() => handleReply({ httpStatus: 400, body: '{"status":"UAA421"}' }, fakeUi())).message).toBe(zh['error.UAA421']);
  });

  test('the handling comes from config/errors.json (a catalogue may make any code silent)', () => {
    const ui = fakeUi();
    const catalogue = { codes: { RIS101: { http: 404, handling: 'silent' as const } } };
    rejection(() => handleReply(fail('RIS101', 404), ui, { catalogue }));
    noUi(ui.rec);
    // and the real catalogue has the spec's special codes
    const codes = errors.codes as Record<string, { handling: string }>;
    expect(codes.UAA004.handling).toBe('reload');
    expect(codes['001001'].handling).toBe('relogin');
    expect(codes.UCENTER408.handling).toBe('common');
  });

  test.each([
    ['non-JSON body', 502, '<html>Bad Gateway</html>'],
    ['JSON without status', 200, '{"data":1}'],
    ['empty body on an error status', 500, ''],
  ])('no status (%s) rejects without UI', (_label, httpStatus, body) => {
    const ui = fakeUi();
    const e = rejection(() => handleReply({ httpStatus: httpStatus as number, body }, ui));
    expect(e.code).toBe(NO_STATUS);
    expect(e.httpStatus).toBe(httpStatus);
    noUi(ui.rec);
  });
});

function fakeStorage(values: Record<string, string>) {
  return { getItem: (k: string) => (k in values ? values[k] : null) };
}

function harness(reply: { status: number; body: string } | Error, storage = fakeStorage({})) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const ui = fakeUi();
  const request = createRequest({
    fetch: async (url, init) => {
      calls.push({ url, init });
      if (reply instanceof Error) throw reply;
      return { status: reply.status, text: async () => reply.body };
    },
    ui: () => ui,
    storage: () => storage,
    baseUrl: () => 'http://api.example:8000/',
  });
  return { request, calls, ui };
}

const headersOf = (init: RequestInit) => init.headers as Record<string, string>;

describe('request', () => {
  test('sends X-App-Id, the stored token, JSON body and query; resolves data', async () => {
    const storage = fakeStorage({ [app.tokenStorageKey]: 'tok-123' });
    const { request, calls } = harness({ status: 200, body: '{"status":"0","data":{"ok":true}}' }, storage);
    const data = await request('/api/ris/v1/exam/list', { body: { page: 1 }, query: { a: 'x y', b: [1, 2], c: undefined } });
    expect(data).toEqual({ ok: true });
    expect(calls[0].url).toBe('http://api.example:8000/api/ris/v1/exam/list?a=x+y&b=1&b=2');
    expect(calls[0].init.method).toBe('POST');
    expect(calls[0].init.body).toBe('{"page":1}');
    const h = headersOf(calls[0].init);
    expect(h['X-App-Id']).toBe(app.clientAppId);
    expect(h['X-App-Id']).toBe('rcloud-doctor');
    expect(h['X-Auth-Token']).toBe('tok-123');
    expect(h['Content-Type']).toMatch(/^application\/json/);
    expect(h['Remember-Me']).toBeUndefined();
  });

  test('no X-Auth-Token without a stored token; GET by default', async () => {
    const { request, calls } = harness({ status: 200, body: '' });
    await expect(request('/api/health')).resolves.toBeUndefined();
    expect(calls[0].init.method).toBe('GET');
    expect(headersOf(calls[0].init)).not.toHaveProperty('X-Auth-Token');
    expect(headersOf(calls[0].init)['X-App-Id']).toBe('rcloud-doctor');
  });

  test('the login call is form-encoded and carries Remember-Me from storage', async () => {
    const storage = fakeStorage({ [app.rememberMeStorageKey]: 'true' });
    const { request, calls } = harness({ status: 200, body: '{"status":"0","data":"t"}' }, storage);
    await request('/api/uaa/v1/login', { form: { mobile: '13800000000', password: 'cGFzcw==' } });
    expect(calls[0].init.body).toBe('mobile=13800000000&password=cGFzcw%3D%3D');
    const h = headersOf(calls[0].init);
    expect(h['Content-Type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(h['Remember-Me']).toBe('true');
  });

  test('Remember-Me also with the rememberMe option (other login path), never on other calls', () => {
    const storage = fakeStorage({ [app.rememberMeStorageKey]: 'true' });
    expect(buildHeaders('/api/uaa/v1/grade/login', { rememberMe: true }, storage)['Remember-Me']).toBe('true');
    expect(buildHeaders('/api/uaa/v1/user/info', {}, storage)['Remember-Me']).toBeUndefined();
  });

  test('skipAppHeaders sends neither X-App-Id nor X-Auth-Token', () => {
    const storage = fakeStorage({ [app.tokenStorageKey]: 'tok', [app.rememberMeStorageKey]: 'true' });
    const h = buildHeaders('/api/uaa/v1/login', { skipAppHeaders: true }, storage);
    expect(h).not.toHaveProperty('X-App-Id');
    expect(h).not.toHaveProperty('X-Auth-Token');
    expect(h).not.toHaveProperty('Remember-Me');
  });

  test('a failed reply rejects with a RequestError through the same handler', async () => {
    const { request, ui } = harness({ status: 403, body: '{"status":"UAA004","message":"x"}' });
    const e = await request('/api/ucenter/v1/user/list', { body: {} }).catch((err) => err);
    expect(e).toBeInstanceOf(RequestError);
    expect(e.code).toBe('UAA004');
    expect(ui.rec.reloads).toEqual([app.reloadAfterNoAccessMs]);
  });

  test('a network failure shows error.network and rejects with NETWORK', async () => {
    const { request, ui } = harness(new TypeError('Failed to fetch'));
    const e = await request('/api/health').catch((err) => err);
    expect(e).toBeInstanceOf(RequestError);
    expect(e.code).toBe(NETWORK_ERROR);
    expect(e.httpStatus).toBe(0);
    expect(ui.rec.errors).toEqual([[zh['error.network'], app.errorToastSeconds]]);
  });

  test('an aborted call rejects with ABORTED and no message', async () => {
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    const { request, ui } = harness(abort);
    const e = await request('/api/health').catch((err) => err);
    expect(e.code).toBe(ABORTED);
    expect(ui.rec.errors).toEqual([]);
  });

  test('a quiet call shows no toast but still rejects with the localized text', async () => {
    const { request, ui } = harness({ status: 404, body: '{"status":"UAA001","message":"x"}' });
    const e = await request('/api/uaa/v1/login', { form: { mobile: '1' }, quiet: true }).catch((err) => err);
    expect(e.code).toBe('UAA001');
    expect(e.message).toBe(zh['error.UAA001']);
    expect(ui.rec.errors).toEqual([]);
  });

  test('a quiet call keeps the modal and reload handlings', async () => {
    const { request, ui } = harness({ status: 403, body: '{"status":"UAA004","message":"x"}' });
    await request('/x', { quiet: true }).catch(() => undefined);
    expect(ui.rec.errors).toEqual([]);
    expect(ui.rec.reloads).toEqual([app.reloadAfterNoAccessMs]);
    const quietNetwork = harness(new TypeError('Failed to fetch'));
    await quietNetwork.request('/x', { quiet: true }).catch(() => undefined);
    expect(quietNetwork.ui.rec.errors).toEqual([]);
  });

  test('responseType blob: a 2xx resolves the body as a Blob, sent with the usual headers', async () => {
    const storage = fakeStorage({ [app.tokenStorageKey]: 'tok-9' });
    const picture = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' });
    const calls: RequestInit[] = [];
    const reply = (status: number, body: string) =>
      createRequest({
        fetch: async (_url, init) => {
          calls.push(init);
          return { status, text: async () => body, blob: async () => picture };
        },
        ui: () => fakeUi(),
        storage: () => storage,
        baseUrl: () => '',
      });
    await expect(reply(200, '')('/api/ucenter/v1/user/signature/3', { responseType: 'blob' })).resolves.toBe(picture);
    const h = headersOf(calls[0]);
    expect(h['X-Auth-Token']).toBe('tok-9');
    expect(h['X-App-Id']).toBe(app.clientAppId);
    expect(h.Accept).toBe('*/*');
    const e = await reply(404, '{"status":"UCENTER006","message":"x"}')('/api/ucenter/v1/user/signature/3', { responseType: 'blob' }).catch((err) => err);
    expect(e).toBeInstanceOf(RequestError);
    expect(e.code).toBe('UCENTER006');
  });

  test('every failure with a status reaches onFailure, after its handling', async () => {
    const seen: string[] = [];
    const ui: ReplyUi = { ...fakeUi(), onFailure: (err) => seen.push(err.code) };
    expect(() => handleReply({ httpStatus: 401, body: '{"status":"UAA005","message":"x"}' }, ui)).toThrow(RequestError);
    expect(() => handleReply({ httpStatus: 401, body: '{"status":"UAA002","message":"x"}' }, ui)).toThrow(RequestError);
    expect(() => handleReply({ httpStatus: 200, body: '{"status":"0","data":1}' }, ui)).not.toThrow();
    expect(() => handleReply({ httpStatus: 502, body: 'Bad gateway' }, ui)).toThrow(RequestError);
    expect(seen).toEqual(['UAA005', 'UAA002']);
  });
});
