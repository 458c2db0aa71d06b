/**
 * Access is a pure function of the current user (spec section 6): the server's
 * permissionMap ({module: [actions]}) and menuList (route names). Nothing here reads
 * the session; callers pass what they hold. A hidden button is a convenience, the
 * refusal is the server's.
 */
import type { RouteEntry } from '../routes/table';

export type PermissionMap = Record<string, readonly string[] | undefined>;

/**
 * `module:action` → module and action. Module keys may hold dots ("system.user"),
 * never colons, so the last colon splits.
 */
export function parsePermission(permission: string): { module: string; action: string } | undefined {
  const at = permission.lastIndexOf(':');
  if (at <= 0 || at === permission.length - 1) return undefined;
  return { module: permission.slice(0, at), action: permission.slice(at + 1) };
}

/** May the user do `module:action`? A malformed key is refused. */
export function can(permissionMap: PermissionMap | null | undefined, permission: string): boolean {
  const parsed = parsePermission(permission);
  if (!parsed || !permissionMap) return false;
  const actions = permissionMap[parsed.module];
  return Array.isArray(actions) && actions.includes(parsed.action);
}

/** Does the user hold any right in the module (enough to see its screen)? */
export function canSee(permissionMap: PermissionMap | null | undefined, moduleKey: string): boolean {
  const actions = permissionMap?.[moduleKey];
  return Array.isArray(actions) && actions.length > 0;
}

/**
 * May a route show for a user with this menuList? Routes without a `permission`
 * (home, error log) are for every logged-in user; the others only when the server put
 * their name in menuList.
 */
export function routeAllowed(route: Pick<RouteEntry, 'name' | 'permission'>, menuList: readonly string[] | null | undefined): boolean {
  if (!route.permission) return true;
  return !!menuList && menuList.includes(route.name);
}

/** The sidebar filter for buildMenuTree. */
export function menuFilter(menuList: readonly string[] | null | undefined): (route: RouteEntry) => boolean {
  return (route) => routeAllowed(route, menuList);
}
