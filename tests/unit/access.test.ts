/**
 * Access as pure functions (src/session/access.ts) and the sidebar built with them:
 * - can('module:action'): only rights the permissionMap lists; module keys with dots;
 *   malformed keys and missing maps are refused
 * - canSee(module): any right in the module
 * - routes without a permission are for every logged-in user, others need their name
 *   in menuList
 * - buildMenuTree(filter): a clerk sees only registration menus, an admin all; groups
 *   left empty (or with only hidden detail pages) disappear
 */
import { can, canSee, menuFilter, parsePermission, routeAllowed } from '@/session/access';
import { buildMenuTree, findRoute, layoutRoutes, type MenuNode } from '@/routes/table';

const map = {
  'system.user': ['view', 'add'],
  report: ['view', 'write'],
  remote: [],
};

const items = (tree: MenuNode[]) => tree.flatMap((n) => (n.kind === 'group' ? n.children ?? [] : [n]));

describe('can', () => {
  test('grants exactly the listed actions', () => {
    expect(can(map, 'system.user:add')).toBe(true);
    expect(can(map, 'system.user:delete')).toBe(false);
    expect(can(map, 'report:write')).toBe(true);
    expect(can(map, 'report:verify')).toBe(false);
  });
  test('unknown modules, empty modules, no map and malformed keys are refused', () => {
    expect(can(map, 'system.role:view')).toBe(false);
    expect(can(map, 'remote:view')).toBe(false);
    expect(can(undefined, 'report:view')).toBe(false);
    expect(can(null, 'report:view')).toBe(false);
    expect(can(map, 'report')).toBe(false);
    expect(can(map, ':view')).toBe(false);
    expect(can(map, 'report:')).toBe(false);
  });
  test('the last colon splits module from action', () => {
    expect(parsePermission('stat.qc:export')).toEqual({ module: 'stat.qc', action: 'export' });
    expect(parsePermission('nocolon')).toBeUndefined();
  });
});

describe('canSee', () => {
  test('any action in the module', () => {
    expect(canSee(map, 'system.user')).toBe(true);
    expect(canSee(map, 'report')).toBe(true);
  });
  test('an empty or missing module, or no map, is not seen', () => {
    expect(canSee(map, 'remote')).toBe(false);
    expect(canSee(map, 'system.role')).toBe(false);
    expect(canSee(undefined, 'report')).toBe(false);
  });
});

describe('routeAllowed', () => {
  test('routes without a permission need only a login', () => {
    expect(routeAllowed({ name: 'dashboard' }, [])).toBe(true);
    expect(routeAllowed(findRoute('/errorLog')!, ['examination'])).toBe(true);
  });
  test('routes with a permission need their name in menuList', () => {
    const user = findRoute('/user')!;
    expect(user.permission).toBe('system.user');
    expect(routeAllowed(user, ['user', 'role'])).toBe(true);
    expect(routeAllowed(user, ['examination'])).toBe(false);
    expect(routeAllowed(user, undefined)).toBe(false);
  });
});

describe('sidebar filtered by menuList', () => {
  test('without a filter every layout route is there (unchanged default)', () => {
    expect(items(buildMenuTree()).map((i) => i.path).sort()).toEqual(layoutRoutes.map((r) => r.path).sort());
  });

  test('a registration clerk sees home, the registration group and the ungated pages only', () => {
    const clerk = ['examCreate', 'examination', 'examSchedule', 'examScheduleMatch', 'checkDateDetail'];
    const tree = buildMenuTree(menuFilter(clerk));
    expect(tree.map((n) => n.key)).toEqual(['/dashboard', 'group:registration', 'group:system']);
    expect(tree[1].children?.map((c) => c.path)).toEqual(['/examCreate', '/examination', '/examSchedule', '/examScheduleMatch', '/checkDateDetail']);
    // The system group keeps the error log, which needs no permission.
    expect(tree[2].children?.map((c) => c.path)).toEqual(['/errorLog']);
  });

  test('an admin with every route name sees every route', () => {
    const all = layoutRoutes.map((r) => r.name);
    expect(items(buildMenuTree(menuFilter(all))).length).toBe(layoutRoutes.length);
  });

  test('a group whose only allowed routes are hidden detail pages disappears', () => {
    const tree = buildMenuTree(menuFilter(['addUser', 'roleDetail']));
    expect(tree.find((n) => n.key === 'group:admin')).toBeUndefined();
  });

  test('an empty menuList leaves only the ungated pages', () => {
    expect(items(buildMenuTree(menuFilter([]))).map((i) => i.path)).toEqual(['/dashboard', '/errorLog']);
  });
});
