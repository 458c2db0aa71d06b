/**
 * Access is a pure function of the current user (spec section 6): the server's
 * permissionMap ({module: [actions]}) and menuList (route names). Nothing here reads
 * the session; callers pass what they hold. A hidden button is a convenience, the
 * refusal is the server's.
 */
import type { RouteEntry } from '../routes/table';

// The check itself is code both sides run.
export { can, canSee, parsePermission, type PermissionMap } from '../shared/permissions';

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
