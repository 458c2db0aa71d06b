/**
 * Granting as pure functions (server/identity/grants.ts), for a hospital administrator
 * of hospital A (every right, own-hospital scope, id 10) and the region's administrator:
 * - grantExcess: rights beyond the holder → UAA103; all data, another hospital (as the
 *   membership's or the regional authorization's), an unauthorised remote centre, or
 *   fewer conditions than narrow the holder → PACS006; narrower grants pass
 * - ownership: region-owned only with region scope, a hospital's with it in scope
 * - judgeRoleSave: a role the holder holds keeps its scope (UCENTER204), others may narrow
 * - planMemberships: memberships the holder does not govern are kept and may not change,
 *   and the user's identity changes only when the holder governs every membership;
 *   a hospital's own role is assigned in that hospital only
 */
import { allPermissions } from '../../server/identity/access';
import {
  grantExcess,
  judgeRoleSave,
  mayChangeRole,
  narrowsSet,
  ownsFor,
  planMemberships,
  scopeChanged,
  type Holder,
  type StoredRole,
} from '../../server/identity/grants';

const A = 10;
const B = 11;
const CENTRAL = 20;

const hospitalAdmin: Holder = { userId: 1, permissions: allPermissions(), scope: { all: false, hospitalIds: [A], conditionSets: [] }, remoteOrgIds: [], roleIds: [100] };
const regionAdmin: Holder = { userId: 2, permissions: allPermissions(), scope: { all: true, hospitalIds: [1], conditionSets: [] }, remoteOrgIds: [], roleIds: [1] };

const role = (over: Partial<StoredRole> = {}): StoredRole => ({ id: 50, permissions: { registration: ['view'] }, dataScope: 'own', regionOrgIds: [], remoteOrgIds: [], ownerHospitalId: null, ...over });
const code = (f: () => void) => {
  try {
    f();
    return null;
  } catch (e) {
    return (e as { code?: string }).code;
  }
};

describe('grantExcess', () => {
  test('rights beyond the holder are UAA103', () => {
    const clerkAdmin: Holder = { ...hospitalAdmin, permissions: { 'system.user': ['view'], registration: ['view'] } };
    expect(grantExcess(clerkAdmin, role())).toBeNull();
    expect(grantExcess(clerkAdmin, role({ permissions: { registration: ['view', 'add'] } }))).toBe('UAA103');
  });
  test('data beyond the holder is PACS006: all data, other hospitals, regional and remote authorization', () => {
    expect(grantExcess(hospitalAdmin, role({ dataScope: 'all' }))).toBe('PACS006');
    expect(grantExcess(hospitalAdmin, role(), [A])).toBeNull();
    expect(grantExcess(hospitalAdmin, role(), [B])).toBe('PACS006');
    expect(grantExcess(hospitalAdmin, role({ regionOrgIds: [B] }))).toBe('PACS006');
    expect(grantExcess(hospitalAdmin, role({ remoteOrgIds: [CENTRAL] }))).toBe('PACS006');
    expect(grantExcess({ ...hospitalAdmin, remoteOrgIds: [CENTRAL] }, role({ remoteOrgIds: [CENTRAL] }))).toBeNull();
    expect(grantExcess(regionAdmin, role({ dataScope: 'all', regionOrgIds: [B], remoteOrgIds: [CENTRAL] }), [B])).toBeNull();
  });
  test('a holder narrowed by conditions grants only roles at least as narrow', () => {
    const ct = { field: 'modality', op: 'eq' as const, value: 'CT' };
    const female = { field: 'sex', op: 'eq' as const, value: '2' };
    const narrowed: Holder = { ...hospitalAdmin, scope: { ...hospitalAdmin.scope, conditionSets: [{ logic: 'and', conditions: [ct] }] } };
    expect(grantExcess(narrowed, role())).toBe('PACS006');
    expect(grantExcess(narrowed, role({ dataScope: 'custom', dataConditions: { logic: 'and', conditions: [ct, female] } }))).toBeNull();
    expect(grantExcess(narrowed, role({ dataScope: 'custom', dataConditions: { logic: 'or', conditions: [ct, female] } }))).toBe('PACS006');
    // The user's own conditions narrow the role's grant too.
    expect(grantExcess(narrowed, role(), [A], { mode: 'custom', conditions: [ct] })).toBeNull();
    expect(narrowsSet({ logic: 'or', conditions: [ct, female] }, { logic: 'or', conditions: [ct, female] })).toBe(true);
  });
});

describe('ownership', () => {
  test('region-owned only with region scope; a hospital’s with it in scope', () => {
    expect(ownsFor(hospitalAdmin, null)).toBe(false);
    expect(ownsFor(hospitalAdmin, A)).toBe(true);
    expect(ownsFor(hospitalAdmin, B)).toBe(false);
    expect(ownsFor(regionAdmin, null)).toBe(true);
    expect(mayChangeRole(hospitalAdmin, role({ ownerHospitalId: A }))).toBe(true);
    expect(mayChangeRole(hospitalAdmin, role())).toBe(false);
    expect(mayChangeRole(hospitalAdmin, role({ ownerHospitalId: A, regionOrgIds: [B] }))).toBe(false);
  });
});

