/**
 * Password rules (spec sections 5 and 9) and the slow salted hash (scrypt).
 * Stored format: scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>, so the cost can be raised
 * later and old hashes still verify.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;

/** 8-16 characters of digits, letters and common symbols. */
export const PASSWORD_PATTERN = /^[A-Za-z0-9!@#$%^&*()_+\-=[\]{};':"\\|,.<>/?~`]{8,16}$/;
export const MOBILE_PATTERN = /^(\+86)?1[3-9]\d{9}$/;
export const USERNAME_PATTERN = /^[A-Za-z0-9]{6,20}$/;

const COST = { N: 16384, r: 8, p: 1 };
const KEY_LEN = 32;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LEN, { ...COST, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** Sees (and may hold) each password evaluation: tests count them under concurrency. Unset in production. */
export const passwordProbe: { onEvaluate?: () => void | Promise<void> } = {};

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  await passwordProbe.onEvaluate?.();
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return crypto.timingSafeEqual(actual, expected);
}

/** Valid but weak: fewer than three of lower case, upper case, digits, symbols. */
export function isWeakPassword(password: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((re) => re.test(password)).length;
  return classes < 3;
}

/** Decodes the base64 the login form sends; undefined when it is not valid base64 of UTF-8. */
export function fromBase64(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return undefined;
  const text = Buffer.from(value, 'base64').toString('utf8');
  return Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '') === value.replace(/=+$/, '') ? text : undefined;
}

export function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}
