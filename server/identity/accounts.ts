/**
 * Account rules shared by login, password change and reset: failure counting and
 * locking, captcha checks, SMS codes, and password replacement with history.
 */
import crypto from 'node:crypto';
import type { Queryable } from '../db';
import type { IdentityConfig } from '../config';
import { AppError } from '../lib/errors';
import { hashPassword, isWeakPassword, PASSWORD_PATTERN, sha256, verifyPassword } from './passwords';
import { normalizeCaptchaAnswer } from './captcha';

export const SMS_PURPOSES = ['login', 'reset', 'password'] as const;
export type SmsPurpose = (typeof SMS_PURPOSES)[number];
/** A code allows this many wrong tries before it is spent. */
const SMS_MAX_ATTEMPTS = 5;
const SMS_TTL = '5 minutes';
const CAPTCHA_TTL = '5 minutes';
const PASSWORD_HISTORY = 3;

export interface UserRow {
  id: number;
  mobile: string;
  name: string;
  status: number;
  password_hash: string;
  password_history: string[];
  password_weak: boolean;
  failed_attempts: number;
  locked_until: Date | string | null;
  locked: boolean;
  password_expired: boolean;
}

export async function findUserByMobile(q: Queryable, mobile: string, config: IdentityConfig): Promise<UserRow | undefined> {
  const { rows } = await q.query<UserRow>(
    `SELECT id, mobile, name, status, password_hash, password_history, password_weak, failed_attempts, locked_until,
            (locked_until IS NOT NULL AND locked_until > now()) AS locked,
            ($2::int > 0 AND password_changed_at < now() - make_interval(days => $2::int)) AS password_expired
       FROM app_user WHERE mobile = $1`,
    [normalizeMobile(mobile), config.passwordMaxAgeDays],
  );
  return rows[0];
}

/** "+8613800000001" and "13800000001" are the same account. */
export function normalizeMobile(mobile: string): string {
  return mobile.replace(/^\+86/, '');
}

/**
 * Why a login is refused. `userId` is set only for a known account (for the audit);
 * `extra` goes into the reply as it is.
 */
export class LoginRefused extends AppError {
  constructor(code: string, readonly userId?: number, extra?: Record<string, unknown>) {
    super(code, undefined, extra);
  }
}

export interface Credentials {
  mobile: string;
  loginType: 'password' | 'sms';
  /** The password or SMS code, decoded. */
  secret: string | undefined;
  captchaKey?: string;
  captchaCode?: string;
}

/**
 * Checks a login and returns the account, or throws LoginRefused. In this order:
 * - a captcha sent is always checked (consumed) first; one is required once the mobile
 *   has a failure on record (UAA107), so it comes before any password;
 * - an attempt is reserved in one UPDATE that counts it as a failure in advance and is
 *   refused while the account is locked or already has `maxFailures` attempts counted
 *   (UAA009): however many requests race, at most `maxFailures` passwords are evaluated
 *   until the lock period ends or a login succeeds;
 * - a right password clears the count only if no concurrent failure has locked the
 *   account meanwhile (UAA009 then), a wrong one locks it on the last attempt.
 * An unknown mobile does the same work (a password against a dummy hash) and gets the
 * same answers as a known one until a valid captcha has been given; only then UAA001.
 * A disabled account (UAA003) is told only to someone who knows its password.
 */
