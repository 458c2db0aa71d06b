/**
 * /api/ucenter/v1: organisations (regional centre, central and subordinate
 * hospitals), users (several hospitals each, a role in each), roles (function
 * permissions and data scope). Each is a resource (lib/resource.ts) plus the calls
 * the resource contract does not cover: unlock a user, a user's signature image (read
 * here; uploaded through the file service),
 * the permission tree. Every change of users, roles and memberships is judged by
 * identity/grants.ts against the caller's own rights and scope.
 */
import type { FastifyInstance } from 'fastify';
import { PERMISSION_GROUPS, PERMISSION_MODULES } from '../../config/declared';
import type { Queryable } from '../db';
import { AppError } from '../lib/errors';
import { ok, replies } from '../lib/reply';
import { dropNulls, registerResource, uniqueOr } from '../lib/resource';
import { runList, type ListSpec } from '../lib/list';
import { caller } from '../plugins/auth';
import { normalizePermissions, type PermissionMap } from '../identity/access';
import {
  assertGovernsUser,
  governs,
  governsUser,
  hasRegionScope,
  judgeRoleRemove,
  judgeRoleSave,
  loadHolder,
  loadRoles,
  loadUserGrants,
  loadUsersGrants,
  mayChangeRole,
  planMemberships,
  storedRole,
  type RoleRow,
  type StoredMembership,
  type StoredRole,
  type UserGrants,
} from '../identity/grants';
import { hashPassword, isWeakPassword, PASSWORD_PATTERN } from '../identity/passwords';
import { revokeUserSessions, type AuthContext } from '../identity/sessions';
import { scopeSql, type ConditionSet, type UserScopeInput } from '../identity/scope';
import { superiorsSql } from '../identity/orgTree';
import type { Org } from '../../src/shared/generated/entities/org';
import screenSettingRoutes from './screenSettings';
import auditLogRoutes from './auditLog';
import draftRoutes from './drafts';
import gradeSafetyRoutes from './gradeSafety';
import { closed, common, idParams } from '../lib/schemas';


interface Membership {
  hospitalId: number;
  roleId: number;
  departmentId?: number | null;
}

interface User {
  id?: number;
  mobile: string;
  username?: string | null;
  name: string;
  workNo?: string;
  sex?: number;
  title?: number;
  status: number;
  memberships: Membership[];
  password?: string;
  dataScope?: UserScopeInput | null;
}

interface Role {
  id?: number;
  name: string;
  explain?: string;
  permissions?: PermissionMap;
  dataScope: 'all' | 'own' | 'custom';
  dataConditions?: ConditionSet | null;
  regionOrgIds?: number[];
  remoteOrgIds?: number[];
  /** The hospital that owns the role; absent: the region. */
  ownerHospitalId?: number;
}

/** The superior an organisation of each kind must have. */
/** GET permission/tree: the groups of config/permissions.json (each naming its modules) and every module's rights. */
const PERMISSION_TREE = closed({
  groups: { type: 'array', items: closed({ key: { type: 'string' }, modules: { type: 'array', items: { type: 'string' } } }) },
  modules: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
});
const PARENT_KIND: Record<Org['kind'], Org['kind'] | null> = { region: null, central: 'region', subordinate: 'central' };

const ORG_SELECT = `o.id, o.code, o.name, o.kind, o.parent_id AS "parentId", p.name AS "parentName",
  o.contact_person AS "contactPerson", o.contact_phone AS "contactPhone", o.uploader_flag AS "uploaderFlag",
  o.upload_ip AS "uploadIp", o.ai_algorithms AS "aiAlgorithms", o.business_mode AS "businessMode",
  o.check_in_on_registration AS "checkInOnRegistration", o.crisis_department_ids AS "crisisDepartmentIds", o.created_at AS "createdAt"`;

const USER_SELECT = `u.id, u.mobile, u.username, u.name, u.work_no AS "workNo", u.sex, u.title, u.status,
  u.data_scope AS "dataScope", (u.signature_key IS NOT NULL) AS "hasSignature",
  CASE WHEN u.locked_until > now() THEN u.locked_until END AS "lockedUntil", u.last_login_at AS "lastLoginAt",
  (SELECT string_agg(o.name, '、' ORDER BY m.position, o.id) FROM user_membership m JOIN org o ON o.id = m.hospital_id WHERE m.user_id = u.id) AS "hospitalNames",
  (SELECT string_agg(DISTINCT r.name, '、') FROM user_membership m JOIN role r ON r.id = m.role_id WHERE m.user_id = u.id) AS "roleNames"`;

