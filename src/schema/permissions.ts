/**
 * What the generic screens may offer: the current user's permissionMap from the
 * session (src/session). The decision itself is session/access.ts's `can`, the one
 * place that reads a permission map; a hidden button is a convenience, the refusal
 * is the server's.
 */
import { can, type PermissionMap } from '../session/access';
import { useSession } from '../session/store';

export type { PermissionMap };

/** The map of the logged-in user, or null while user info is loading. */
export function usePermissionMap(): PermissionMap | null {
  return useSession().user?.permissionMap ?? null;
}

/** May `action` of `module` be offered? Nothing is offered until the map is known. */
export function allows(map: PermissionMap | null, module: string, action: string): boolean {
  return can(map, `${module}:${action}`);
}

/** The actions a view's buttons need, for one module. */
export function useActions(module: string): { add: boolean; edit: boolean; remove: boolean; view: boolean } {
  const map = usePermissionMap();
  return {
    add: allows(map, module, 'add'),
    edit: allows(map, module, 'edit'),
    remove: allows(map, module, 'delete'),
    view: allows(map, module, 'view'),
  };
}
