/**
 * The session for this page's life: the token (mirrored in localStorage, see
 * ./storage.ts) and the user info, fetched once and kept in memory. A tiny external
 * store (subscribe + snapshot) read by React through useSession(); no state library.
 *
 * It may touch localStorage and the identity service; it never navigates (the route
 * guard reacts to its changes).
 */
import { useSyncExternalStore } from 'react';
import type { RequestError } from '../services/request';
import { fetchUserInfo, logout, type CommonSetting, type UserInfo } from '../services/uaa';
import {
  browserStorage,
  clearStoredSession,
  markWeakReminded,
  readToken,
  TOKEN_KEY,
  wasWeakReminded,
  writeRememberMe,
  writeToken,
} from './storage';

export type SessionStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface SessionState {
  token: string | null;
  /** null until fetched (or after the session ends). */
  user: UserInfo | null;
  status: SessionStatus;
  error: RequestError | Error | null;
  weakReminded: boolean;
}

/** Codes meaning the server no longer accepts the token: a forced logout, no server call. */
export const SESSION_GONE_CODES: readonly string[] = ['UAA005', 'UAA302'];
/** The password expired while the page was open: the guard forces the change dialog. */
export const PASSWORD_EXPIRED_CODE = 'UAA012';

const listeners = new Set<() => void>();
let state: SessionState = initialState();
let inflight: Promise<UserInfo> | null = null;
/** Bumped whenever the session changes hands, so a late user-info reply for an old token is dropped. */
let generation = 0;

function initialState(): SessionState {
  const storage = browserStorage();
  return { token: readToken(storage), user: null, status: 'idle', error: null, weakReminded: wasWeakReminded(storage) };
}

function set(patch: Partial<SessionState>): void {
  state = { ...state, ...patch };
  for (const l of listeners) l();
}

export function getSession(): SessionState {
  return state;
}

export function subscribeSession(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSession(): SessionState {
  return useSyncExternalStore(subscribeSession, getSession, getSession);
}

/** The common settings of user info (spec section 3: examNotice, viewConfig, refresh, autoExamRemind). */
export function useCommonSetting(): CommonSetting | undefined {
  return useSession().user?.setting;
}

/** A login or SSO hand-off: store the token; the user info is fetched afresh. */
export function startSession(token: string, options: { rememberMe?: boolean } = {}): void {
  const storage = browserStorage();
  writeToken(storage, token);
  if (options.rememberMe !== undefined) writeRememberMe(storage, options.rememberMe);
  generation += 1;
  inflight = null;
  set({ token, user: null, status: 'idle', error: null, weakReminded: false });
}

/** Ends the session on this device only (logout after the server call, forced logout). */
export function clearSession(): void {
  clearStoredSession(browserStorage());
  generation += 1;
  inflight = null;
  set({ token: null, user: null, status: 'idle', error: null, weakReminded: false });
}

/** Logout (spec section 4): the server revokes the token, then this device forgets it. */
export async function signOut(): Promise<void> {
  try {
    await logout();
  } catch {
    // Revoked already or unreachable: the session still ends here.
  }
  clearSession();
}

/** The user info, fetched at most once at a time; `force` fetches again (hospital change). */
export function loadUserInfo(options: { force?: boolean } = {}): Promise<UserInfo> {
  if (!options.force && state.user) return Promise.resolve(state.user);
  if (!options.force && inflight) return inflight;
  const mine = generation;
  set({ status: 'loading', error: null });
  const p = fetchUserInfo().then(
    (user) => {
      if (mine === generation) {
        inflight = null;
        set({ user, status: 'ready', error: null });
      }
      return user;
    },
    (error: RequestError | Error) => {
      if (mine === generation) {
        inflight = null;
        set({ status: 'error', error });
      }
      throw error;
    },
  );
  inflight = p;
  return p;
}

export function rememberWeakReminderShown(): void {
  markWeakReminded(browserStorage());
  set({ weakReminded: true });
}

/** Installed as the request wrapper's onFailure (src/services/requestUi.ts). */
export function onRequestFailure(error: Pick<RequestError, 'code'>): void {
  if (SESSION_GONE_CODES.includes(error.code)) {
    if (state.token) clearSession();
  } else if (error.code === PASSWORD_EXPIRED_CODE && state.user && !state.user.passwordExpired) {
    set({ user: { ...state.user, passwordExpired: true } });
  }
}

// Another tab logged out or in: follow it.
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (e) => {
    if (e.key !== TOKEN_KEY && e.key !== null) return;
    const token = readToken(browserStorage());
    if (token === state.token) return;
    generation += 1;
    inflight = null;
    set({ token, user: null, status: 'idle', error: null });
  });
}
