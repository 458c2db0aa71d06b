/**
 * No one grants what they do not hold. Every change of users, roles, memberships and
 * scopes is judged here against the caller (the holder): its function permissions,
 * its data scope (all / own hospital plus regional authorization / custom
 * conditions) and its remote-centre authorization.
 * - A role assigned, edited or created may not exceed the holder (UAA103 for rights,
 *   PACS006 for data); a role the holder holds keeps its scope (UCENTER204).
 * - Roles have an owner, the region (null) or one hospital; settings the whole region
 *   shares are region-owned. Region-owned things are changed only with region scope.
 * - A user's membership the holder does not govern (another hospital, or a role beyond
 *   the holder) stays as it is; the user's identity (mobile, password, status, own
 *   conditions, signature, lock) changes only when the holder governs every membership.
 * The decisions are pure functions (tests/unit/grants.test.ts); the loaders below read
 * what they need. Touches nothing: routes write.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Queryable } from '../db';
import { AppError } from '../lib/errors';
import { hasPermission, type PermissionMap } from './access';
import type { Condition, ConditionSet, DataScope, UserScopeInput } from './scope';
import type { AuthContext } from './sessions';

/** What a role gives, as far as granting goes. */
export interface Grant {
  permissions: PermissionMap;
  dataScope: 'all' | 'own' | 'custom';
  dataConditions?: ConditionSet | null;
  regionOrgIds?: number[];
  remoteOrgIds?: number[];
}

/** The caller as a granter. */
export interface Holder {
  userId: number;
  permissions: PermissionMap;
  scope: DataScope;
  /** Remote-centre authorization of the caller's current role. */
  remoteOrgIds: number[];
  /** Every role the caller holds, in any hospital: their scope is not the caller's to change. */
  roleIds: number[];
}

/** Region scope: the caller sees every hospital's data. */
export const hasRegionScope = (scope: DataScope): boolean => scope.all;

/** May the holder change something owned by `ownerHospitalId` (null: the region)? */
export function ownsFor(holder: Pick<Holder, 'scope'>, ownerHospitalId: number | null | undefined): boolean {
  if (hasRegionScope(holder.scope)) return true;
  return ownerHospitalId != null && holder.scope.hospitalIds.includes(ownerHospitalId);
}

export function assertOwner(holder: Pick<Holder, 'scope'>, ownerHospitalId: number | null | undefined): void {
  if (!ownsFor(holder, ownerHospitalId)) throw new AppError('PACS006');
}

const sameCondition = (a: Condition, b: Condition) => a.field === b.field && a.op === b.op && a.value === b.value;
/** A set whose conditions all must hold (AND, or a single condition). */
const conjunctive = (s: ConditionSet) => s.logic === 'and' || s.conditions.length <= 1;

/** Is `narrow` at most as wide as `wide`: the same set, or an AND of all of wide's conditions and more? */
export function narrowsSet(narrow: ConditionSet, wide: ConditionSet): boolean {
  if (isDeepStrictEqual(narrow, wide)) return true;
  return conjunctive(narrow) && conjunctive(wide) && wide.conditions.every((c) => narrow.conditions.some((d) => sameCondition(c, d)));
}

/** The condition sets a grant applies (with a user's own conditions, when the user is known). */
export function grantConditionSets(grant: Grant, user?: UserScopeInput | null): ConditionSet[] {
  const sets: ConditionSet[] = [];
  if (grant.dataScope === 'custom' && grant.dataConditions?.conditions?.length) sets.push(grant.dataConditions);
  if (user?.mode === 'custom' && user.conditions?.length) sets.push({ logic: user.logic ?? 'and', conditions: user.conditions });
  return sets;
}

/**
 * Why `grant` exceeds the holder, as a catalogue code, or null when it does not:
 * UAA103 a right the holder lacks; PACS006 data beyond the holder's (all data, a
 * hospital of `hospitals` or of the regional authorization outside its scope, a
 * remote centre it is not authorized for, fewer conditions than narrow the holder).
 * `hospitals`: where the grant applies (a membership's hospital); `user`: the target
 * user's own conditions, which narrow the grant further.
 */
export function grantExcess(holder: Pick<Holder, 'permissions' | 'scope' | 'remoteOrgIds'>, grant: Grant, hospitals: number[] = [], user?: UserScopeInput | null): 'UAA103' | 'PACS006' | null {
  for (const [module, actions] of Object.entries(grant.permissions ?? {})) {
    for (const action of actions) if (!hasPermission(holder.permissions, `${module}:${action}`)) return 'UAA103';
  }
  const { scope } = holder;
  if (!scope.all) {
    if (grant.dataScope === 'all') return 'PACS006';
    const reach = [...hospitals, ...(grant.regionOrgIds ?? [])];
    if (reach.some((id) => !scope.hospitalIds.includes(id))) return 'PACS006';
    const remote = new Set([...holder.remoteOrgIds, ...scope.hospitalIds]);
    if ((grant.remoteOrgIds ?? []).some((id) => !remote.has(id))) return 'PACS006';
  }
  const sets = grantConditionSets(grant, user);
  if (!scope.conditionSets.every((mine) => sets.some((theirs) => narrowsSet(theirs, mine)))) return 'PACS006';
  return null;
}

