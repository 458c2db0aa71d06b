/**
 * config/routes.json and what is derived from it (src/routes/table.ts):
 * - every route of spec section 2 exists, in the right area (public, full-screen, layout)
 * - umi routes: layout's empty path redirects to /dashboard, unknown paths go to /404,
 *   every component resolves to a file, routes without one use NotYetAvailable
 * - detail pages are hidden from the menu; the sidebar groups hold every visible route
 * - every icon name is in the one icon registry
 * - the routes without notification pop-ups (quiet): the wall screen and the full-screen workspaces
 */
import fs from 'node:fs';
import path from 'node:path';
import { hasIcon, iconRegistry } from '@/components/icons';
import {
  allRoutes,
  buildMenuTree,
  buildUmiRoutes,
  findRoute,
  layoutRoutes,
  menuGroups,
  type UmiRoute,
} from '@/routes/table';

const root = path.resolve(__dirname, '..', '..');

const SPEC_LAYOUT = `/dashboard /examination /examScheduleMatch /checkDateDetail /examCreate /examSchedule /user
/addUser /role /roleDetail /shareLog /qualityControl /dictionary /dictionarySetting /regionOrg /regionOrgDetail
/deviceList /examItemList /organList /departmentList /centralHospital /hospital /qualityControlStat
/qualityStatDetail /checkstat /reportcenter /remotecenter /business /businessps /report /myReport
/privateTemplate /publictemplate /generalConfig /remote /teleConsultionPlatform /consultationDetail
/teleConsulationDoctor /expertDetail /operationLog /consultationProcess /imageRecord /exportReportList
/belowHisOrder /hisReportStat /docReportStat /qcRuleList /teleStatistics /examPriceStatistics`.split(/\s+/);
const SPEC_ICONS = 'knowledgebase audit target stat report edit role hospital user exam remote imageRecord regionOrg teleConsultionPlatform print lock password eye language logo'.split(' ');
const DETAIL_PAGES = ['/addUser', '/roleDetail', '/regionOrgDetail', '/qualityStatDetail', '/consultationDetail', '/expertDetail', '/checkDateDetail'];

describe('route table', () => {
  test.each(SPEC_LAYOUT.concat('/errorLog'))('%s sits under the main layout', (p) => {
    expect(findRoute(p)?.area).toBe('layout');
  });

  test.each(['/login', '/authredirect', '/404', '/401'])('%s is public', (p) => {
    expect(findRoute(p)?.area).toBe('public');
  });

  test.each(['/reportDetail', '/history'])('%s is full-screen', (p) => {
    expect(findRoute(p)?.area).toBe('fullScreen');
  });

  test('paths and names are unique', () => {
    const routes = allRoutes();
    expect(new Set(routes.map((r) => r.path)).size).toBe(routes.length);
    expect(new Set(routes.map((r) => r.name)).size).toBe(routes.length);
  });

  test.each(DETAIL_PAGES)('detail page %s is hidden from the menu', (p) => {
    expect(findRoute(p)?.hideInMenu).toBe(true);
  });

  test('every route and group icon is in the registry, and the spec icons are registered', () => {
    const unknown = [...allRoutes().map((r) => r.icon), ...menuGroups.map((g) => g.icon)].filter((n) => !hasIcon(n));
    expect(unknown).toEqual([]);
    expect(SPEC_ICONS.filter((n) => !hasIcon(n))).toEqual([]);
    expect(Object.isFrozen(iconRegistry)).toBe(true);
  });
});

describe('umi routes', () => {
  const routes = buildUmiRoutes();
  const layout = routes.find((r) => r.path === '/') as UmiRoute;

  test('the layout route holds every layout child and redirects its empty path home', () => {
    expect(layout.component).toBe('@/layouts/MainLayout');
    expect(layout.routes?.[0]).toEqual({ path: '/', redirect: '/dashboard' });
    expect(layout.routes?.slice(1).map((r) => r.path)).toEqual(layoutRoutes.map((r) => r.path));
  });

  test('public and full-screen routes are outside the layout', () => {
    const top = routes.map((r) => r.path);
    for (const p of ['/login', '/authredirect', '/404', '/401', '/reportDetail', '/history']) expect(top).toContain(p);
    expect(layout.routes?.map((r) => r.path)).not.toContain('/login');
  });

  // The notification pop-ups (src/report/notice/NoticeCenter.tsx) stay in the main window: none on the wall screen,
  // over the viewer's series panel (a window of its own) or in a video call; the working pages keep them.
  test('no notification pop-ups on the wall screen and the full-screen workspaces; the working pages keep them', () => {
    for (const p of ['/bi', '/viewer', '/consultationRoom', '/consultationReplay']) expect(findRoute(p)?.quiet).toBe(true);
    for (const p of ['/dashboard', '/report', '/remote', '/reportDetail', '/examination']) expect(findRoute(p)?.quiet).toBeFalsy();
  });

  test('an unknown path redirects to /404, and that catch-all comes last', () => {
    expect(routes[routes.length - 1]).toEqual({ path: '*', redirect: '/404' });
  });

  test('every component is a file; routes without one use NotYetAvailable', () => {
    const flat = (rs: UmiRoute[]): UmiRoute[] => rs.flatMap((r) => [r, ...flat(r.routes ?? [])]);
    const missing = flat(routes)
      .filter((r) => r.component)
      .filter((r) => {
        const base = path.join(root, 'src', String(r.component).replace(/^@\//, ''));
        return !['.tsx', '.ts', '/index.tsx', '/index.ts'].some((ext) => fs.existsSync(base + ext));
      })
      .map((r) => r.component);
    expect(missing).toEqual([]);
    expect(flat(routes).find((r) => r.path === '/shareLog')?.component).toBe('@/pages/NotYetAvailable');
    expect(flat(routes).find((r) => r.path === '/examination')?.component).toBe('@/pages/resource/List');
    expect(flat(routes).find((r) => r.path === '/dashboard')?.component).toBe('@/pages/dashboard');
  });
});

describe('sidebar', () => {
  const tree = buildMenuTree();

  test('the home group is flat: the dashboard is a top-level item', () => {
    expect(tree[0]).toMatchObject({ kind: 'item', path: '/dashboard' });
  });

  test('every layout route appears exactly once, grouped', () => {
    const items = tree.flatMap((n) => (n.kind === 'group' ? n.children ?? [] : [n]));
    expect(items.map((i) => i.path).sort()).toEqual(layoutRoutes.map((r) => r.path).sort());
    const groups = tree.filter((n) => n.kind === 'group').map((n) => n.name);
    expect(groups).toEqual(expect.arrayContaining(['group.registration', 'group.admin', 'group.statistics']));
    const admin = tree.find((n) => n.name === 'group.admin');
    expect(admin?.children?.map((c) => c.path)).toEqual(expect.arrayContaining(['/user', '/role', '/hospital']));
  });
});
