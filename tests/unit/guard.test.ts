/**
 * The navigation guard of spec section 2 as a pure decision (src/session/guard.ts):
 * - no token: every route but /login and /authredirect (and the error pages) goes to
 *   /login?redirect=<path>
 * - a token on /login goes to /
 * - first entry: load the user info; an empty menuList is refused
 * - a route whose name is not in menuList (and that has a permission) goes to /401;
 *   allowed routes and ungated ones (dashboard, errorLog) render
 * - password expired forces the change dialog; several hospitals and none chosen, the
 *   chooser — both before the empty-menu refusal, since the server lists no menus for
 *   such sessions; a weak password renders with the reminder once per login
 * - redirect targets are kept only when they are paths on this site
 */
import { decideNavigation, loginPath, safeRedirect, type GuardUser } from '@/session/guard';

const clerk: GuardUser = { menuList: ['examCreate', 'examination'], hospitalId: 1, hospitals: [{ id: 1 }] };
const token = 'tok-1';

describe('no token', () => {
  test.each(['/dashboard', '/examination', '/reportDetail', '/', '/no/such'])('%s goes to /login', (pathname) => {
    const d = decideNavigation({ pathname, token: null, user: null });
    expect(d.action).toBe('redirect');
  });
  test('the redirect parameter keeps path and query', () => {
    expect(decideNavigation({ pathname: '/examination', search: '?page=2', token: null, user: null })).toEqual({
      action: 'redirect',
      to: '/login?redirect=%2Fexamination%3Fpage%3D2',
    });
    expect(decideNavigation({ pathname: '/', token: null, user: null })).toEqual({ action: 'redirect', to: '/login' });
  });
  test.each(['/login', '/authredirect', '/404', '/401'])('%s is open', (pathname) => {
    expect(decideNavigation({ pathname, token: null, user: null })).toEqual({ action: 'render' });
  });
});

describe('with a token', () => {
  test('opening /login goes to /', () => {
    expect(decideNavigation({ pathname: '/login', token, user: null })).toEqual({ action: 'redirect', to: '/' });
    expect(decideNavigation({ pathname: '/login/', search: '?redirect=%2Fuser', token, user: clerk })).toEqual({ action: 'redirect', to: '/' });
  });
  test('/authredirect and the error pages still render', () => {
    expect(decideNavigation({ pathname: '/authredirect', token, user: null }).action).toBe('render');
    expect(decideNavigation({ pathname: '/401', token, user: clerk }).action).toBe('render');
  });
  test('first entry loads the user info', () => {
    expect(decideNavigation({ pathname: '/dashboard', token, user: null })).toEqual({ action: 'loadUser' });
  });
  test('an empty menuList is refused', () => {
    expect(decideNavigation({ pathname: '/dashboard', token, user: { menuList: [] } })).toEqual({ action: 'noMenu' });
  });
  test('a route not in menuList goes to /401', () => {
    expect(decideNavigation({ pathname: '/user', token, user: clerk })).toEqual({ action: 'redirect', to: '/401' });
    expect(decideNavigation({ pathname: '/reportDetail', token, user: clerk })).toEqual({ action: 'redirect', to: '/401' });
  });
  test('allowed routes and routes without a permission render', () => {
    expect(decideNavigation({ pathname: '/examination', token, user: clerk })).toEqual({ action: 'render' });
    expect(decideNavigation({ pathname: '/examination/', token, user: clerk })).toEqual({ action: 'render' });
    expect(decideNavigation({ pathname: '/dashboard', token, user: clerk })).toEqual({ action: 'render' });
    expect(decideNavigation({ pathname: '/errorLog', token, user: clerk })).toEqual({ action: 'render' });
    expect(decideNavigation({ pathname: '/', token, user: clerk })).toEqual({ action: 'render' });
  });
});

describe('session prompts', () => {
  test('an expired password forces the change dialog before anything else', () => {
    const user = { ...clerk, passwordExpired: true };
    expect(decideNavigation({ pathname: '/dashboard', token, user })).toEqual({ action: 'changePassword' });
    expect(decideNavigation({ pathname: '/user', token, user })).toEqual({ action: 'changePassword' });
    // The server lists no menus while the password is expired.
    expect(decideNavigation({ pathname: '/dashboard', token, user: { ...user, menuList: [] } })).toEqual({ action: 'changePassword' });
  });
  test('several hospitals and none chosen: the chooser', () => {
    const user = { menuList: ['examination'], hospitalId: null, hospitals: [{ id: 1 }, { id: 2 }] };
    expect(decideNavigation({ pathname: '/examination', token, user })).toEqual({ action: 'chooseHospital' });
    expect(decideNavigation({ pathname: '/examination', token, user: { ...user, menuList: [] } })).toEqual({ action: 'chooseHospital' });
    expect(decideNavigation({ pathname: '/examination', token, user: { ...user, hospitalId: 2 } })).toEqual({ action: 'render' });
    expect(decideNavigation({ pathname: '/examination', token, user: { ...user, hospitals: [{ id: 1 }] } })).toEqual({ action: 'render' });
  });
  test('a weak password renders with the reminder, once per login', () => {
    const user = { ...clerk, passwordWeak: true };
    expect(decideNavigation({ pathname: '/dashboard', token, user })).toEqual({ action: 'render', remindWeakPassword: true });
    expect(decideNavigation({ pathname: '/dashboard', token, user, weakReminded: true })).toEqual({ action: 'render' });
  });
});

describe('redirect targets', () => {
  test('paths on this site are kept', () => {
    expect(safeRedirect('/examination?page=2')).toBe('/examination?page=2');
    expect(safeRedirect('/')).toBe('/');
  });
  test('anything else falls back to /', () => {
    for (const bad of [null, undefined, '', 'https://evil.example/', '//evil.example', '/\\evil.example', 'javascript:alert(1)', '/login', '/login?redirect=/x']) {
      expect(safeRedirect(bad)).toBe('/');
    }
    expect(safeRedirect('/loginHelp')).toBe('/loginHelp');
  });
  test('loginPath', () => {
    expect(loginPath('/user', 'a=1')).toBe('/login?redirect=%2Fuser%3Fa%3D1');
    expect(loginPath('/user', '?')).toBe('/login?redirect=%2Fuser');
  });
});
