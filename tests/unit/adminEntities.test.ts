/**
 * Admin entities from one declaration (config/declared.ts): a view's `admin` block
 * yields the resource, the permission module, the menu entry and the list route.
 * Scenarios:
 * - the HIS interface, declared only by its view, is a table resource with its module,
 *   a module of rights view/add/edit/delete in the system group, and a list route in
 *   the admin menu right after the exam parts; no config JSON names it
 * - a role holding the module sees the menu entry; one without does not
 * - a resource, a module or a route declared twice throws; an `after` naming no route throws
 * - every admin view's menu group is a sidebar group
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  adminEntities,
  deriveLayoutRoutes,
  derivePermissions,
  deriveResources,
  PERMISSION_GROUPS,
  PERMISSION_MODULES,
  RESOURCE_REGISTRY,
  ROUTE_TABLE,
} from '../../config/declared';
import { menuList } from '../../server/identity/access';
import { buildMenuTree } from '@/routes/table';

const root = path.resolve(__dirname, '..', '..');

describe('an admin entity from its view alone', () => {
  test('the HIS interface: resource, module, menu and route', () => {
    expect(RESOURCE_REGISTRY.hisInterface).toMatchObject({ base: '/api/bdt/v1/hisInterface', module: 'system.hisInterface', table: { name: 'his_interface', hospital: 'hospitalId' } });
    expect(PERMISSION_MODULES['system.hisInterface']).toEqual(['view', 'add', 'edit', 'delete']);
    expect(PERMISSION_GROUPS.find((g) => g.key === 'system')?.modules).toContain('system.hisInterface');
    const at = ROUTE_TABLE.layout.findIndex((r) => r.path === '/hisInterface');
    expect(ROUTE_TABLE.layout[at]).toEqual({ path: '/hisInterface', name: 'hisInterface', icon: 'link', group: 'admin', permission: 'system.hisInterface', view: 'hisInterface', component: 'resource/List' });
    expect(ROUTE_TABLE.layout[at - 1].name).toBe('organList');
    for (const file of ['config/resources.json', 'config/permissions.json', 'config/routes.json']) {
      expect(fs.readFileSync(path.join(root, file), 'utf8')).not.toContain('hisInterface');
    }
  });

  test('the menu shows it to a role holding the module, and only then', () => {
    // Routes naming no module (home, the error log) show to everyone.
    expect(menuList({ 'system.hisInterface': ['view'] })).toEqual(['dashboard', 'hisInterface', 'errorLog']);
    expect(menuList({ 'system.organ': ['view'] })).not.toContain('hisInterface');
    const admin = buildMenuTree((r) => r.permission === 'system.hisInterface').find((n) => n.key === 'group:admin');
    expect(admin?.children?.map((c) => c.path)).toEqual(['/hisInterface']);
  });

  test('every admin view names a sidebar group', () => {
    const groups = ROUTE_TABLE.groups.map((g) => g.name);
    for (const { decl } of adminEntities()) expect(groups).toContain(decl.admin.menu.group);
  });
});

describe('one declaration per name', () => {
  const admin = (resource: string, permission: string, list: string, after?: string) =>
    adminEntities({
      [resource]: {
        $id: `views/${resource}.json`,
        entity: resource,
        resource,
        permission,
        routes: { list },
        admin: { base: `/api/bdt/v1/${resource}`, table: {}, menu: { group: 'admin', icon: 'link', after } },
      },
    });

  test('a resource declared in resources.json and by a view throws', () => {
    expect(() => deriveResources({ gadget: { base: '/api/bdt/v1/gadget' } }, admin('gadget', 'system.gadget', '/gadget'))).toThrow('resource gadget (view gadget) is declared twice');
  });

  test('a module declared in permissions.json and by a view throws; a missing group too', () => {
    const base = { groups: [{ key: 'system', modules: ['system.gadget'] }], modules: { 'system.gadget': ['view'] } };
    expect(() => derivePermissions(base, admin('gadget', 'system.gadget', '/gadget'))).toThrow('permission module system.gadget (view gadget) is declared twice');
    expect(() => derivePermissions({ groups: [], modules: {} }, admin('gadget', 'system.gadget', '/gadget'))).toThrow('no permission group system');
  });

  test('routes go after the named one or last of their group; an unknown `after` throws', () => {
    const base = [
      { path: '/a', name: 'a', icon: 'x', group: 'admin' },
      { path: '/b', name: 'b', icon: 'x', group: 'admin' },
      { path: '/c', name: 'c', icon: 'x', group: 'system' },
    ];
    expect(deriveLayoutRoutes(base, admin('gadget', 'system.gadget', '/gadget', 'a')).map((r) => r.name)).toEqual(['a', 'gadget', 'b', 'c']);
    expect(deriveLayoutRoutes(base, admin('gadget', 'system.gadget', '/gadget')).map((r) => r.name)).toEqual(['a', 'b', 'gadget', 'c']);
    expect(() => deriveLayoutRoutes(base, admin('gadget', 'system.gadget', '/gadget', 'nope'))).toThrow('menu.after names no route nope');
  });
});
