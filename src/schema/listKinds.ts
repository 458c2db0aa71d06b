/**
 * A view's sub-lists (view list.kinds: the report centre's to write, to review, to
 * print, all), pure: which ones the permission map offers, and which one a screen
 * shows for the kind the address asks for. The server refuses a list the user may not
 * see whatever the tabs say.
 */
import { can, type PermissionMap } from '../session/access';
import { actionPermissionKey } from './rowActions';
import type { ListKind, View } from '../shared/schema/types';

/** Does the map grant one of the kind's rights? */
export function kindAllowed(view: View, kind: ListKind, map: PermissionMap | null | undefined): boolean {
  const rights = Array.isArray(kind.permission) ? kind.permission : [kind.permission];
  return rights.some((p) => can(map, actionPermissionKey(view, p)));
}

/** The kinds offered to the user, in the view's order. */
export function visibleKinds(view: View, map: PermissionMap | null | undefined): ListKind[] {
  return (view.list.kinds ?? []).filter((k) => kindAllowed(view, k, map));
}

/** The kind shown: the one asked for when offered, else the first offered; none for a view without kinds (or none offered). */
export function chosenKind(view: View, map: PermissionMap | null | undefined, requested: string | null | undefined): string | undefined {
  const offered = visibleKinds(view, map);
  return (offered.find((k) => k.key === requested) ?? offered[0])?.key;
}

/** Text of a kind's tab. */
export function kindTextKey(view: View, key: string): string {
  return `entity.${view.entity}.kind.${key}`;
}
