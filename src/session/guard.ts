/**
 * The navigation guard of spec section 2 as one pure decision: given where the user
 * is going and what the session holds, what happens. src/session/RouteGuard.tsx (the
 * umi route wrapper) carries the decision out; tests/unit/guard.test.ts runs it in node.
 *
 * Order, first match wins:
 *  1. open routes (/login, /authredirect, /404, /401) render; a logged-in user opening
 *     /login goes to /;
 *  2. no token: /login, remembering where the user was going;
 *  3. user info not loaded yet: load it;
 *  4. password expired: the change-password dialog, before anything else;
 *  5. several hospitals and none chosen: the hospital chooser;
 *  6. an empty menuList: refused ("no system function permission"), session cleared, /;
 *  7. a route with a permission whose name is not in menuList: /401;
 *  8. render, with the weak-password reminder once per login.
 * 4 and 5 come before 6 because the server lists no menus for a session whose password
 * expired or that has no hospital yet: those are steps to finish, not a refusal.
 */
import { routeAllowed } from './access';
import { findRoute } from '../routes/table';

export const LOGIN_PATH = '/login';
export const AUTH_REDIRECT_PATH = '/authredirect';
export const UNAUTHORIZED_PATH = '/401';
export const NOT_FOUND_PATH = '/404';
/** Reachable without a token. */
export const OPEN_PATHS: readonly string[] = [LOGIN_PATH, AUTH_REDIRECT_PATH, NOT_FOUND_PATH, UNAUTHORIZED_PATH];

/** What the guard needs from the user info (GET /user/info). */
export interface GuardUser {
  menuList: readonly string[];
  passwordExpired?: boolean;
  passwordWeak?: boolean;
  hospitalId?: number | null;
  hospitals?: ReadonlyArray<{ id: number }>;
}

export interface GuardInput {
  pathname: string;
  /** Location search, with or without the leading "?". */
  search?: string;
  token: string | null;
  /** null until the user info has been fetched in this page's life. */
  user: GuardUser | null;
  /** The weak-password reminder was already shown for this login. */
  weakReminded?: boolean;
}

export type GuardDecision =
  | { action: 'render'; remindWeakPassword?: boolean }
  | { action: 'redirect'; to: string }
  | { action: 'loadUser' }
  | { action: 'noMenu' }
  | { action: 'changePassword' }
  | { action: 'chooseHospital' };

function cleanPath(pathname: string): string {
  return pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
}

/**
 * A redirect target from a query string, kept only when it is a path on this site
 * (no scheme, no "//host", no backslash tricks) and not the login page itself.
 */
export function safeRedirect(raw: string | null | undefined, fallback = '/'): string {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) return fallback;
  if (/^\/login(?:[/?#]|$)/.test(raw)) return fallback;
  return raw;
}

/** /login, with `redirect` back to where the user was going (omitted for the root). */
export function loginPath(pathname: string, search = ''): string {
  const q = search && !search.startsWith('?') ? `?${search}` : search;
  const target = `${pathname}${q === '?' ? '' : q}`;
  return target === '/' || target === '' ? LOGIN_PATH : `${LOGIN_PATH}?redirect=${encodeURIComponent(target)}`;
}

export function needsHospitalChoice(user: Pick<GuardUser, 'hospitalId' | 'hospitals'>): boolean {
  return (user.hospitalId === null || user.hospitalId === undefined) && (user.hospitals?.length ?? 0) > 1;
}

export function decideNavigation(input: GuardInput): GuardDecision {
  const pathname = cleanPath(input.pathname);
  if (OPEN_PATHS.includes(pathname)) {
    if (pathname === LOGIN_PATH && input.token) return { action: 'redirect', to: '/' };
    return { action: 'render' };
  }
  if (!input.token) return { action: 'redirect', to: loginPath(pathname, input.search) };
  const { user } = input;
  if (!user) return { action: 'loadUser' };
  if (user.passwordExpired) return { action: 'changePassword' };
  if (needsHospitalChoice(user)) return { action: 'chooseHospital' };
  if (!user.menuList || user.menuList.length === 0) return { action: 'noMenu' };
  const route = findRoute(pathname);
  if (route && !routeAllowed(route, user.menuList)) return { action: 'redirect', to: UNAUTHORIZED_PATH };
  return user.passwordWeak && !input.weakReminded ? { action: 'render', remindWeakPassword: true } : { action: 'render' };
}