export async function authenticate(q: Queryable, config: IdentityConfig, c: Credentials): Promise<UserRow> {
  const user = await findUserByMobile(q, c.mobile, config);
  const captchaGiven = Boolean(c.captchaKey || c.captchaCode);
  if (captchaGiven) {
    try {
      await checkCaptcha(q, c.captchaKey, c.captchaCode);
    } catch (e) {
      throw new LoginRefused((e as AppError).code, user?.id, { captchaRequired: true });
    }
  }
  const wrong = c.loginType === 'password' ? 'UAA002' : 'UAA101';
  if (!user) {
    // As a known account: no captcha after a failure is refused before any evaluation.
    if (!captchaGiven && (await hasFailureOnRecord(q, c.mobile))) throw new LoginRefused('UAA107', undefined, { captchaRequired: true });
    await evaluate(q, c, undefined);
    if (captchaGiven) throw new LoginRefused('UAA001');
    throw new LoginRefused(wrong, undefined, { remainingAttempts: config.maxFailures - 1, captchaRequired: true });
  }
  const reserved = await q.query<{ failed_attempts: number }>(
    `UPDATE app_user SET
            failed_attempts = CASE WHEN locked_until <= now() THEN 1 ELSE failed_attempts + 1 END,
            locked_until = CASE WHEN locked_until <= now() THEN NULL ELSE locked_until END
      WHERE id = $1
        AND (locked_until IS NULL OR locked_until <= now())
        AND (locked_until IS NOT NULL OR failed_attempts < $2)
        AND (failed_attempts = 0 OR $3::boolean)
      RETURNING failed_attempts`,
    [user.id, config.maxFailures, captchaGiven],
  );
  if (!reserved.rows[0]) {
    if (!captchaGiven) throw new LoginRefused('UAA107', user.id, { captchaRequired: true });
    const now = (await findUserByMobile(q, user.mobile, config)) ?? user;
    throw new LoginRefused('UAA009', user.id, now.locked ? { lockedUntil: toIso(now.locked_until) } : {});
  }
  if (!(await evaluate(q, c, user))) {
    const { rows } = await q.query<{ failed_attempts: number; locked_until: string | null; locked: boolean }>(
      `UPDATE app_user
          SET locked_until = CASE WHEN failed_attempts >= $2 AND (locked_until IS NULL OR locked_until <= now())
                                  THEN now() + make_interval(mins => $3::int) ELSE locked_until END
        WHERE id = $1
        RETURNING failed_attempts, locked_until, (locked_until IS NOT NULL AND locked_until > now()) AS locked`,
      [user.id, config.maxFailures, config.lockMinutes],
    );
    if (rows[0].locked) throw new LoginRefused('UAA009', user.id, { lockedUntil: toIso(rows[0].locked_until) });
    throw new LoginRefused(wrong, user.id, { remainingAttempts: Math.max(0, config.maxFailures - rows[0].failed_attempts), captchaRequired: true });
  }
  const cleared = await q.query(
    `UPDATE app_user SET failed_attempts = 0, locked_until = NULL, last_login_at = now()
      WHERE id = $1 AND (locked_until IS NULL OR locked_until <= now())`,
    [user.id],
  );
  if (cleared.rowCount !== 1) {
    const now = (await findUserByMobile(q, user.mobile, config)) ?? user;
    throw new LoginRefused('UAA009', user.id, { lockedUntil: toIso(now.locked_until) });
  }
  if (user.status !== 1) throw new LoginRefused('UAA003', user.id);
  return user;
}

/** The password against the account's hash (or a dummy one, the same work), or the SMS code. */
async function evaluate(q: Queryable, c: Credentials, user: UserRow | undefined): Promise<boolean> {
  if (c.loginType === 'password') {
    const good = await verifyPassword(c.secret ?? '', user?.password_hash ?? (await dummyHash()));
    return good && user !== undefined;
  }
  const good = await consumeSmsCode(q, normalizeMobile(c.mobile), 'login', c.secret);
  return good && user !== undefined;
}

let dummy: Promise<string> | undefined;
/** A hash of a random password, made once: unknown mobiles cost the same scrypt as known ones. */
function dummyHash(): Promise<string> {
  dummy ??= hashPassword(crypto.randomBytes(12).toString('base64'));
  return dummy;
}

/**
 * Whether the next login of this mobile needs the captcha: the account has failures,
 * or (for a mobile no account has) a failed login was recorded for it, so that both
 * answer alike.
 */
export async function captchaRequiredFor(q: Queryable, mobile: string, config: IdentityConfig): Promise<boolean> {
  const user = await findUserByMobile(q, mobile, config);
  return user ? user.failed_attempts > 0 : hasFailureOnRecord(q, mobile);
}

