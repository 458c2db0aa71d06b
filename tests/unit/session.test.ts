/**
 * The session outside React:
 * - storage: token under config/app.json's tokenStorageKey, Remember-Me "true"/"false",
 *   clearing forgets the token and the weak-password flag but keeps Remember-Me
 * - the store: a forced logout (UAA005, UAA302) clears the token without a server
 *   call; UAA012 marks the loaded user's password expired; other codes change nothing
 * - field rules of spec section 5 (mobile, password 8-16, SMS code)
 * - secrets travel as base64 of their UTF-8 bytes
 * - the text a login failure shows: attempts left (UAA002), lock end (UAA009), network
 */
import app from '../../config/app.json';
import { resources, translate } from '../../locales';
import { failureText } from '@/pages/login/failure';
import { NETWORK_ERROR } from '@/services/request';
import { encodeSecret } from '@/services/uaa';
import { isMobile, isPasswordShape, isSmsCode } from '@/session/rules';
import {
  clearStoredSession,
  markWeakReminded,
  readRememberMe,
  readToken,
  REMEMBER_ME_KEY,
  TOKEN_KEY,
  wasWeakReminded,
  writeRememberMe,
  writeToken,
} from '@/session/storage';
import { clearSession, getSession, onRequestFailure, startSession } from '@/session/store';
import { formatTime } from '@/shared/format';

function memoryStorage() {
  const m = new Map<string, string>();
  return {
    map: m,
    getItem: (k: string) => (m.has(k) ? (m.get(k) as string) : null),
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  };
}

describe('session storage', () => {
  test('keys come from config/app.json', () => {
    expect(TOKEN_KEY).toBe(app.tokenStorageKey);
    expect(REMEMBER_ME_KEY).toBe(app.rememberMeStorageKey);
  });

  test('token and Remember-Me round trip; clearing keeps Remember-Me', () => {
    const s = memoryStorage();
    expect(readToken(s)).toBeNull();
    writeToken(s, 'abc');
    writeRememberMe(s, true);
    markWeakReminded(s);
    expect(readToken(s)).toBe('abc');
    expect(s.map.get(app.rememberMeStorageKey)).toBe('true');
    expect(readRememberMe(s)).toBe(true);
    expect(wasWeakReminded(s)).toBe(true);
    clearStoredSession(s);
    expect(readToken(s)).toBeNull();
    expect(wasWeakReminded(s)).toBe(false);
    expect(readRememberMe(s)).toBe(true);
    writeRememberMe(s, false);
    expect(s.map.get(app.rememberMeStorageKey)).toBe('false');
  });

  test('a new token resets the weak-password reminder', () => {
    const s = memoryStorage();
    markWeakReminded(s);
    writeToken(s, 'next');
    expect(wasWeakReminded(s)).toBe(false);
  });

  test('no storage (private mode) reads as logged out', () => {
    expect(readToken(undefined)).toBeNull();
    expect(readRememberMe(undefined)).toBe(false);
  });
});

describe('session store', () => {
  afterEach(() => clearSession());

  test.each(['UAA005', 'UAA302'])('%s ends the session on this device', (code) => {
    startSession('tok');
    expect(getSession().token).toBe('tok');
    onRequestFailure({ code });
    expect(getSession().token).toBeNull();
    expect(getSession().user).toBeNull();
  });

  test('other codes leave the session alone', () => {
    startSession('tok');
    onRequestFailure({ code: 'UAA002' });
    onRequestFailure({ code: 'RIS101' });
    expect(getSession().token).toBe('tok');
  });

  test('UAA012 without loaded user info changes nothing', () => {
    startSession('tok');
    onRequestFailure({ code: 'UAA012' });
    expect(getSession().user).toBeNull();
    expect(getSession().token).toBe('tok');
  });
});

describe('field rules', () => {
  test('mobile: optional +86, then 1[3-9] and 9 digits', () => {
    for (const ok of ['13800000001', '+8619912345678', '15011112222']) expect(isMobile(ok)).toBe(true);
    for (const bad of ['12800000001', '1380000000', '138000000011', '+8512800000001', '', undefined]) expect(isMobile(bad)).toBe(false);
  });
  test('password: 8-16 digits, letters and common symbols', () => {
    for (const ok of ['Demo@2026', 'abcdefgh', '1234567890123456', 'a!b"c\\d[e]f`g~']) expect(isPasswordShape(ok)).toBe(true);
    for (const bad of ['short7!', '12345678901234567', 'has space1', '密码密码密码密码', '']) expect(isPasswordShape(bad)).toBe(false);
  });
  test('SMS code: 6 digits', () => {
    expect(isSmsCode('123456')).toBe(true);
    expect(isSmsCode('12345')).toBe(false);
    expect(isSmsCode('12345a')).toBe(false);
  });
});

describe('secrets', () => {
  test('base64 of the UTF-8 text', () => {
    expect(encodeSecret('Demo@2026')).toBe(Buffer.from('Demo@2026').toString('base64'));
    expect(encodeSecret('密码Ä')).toBe(Buffer.from('密码Ä', 'utf8').toString('base64'));
  });
});

describe('login failure text', () => {
  const zh = resources['zh-CN'];
  const t = ((key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params)) as never;

  test('UAA002 adds the attempts left, or warns of the lock', () => {
    const err = { code: 'UAA002', message: zh['error.UAA002'], data: { status: 'UAA002', remainingAttempts: 2, captchaRequired: true } };
    const text = failureText(err, t);
    expect(text).toContain(zh['error.UAA002']);
    expect(text).toContain('2');
    expect(failureText({ ...err, data: { remainingAttempts: 0 } }, t)).toBe(translate('zh-CN', 'auth.login.noAttemptsLeft', { message: zh['error.UAA002'] }));
  });

  test('UAA009 shows when the lock ends, formatted as the platform formats time', () => {
    const lockedUntil = '2026-03-01T08:30:00.000Z';
    const text = failureText({ code: 'UAA009', message: zh['error.UAA009'], data: { lockedUntil } }, t);
    expect(text).toContain(formatTime(lockedUntil));
  });

  test('a network failure reads as such; other codes keep their catalogue text', () => {
    expect(failureText({ code: NETWORK_ERROR, message: 'Failed to fetch', data: undefined }, t)).toBe(zh['error.network']);
    expect(failureText({ code: 'UAA003', message: zh['error.UAA003'], data: {} }, t)).toBe(zh['error.UAA003']);
  });
});

