/**
 * Function permissions and menus, from config/permissions.json and config/routes.json
 * with the admin entities' views merged in (config/declared.ts).
 * A permission key is "module:action"; a role grants {module: [actions]}. A route
 * of the UI is visible when the role has any right in its module (or it names none).
 * Pure functions: the server decides with them, the tests call them directly.
 */
import { PERMISSION_MODULES, ROUTE_TABLE as routes } from '../../config/declared';
import { can } from '../../src/shared/permissions';

export type PermissionMap = Record<string, string[]>;

export const MODULES: Readonly<Record<string, string[]>> = PERMISSION_MODULES;

/** Throws on a key that config/permissions.json does not declare: a typo must not open a route. */
export function assertPermissionKey(key: string): void {
  const [module, action] = key.split(':');
  if (!MODULES[module] || !action || !MODULES[module].includes(action)) {
    throw new Error(`permission "${key}" is not declared in config/permissions.json`);
  }
}

/**
 * The answers given for each grant, while it lives. A list judges the same few keys for
 * every row of its page (each row's workflow actions). A grant is never changed in
 * place: a role's edit reaches the next request as a new map.
 */
const answered = new WeakMap<PermissionMap, Map<string, boolean>>();

/** The check the client makes too (src/shared/permissions.ts). */
export function hasPermission(map: PermissionMap | undefined, key: string): boolean {
  if (!map) return false;
  let known = answered.get(map);
  if (!known) answered.set(map, (known = new Map()));
  let yes = known.get(key);
  if (yes === undefined) known.set(key, (yes = can(map, key)));
  return yes;
}

/** Keeps only declared modules and actions, without duplicates (what a role may store). */
export function normalizePermissions(map: PermissionMap | undefined): PermissionMap {
  const out: PermissionMap = {};
  for (const [module, actions] of Object.entries(map ?? {})) {
    if (!MODULES[module] || !Array.isArray(actions)) continue;
    const kept = MODULES[module].filter((a) => actions.includes(a));
    if (kept.length) out[module] = kept;
  }
  return out;
}

/** Every right of every module: the regional administrator's grant. */
export function allPermissions(): PermissionMap {
  return Object.fromEntries(Object.entries(MODULES).map(([m, a]) => [m, [...a]]));
}

interface RouteEntry {
  name: string;
  /** A module, or several any of which shows the route. */
  permission?: string | string[];
}

const guardedRoutes: RouteEntry[] = [...routes.fullScreen, ...routes.layout];

/** Route names of config/routes.json the permission map shows (menuList of user/info). */
export function menuList(map: PermissionMap | undefined): string[] {
  if (!map || Object.keys(map).length === 0) return [];
  return guardedRoutes.filter((r) => !r.permission || [r.permission].flat().some((m) => (map[m]?.length ?? 0) > 0)).map((r) => r.name);
}