async function hasFailureOnRecord(q: Queryable, mobile: string): Promise<boolean> {
  const { rows } = await q.query<{ failed: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM login_audit WHERE mobile = $1 AND outcome = 'failure') AS failed`,
    [normalizeMobile(mobile)],
  );
  return rows[0].failed;
}

export function toIso(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

export async function newCaptcha(q: Queryable, answer: string): Promise<string> {
  const key = crypto.randomBytes(16).toString('base64url');
  await q.query(`INSERT INTO captcha (key, answer, expires_at) VALUES ($1, $2, now() + $3::interval)`, [key, answer, CAPTCHA_TTL]);
  // Expired captchas are cleared as new ones are made, so the table stays small.
  await q.query('DELETE FROM captcha WHERE expires_at < now()');
  return key;
}

/** Consumes the captcha (single use). Missing → UAA107, wrong or expired → UAA104. */
export async function checkCaptcha(q: Queryable, key: string | undefined, code: string | undefined): Promise<void> {
  if (!key || !code) throw new AppError('UAA107', undefined, { captchaRequired: true });
  const { rows } = await q.query<{ answer: string }>('DELETE FROM captcha WHERE key = $1 AND expires_at > now() RETURNING answer', [key]);
  if (!rows[0] || rows[0].answer !== normalizeCaptchaAnswer(code)) throw new AppError('UAA104', undefined, { captchaRequired: true });
}

const smsHash = (mobile: string, purpose: string, code: string) => sha256(`${mobile}:${purpose}:${code}`);

/** Limits per mobile and per IP (SMS101 too often, SMS105 daily limit), then stores a new code. */
export async function issueSmsCode(q: Queryable, config: IdentityConfig, mobile: string, purpose: SmsPurpose, ip: string): Promise<string> {
  const { rows } = await q.query<{ recent: number; today: number; by_ip: number }>(
    `SELECT
       count(*) FILTER (WHERE mobile = $1 AND created_at > now() - make_interval(secs => $3::int))::int AS recent,
       count(*) FILTER (WHERE mobile = $1 AND created_at > now() - interval '1 day')::int AS today,
       count(*) FILTER (WHERE ip = $2 AND created_at > now() - interval '1 hour')::int AS by_ip
       FROM sms_code
      WHERE (mobile = $1 OR ip = $2) AND created_at > now() - interval '1 day'`,
    [mobile, ip, config.smsMobileIntervalSeconds],
  );
  const c = rows[0];
  if (c.today >= config.smsMobileDaily) throw new AppError('SMS105');
  if (c.recent > 0 || c.by_ip >= config.smsIpHourly) throw new AppError('SMS101');
  const code = String(crypto.randomInt(0, 1_000_000)).padStart(6, '0');
  await q.query(
    `INSERT INTO sms_code (mobile, purpose, code_hash, ip, expires_at) VALUES ($1, $2, $3, $4, now() + $5::interval)`,
    [mobile, purpose, smsHash(mobile, purpose, code), ip, SMS_TTL],
  );
  return code;
}

/** True when the code is the latest unexpired, unused one for that purpose; it is then spent. */
export async function consumeSmsCode(q: Queryable, mobile: string, purpose: SmsPurpose, code: string | undefined): Promise<boolean> {
  const { rows } = await q.query<{ id: number; code_hash: string; attempts: number }>(
    `SELECT id, code_hash, attempts FROM sms_code
      WHERE mobile = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
      ORDER BY created_at DESC LIMIT 1`,
    [mobile, purpose],
  );
  const row = rows[0];
  if (!row || row.attempts >= SMS_MAX_ATTEMPTS || !code) return false;
  if (row.code_hash !== smsHash(mobile, purpose, code)) {
    await q.query('UPDATE sms_code SET attempts = attempts + 1 WHERE id = $1', [row.id]);
    return false;
  }
  const spent = await q.query('UPDATE sms_code SET used_at = now() WHERE id = $1 AND used_at IS NULL', [row.id]);
  return spent.rowCount === 1;
}

/** New password rules (UAA421 naming the field, UAA011 recent), then the new hash and history. */
export async function replacePassword(
  q: Queryable,
  user: Pick<UserRow, 'id' | 'password_hash' | 'password_history'>,
  next: string | undefined,
  confirm: string | undefined,
): Promise<void> {
  if (!next || !PASSWORD_PATTERN.test(next)) {
    throw new AppError('UAA421', { detailKey: 'validation.password', field: 'newPassword' }, { field: 'newPassword' });
  }
  if (next !== confirm) {
    throw new AppError('UAA421', { detailKey: 'validation.confirmMismatch', field: 'confirmPassword' }, { field: 'confirmPassword' });
  }
  const history = [user.password_hash, ...(user.password_history ?? [])].slice(0, PASSWORD_HISTORY);
  for (const old of history) if (await verifyPassword(next, old)) throw new AppError('UAA011');
  await q.query(
    `UPDATE app_user SET password_hash = $2, password_history = $3::jsonb, password_changed_at = now(),
            password_weak = $4, updated_at = now() WHERE id = $1`,
    [user.id, await hashPassword(next), JSON.stringify(history), isWeakPassword(next)],
  );
}

export async function audit(q: Queryable, a: { userId?: number; mobile?: string; ip: string; loginType: string; outcome: string; code?: string }) {
  await q.query('INSERT INTO login_audit (user_id, mobile, ip, login_type, outcome, code) VALUES ($1, $2, $3, $4, $5, $6)', [
    a.userId ?? null,
    a.mobile ?? null,
    a.ip,
    a.loginType,
    a.outcome,
    a.code ?? null,
  ]);
}
