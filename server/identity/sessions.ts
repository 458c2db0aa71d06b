/**
 * Sessions live in the database (any instance can serve any request). A token is
 * 256 random bits given to the client once; only its SHA-256 is stored. A session
 * without remember-me slides: it ends after `sessionIdleMinutes` without a request;
 * a remember-me session ends `rememberMeDays` after login. Logout revokes.
 * Resolved sessions are kept a moment in process (./sessionCache.ts).
 */
import crypto from 'node:crypto';
import type { Db, Queryable } from '../db';
import type { IdentityConfig } from '../config';
import { sha256 } from './passwords';
import { buildScope, type DataScope, type RoleScopeInput, type UserScopeInput } from './scope';
import type { PermissionMap } from './access';
import { sessionCacheOf, type SessionCache } from './sessionCache';
import type { AuthContext } from './authContext';

export type { AuthContext } from './authContext';

/** Touching last_seen_at at most this often keeps request handling read-only most of the time. */
const TOUCH_EVERY_MS = 60_000;

/**
 * A cached session is not touched (its hits skip the lookup); the next miss touches it.
 * Bounding the cache's lifetime by the touch interval keeps a busy session touched
 * within two intervals, well inside its idle timeout.
 */
const cacheTtl = (config: IdentityConfig) => Math.max(0, Math.min(config.authCacheMs, TOUCH_EVERY_MS));

export function newToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export async function createSession(
  q: Queryable,
  config: IdentityConfig,
  s: { userId: number; hospitalId: number | null; rememberMe: boolean; passwordExpired: boolean; ip?: string; userAgent?: string },
): Promise<string> {
  const token = newToken();
  const lifetime = s.rememberMe ? `${config.rememberMeDays} days` : `${config.sessionIdleMinutes} minutes`;
  await q.query(
    `INSERT INTO session (token_hash, user_id, hospital_id, remember_me, password_expired, expires_at, ip, user_agent)
     VALUES ($1, $2, $3, $4, $5, now() + $6::interval, $7, $8)`,
    [sha256(token), s.userId, s.hospitalId, s.rememberMe, s.passwordExpired, lifetime, s.ip ?? null, s.userAgent?.slice(0, 300) ?? null],
  );
  if (config.maxSessionsPerUser > 0) {
    // The user's live sessions past the limit, oldest first, end now (the new one is the newest).
    await q.query(
      `UPDATE session SET revoked_at = now()
        WHERE token_hash IN (
          SELECT token_hash FROM session
           WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()
           ORDER BY created_at DESC, last_seen_at DESC OFFSET $2)`,
      [s.userId, config.maxSessionsPerUser],
    );
  }
  return token;
}

interface SessionRow {
  user_id: number;
  hospital_id: number | null;
  remember_me: boolean;
  password_expired: boolean;
  expired: boolean;
  touch: boolean;
  name: string;
  mobile: string;
  status: number;
  password_weak: boolean;
  user_scope: UserScopeInput | null;
  role_id: number | null;
  role_name: string | null;
  permissions: PermissionMap | null;
  data_scope: RoleScopeInput['dataScope'] | null;
  data_conditions: RoleScopeInput['dataConditions'];
  region_org_ids: number[] | null;
  hospital_name: string | null;
  expires_in_ms: number;
}

/**
 * The caller behind a token, or null when it is unknown, revoked or expired: from the
 * session cache, else one query (cached for the next calls; unknown tokens are not).
 */
export async function resolveSession(db: Db, config: IdentityConfig, token: string): Promise<AuthContext | null> {
  const tokenHash = sha256(token);
  const cache = sessionCacheOf(db, cacheTtl(config));
  if (!cache) return readSession(db, config, tokenHash);
  const lookup = () => cache.lookup(tokenHash, (ticket) => readSession(db, config, tokenHash, cache, ticket));
  const hit = cache.get(tokenHash);
  if (!hit) return lookup();
  // A busy session is looked up again before its entry ends, not by the callers who find it ended.
  if (cache.due(tokenHash)) lookup().catch(() => undefined);
  return hit;
}

/** One session lookup (and touch), kept in the cache when one is on. */
async function readSession(db: Db, config: IdentityConfig, tokenHash: string, cache?: SessionCache, ticket = 0): Promise<AuthContext | null> {
  const { rows } = await db.query<SessionRow>('SELECT * FROM auth_session($1, $2::interval)', [tokenHash, `${TOUCH_EVERY_MS / 1000} seconds`]);
  const row = rows[0];
  if (!row || row.expired) return null;
  if (row.touch) {
    // Sliding idle timeout for ordinary sessions; remember-me keeps its fixed end. The
    // cache watches writes to session except this statement, which starts "UPDATE session SET last_seen_at".
    await db.query(
      `UPDATE session SET last_seen_at = now(),
              expires_at = CASE WHEN remember_me THEN expires_at ELSE now() + $2::interval END
        WHERE token_hash = $1`,
      [tokenHash, `${config.sessionIdleMinutes} minutes`],
    );
  }
  const role: RoleScopeInput | null = row.role_id
    ? { dataScope: row.data_scope ?? 'own', dataConditions: row.data_conditions, regionOrgIds: row.region_org_ids ?? [] }
    : null;
  const ctx: AuthContext = {
    userId: row.user_id,
    name: row.name,
    mobile: row.mobile,
    status: row.status,
    hospitalId: row.hospital_id,
    hospitalName: row.hospital_name,
    roleId: row.role_id,
    roleName: row.role_name,
    permissions: row.permissions ?? {},
    scope: buildScope(row.hospital_id, role, row.user_scope),
    tokenHash,
    rememberMe: row.remember_me,
    passwordExpired: row.password_expired,
    passwordWeak: row.password_weak,
  };
  // The end as read, before any touch above moved it later: the earlier bound is the safe one.
  cache?.set(tokenHash, ctx, row.expires_in_ms, ticket);
  return ctx;
}

export async function revokeSession(q: Queryable, tokenHash: string): Promise<void> {
  await q.query('UPDATE session SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL', [tokenHash]);
}

export async function revokeUserSessions(q: Queryable, userId: number): Promise<void> {
  await q.query('UPDATE session SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
}
