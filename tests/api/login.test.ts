/**
 * Login hardening (issue 16 parts 2 and 5) through the API on each test database:
 * - 40 concurrent wrong passwords and the right one: at most LOGIN_MAX_FAILURES passwords
 *   are evaluated (counted by the password probe), the right one is refused (UAA009) and
 *   the lock holds
 * - the captcha is checked before the password (a wrong captcha evaluates no password);
 *   the image is a library-drawn SVG whose characters are not separate elements
 * - an unknown mobile answers like a fresh known one (login, captcha-required, SMS, reset)
 *   until a valid captcha is given (then UAA001); its SMS requests count per IP
 * - SESSION_MAX_PER_USER: the oldest session ends when a login exceeds it
 * - security headers on API, error and not-found answers; HSTS only over TLS through a
 *   trusted proxy; the API document only to its permission, and off in production
 */
import { DEMO_PASSWORD } from '../../mock/identity';
import { passwordProbe } from '../../server/identity/passwords';
import { dbKinds } from '../support/db';
import { appHeaders, startTestPlatform, type TestPlatform } from '../support/app';
import { authed, b64, login, loginReply } from '../support/auth';

const MAX_SESSIONS = 3;

describe.each(dbKinds)('login hardening on %s', (kind) => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await startTestPlatform(kind, { SESSION_MAX_PER_USER: String(MAX_SESSIONS), TRUST_PROXY: 'true', SMS_IP_HOURLY: '6' });
  });
  afterAll(() => p.close());
  afterEach(() => {
    passwordProbe.onEvaluate = undefined;
  });

  const newCaptcha = async () => {
    const r = await p.app.inject({ method: 'GET', url: '/api/uaa/v1/captcha', headers: appHeaders });
    const { captchaKey } = r.json().data;
    const { rows } = await p.db.query<{ answer: string }>('SELECT answer FROM captcha WHERE key = $1', [captchaKey]);
    return { captchaKey, captchaCode: rows[0].answer.toLowerCase() };
  };
  const account = async (mobile: string) =>
    (
      await p.db.query<{ id: number; failed_attempts: number; locked: boolean }>(
        'SELECT id, failed_attempts, (locked_until > now()) AS locked FROM app_user WHERE mobile = $1',
        [mobile],
      )
    ).rows[0];
  const unlock = (mobile: string) => p.db.query('UPDATE app_user SET failed_attempts = 0, locked_until = NULL WHERE mobile = $1', [mobile]);
  /** What a client can compare: HTTP status and the whole body. */
  const seen = (r: { statusCode: number; json(): unknown }) => ({ status: r.statusCode, body: r.json() });

  test('40 concurrent wrong passwords and the right one: at most 4 evaluated, the right one refused, the lock holds', async () => {
    const mobile = '13800000003';
    const { id } = await account(mobile);
    const captchas = await Promise.all(Array.from({ length: 41 }, () => newCaptcha()));
    const total = captchas.length;
    let started = 0;
    let answered = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // Every evaluation is held until each other request has answered: the worst case, all
    // of them arriving while the first passwords are still being hashed.
    const settle = () => {
      if (started + answered === total) release();
    };
    let sendRight!: () => void;
    const rightSent = new Promise<void>((resolve) => (sendRight = resolve));
    passwordProbe.onEvaluate = async () => {
      started += 1;
      // The right password goes once the allowed attempts are all in flight.
      if (started === 4) sendRight();
      settle();
      await gate;
    };
    const send = (password: string, captcha: { captchaKey: string; captchaCode: string }) =>
      loginReply(p.app, { mobile, password: b64(password), ...captcha }).then((r) => {
        answered += 1;
        settle();
        return r;
      });
    const wrong = captchas.slice(0, 40).map((c, i) => send(`Wrong@${1000 + i}`, c));
    await rightSent;
    const right = await send(DEMO_PASSWORD, captchas[40]);
    const replies = await Promise.all(wrong);

    expect(started).toBe(4);
    expect(right.json().status).toBe('UAA009');
    // The evaluated ones answer UAA002, or UAA009 once one of them has locked the account.
    const codes = replies.map((r) => r.json().status);
    expect(codes.filter((c) => c === 'UAA009').length).toBeGreaterThanOrEqual(37);
    expect(codes.every((c) => c === 'UAA002' || c === 'UAA009')).toBe(true);
    expect(await account(mobile)).toMatchObject({ failed_attempts: 4, locked: true });
    const sessions = await p.db.query('SELECT 1 FROM session WHERE user_id = $1', [id]);
    expect(sessions.rows).toHaveLength(0);

    // Later, one at a time: the right password is still refused while the lock lasts.
    passwordProbe.onEvaluate = () => {
      started += 1;
    };
    const later = await loginReply(p.app, { mobile, password: b64(DEMO_PASSWORD), ...(await newCaptcha()) });
    expect(later.json().status).toBe('UAA009');
    expect(new Date(later.json().lockedUntil).getTime()).toBeGreaterThan(Date.now());
    expect(started).toBe(4);
    const audit = await p.db.query<{ outcome: string }>("SELECT outcome FROM login_audit WHERE user_id = $1 AND outcome = 'success'", [id]);
    expect(audit.rows).toHaveLength(0);
    await unlock(mobile);
  });

  test('the captcha is checked before the password; it is drawn as one distorted path', async () => {
    const mobile = '13800000004';
    let evaluated = 0;
    passwordProbe.onEvaluate = () => {
      evaluated += 1;
    };
    expect((await loginReply(p.app, { mobile, password: b64('Wrong@123') })).json().status).toBe('UAA002');
    expect(evaluated).toBe(1);
    const noCaptcha = await loginReply(p.app, { mobile, password: b64(DEMO_PASSWORD) });
    expect(noCaptcha.json()).toMatchObject({ status: 'UAA107', captchaRequired: true });
    const badCaptcha = await loginReply(p.app, { mobile, password: b64(DEMO_PASSWORD), ...(await newCaptcha()), captchaCode: 'QQQQ' });
    expect(badCaptcha.json()).toMatchObject({ status: 'UAA104', captchaRequired: true });
    expect(evaluated).toBe(1);
    // Case does not matter; the answer is accepted once.
    const captcha = await newCaptcha();
    expect((await loginReply(p.app, { mobile, password: b64(DEMO_PASSWORD), ...captcha })).json().status).toBe('0');
    expect(evaluated).toBe(2);
    expect((await loginReply(p.app, { mobile, password: b64(DEMO_PASSWORD), ...captcha })).json().status).toBe('UAA104');

    const r = await p.app.inject({ method: 'GET', url: '/api/uaa/v1/captcha', headers: appHeaders });
    const svg = Buffer.from(r.json().data.image.split(',')[1], 'base64').toString('utf8');
    const answer = (await p.db.query<{ answer: string }>('SELECT answer FROM captcha WHERE key = $1', [r.json().data.captchaKey])).rows[0].answer;
    expect(answer).toMatch(/^[A-Z0-9]{4}$/);
    expect(svg).not.toContain(answer);
    expect(svg).not.toMatch(/<text/);
    // The glyphs are one filled path (with decoys), not one element per character.
    expect(svg.match(/<path fill=/g)).toHaveLength(1);
  });

  test('an unknown mobile answers like a known one until a valid captcha is given', async () => {
    const known = '13800000006';
    const unknown = '13911112222';
    const bothSeen = async (send: (mobile: string) => Promise<{ statusCode: number; json(): unknown }>) => {
      const a = seen(await send(known));
      const b = seen(await send(unknown));
      expect(b).toEqual(a);
      return a;
    };
    const required = (mobile: string) => p.app.inject({ method: 'GET', url: `/api/uaa/v1/captcha/required?mobile=${mobile}`, headers: appHeaders });
    expect((await bothSeen(required)).body).toMatchObject({ data: { required: false } });
    const first = await bothSeen((mobile) => loginReply(p.app, { mobile, password: b64('Wrong@123') }));
    expect(first).toMatchObject({ status: 401, body: { status: 'UAA002', remainingAttempts: 3, captchaRequired: true } });
    expect((await bothSeen(required)).body).toMatchObject({ data: { required: true } });
    expect((await bothSeen((mobile) => loginReply(p.app, { mobile, password: b64('Wrong@123') }))).body).toMatchObject({ status: 'UAA107' });
    const sms = await bothSeen((mobile) => loginReply(p.app, { loginType: 'sms', mobile, smsCode: b64('123456') }));
    expect(sms.body).toMatchObject({ status: 'UAA107' });

    const smsIp = { remoteAddress: '10.0.0.7' };
    const sendSms = (mobile: string, body: Record<string, string> = {}) =>
      p.app.inject({ method: 'POST', url: `/api/uaa/v1/business-code/sms/${mobile}`, headers: appHeaders, payload: { purpose: 'reset', ...body }, ...smsIp });
    expect((await bothSeen((mobile) => sendSms(mobile))).body).toMatchObject({ status: '0', data: { expiresIn: 300 } });
    expect((await bothSeen((mobile) => sendSms(mobile))).body).toMatchObject({ status: 'SMS101' });
    const reset = (mobile: string) =>
      p.app.inject({
        method: 'POST',
        url: '/api/uaa/v1/password/reset',
        headers: appHeaders,
        payload: { mobile, smsCode: b64('000000'), newPassword: b64('New@Pass123'), confirmPassword: b64('New@Pass123') },
      });
    expect((await bothSeen(reset)).body).toMatchObject({ status: 'UAA101' });
    // Only the known mobile's code was sent.
    const outbox = await p.db.query<{ mobile: string }>('SELECT mobile FROM sms_outbox WHERE mobile = ANY($1)', [[known, unknown]]);
    expect(outbox.rows.map((r) => r.mobile)).toEqual([known]);

    // With a valid captcha the unknown mobile is told it is not registered.
    expect((await loginReply(p.app, { mobile: unknown, password: b64('Wrong@123'), ...(await newCaptcha()) })).json().status).toBe('UAA001');
    expect((await loginReply(p.app, { mobile: known, password: b64('Wrong@123'), ...(await newCaptcha()) })).json()).toMatchObject({
      status: 'UAA002',
      remainingAttempts: 2,
    });
    const other = '13922223333';
    const told = await sendSms(other, await newCaptcha());
    expect(told.json().status).toBe('UAA001');
    // Unknown mobiles used up this IP's hourly SMS limit (6): 2 above, 1 here, 3 more.
    for (const m of ['13933334444', '13944445555', '13955556666']) expect((await sendSms(m)).json().status).toBe('0');
    const limited = await sendSms('13800000002');
    expect(limited.json().status).toBe('SMS101');
    expect((await p.app.inject({ method: 'POST', url: '/api/uaa/v1/business-code/sms/13800000002', headers: appHeaders, payload: {}, remoteAddress: '10.0.0.8' })).json().status).toBe('0');
    await unlock(known);
  });

  test('a login past SESSION_MAX_PER_USER ends the oldest session', async () => {
    const mobile = '13800000005';
    const tokens: string[] = [];
    for (let i = 0; i <= MAX_SESSIONS; i++) tokens.push(await login(p.app, mobile));
    const info = (token: string) => p.app.inject({ method: 'GET', url: '/api/uaa/v1/user/info', headers: authed(token) });
    expect((await info(tokens[0])).json().status).toBe('UAA005');
    for (const token of tokens.slice(1)) expect((await info(token)).json().status).toBe('0');
    const { id } = await account(mobile);
    const live = await p.db.query("SELECT 1 FROM session WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()", [id]);
    expect(live.rows).toHaveLength(MAX_SESSIONS);
  });

  test('security headers on every answer; HSTS only over TLS behind the trusted proxy', async () => {
    const token = await login(p.app, '13800000001');
    const answers = [
      await p.app.inject({ method: 'GET', url: '/api/uaa/v1/user/info', headers: authed(token) }),
      await p.app.inject({ method: 'GET', url: '/api/uaa/v1/user/info', headers: appHeaders }),
      await p.app.inject({ method: 'GET', url: '/api/nothing/here', headers: appHeaders }),
      await p.app.inject({ method: 'GET', url: '/api/health' }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 401, 404, 200]);
    for (const r of answers) {
      const csp = String(r.headers['content-security-policy']);
      expect(csp).toMatch(/script-src 'self'[^;]*;/);
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(r.headers).toMatchObject({ 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' });
      expect(r.headers['strict-transport-security']).toBeUndefined();
    }
    const tls = await p.app.inject({ method: 'GET', url: '/api/health', headers: { 'x-forwarded-proto': 'https' } });
    expect(tls.headers['strict-transport-security']).toMatch(/^max-age=\d{7,}/);
  });

  test('the API document only to its permission; the docs page carries no script of its own inline', async () => {
    const docs = (headers: Record<string, string>) => p.app.inject({ method: 'GET', url: '/api/docs/json', headers });
    expect((await docs({})).json().status).toBe('UAA005');
    expect((await docs(authed(await login(p.app, '13800000002')))).json().status).toBe('UAA103');
    const admin = await docs(authed(await login(p.app, '13800000001')));
    expect(admin.statusCode).toBe(200);
    expect(admin.json().openapi).toBe('3.0.3');
    expect(admin.headers['cache-control']).toBe('no-store');
    const page = await p.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toMatch(/<script(?![^>]*src=)[^>]*>\s*\S/);
    const init = await p.app.inject({ method: 'GET', url: '/api/docs/static/swagger-initializer.js' });
    expect(init.body).toContain("req.headers['X-Auth-Token'] = token");
  });
});

describe.each(dbKinds)('production defaults on %s', (kind) => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await startTestPlatform(kind, { NODE_ENV: 'production' });
  });
  afterAll(() => p.close());

  test('is off: no page and no document, even for an administrator', async () => {
    const admin = await login(p.app, '13800000001');
    for (const url of ['/api/docs/json', '/api/docs/']) {
      const r = await p.app.inject({ method: 'GET', url, headers: authed(admin) });
      expect(r.statusCode).toBe(404);
    }
    expect(typeof p.app.swagger().paths).toBe('object');
  });

  test('without TRUST_PROXY a forwarded "https" is not believed: no HSTS', async () => {
    const r = await p.app.inject({ method: 'GET', url: '/api/health', headers: { 'x-forwarded-proto': 'https' } });
    expect(r.headers['strict-transport-security']).toBeUndefined();
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });
});
