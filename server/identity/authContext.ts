/**
 * Who is calling: a resolved session (sessions.ts resolves it, sessionCache.ts keeps it
 * for a moment; both import this, not each other's types).
 */
import type { PermissionMap } from './access';
import type { DataScope } from './scope';

export interface AuthContext {
  userId: number;
  name: string;
  mobile: string;
  status: number;
  hospitalId: number | null;
  hospitalName: string | null;
  roleId: number | null;
  roleName: string | null;
  permissions: PermissionMap;
  scope: DataScope;
  tokenHash: string;
  rememberMe: boolean;
  passwordExpired: boolean;
  passwordWeak: boolean;
}
