/**
 * Shows its children only when the current user holds a right:
 *   <Access permission="system.user:add"><Button>…</Button></Access>
 * A module key without an action ("system.user") means any right in that module.
 * Convenience only: the server refuses what the user may not do.
 */
import React from 'react';
import { can, canSee } from './access';
import { useSession } from './store';

export function useAccess() {
  const { user } = useSession();
  const map = user?.permissionMap;
  return {
    can: (permission: string) => can(map, permission),
    canSee: (moduleKey: string) => canSee(map, moduleKey),
  };
}

export function Access({
  permission,
  fallback = null,
  children,
}: {
  permission: string;
  fallback?: React.ReactNode;
  children?: React.ReactNode;
}) {
  const access = useAccess();
  const allowed = permission.includes(':') ? access.can(permission) : access.canSee(permission);
  return <>{allowed ? children : fallback}</>;
}

export default Access;
