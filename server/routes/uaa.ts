/**
 * /api/uaa/v1: login (password or SMS, captcha after a failure, lock after
 * repeated failures), sessions, the current user, hospital choice, passwords,
 * captchas and SMS codes. The login contract is fixed (other checks use it):
 * form-encoded, password and codes base64 of UTF-8.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { commonSettings } from '../../config/settings';
import { translate } from '../../locales';
import { AppError } from '../lib/errors';
import { ok, replies } from '../lib/reply';
import { caller } from '../plugins/auth';
import { menuList } from '../identity/access';
import { hasRegionScope } from '../identity/grants';
import {
  audit,
  authenticate,
  captchaRequiredFor,
  checkCaptcha,
  consumeSmsCode,
  findUserByMobile,
  issueSmsCode,
  LoginRefused,
  newCaptcha,
  normalizeMobile,
  replacePassword,
  SMS_PURPOSES,
  toIso,
  type SmsPurpose,
} from '../identity/accounts';
import { randomCaptchaText, renderCaptcha } from '../identity/captcha';
import { fromBase64, verifyPassword } from '../identity/passwords';
import { createSession, revokeSession, revokeUserSessions } from '../identity/sessions';
import { createSmsProvider } from '../identity/sms';
import { closed, common, pick } from '../lib/schemas';

const mobile = { $ref: 'common.json#/definitions/mobile' };
const b64 = { type: 'string', maxLength: 200 };
const anySession = { session: true, allowWithoutHospital: true, allowWhenPasswordExpired: true } as const;
/** GET user/info: the session as the client holds it (entities/userSession.json) but its token. */
const USER_INFO = pick(
  'entities/userSession.json',
  ['userId', 'name', 'details', 'mobile', 'roles', 'hospitalId', 'hospitalName', 'hospitals', 'permissionMap', 'menuList', 'dataScopes', 'setting', 'passwordWeak', 'passwordExpired'],
  { required: ['userId', 'name', 'details', 'roles', 'hospitalId', 'hospitals', 'permissionMap', 'menuList', 'dataScopes', 'setting', 'passwordWeak', 'passwordExpired'] },
);
/** A message of the demo SMS outbox. */
const OUTBOX_ROW = closed({ id: { type: 'integer' }, mobile: { type: 'string' }, text: { type: 'string' }, status: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' } });

interface LoginBody {
  loginType: 'password' | 'sms';
  mobile: string;
  password?: string;
  smsCode?: string;
  captchaKey?: string;
  captchaCode?: string;
  hospitalId?: number;
  rememberMe?: boolean;
}

async function memberships(fastify: FastifyInstance, userId: number) {
  const { rows } = await fastify.db.query<{ id: number; name: string }>(
    `SELECT o.id, o.name FROM user_membership m JOIN org o ON o.id = m.hospital_id
      WHERE m.user_id = $1 ORDER BY m.position, o.id`,
    [userId],
  );
  return rows;
}

export default async function uaaRoutes(fastify: FastifyInstance) {
  const config = fastify.config.identity;
  const sms = createSmsProvider(config, fastify.log);

  fastify.post<{ Body: LoginBody }>(
    '/login',
    {
      config: { public: true, audit: { action: 'login', object: 'session', subject: 'body.mobile' } },
      schema: {
        tags: ['uaa'],
        summary: 'Log in with a password or an SMS code (form-encoded; secrets base64)',
        consumes: ['application/x-www-form-urlencoded'],
        body: {
          type: 'object',
          required: ['loginType', 'mobile'],
          properties: {
            loginType: { type: 'string', enum: ['password', 'sms'] },
            mobile,
            password: b64,
            smsCode: b64,
            captchaKey: { type: 'string', maxLength: 64 },
            captchaCode: { type: 'string', maxLength: 16 },
            hospitalId: common('id'),
            rememberMe: { type: 'boolean', default: false },
          },
        },
        // The hospitals only when one is to be chosen (hospitalId null).
        response: replies(
          pick('entities/userSession.json', ['token', 'hospitalId', 'hospitals', 'passwordWeak', 'passwordExpired'], {
            required: ['token', 'rememberMe', 'passwordWeak', 'passwordExpired', 'hospitalId'],
            extra: { rememberMe: { type: 'boolean' } },
          }),
        ),
      },
    },
    async (request) => {
      const body = request.body;
      const ip = request.ip;
      const auditMobile = normalizeMobile(body.mobile);
      const fail = async (code: string, userId?: number, extra?: Record<string, unknown>) => {
        await audit(fastify.db, { userId, mobile: auditMobile, ip, loginType: body.loginType, outcome: 'failure', code });
        return new AppError(code, undefined, extra);
      };
      let user;
      try {
        user = await authenticate(fastify.db, config, {
          mobile: body.mobile,
          loginType: body.loginType,
          secret: fromBase64(body.loginType === 'password' ? body.password : body.smsCode),
          captchaKey: body.captchaKey,
          captchaCode: body.captchaCode,
        });
      } catch (e) {
        if (!(e instanceof LoginRefused)) throw e;
        throw await fail(e.code, e.userId, e.extra);
      }

      const hospitals = await memberships(fastify, user.id);
      if (!hospitals.length) throw await fail('UAA004', user.id);
      let hospitalId: number | null = hospitals.length === 1 ? hospitals[0].id : null;
      if (body.hospitalId !== undefined) {
        if (!hospitals.some((h) => h.id === body.hospitalId)) throw await fail('UCENTER401', user.id);
        hospitalId = body.hospitalId;
      }
      const rememberMe = body.rememberMe === true;
      const token = await fastify.db.tx(async (q) => {
        await audit(q, { userId: user.id, mobile: user.mobile, ip, loginType: body.loginType, outcome: 'success' });
        return createSession(q, config, {
          userId: user.id,
          hospitalId,
          rememberMe,
          passwordExpired: user.password_expired,
          ip,
          userAgent: request.headers['user-agent'],
        });
      });
      return ok({
        token,
        rememberMe,
        passwordWeak: user.password_weak,
        passwordExpired: user.password_expired,
        hospitalId,
        ...(hospitalId === null ? { hospitals } : {}),
      });
    },
  );

  fastify.post(
    '/logout',
    { config: { ...anySession, audit: { action: 'logout', object: 'session' } }, schema: { tags: ['uaa'], summary: 'Revoke the current token', response: replies({ type: 'null' }) } },
    async (request) => {
      await revokeSession(fastify.db, caller(request).tokenHash);
      return ok(null);
    },
  );

  fastify.get(
    '/user/info',
    {
      config: { ...anySession, audit: 'none' },
      schema: {
        tags: ['uaa'],
        summary: 'The current user: permissions, menus, hospital, data scope, settings',
        response: replies(USER_INFO),
      },
    },
    async (request) => {
      const me = caller(request);
      // One round trip: memberships (with the role in each) and saved settings.
      const { rows } = await fastify.db.query<{ hospitals: Array<{ id: number; name: string; roleId: number; roleName: string }>; settings: Record<string, object> | null }>(
        `SELECT (SELECT json_agg(json_build_object('id', o.id, 'name', o.name, 'roleId', r.id, 'roleName', r.name) ORDER BY m.position, o.id)
                   FROM user_membership m JOIN org o ON o.id = m.hospital_id JOIN role r ON r.id = m.role_id
                  WHERE m.user_id = $1) AS hospitals,
                (SELECT json_object_agg(module, value) FROM user_setting WHERE user_id = $1) AS settings`,
        [me.userId],
      );
      const memberships = rows[0].hospitals ?? [];
      const setting = commonSettings(me.permissions, rows[0].settings);
      return ok({
        userId: me.userId,
        name: me.name,
        details: { name: me.name, userId: me.userId },
        mobile: me.mobile,
        roles: memberships.filter((h) => h.id === me.hospitalId).map((h) => ({ id: h.roleId, name: h.roleName })),
        hospitalId: me.hospitalId,
        hospitalName: me.hospitalName,
        hospitals: memberships.map(({ id, name }) => ({ id, name })),
        permissionMap: me.hospitalId === null || me.passwordExpired ? {} : me.permissions,
        menuList: me.hospitalId === null || me.passwordExpired ? [] : menuList(me.permissions),
        dataScopes: me.scope,
        setting,
        passwordWeak: me.passwordWeak,
        passwordExpired: me.passwordExpired,
      });
    },
  );

  fastify.post<{ Body: { hospitalId: number } }>(
    '/hospital/change',
    {
      config: { session: true, allowWithoutHospital: true, audit: { action: 'login', object: 'hospital', id: 'body.hospitalId' } },
      schema: {
        tags: ['uaa'],
        summary: 'Bind the session to one of the user’s hospitals',
        body: { type: 'object', required: ['hospitalId'], properties: { hospitalId: common('id') } },
        response: replies(pick('entities/userSession.json', ['hospitalId', 'hospitalName'], { required: ['hospitalId', 'hospitalName'] })),
      },
    },
    async (request) => {
      const me = caller(request);
      const hospital = (await memberships(fastify, me.userId)).find((h) => h.id === request.body.hospitalId);
      if (!hospital) throw new AppError('UCENTER401');
      await fastify.db.query('UPDATE session SET hospital_id = $2 WHERE token_hash = $1', [me.tokenHash, hospital.id]);
      return ok({ hospitalId: hospital.id, hospitalName: hospital.name });
    },
  );

  fastify.post<{ Body: { oldPassword: string; newPassword: string; confirmPassword: string } }>(
    '/password/update',
    {
      config: { ...anySession, audit: { action: 'passwordChange', object: 'user' } },
      schema: {
        tags: ['uaa'],
        summary: 'Change the password (old must match; all sessions end)',
        body: {
          type: 'object',
          required: ['oldPassword', 'newPassword', 'confirmPassword'],
          properties: { oldPassword: b64, newPassword: b64, confirmPassword: b64 },
        },
        response: replies({ type: 'null' }),
      },
    },
    async (request) => {
      const me = caller(request);
      const user = (await findUserByMobile(fastify.db, me.mobile, config))!;
      const old = fromBase64(request.body.oldPassword) ?? '';
      const next = fromBase64(request.body.newPassword);
      if (!(await verifyPassword(old, user.password_hash))) throw new AppError('UAA006');
      if (next === old) throw new AppError('UAA007');
      await fastify.db.tx(async (q) => {
        await replacePassword(q, user, next, fromBase64(request.body.confirmPassword));
        await revokeUserSessions(q, user.id);
      });
      return ok(null);
    },
  );

  fastify.post<{ Body: { mobile: string; smsCode: string; newPassword: string; confirmPassword: string } }>(
    '/password/reset',
    {
      config: { public: true, audit: { action: 'passwordReset', object: 'user', subject: 'body.mobile' } },
      schema: {
        tags: ['uaa'],
        summary: 'Reset a forgotten password with an SMS code (purpose "reset")',
        body: {
          type: 'object',
          required: ['mobile', 'smsCode', 'newPassword', 'confirmPassword'],
          properties: { mobile, smsCode: b64, newPassword: b64, confirmPassword: b64 },
        },
        response: replies({ type: 'null' }),
      },
    },
    async (request) => {
      const user = await findUserByMobile(fastify.db, request.body.mobile, config);
      await fastify.db.tx(async (q) => {
        // An unknown mobile is checked the same way (its code, if one was "issued", was
        // never sent) and answers as a wrong code does: no valid code can exist for it.
        const good = await consumeSmsCode(q, normalizeMobile(request.body.mobile), 'reset', fromBase64(request.body.smsCode));
        if (!good || !user) throw new AppError('UAA101');
        await replacePassword(q, user, fromBase64(request.body.newPassword), fromBase64(request.body.confirmPassword));
        await revokeUserSessions(q, user.id);
      });
      return ok(null);
    },
  );

  fastify.get(
    '/password/expiry',
    {
      config: { ...anySession, audit: 'none' },
      schema: {
        tags: ['uaa'],
        summary: 'Whether the password has expired or is weak',
        response: replies(
          closed({
            expired: { type: 'boolean' },
            weak: { type: 'boolean' },
            expiresAt: { type: ['string', 'null'] },
            daysLeft: { type: ['integer', 'null'] },
          }),
        ),
      },
    },
    async (request) => {
      const me = caller(request);
      const { rows } = await fastify.db.query<{ changed: string; weak: boolean }>(
        'SELECT password_changed_at AS changed, password_weak AS weak FROM app_user WHERE id = $1',
        [me.userId],
      );
      const maxDays = config.passwordMaxAgeDays;
      const expiresAt = maxDays > 0 ? new Date(new Date(rows[0].changed).getTime() + maxDays * 86_400_000) : null;
      return ok({
        expired: me.passwordExpired || (expiresAt !== null && expiresAt.getTime() <= Date.now()),
        weak: rows[0].weak,
        expiresAt: expiresAt?.toISOString() ?? null,
        daysLeft: expiresAt ? Math.max(0, Math.ceil((expiresAt.getTime() - Date.now()) / 86_400_000)) : null,
      });
    },
  );

  fastify.get(
    '/captcha',
    {
      config: { public: true, audit: 'none' },
      schema: {
        tags: ['uaa'],
        summary: 'A new graphic captcha (SVG data URL, 5 minutes, single use)',
        response: replies(closed({ captchaKey: { type: 'string' }, image: { type: 'string' }, expiresIn: { type: 'integer' } })),
      },
    },
    async () => {
      const answer = randomCaptchaText();
      const captchaKey = await newCaptcha(fastify.db, answer);
      return ok({ captchaKey, image: renderCaptcha(answer), expiresIn: 300 });
    },
  );

  fastify.get<{ Querystring: { mobile: string } }>(
    '/captcha/required',
    {
      config: { public: true, audit: 'none' },
      schema: {
        tags: ['uaa'],
        summary: 'Whether the next login of this mobile needs the graphic captcha',
        querystring: { type: 'object', required: ['mobile'], properties: { mobile } },
        response: replies(closed({ required: { type: 'boolean' } })),
      },
    },
    async (request) => {
      return ok({ required: await captchaRequiredFor(fastify.db, request.query.mobile, config) });
    },
  );

  fastify.post<{ Params: { mobile: string }; Body: { purpose?: SmsPurpose; captchaKey?: string; captchaCode?: string } | undefined }>(
    '/business-code/sms/:mobile',
    {
      config: { public: true, audit: { action: 'smsCode', object: 'user', subject: 'params.mobile' } },
      schema: {
        tags: ['uaa'],
        summary: 'Send a 6-digit SMS code (5 minutes, single use; limited per mobile and per IP)',
        params: { type: 'object', required: ['mobile'], properties: { mobile } },
        body: {
          type: ['object', 'null'],
          properties: {
            purpose: { type: 'string', enum: [...SMS_PURPOSES], default: 'login' },
            captchaKey: { type: 'string', maxLength: 64 },
            captchaCode: { type: 'string', maxLength: 16 },
          },
        },
        response: replies(closed({ expiresIn: { type: 'integer' }, resendAfter: { type: 'integer' } })),
      },
    },
    async (request) => {
      const target = normalizeMobile(request.params.mobile);
      const purpose = request.body?.purpose ?? 'login';
      const captchaGiven = Boolean(request.body?.captchaKey || request.body?.captchaCode);
      if (captchaGiven) await checkCaptcha(fastify.db, request.body?.captchaKey, request.body?.captchaCode);
      const user = await findUserByMobile(fastify.db, target, config);
      // A code is issued (and counted against the mobile's and the IP's limits) for an
      // unknown mobile too, only never sent: the answer is the same as for an account
      // until a valid captcha has been given.
      await fastify.db.tx(async (q) => {
        const code = await issueSmsCode(q, config, target, purpose, request.ip);
        if (user) await sms.send(q, target, translate(request.lang, 'sms.code', { code, minutes: 5 }));
      });
      if (!user && captchaGiven) throw new AppError('UAA001');
      return ok({ expiresIn: 300, resendAfter: config.smsMobileIntervalSeconds });
    },
  );

  fastify.post<{ Body: { smsCode: string } }>(
    '/password/verify-code',
    {
      config: { ...anySession, audit: { action: 'passwordChange', object: 'smsCode' } },
      schema: {
        tags: ['uaa'],
        summary: 'Check an SMS code (purpose "password") before a password change',
        body: { type: 'object', required: ['smsCode'], properties: { smsCode: b64 } },
        response: replies(closed({ verified: { type: 'boolean' } })),
      },
    },
    async (request) => {
      const me = caller(request);
      if (!(await consumeSmsCode(fastify.db, me.mobile, 'password', fromBase64(request.body.smsCode)))) throw new AppError('UAA101');
      return ok({ verified: true });
    },
  );

  fastify.get<{ Querystring: { mobile?: string } }>(
    '/sms/outbox',
    {
      // A code read here logs its user in: only who may already set any user's password reads it.
      config: { permission: 'system.user:edit', audit: { action: 'read', object: 'smsOutbox' } },
      schema: {
        tags: ['uaa'],
        summary: 'Demo mode (demo data and the log SMS provider), for region-scope administrators: the last messages the platform "sent"',
        querystring: { type: 'object', properties: { mobile } },
        response: replies({ type: 'array', items: OUTBOX_ROW }),
      },
    },
    async (request: FastifyRequest<{ Querystring: { mobile?: string } }>) => {
      if (!fastify.config.seedDemo || config.smsProvider !== 'log') throw new AppError('UAA102');
      // Region scope covers every user, so no code shown is of a user beyond the caller.
      if (!hasRegionScope(caller(request).scope)) throw new AppError('UAA105');
      const { rows } = await fastify.db.query(
        `SELECT id, mobile, text, status, created_at AS "createdAt" FROM sms_outbox
          WHERE ($1::text IS NULL OR mobile = $1) ORDER BY id DESC LIMIT 50`,
        [request.query.mobile ? normalizeMobile(request.query.mobile) : null],
      );
      return ok(rows);
    },
  );
}
