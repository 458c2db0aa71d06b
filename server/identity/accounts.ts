/**
 * Account rules shared by login, password change and reset: failure counting and
 * locking, captcha checks, SMS codes, and password replacement with history.
 */
import crypto from 'node:crypto';
import type { Queryable } from '../db';
import type { IdentityConfig } from '../config';
import { AppError } from '../lib/errors';
import { hashPassword, isWeakPassword, PASSWORD_PATTERN, sha256, verifyPassword } from './passwords';

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

export async function recordFailure(q: Queryable, userId: number, config: IdentityConfig) {
  const { rows } = await q.query<{ failed_attempts: number; locked_until: string | null }>(
    `UPDATE app_user
        SET failed_attempts = failed_attempts + 1,
            locked_until = CASE WHEN failed_attempts + 1 >= $2 THEN now() + make_interval(mins => $3::int) ELSE locked_until END
      WHERE id = $1
      RETURNING failed_attempts, locked_until`,
    [userId, config.maxFailures, config.lockMinutes],
  );
  const { failed_attempts, locked_until } = rows[0];
  return { failedAttempts: failed_attempts, lockedUntil: failed_attempts >= config.maxFailures ? toIso(locked_until) : null };
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
  if (!rows[0] || rows[0].answer !== code.trim()) throw new AppError('UAA104', undefined, { captchaRequired: true });
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
