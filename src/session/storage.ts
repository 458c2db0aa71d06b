/**
 * Where the session lives between page loads (spec section 4 "Session"): the token in
 * localStorage under config/app.json's tokenStorageKey, the Remember-Me choice (sent by
 * the request wrapper on the login call) and the "weak password reminded" flag.
 * Pure functions over a Storage-like object so they run in unit tests; callers in the
 * browser pass localStorage (see browserStorage).
 */
import app from '../../config/app.json';

export type SessionStorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export const TOKEN_KEY: string = app.tokenStorageKey;
export const REMEMBER_ME_KEY: string = app.rememberMeStorageKey;
/** Set once the weak-password reminder was shown for the current login. */
export const WEAK_REMINDED_KEY = `${app.tokenStorageKey}-weak-reminded`;

/** localStorage when there is one (browser), else undefined (node, private-mode failures). */
export function browserStorage(): SessionStorageLike | undefined {
  try {
    return typeof localStorage !== 'undefined' ? localStorage : undefined;
  } catch {
    return undefined;
  }
}

export function readToken(storage: SessionStorageLike | undefined): string | null {
  const token = storage?.getItem(TOKEN_KEY);
  return token ? token : null;
}

/** A new login or hand-off: the token, and a fresh reminder state. */
export function writeToken(storage: SessionStorageLike | undefined, token: string): void {
  storage?.setItem(TOKEN_KEY, token);
  storage?.removeItem(WEAK_REMINDED_KEY);
}

export function readRememberMe(storage: SessionStorageLike | undefined): boolean {
  return storage?.getItem(REMEMBER_ME_KEY) === 'true';
}

export function writeRememberMe(storage: SessionStorageLike | undefined, remember: boolean): void {
  storage?.setItem(REMEMBER_ME_KEY, remember ? 'true' : 'false');
}

export function wasWeakReminded(storage: SessionStorageLike | undefined): boolean {
  return storage?.getItem(WEAK_REMINDED_KEY) === '1';
}

export function markWeakReminded(storage: SessionStorageLike | undefined): void {
  storage?.setItem(WEAK_REMINDED_KEY, '1');
}

/**
 * Forgets the session on this device. The Remember-Me choice stays: it is a preference
 * the login form starts from, not part of the session.
 */
export function clearStoredSession(storage: SessionStorageLike | undefined): void {
  storage?.removeItem(TOKEN_KEY);
  storage?.removeItem(WEAK_REMINDED_KEY);
}