describe('judgeRoleSave', () => {
  test('no one changes the scope of a role they hold; other edits of it pass', () => {
    const mine = role({ id: 100, ownerHospitalId: A });
    expect(code(() => judgeRoleSave(hospitalAdmin, mine, { ...mine, regionOrgIds: [A] }))).toBe('UCENTER204');
    expect(code(() => judgeRoleSave(hospitalAdmin, mine, { ...mine, permissions: { registration: ['view', 'add'] } }))).toBeNull();
    const regionRole = role({ id: 1, dataScope: 'all' });
    expect(code(() => judgeRoleSave(regionAdmin, regionRole, { ...regionRole, dataScope: 'own' }))).toBe('UCENTER204');
    expect(scopeChanged(role({ regionOrgIds: [A, B] }), role({ regionOrgIds: [B, A] }))).toBe(false);
  });
  test('owner and grant of the stored and the new role', () => {
    expect(code(() => judgeRoleSave(hospitalAdmin, role(), { ...role(), ownerHospitalId: A }))).toBe('PACS006');
    expect(code(() => judgeRoleSave(hospitalAdmin, undefined, { ...role(), ownerHospitalId: B }))).toBe('PACS006');
    expect(code(() => judgeRoleSave(hospitalAdmin, undefined, { ...role({ dataScope: 'all' }), ownerHospitalId: A }))).toBe('PACS006');
    expect(code(() => judgeRoleSave(hospitalAdmin, undefined, { ...role(), ownerHospitalId: A }))).toBeNull();
  });
});

describe('planMemberships', () => {
  const clerk = role({ id: 60 });
  const senior = role({ id: 61, regionOrgIds: [A, B] });
  const user = { mobile: '13800000007', status: 1 };
  const stored = {
    identity: user,
    memberships: [
      { hospitalId: A, roleId: 60, role: clerk },
      { hospitalId: CENTRAL, roleId: 60, role: clerk },
    ],
  };
  const next = (over: object = {}) => ({ ...user, memberships: [{ hospitalId: A, roleId: 60, role: clerk }], ...over });

  test('memberships outside the holder are kept, and may be sent back unchanged but not changed', () => {
    expect(planMemberships(hospitalAdmin, stored, next())).toEqual({ replace: [A], write: [{ hospitalId: A, roleId: 60, departmentId: null }] });
    const sentBack = next({ memberships: [...next().memberships, { hospitalId: CENTRAL, roleId: 60, role: clerk }] });
    expect(planMemberships(hospitalAdmin, stored, sentBack).write).toHaveLength(1);
    const changed = next({ memberships: [{ hospitalId: CENTRAL, roleId: 61, role: senior }] });
    expect(code(() => planMemberships(hospitalAdmin, stored, changed))).toBe('PACS006');
  });
  test('identity only when every membership is governed', () => {
    for (const over of [{ password: 'New#2026x' }, { mobile: '13900000000' }, { status: 0 }, { dataScope: { mode: 'custom', conditions: [{ field: 'sex', op: 'eq', value: '1' }] } }]) {
      expect(code(() => planMemberships(hospitalAdmin, stored, next(over)))).toBe('PACS006');
      expect(code(() => planMemberships(regionAdmin, stored, next(over)))).toBeNull();
    }
    const onlyA = { identity: user, memberships: [stored.memberships[0]] };
    expect(code(() => planMemberships(hospitalAdmin, onlyA, next({ password: 'New#2026x' })))).toBeNull();
    // A membership in the holder's hospital with a role beyond the holder is not governed either.
    const aboveInA = { identity: user, memberships: [{ hospitalId: A, roleId: 61, role: senior }] };
    expect(code(() => planMemberships(hospitalAdmin, aboveInA, next({ memberships: [{ hospitalId: A, roleId: 61, role: senior }], password: 'New#2026x' })))).toBe('PACS006');
  });
  test('new memberships: within the holder, a hospital’s own role only there', () => {
    expect(code(() => planMemberships(hospitalAdmin, undefined, next({ memberships: [{ hospitalId: A, roleId: 61, role: senior }] })))).toBe('PACS006');
    expect(code(() => planMemberships(hospitalAdmin, undefined, next({ memberships: [{ hospitalId: B, roleId: 60, role: clerk }] })))).toBe('PACS006');
    const bRole = role({ id: 62, ownerHospitalId: B });
    expect(code(() => planMemberships(regionAdmin, undefined, next({ memberships: [{ hospitalId: A, roleId: 62, role: bRole }] })))).toBe('UCENTER201');
  });
});