export function assertWithin(holder: Holder, grant: Grant, hospitals: number[] = [], user?: UserScopeInput | null): void {
  const code = grantExcess(holder, grant, hospitals, user);
  if (code) throw new AppError(code);
}

const scopeOf = (g: Grant) => ({
  dataScope: g.dataScope,
  dataConditions: g.dataScope === 'custom' ? (g.dataConditions ?? null) : null,
  regionOrgIds: [...(g.regionOrgIds ?? [])].sort((a, b) => a - b),
  remoteOrgIds: [...(g.remoteOrgIds ?? [])].sort((a, b) => a - b),
});

/** Does the edit change the role's data scope, regional or remote-centre authorization? */
export const scopeChanged = (before: Grant, after: Grant): boolean => !isDeepStrictEqual(scopeOf(before), scopeOf(after));

export interface StoredRole extends Grant {
  id: number;
  ownerHospitalId: number | null;
}

/**
 * A role save: the owner (stored and new) is the holder's, the stored role does not
 * exceed the holder (one does not edit a role above oneself), a role the holder holds
 * keeps its scope, and what it will grant is within the holder.
 */
export function judgeRoleSave(holder: Holder, stored: StoredRole | undefined, next: Grant & { ownerHospitalId: number | null }): void {
  if (stored) {
    assertOwner(holder, stored.ownerHospitalId);
    assertWithin(holder, stored);
    if (holder.roleIds.includes(stored.id) && scopeChanged(stored, next)) throw new AppError('UCENTER204');
  }
  assertOwner(holder, next.ownerHospitalId);
  assertWithin(holder, next);
}

/** A role delete: owned by the holder and not above it. */
export function judgeRoleRemove(holder: Holder, stored: StoredRole): void {
  assertOwner(holder, stored.ownerHospitalId);
  assertWithin(holder, stored);
}

/** May the row's edit and delete be offered to the holder (the list's `readOnly` flag mirrors this)? */
export function mayChangeRole(holder: Holder, role: StoredRole): boolean {
  return ownsFor(holder, role.ownerHospitalId) && grantExcess(holder, role) === null;
}

export interface MembershipGrant {
  hospitalId: number;
  roleId: number;
  departmentId?: number | null;
}

export interface StoredMembership extends MembershipGrant {
  role: StoredRole;
}

/** Does the holder govern this membership: its hospital in scope and its role within the holder? */
export function governs(holder: Holder, m: StoredMembership, user?: UserScopeInput | null): boolean {
  return grantExcess(holder, m.role, [m.hospitalId], user) === null;
}

export interface UserIdentity {
  mobile: string;
  status: number;
  dataScope?: UserScopeInput | null;
}

const sameUserScope = (a: UserScopeInput | null | undefined, b: UserScopeInput | null | undefined) =>
  isDeepStrictEqual(a?.mode === 'custom' ? a : null, b?.mode === 'custom' ? b : null);

/** Does the save change who the user is or how far they reach everywhere (mobile, password, status, own conditions)? */
export function identityChanged(stored: UserIdentity, next: UserIdentity & { password?: string }): boolean {
  return stored.mobile !== next.mobile || Boolean(next.password) || stored.status !== next.status || !sameUserScope(stored.dataScope, next.dataScope);
}

export interface MembershipPlan {
  /** Stored memberships the holder governs: replaced by `write`. */
  replace: number[];
  /** Memberships to write (judged within the holder). */
  write: MembershipGrant[];
}

/**
 * A user save's memberships. Stored ones the holder does not govern are kept as they
 * are: sending one back unchanged is fine, changing it is PACS006, leaving it out
 * keeps it. The others are replaced by what was sent, each judged within the holder
 * at its hospital, with the user's own conditions. The identity changes only when
 * every stored membership is governed (PACS006).
 */