const userInScope = (p: string) => `EXISTS (SELECT 1 FROM user_membership m WHERE m.user_id = u.id AND m.hospital_id = ANY(${p}))`;

const ROLE_SELECT = `r.id, r.name, r.explain, r.permissions, r.data_scope AS "dataScope", r.data_conditions AS "dataConditions",
  r.region_org_ids AS "regionOrgIds", r.remote_org_ids AS "remoteOrgIds", r.owner_hospital_id AS "ownerHospitalId",
  (SELECT count(DISTINCT m.user_id)::int FROM user_membership m WHERE m.role_id = r.id) AS "userCount"`;

/** The caller's data scope over organisations and over users (through their memberships). */
const orgScoped = (me: AuthContext, params: unknown[]) => scopeSql(me.scope, { hospitalColumn: 'o.id' }, params);
const userScoped = (me: AuthContext, params: unknown[]) => scopeSql(me.scope, { hospitalSql: userInScope }, params);
/** Roles a caller sees: the region's and those of the hospitals in its scope. */
const roleInScope = (p: string) => `(r.owner_hospital_id IS NULL OR r.owner_hospital_id = ANY(${p}))`;
const roleScoped = (me: AuthContext, params: unknown[]) => scopeSql(me.scope, { hospitalSql: roleInScope }, params);

const userList: ListSpec = {
  from: 'app_user u',
  select: USER_SELECT,
  columns: { id: 'u.id', name: 'u.name', mobile: 'u.mobile', username: 'u.username', workNo: 'u.work_no', status: 'u.status', lastLoginAt: 'u.last_login_at', sex: 'u.sex', title: 'u.title' },
  filters: { name: 'like', mobile: 'like', username: 'like', workNo: 'like', status: 'eq', sex: 'eq', title: 'eq', lastLoginAt: 'range' },
  customFilters: {
    hospitalId: (p) => `EXISTS (SELECT 1 FROM user_membership m WHERE m.user_id = u.id AND m.hospital_id = ${p}::int)`,
    roleId: (p) => `EXISTS (SELECT 1 FROM user_membership m WHERE m.user_id = u.id AND m.role_id = ${p}::int)`,
  },
  defaultSort: 'u.id',
  scope: { hospitalSql: userInScope },
};

const roleList: ListSpec = {
  from: 'role r',
  select: ROLE_SELECT,
  columns: { id: 'r.id', name: 'r.name', dataScope: 'r.data_scope', explain: 'r.explain', ownerHospitalId: 'r.owner_hospital_id' },
  filters: { name: 'like', dataScope: 'eq', explain: 'like', ownerHospitalId: 'eq' },
  defaultSort: 'r.id',
  scope: { hospitalSql: roleInScope },
};

/** With region scope any hospital may be named; it must exist (others are judged by their scope). */
async function assertHospitalsExist(q: Queryable, me: AuthContext, ids: number[]) {
  if (!hasRegionScope(me.scope)) return;
  const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM org WHERE id = ANY($1::int[])', [ids]);
  if (rows[0].n !== new Set(ids).size) throw new AppError('UCENTER101');
}

