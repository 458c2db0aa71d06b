/**
 * The permission check both sides make (spec section 6): a permission key is
 * `module:action`, a permission map is {module: [actions]} (the server's grant, the
 * session's permissionMap). The server refuses with it, the client hides what the
 * server would refuse; a hidden button is a convenience, the refusal is the server's.
 */
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

/** May the holder of `permissionMap` do `module:action`? A malformed key is refused. */
export function can(permissionMap: PermissionMap | null | undefined, permission: string): boolean {
  const parsed = parsePermission(permission);
  if (!parsed || !permissionMap) return false;
  const actions = permissionMap[parsed.module];
  return Array.isArray(actions) && actions.includes(parsed.action);
}

/** Does the map hold any right in the module (enough to see its screen)? */
export function canSee(permissionMap: PermissionMap | null | undefined, moduleKey: string): boolean {
  const actions = permissionMap?.[moduleKey];
  return Array.isArray(actions) && actions.length > 0;
}