export function planMemberships(
  holder: Holder,
  stored: UserGrants | undefined,
  next: UserIdentity & { password?: string; memberships: Array<MembershipGrant & { role: StoredRole }> },
): MembershipPlan {
  const storedUser = stored?.identity.dataScope;
  const kept = (stored?.memberships ?? []).filter((m) => !governs(holder, m, storedUser));
  if (stored && kept.length && identityChanged(stored.identity, next)) throw new AppError('PACS006');
  const write: MembershipGrant[] = [];
  for (const m of next.memberships) {
    const keep = kept.find((k) => k.hospitalId === m.hospitalId);
    if (keep) {
      if (keep.roleId !== m.roleId || (keep.departmentId ?? null) !== (m.departmentId ?? null)) throw new AppError('PACS006');
      continue;
    }
    // A hospital's own role is assigned in that hospital only.
    if (m.role.ownerHospitalId !== null && m.role.ownerHospitalId !== m.hospitalId) throw new AppError('UCENTER201');
    assertWithin(holder, m.role, [m.hospitalId], next.dataScope);
    write.push({ hospitalId: m.hospitalId, roleId: m.roleId, departmentId: m.departmentId ?? null });
  }
  return { replace: (stored?.memberships ?? []).filter((m) => !kept.includes(m)).map((m) => m.hospitalId), write };
}

/* ---- loaders ---- */

/** A role row as read (ROLE_GRANT_SELECT, or any select with the same names). */
export type RoleRow = Omit<StoredRole, 'ownerHospitalId'> & { ownerHospitalId?: number | null };

const ROLE_GRANT_SELECT = `id, permissions, data_scope AS "dataScope", data_conditions AS "dataConditions",
  region_org_ids AS "regionOrgIds", remote_org_ids AS "remoteOrgIds", owner_hospital_id AS "ownerHospitalId"`;

/** A role as the judgements compare it (absent authorizations empty, absent owner the region). */
export function storedRole(r: RoleRow): StoredRole {
  return {
    id: r.id,
    permissions: r.permissions ?? {},
    dataScope: r.dataScope,
    dataConditions: r.dataConditions ?? null,
    regionOrgIds: r.regionOrgIds ?? [],
    remoteOrgIds: r.remoteOrgIds ?? [],
    ownerHospitalId: r.ownerHospitalId ?? null,
  };
}

export async function loadRoles(q: Queryable, ids: number[]): Promise<Map<number, StoredRole>> {
  const { rows } = await q.query<RoleRow>(`SELECT ${ROLE_GRANT_SELECT} FROM role WHERE id = ANY($1::int[])`, [ids]);
  return new Map(rows.map((r) => [r.id, storedRole(r)]));
}

/** The caller as a granter: its session plus its role's remote-centre authorization and the roles it holds. */
export async function loadHolder(q: Queryable, me: AuthContext): Promise<Holder> {
  const { rows } = await q.query<{ remote: number[] | null; roles: number[] | null }>(
    `SELECT (SELECT remote_org_ids FROM role WHERE id = $2) AS remote,
            (SELECT array_agg(DISTINCT role_id) FROM user_membership WHERE user_id = $1) AS roles`,
    [me.userId, me.roleId],
  );
  return { userId: me.userId, permissions: me.permissions, scope: me.scope, remoteOrgIds: rows[0]?.remote ?? [], roleIds: rows[0]?.roles ?? [] };
}

export interface UserGrants {
  identity: UserIdentity;
  memberships: StoredMembership[];
}

/** Does the holder govern every membership of the user (the condition for changing who the user is)? */
export function governsUser(holder: Holder, user: UserGrants): boolean {
  return user.memberships.every((m) => governs(holder, m, user.identity.dataScope));
}

/** Users' identities and memberships (with their roles), by id; unknown ids are absent. */
export async function loadUsersGrants(q: Queryable, userIds: number[]): Promise<Map<number, UserGrants>> {
  const users = await q.query<UserIdentity & { id: number }>('SELECT id, mobile, status, data_scope AS "dataScope" FROM app_user WHERE id = ANY($1::int[])', [userIds]);
  const { rows } = await q.query<MembershipGrant & { userId: number }>(
    `SELECT user_id AS "userId", hospital_id AS "hospitalId", role_id AS "roleId", department_id AS "departmentId"
       FROM user_membership WHERE user_id = ANY($1::int[])`,
    [userIds],
  );
  const roles = await loadRoles(q, rows.map((m) => m.roleId));
  return new Map(
    users.rows.map(({ id, ...identity }) => [
      id,
      {
        identity,
        memberships: rows.filter((m) => m.userId === id).map(({ userId: _, ...m }) => ({ ...m, role: roles.get(m.roleId) as StoredRole })),
      },
    ]),
  );
}

/** A user's identity and memberships (with their roles), or undefined for an unknown id. */
export async function loadUserGrants(q: Queryable, userId: number): Promise<UserGrants | undefined> {
  return (await loadUsersGrants(q, [userId])).get(userId);
}

/**
 * Changes of a user's identity beyond a save (delete, unlock, signature) need every
 * membership governed (PACS006); an unknown user is UCENTER006.
 */
export async function assertGovernsUser(q: Queryable, me: AuthContext, userId: number): Promise<void> {
  const [holder, user] = [await loadHolder(q, me), await loadUserGrants(q, userId)];
  if (!user) throw new AppError('UCENTER006');
  if (!governsUser(holder, user)) throw new AppError('PACS006');
}
