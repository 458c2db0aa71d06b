/**
 * Reads config/routes.json, the one list of client routes, and derives from it what
 * umi (.umirc.ts) and the main layout (sidebar) need. No React here, so .umirc.ts
 * can import it at build time and unit tests can run it in node.
 */
import { ROUTE_TABLE as table, type RouteEntry } from '../../config/declared';

export type { RouteEntry };

export interface MenuGroup {
  name: string;
  icon: string;
  /** A flat group puts its items at the top level of the sidebar. */
  flat?: boolean;
}

export type RouteArea = 'public' | 'fullScreen' | 'layout';

export const homePath: string = table.home;
export const menuGroups: MenuGroup[] = table.groups;
export const publicRoutes: RouteEntry[] = table.public;
export const fullScreenRoutes: RouteEntry[] = table.fullScreen;
export const layoutRoutes: RouteEntry[] = table.layout;

export const NOT_YET_AVAILABLE_PAGE = 'NotYetAvailable';
export const MAIN_LAYOUT = '@/layouts/MainLayout';
/** umi route wrapper that runs the navigation guard (src/session/guard.ts) before a page renders. */
export const ROUTE_GUARD = '@/session/RouteGuard';

/**
 * Public routes that still go through the guard: /login (a logged-in user is sent on).
 * /authredirect stores the token it is handed and /404, /401 show to anyone.
 */
const GUARDED_PUBLIC = new Set(['/login']);

/** Every route with the area it belongs to. */
export function allRoutes(): Array<RouteEntry & { area: RouteArea }> {
  return [
    ...publicRoutes.map((r) => ({ ...r, area: 'public' as const })),
    ...fullScreenRoutes.map((r) => ({ ...r, area: 'fullScreen' as const })),
    ...layoutRoutes.map((r) => ({ ...r, area: 'layout' as const })),
  ];
}

/** The route entry for a pathname (exact match, trailing slash ignored). */
export function findRoute(pathname: string): (RouteEntry & { area: RouteArea }) | undefined {
  const clean = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return allRoutes().find((r) => r.path === clean);
}

/** Shape umi's `routes` config accepts (subset we use). */
export interface UmiRoute {
  path: string;
  component?: string;
  redirect?: string;
  layout?: false;
  routes?: UmiRoute[];
  [meta: string]: unknown;
}

function pageOf(r: RouteEntry): string {
  return `@/pages/${r.component ?? NOT_YET_AVAILABLE_PAGE}`;
}

function toUmi(r: RouteEntry): UmiRoute {
  return { path: r.path, component: pageOf(r), name: r.name };
}

function guarded(route: UmiRoute): UmiRoute {
  return { ...route, wrappers: [ROUTE_GUARD] };
}

/**
 * umi routes: public and full-screen pages at the top level, everything else under the
 * main layout (whose empty path redirects home), and any unknown path to /404.
 * The guard wraps the layout (once, for all its children), each full-screen page and /login.
 */
export function buildUmiRoutes(): UmiRoute[] {
  const collisions = duplicatePaths();
  if (collisions.length) throw new Error(`config/routes.json: duplicate paths ${collisions.join(', ')}`);
  return [
    ...publicRoutes.map((r) => (GUARDED_PUBLIC.has(r.path) ? guarded(toUmi(r)) : toUmi(r))),
    ...fullScreenRoutes.map((r) => guarded(toUmi(r))),
    guarded({
      path: '/',
      component: MAIN_LAYOUT,
      routes: [{ path: '/', redirect: homePath }, ...layoutRoutes.map(toUmi)],
    }),
    { path: '*', redirect: '/404' },
  ];
}

export function duplicatePaths(): string[] {
  const seen = new Set<string>();
  const dup: string[] = [];
  for (const r of allRoutes()) {
    if (seen.has(r.path)) dup.push(r.path);
    seen.add(r.path);
  }
  return dup;
}

/** Sidebar tree without React: groups in config order, items in route order. */
export interface MenuNode {
  /** `group:<name>` for a group, the path for an item. */
  key: string;
  path?: string;
  name: string;
  icon: string;
  kind: 'group' | 'item';
  hideInMenu?: boolean;
  children?: MenuNode[];
}

/**
 * The sidebar. `visible` keeps a route (default: all); a group left without items
 * disappears. The layout passes the session's menu filter (src/session/access.ts).
 */
export function buildMenuTree(visible: (route: RouteEntry) => boolean = () => true): MenuNode[] {
  const out: MenuNode[] = [];
  const shown = layoutRoutes.filter(visible);
  const item = (r: RouteEntry): MenuNode => ({
    key: r.path,
    path: r.path,
    name: r.name,
    icon: r.icon,
    kind: 'item',
    hideInMenu: r.hideInMenu,
  });
  for (const g of menuGroups) {
    const members = shown.filter((r) => r.group === g.name);
    // Only detail pages left (hidden from the menu): the group would show empty.
    if (!members.some((r) => !r.hideInMenu)) continue;
    if (g.flat) out.push(...members.map(item));
    else out.push({ key: `group:${g.name}`, name: `group.${g.name}`, icon: g.icon, kind: 'group', children: members.map(item) });
  }
  // Routes whose group is missing or unknown still appear, at the end.
  const known = new Set(menuGroups.map((g) => g.name));
  out.push(...shown.filter((r) => !r.group || !known.has(r.group)).map(item));
  return out;
}