export default async function ucenterRoutes(fastify: FastifyInstance) {
  // Per-user list settings and per-hospital form layouts (user/config, org/config).
  await fastify.register(screenSettingRoutes);
  await fastify.register(gradeSafetyRoutes);
  await fastify.register(auditLogRoutes);
  await fastify.register(draftRoutes);

  registerResource<Org>(fastify, {
    path: 'org',
    tag: 'ucenter',
    module: 'system.org',
    audit: { object: 'org' },
    entity: 'entities/org.json',
    notFound: 'UCENTER101',
    list: {
      from: 'org o LEFT JOIN org p ON p.id = o.parent_id',
      select: ORG_SELECT,
      columns: { id: 'o.id', name: 'o.name', code: 'o.code', kind: 'o.kind', parentId: 'o.parent_id', contactPerson: 'o.contact_person', businessMode: 'o.business_mode', createdAt: 'o.created_at' },
      filters: { name: 'like', code: 'like', kind: 'eq', parentId: 'eq', contactPerson: 'like', businessMode: 'eq', createdAt: 'range' },
      defaultSort: 'o.id',
      scope: { hospitalColumn: 'o.id' },
    },
    async get(q, id, me) {
      const params: unknown[] = [id];
      const { rows } = await q.query<Org>(
        `SELECT ${ORG_SELECT} FROM org o LEFT JOIN org p ON p.id = o.parent_id WHERE o.id = $1 AND ${orgScoped(me, params)}`,
        params,
      );
      return rows[0];
    },
    async save(q, org, me) {
      // New organisations belong to the whole region: only an all-data administrator creates them.
      if (!org.id && !me.scope.all) throw new AppError('UAA103');
      if (org.id && !hasRegionScope(me.scope)) {
        // A hospital keeps its own contact details; where it sits in the region is the region's.
        const { rows } = await q.query<{ code: string; kind: string; parentId: number | null }>('SELECT code, kind, parent_id AS "parentId" FROM org WHERE id = $1', [org.id]);
        if (rows[0].code !== org.code || rows[0].kind !== org.kind || (rows[0].parentId ?? undefined) !== (org.parentId ?? undefined)) throw new AppError('PACS006');
      }
      const parentKind = PARENT_KIND[org.kind];
      if (parentKind) {
        if (!org.parentId) throw new AppError('UCENTER105');
        const { rows } = await q.query<{ kind: string }>('SELECT kind FROM org WHERE id = $1', [org.parentId]);
        if (rows[0]?.kind !== parentKind) throw new AppError('UCENTER105');
        if (org.parentId === org.id) throw new AppError('UCENTER403');
      }
      if (org.crisisDepartmentIds?.length) {
        // Only the hospital's own departments (a new hospital has none yet).
        const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM department WHERE id = ANY($1::int[]) AND hospital_id = $2', [
          org.crisisDepartmentIds,
          org.id ?? null,
        ]);
        if (rows[0].n !== org.crisisDepartmentIds.length) {
          throw new AppError('UAA421', { detailKey: 'validation.invalid', field: 'crisisDepartmentIds' }, { field: 'crisisDepartmentIds' });
        }
      }
      const values = [
        org.code,
        org.name,
        org.kind,
        parentKind ? org.parentId : null,
        org.contactPerson ?? null,
        org.contactPhone ?? null,
        org.uploaderFlag ?? false,
        org.uploadIp ?? null,
        JSON.stringify(org.aiAlgorithms ?? []),
        org.businessMode ?? null,
        org.checkInOnRegistration ?? true,
        org.crisisDepartmentIds ? JSON.stringify(org.crisisDepartmentIds) : null,
      ];
      return uniqueOr(async () => {
        if (org.id) {
          await q.query(
            `UPDATE org SET code = $2, name = $3, kind = $4, parent_id = $5, contact_person = $6, contact_phone = $7,
                    uploader_flag = $8, upload_ip = $9, ai_algorithms = $10::jsonb, business_mode = $11,
                    check_in_on_registration = $12,
                    crisis_department_ids = coalesce($13::jsonb, crisis_department_ids), updated_at = now()
              WHERE id = $1`,
            [org.id, ...values],
          );
          return org.id;
        }
        const { rows } = await q.query<{ id: number }>(
          `INSERT INTO org (code, name, kind, parent_id, contact_person, contact_phone, uploader_flag, upload_ip, ai_algorithms, business_mode,
                            check_in_on_registration, crisis_department_ids)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, coalesce($12::jsonb, '[]'::jsonb)) RETURNING id`,
          values,
        );
        return rows[0].id;
      }, { org_code_key: 'UCENTER106', org_name_key: 'UCENTER102' });
    },
    async remove(q, id, me) {
      if (!hasRegionScope(me.scope)) throw new AppError('PACS006');
      const { rows } = await q.query<{ children: number; members: number }>(
        `SELECT (SELECT count(*) FROM org WHERE parent_id = $1)::int AS children,
                ((SELECT count(*) FROM user_membership WHERE hospital_id = $1) + (SELECT count(*) FROM department WHERE hospital_id = $1))::int AS members`,
        [id],
      );
      if (rows[0].children > 0) throw new AppError('UCENTER103');
      if (rows[0].members > 0) throw new AppError('UCENTER107');
      await q.query('DELETE FROM org WHERE id = $1', [id]);
    },
    optionParams: {
      kind: { type: 'string', enum: ['region', 'central', 'subordinate'] },
      parentId: common('id'),
      // The registration form's higher-level hospital: the superiors of a hospital the caller works for, nearest first.
      superiorsOf: common('id'),
    },
    async options(q, query, me) {
      if (query.superiorsOf !== undefined) {
        const of = Number(query.superiorsOf);
        if (!me.scope.all && !me.scope.hospitalIds.includes(of)) return [];
        const { rows } = await q.query<{ value: number; label: string }>(
          `SELECT o.id AS value, o.name AS label FROM org o JOIN (${superiorsSql('$1')}) s ON s.id = o.id ORDER BY s.depth`,
          [of],
        );
        return rows;
      }
      const params: unknown[] = [query.kind ?? null, query.parentId ?? null];
      const { rows } = await q.query<{ value: number; label: string }>(
        `SELECT o.id AS value, o.name AS label FROM org o
          WHERE ($1::text IS NULL OR o.kind = $1) AND ($2::int IS NULL OR o.parent_id = $2)
            AND ${orgScoped(me, params)}
          ORDER BY o.id`,
        params,
      );
      return rows;
    },
  });

  registerResource<User>(fastify, {
    path: 'user',
    tag: 'ucenter',
    module: 'system.user',
    audit: { object: 'user' },
    entity: 'entities/user.json',
    notFound: 'UCENTER006',
    list: userList,
    // Each row says whether the caller governs every membership of the user (grants.ts): only then are the user's
    // identity, deletion and unlocking the caller's; the screen offers them by this flag.
    async listRows(q, body, me) {
      const { list, total } = await runList(q, userList, body, me.scope);
      const [holder, users] = [await loadHolder(q, me), await loadUsersGrants(q, list.map((r) => r.id as number))];
      return { list: list.map((r) => dropNulls({ ...r, governed: governsUser(holder, users.get(r.id as number) as UserGrants) })), total };
    },
    async get(q, id, me) {
      const params: unknown[] = [id];
      const { rows } = await q.query<User>(`SELECT ${USER_SELECT} FROM app_user u WHERE u.id = $1 AND ${userScoped(me, params)}`, params);
      if (!rows[0]) return undefined;
      const m = await q.query<Membership & { names: Record<string, string | null> }>(
        `SELECT m.hospital_id AS "hospitalId", m.role_id AS "roleId", m.department_id AS "departmentId",
                json_build_object('hospitalId', o.name, 'roleId', r.name, 'departmentId', d.name) AS names
           FROM user_membership m JOIN org o ON o.id = m.hospital_id JOIN role r ON r.id = m.role_id
           LEFT JOIN department d ON d.id = m.department_id
          WHERE m.user_id = $1 ORDER BY m.position, m.hospital_id`,
        [id],
      );
      const holder = await loadHolder(q, me);
      const grants = (await loadUserGrants(q, id)) as UserGrants;
      // A membership the caller does not govern is kept by the server whatever is sent: it carries its names
      // (the caller's options do not reach its hospital and role), and the form shows it read-only.
      const memberships = m.rows.map(({ names, ...ms }) => {
        const stored = grants.memberships.find((g) => g.hospitalId === ms.hospitalId) as StoredMembership;
        return dropNulls({ ...ms, ...(governs(holder, stored, grants.identity.dataScope) ? {} : { kept: dropNulls(names) }) });
      });
      // A membership without a department comes back without one, so the form saves it again as read.
      return { ...rows[0], governed: governsUser(holder, grants), memberships };
    },
    async save(q, user, me) {
      const hospitals = user.memberships.map((m) => m.hospitalId);
      if (new Set(hospitals).size !== hospitals.length) throw new AppError('UCENTER402');
      await assertHospitalsExist(q, me, hospitals);
      const roles = await loadRoles(q, user.memberships.map((m) => m.roleId));
      const mobile = user.mobile.replace(/^\+86/, '');
      const plan = planMemberships(await loadHolder(q, me), user.id ? await loadUserGrants(q, user.id) : undefined, {
        mobile,
        status: user.status,
        password: user.password,
        dataScope: user.dataScope,
        memberships: user.memberships.map((m) => {
          const role = roles.get(m.roleId);
          if (!role) throw new AppError('UCENTER201');
          return { ...m, role };
        }),
      });
      for (const m of plan.write) {
        if (m.departmentId) {
          const dept = await q.query('SELECT 1 FROM department WHERE id = $1 AND hospital_id = $2', [m.departmentId, m.hospitalId]);
          if (!dept.rowCount) throw new AppError('BDT104');
        }
      }
      if (user.password !== undefined && !PASSWORD_PATTERN.test(user.password)) {
        throw new AppError('UAA421', { detailKey: 'validation.password', field: 'password' }, { field: 'password' });
      }
      const fields = [mobile, user.username || null, user.name, user.workNo ?? null, user.sex ?? null, user.title ?? null, user.status, user.dataScope ? JSON.stringify(user.dataScope) : null];
      const id = await uniqueOr(async () => {
        if (user.id) {
          await q.query(
            `UPDATE app_user SET mobile = $2, username = $3, name = $4, work_no = $5, sex = $6, title = $7, status = $8,
                    data_scope = $9::jsonb, updated_at = now() WHERE id = $1`,
            [user.id, ...fields],
          );
          if (user.password) {
            await q.query('UPDATE app_user SET password_hash = $2, password_weak = $3, password_changed_at = now() WHERE id = $1', [
              user.id,
              await hashPassword(user.password),
              isWeakPassword(user.password),
            ]);
          }
          // Memberships the caller does not govern are kept; the ones it governs are replaced.
          await q.query('DELETE FROM user_membership WHERE user_id = $1 AND hospital_id = ANY($2::int[])', [user.id, plan.replace]);
          return user.id;
        }
        if (!user.password) throw new AppError('UAA421', { detailKey: 'validation.required', field: 'password' }, { field: 'password' });
        const { rows } = await q.query<{ id: number }>(
          `INSERT INTO app_user (mobile, username, name, work_no, sex, title, status, data_scope, password_hash, password_weak)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10) RETURNING id`,
          [...fields, await hashPassword(user.password), isWeakPassword(user.password)],
        );
        return rows[0].id;
      }, { app_user_mobile_key: 'UCENTER009', app_user_username_key: 'UCENTER011' });
      for (const m of plan.write) {
        const position = hospitals.indexOf(m.hospitalId);
        await q.query(
          `INSERT INTO user_membership (user_id, hospital_id, role_id, department_id, position) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (user_id, hospital_id) DO UPDATE SET role_id = excluded.role_id, department_id = excluded.department_id, position = excluded.position`,
          [id, m.hospitalId, m.roleId, m.departmentId ?? null, position],
        );
      }
      if (user.id && user.status !== 1) await revokeUserSessions(q, id);
      return id;
    },
    async remove(q, id, me) {
      if (id === me.userId) throw new AppError('UAA103');
      await assertGovernsUser(q, me, id);
      await q.query('DELETE FROM app_user WHERE id = $1', [id]);
    },
    optionParams: { hospitalId: common('id') },
    async options(q, query, me) {
      const params: unknown[] = [query.hospitalId ?? null];
      const { rows } = await q.query<{ value: number; label: string }>(
        `SELECT u.id AS value, u.name AS label FROM app_user u
          WHERE ($1::int IS NULL OR EXISTS (SELECT 1 FROM user_membership m WHERE m.user_id = u.id AND m.hospital_id = $1))
            AND ${userScoped(me, params)}
          ORDER BY u.name LIMIT 500`,
        params,
      );
      return rows;
    },
  });

  registerResource<Role>(fastify, {
    path: 'role',
    tag: 'ucenter',
    module: 'system.role',
    audit: { object: 'role' },
    entity: 'entities/role.json',
    hospitalScoped: false,
    notFound: 'UCENTER201',
    list: roleList,
    // Each row says whether the caller may change it (the screen then offers no edit or delete).
    async listRows(q, body, me) {
      const { list, total } = await runList(q, roleList, body, me.scope);
      const holder = await loadHolder(q, me);
      return { list: list.map((r) => dropNulls({ ...r, readOnly: !mayChangeRole(holder, storedRole(r as unknown as RoleRow)) })), total };
    },
    async get(q, id, me) {
      const params: unknown[] = [id];
      const { rows } = await q.query<Role>(`SELECT ${ROLE_SELECT} FROM role r WHERE r.id = $1 AND ${roleScoped(me, params)}`, params);
      return rows[0];
    },
    async save(q, role, me) {
      const granted = normalizePermissions(role.permissions);
      const stored = role.id ? (await loadRoles(q, [role.id])).get(role.id) : undefined;
      // An owner left out is kept; a new role belongs to the region, or to the caller's hospital without region scope.
      const ownerHospitalId = role.ownerHospitalId ?? (stored ? stored.ownerHospitalId : hasRegionScope(me.scope) ? null : me.hospitalId);
      judgeRoleSave(await loadHolder(q, me), stored, { ...role, permissions: granted, ownerHospitalId });
      const values = [
        role.name,
        role.explain ?? null,
        JSON.stringify(granted),
        role.dataScope,
        role.dataScope === 'custom' && role.dataConditions ? JSON.stringify(role.dataConditions) : null,
        JSON.stringify(role.regionOrgIds ?? []),
        JSON.stringify(role.remoteOrgIds ?? []),
        ownerHospitalId,
      ];
      return uniqueOr(async () => {
        if (role.id) {
          await q.query(
            `UPDATE role SET name = $2, explain = $3, permissions = $4::jsonb, data_scope = $5, data_conditions = $6::jsonb,
                    region_org_ids = $7::jsonb, remote_org_ids = $8::jsonb, owner_hospital_id = $9, updated_at = now() WHERE id = $1`,
            [role.id, ...values],
          );
          return role.id;
        }
        const { rows } = await q.query<{ id: number }>(
          `INSERT INTO role (name, explain, permissions, data_scope, data_conditions, region_org_ids, remote_org_ids, owner_hospital_id)
           VALUES ($1, $2, $3::jsonb, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8) RETURNING id`,
          values,
        );
        return rows[0].id;
      }, { role_name_key: 'UCENTER202' });
    },
    async remove(q, id, me) {
      judgeRoleRemove(await loadHolder(q, me), (await loadRoles(q, [id])).get(id) as StoredRole);
      const used = await q.query('SELECT 1 FROM user_membership WHERE role_id = $1 LIMIT 1', [id]);
      if (used.rowCount) throw new AppError('UCENTER203');
      await q.query('DELETE FROM role WHERE id = $1', [id]);
    },
    optionParams: { hospitalId: common('id') },
    /** With hospitalId: the roles that may be assigned there (the region's and that hospital's own). */
    async options(q, query, me) {
      const params: unknown[] = [query.hospitalId ?? null];
      const { rows } = await q.query<{ value: number; label: string }>(
        `SELECT r.id AS value, r.name AS label FROM role r
          WHERE ($1::int IS NULL OR r.owner_hospital_id IS NULL OR r.owner_hospital_id = $1) AND ${roleScoped(me, params)}
          ORDER BY r.id`,
        params,
      );
      return rows;
    },
  });

  fastify.get(
    '/permission/tree',
    {
      config: { permission: ['system.role:view'], audit: 'none' },
      schema: { tags: ['ucenter'], summary: 'The function-permission tree (groups → modules → actions)', response: replies(PERMISSION_TREE) },
    },
    async () => ok({ groups: PERMISSION_GROUPS, modules: PERMISSION_MODULES }),
  );

  fastify.post<{ Params: { id: number } }>(
    '/user/unlock/:id',
    {
      config: { permission: 'system.user:unlock', scoped: { resource: 'user', param: 'id' }, audit: { action: 'unlock', object: 'user', id: 'params.id' } },
      schema: {
        tags: ['ucenter'],
        summary: 'Unlock an account locked by wrong passwords',
        params: idParams,
        response: replies({ type: 'null' }),
      },
    },
    async (request) => {
      const me = caller(request);
      await assertGovernsUser(fastify.db, me, request.params.id);
      const params: unknown[] = [request.params.id];
      const r = await fastify.db.query(
        `UPDATE app_user u SET failed_attempts = 0, locked_until = NULL WHERE u.id = $1 AND ${userScoped(me, params)}`,
        params,
      );
      if (!r.rowCount) throw new AppError('UCENTER006');
      return ok(null);
    },
  );

  // The signature picture is uploaded through the file service (/api/file/v1, purpose
  // `signature`, ../files/purposes.ts), which points app_user.signature_key at it.
  fastify.get<{ Params: { id: number } }>(
    '/user/signature/:id',
    {
      config: { permission: 'system.user:view', scoped: { resource: 'user', param: 'id' }, audit: 'none' },
      schema: {
        tags: ['ucenter'],
        summary: 'A user’s signature picture',
        params: idParams,
      },
    },
    async (request, reply) => {
      const me = caller(request);
      const params: unknown[] = [request.params.id];
      const { rows } = await fastify.db.query<{ key: string | null }>(
        `SELECT u.signature_key AS key FROM app_user u WHERE u.id = $1 AND ${userScoped(me, params)}`,
        params,
      );
      if (!rows[0]?.key) throw new AppError('UCENTER006');
      return reply.type(rows[0].key.endsWith('.png') ? 'image/png' : 'image/jpeg').send(await fastify.storage.get(rows[0].key));
    },
  );
}
