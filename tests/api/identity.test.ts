/**
 * Identity through the API on each test database:
 * - password login per demo account; menus follow the role (admin all, clerk registration only)
 * - a user of two hospitals chooses one (list, then change-hospital or hospitalId); others refused until then
 * - wrong password: UAA002 with remaining attempts, captcha required after the first failure
 *   (UAA107 without, UAA104 wrong), lock after 4 (UAA009, the right password refused), admin unlock
 * - every success and failure in login_audit
 * - SMS login with the code from the outbox: single use, rate limited, expires
 * - tokens stored hashed; logout revokes; idle timeout; remember-me lasts 7 days
 * - password update (old must match, new differs, confirmation, recent ones refused) ends sessions;
 *   reset by SMS; weak → flag; expired → only password change allowed; disabled → UAA003
 */
import crypto from 'node:crypto';
import { translate } from '../../locales';
import { DEMO_PASSWORD } from '../../mock/identity';
import { dbKinds } from '../support/db';
import { appHeaders, startTestPlatform, type TestPlatform } from '../support/app';
import { authed, b64, login, loginReply } from '../support/auth';

describe.each(dbKinds)('identity on %s', (kind) => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await startTestPlatform(kind);
  });
  afterAll(() => p.close());

  const info = async (token: string) => p.app.inject({ method: 'GET', url: '/api/uaa/v1/user/info', headers: authed(token) });
  const userId = async (mobile: string) => (await p.db.query<{ id: number }>('SELECT id FROM app_user WHERE mobile = $1', [mobile])).rows[0].id;
  const captchaAnswer = async (key: string) => (await p.db.query<{ answer: string }>('SELECT answer FROM captcha WHERE key = $1', [key])).rows[0].answer;
  const newCaptcha = async () => {
    const r = await p.app.inject({ method: 'GET', url: '/api/uaa/v1/captcha', headers: appHeaders });
    const { captchaKey, image } = r.json().data;
    expect(image).toMatch(/^data:image\/svg\+xml;base64,/);
    return { captchaKey, captchaCode: await captchaAnswer(captchaKey) };
  };
  const lastSms = async (mobile: string) => {
    const { rows } = await p.db.query<{ text: string }>('SELECT text FROM sms_outbox WHERE mobile = $1 ORDER BY id DESC LIMIT 1', [mobile]);
    return /\d{6}/.exec(rows[0].text)![0];
  };
  const sendSms = (mobile: string, purpose = 'login') =>
    p.app.inject({ method: 'POST', url: `/api/uaa/v1/business-code/sms/${mobile}`, headers: appHeaders, payload: { purpose } });

  test('each demo account logs in and gets the menus of its role', async () => {
    const admin = (await info(await login(p.app, '13800000001'))).json().data;
    expect(admin.menuList).toEqual(expect.arrayContaining(['user', 'role', 'examination', 'report', 'deviceList']));
    expect(admin.dataScopes.all).toBe(true);
    const clerk = (await info(await login(p.app, '13800000002'))).json().data;
    expect(clerk.menuList).toEqual(expect.arrayContaining(['examination', 'examCreate']));
    expect(clerk.menuList).not.toContain('user');
    expect(clerk.menuList).not.toContain('report');
    expect(clerk.permissionMap.registration).toContain('add');
    expect(clerk.hospitalName).toBe('第一乡镇卫生院');
    expect(clerk.details).toEqual({ name: clerk.name, userId: clerk.userId });
    expect(clerk.setting.viewConfig).toEqual({ openModel: 'double', doubleConfig: ['newWindow', 'auto'] });
    const senior = (await info(await login(p.app, '13800000005'))).json().data;
    expect(senior.permissionMap.report).toEqual(expect.arrayContaining(['write', 'verify', 'recheck']));
  });

  test('a user of two hospitals chooses one before anything else', async () => {
    const r = await loginReply(p.app, { mobile: '13800000007', password: b64(DEMO_PASSWORD) });
    const data = r.json().data;
    expect(data.hospitalId).toBeNull();
    expect(data.hospitals.map((h: { name: string }) => h.name).sort()).toEqual(['县中心医院', '第一乡镇卫生院'].sort());
    const before = await info(data.token);
    expect(before.json().data.menuList).toEqual([]);
    const refused = await p.app.inject({ method: 'POST', url: '/api/ucenter/v1/user/list', headers: authed(data.token), payload: {} });
    expect(refused.json().status).toBe('UAA103');
    const central = data.hospitals.find((h: { name: string }) => h.name === '县中心医院');
    const change = await p.app.inject({ method: 'POST', url: '/api/uaa/v1/hospital/change', headers: authed(data.token), payload: { hospitalId: central.id } });
    expect(change.json().data).toEqual({ hospitalId: central.id, hospitalName: '县中心医院' });
    const after = (await info(data.token)).json().data;
    expect(after.hospitalName).toBe('县中心医院');
    expect(after.menuList).toContain('report');
    // Or directly at login, and never a hospital the user does not belong to.
    const direct = await loginReply(p.app, { mobile: '13800000007', password: b64(DEMO_PASSWORD), hospitalId: central.id });
    expect(direct.json().data.hospitalId).toBe(central.id);
    const regionId = (await p.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'REGION'")).rows[0].id;
    const foreign = await loginReply(p.app, { mobile: '13800000007', password: b64(DEMO_PASSWORD), hospitalId: regionId });
    expect(foreign.json().status).toBe('UCENTER401');
  });

  test('wrong passwords: captcha after the first, lock after four, right password refused, admin unlock', async () => {
    const mobile = '13800000003';
    const first = await loginReply(p.app, { mobile, password: b64('Wrong@123') });
    expect(first.statusCode).toBe(401);
    expect(first.json()).toMatchObject({ status: 'UAA002', remainingAttempts: 3, captchaRequired: true });
    expect((await p.app.inject({ method: 'GET', url: `/api/uaa/v1/captcha/required?mobile=${mobile}`, headers: appHeaders })).json().data.required).toBe(true);

    const noCaptcha = await loginReply(p.app, { mobile, password: b64(DEMO_PASSWORD) });
    expect(noCaptcha.json().status).toBe('UAA107');
    const wrongCaptcha = await loginReply(p.app, { mobile, password: b64(DEMO_PASSWORD), ...(await newCaptcha()), captchaCode: 'x' });
    expect(wrongCaptcha.json().status).toBe('UAA104');

    for (const remaining of [2, 1]) {
      const r = await loginReply(p.app, { mobile, password: b64('Wrong@123'), ...(await newCaptcha()) });
      expect(r.json()).toMatchObject({ status: 'UAA002', remainingAttempts: remaining });
    }
    const fourth = await loginReply(p.app, { mobile, password: b64('Wrong@123'), ...(await newCaptcha()) });
    expect(fourth.statusCode).toBe(429);
    expect(fourth.json().status).toBe('UAA009');
    expect(new Date(fourth.json().lockedUntil).getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);
    const right = await loginReply(p.app, { mobile, password: b64(DEMO_PASSWORD), ...(await newCaptcha()) });
    expect(right.json().status).toBe('UAA009');
    expect(right.json().message).toBe(translate('zh-CN', 'error.UAA009'));

    const admin = await login(p.app, '13800000001');
    const unlock = await p.app.inject({ method: 'POST', url: `/api/ucenter/v1/user/unlock/${await userId(mobile)}`, headers: authed(admin) });
    expect(unlock.json().status).toBe('0');
    expect(await login(p.app, mobile)).toBeTruthy();

    const audit = await p.db.query<{ outcome: string; code: string | null; ip: string }>(
      'SELECT outcome, code, ip FROM login_audit WHERE mobile = $1 ORDER BY id',
      [mobile],
    );
    expect(audit.rows.map((a) => a.code ?? a.outcome)).toEqual(['UAA002', 'UAA107', 'UAA104', 'UAA002', 'UAA002', 'UAA009', 'UAA009', 'success']);
    expect(audit.rows.every((a) => a.ip)).toBe(true);
  });

  test('SMS login with the code from the outbox: single use, rate limited, expiring', async () => {
    const mobile = '13800000004';
    expect((await sendSms(mobile)).json().data).toEqual({ expiresIn: 300, resendAfter: 60 });
    const code = await lastSms(mobile);
    const again = await sendSms(mobile);
    expect(again.statusCode).toBe(429);
    expect(again.json().status).toBe('SMS101');
    const ok = await loginReply(p.app, { loginType: 'sms', mobile, smsCode: b64(code) });
    expect(ok.json().status).toBe('0');
    const reuse = await loginReply(p.app, { loginType: 'sms', mobile, smsCode: b64(code), ...(await newCaptcha()) });
    expect(reuse.json().status).toBe('UAA101');
    await p.db.query('UPDATE sms_code SET created_at = created_at - interval \'2 minutes\' WHERE mobile = $1', [mobile]);
    await sendSms(mobile);
    await p.db.query('UPDATE sms_code SET expires_at = now() - interval \'1 second\' WHERE mobile = $1', [mobile]);
    const expired = await loginReply(p.app, { loginType: 'sms', mobile, smsCode: b64(await lastSms(mobile)), ...(await newCaptcha()) });
    expect(expired.json().status).toBe('UAA101');
    // An unknown mobile is answered as a known one (tests/api/login.test.ts).
    expect((await sendSms('13900009999')).json().status).toBe('0');
    await p.db.query('UPDATE app_user SET failed_attempts = 0 WHERE mobile = $1', [mobile]);
  });

  test('tokens are stored hashed, logout revokes, idle sessions end, remember-me lasts 7 days', async () => {
    const token = await login(p.app, '13800000002');
    const stored = await p.db.query<{ token_hash: string }>('SELECT token_hash FROM session');
    expect(stored.rows.map((r) => r.token_hash)).toContain(crypto.createHash('sha256').update(token).digest('hex'));
    expect(stored.rows.map((r) => r.token_hash)).not.toContain(token);
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);

    expect((await p.app.inject({ method: 'POST', url: '/api/uaa/v1/logout', headers: authed(token) })).json().status).toBe('0');
    const after = await info(token);
    expect(after.statusCode).toBe(401);
    expect(after.json().status).toBe('UAA005');

    const idle = await login(p.app, '13800000002');
    await p.db.query("UPDATE session SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [crypto.createHash('sha256').update(idle).digest('hex')]);
    expect((await info(idle)).json().status).toBe('UAA005');

    const remembered = await login(p.app, '13800000002', DEMO_PASSWORD, { rememberMe: true });
    const { rows } = await p.db.query<{ days: number }>(
      'SELECT extract(epoch FROM expires_at - created_at)::int / 86400 AS days FROM session WHERE token_hash = $1',
      [crypto.createHash('sha256').update(remembered).digest('hex')],
    );
    expect(rows[0].days).toBe(7);
  });

  test('password update: old must match, new differs, confirmation matches, recent refused; sessions end', async () => {
    const mobile = '13800000006';
    const token = await login(p.app, mobile);
    const update = (oldPassword: string, newPassword: string, confirmPassword = newPassword) =>
      p.app.inject({
        method: 'POST',
        url: '/api/uaa/v1/password/update',
        headers: authed(token),
        payload: { oldPassword: b64(oldPassword), newPassword: b64(newPassword), confirmPassword: b64(confirmPassword) },
      });
    expect((await update('Nope@2026', 'Fresh#2027')).json().status).toBe('UAA006');
    expect((await update(DEMO_PASSWORD, DEMO_PASSWORD)).json().status).toBe('UAA007');
    const mismatch = await update(DEMO_PASSWORD, 'Fresh#2027', 'Fresh#2028');
    expect(mismatch.json()).toMatchObject({ status: 'UAA421', field: 'confirmPassword' });
    const short = await update(DEMO_PASSWORD, 'Ab1!');
    expect(short.json()).toMatchObject({ status: 'UAA421', field: 'newPassword' });
    expect((await update(DEMO_PASSWORD, 'Fresh#2027')).json().status).toBe('0');
    expect((await info(token)).json().status).toBe('UAA005');
    const fresh = await login(p.app, mobile, 'Fresh#2027');
    const back = await p.app.inject({
      method: 'POST',
      url: '/api/uaa/v1/password/update',
      headers: authed(fresh),
      payload: { oldPassword: b64('Fresh#2027'), newPassword: b64(DEMO_PASSWORD), confirmPassword: b64(DEMO_PASSWORD) },
    });
    expect(back.json().status).toBe('UAA011');

    // Reset by SMS (purpose "reset") puts it back.
    await sendSms(mobile, 'reset');
    const reset = await p.app.inject({
      method: 'POST',
      url: '/api/uaa/v1/password/reset',
      headers: appHeaders,
      payload: { mobile, smsCode: b64(await lastSms(mobile)), newPassword: b64('Reset$2029'), confirmPassword: b64('Reset$2029') },
    });
    expect(reset.json().status).toBe('0');
    expect(await login(p.app, mobile, 'Reset$2029')).toBeTruthy();
  });

  test('an expired password allows only the change; a weak one is flagged; a disabled account is refused', async () => {
    const mobile = '13800000004';
    await p.db.query("UPDATE app_user SET password_changed_at = now() - interval '400 days' WHERE mobile = $1", [mobile]);
    const r = await loginReply(p.app, { mobile, password: b64(DEMO_PASSWORD) });
    expect(r.json().data.passwordExpired).toBe(true);
    const token = r.json().data.token;
    expect((await info(token)).json().data.menuList).toEqual([]);
    const blocked = await p.app.inject({ method: 'GET', url: '/api/uaa/v1/password/expiry', headers: authed(token) });
    expect(blocked.json().data.expired).toBe(true);
    const other = await p.app.inject({ method: 'POST', url: '/api/ucenter/v1/user/list', headers: authed(token), payload: {} });
    expect(other.json().status).toBe('UAA012');
    const change = await p.app.inject({
      method: 'POST',
      url: '/api/uaa/v1/password/update',
      headers: authed(token),
      payload: { oldPassword: b64(DEMO_PASSWORD), newPassword: b64('abcd1234'), confirmPassword: b64('abcd1234') },
    });
    expect(change.json().status).toBe('0');
    const weak = await loginReply(p.app, { mobile, password: b64('abcd1234') });
    expect(weak.json().data).toMatchObject({ passwordExpired: false, passwordWeak: true });

    await p.db.query('UPDATE app_user SET status = 0 WHERE mobile = $1', [mobile]);
    expect((await loginReply(p.app, { mobile, password: b64('abcd1234') })).json().status).toBe('UAA003');
    expect((await info(weak.json().data.token)).json().status).toBe('UAA003');
    await p.db.query('UPDATE app_user SET status = 1 WHERE mobile = $1', [mobile]);
  });

  test('unknown mobile and malformed input', async () => {
    // Unknown: answered as a wrong password until a valid captcha is given, then UAA001.
    expect((await loginReply(p.app, { mobile: '13911112222', password: b64('x') })).json().status).toBe('UAA002');
    const bad = await loginReply(p.app, { mobile: '12345', password: b64('x') });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: 'UAA421', field: 'mobile' });
  });
});
