/**
 * Data scope and list queries as pure functions:
 * - all data / own hospital (+ regional authorization) / custom conditions, user conditions narrowing
 * - SQL fragments are parameterised; wildcards escape LIKE's own characters; numbers compare as numbers
 * - list bodies: only declared fields sort or filter; page size capped at 100
 * - permission keys: declared ones only; menus follow any right of a route's module
 */
import { buildListSql } from '../../server/lib/list';
import { assertPermissionKey, hasPermission, menuList, normalizePermissions } from '../../server/identity/access';
import { buildScope, scopeSql, wildcardToLike } from '../../server/identity/scope';

describe('buildScope and scopeSql', () => {
  test('all data has no hospital restriction', () => {
    const s = buildScope(1, { dataScope: 'all' }, null);
    const params: unknown[] = [];
    expect(scopeSql(s, { hospitalColumn: 'x.h' }, params)).toBe('TRUE');
    expect(params).toEqual([]);
  });

  test('own hospital plus the regional authorization', () => {
    const s = buildScope(5, { dataScope: 'own', regionOrgIds: [7, 5, 9] }, null);
    expect(s.hospitalIds).toEqual([5, 7, 9]);
    const params: unknown[] = ['first'];
    expect(scopeSql(s, { hospitalColumn: 'e.hospital_id' }, params)).toBe('e.hospital_id = ANY($2::int[])');
    expect(params).toEqual(['first', [5, 7, 9]]);
  });

  test('no role or no chosen hospital sees nothing', () => {
    expect(buildScope(null, { dataScope: 'all' }, null)).toEqual({ all: false, hospitalIds: [], conditionSets: [] });
    expect(scopeSql(buildScope(3, null, null), { hospitalColumn: 'h' }, [])).toBe('h = ANY($1::int[])');
  });

  test('custom conditions of role and user, each set ANDed, operators parameterised', () => {
    const s = buildScope(
      2,
      { dataScope: 'custom', dataConditions: { logic: 'or', conditions: [{ field: 'modality', op: 'eq', value: 'CT' }, { field: 'modality', op: 'wildcard', value: 'M*' }] } },
      { mode: 'custom', logic: 'and', conditions: [{ field: 'age', op: 'gte', value: '18' }, { field: 'unknown', op: 'eq', value: 'x' }] },
    );
    const params: unknown[] = [];
    const sql = scopeSql(s, { hospitalColumn: 'e.h', fields: { modality: 'e.modality', age: 'e.age' } }, params);
    expect(sql).toBe("e.h = ANY($1::int[]) AND (e.modality::text = $2 OR e.modality::text LIKE $3) AND (e.age::numeric >= $4::numeric)");
    expect(params).toEqual([[2], 'CT', 'M%', '18']);
  });

  test('wildcards escape LIKE characters', () => {
    expect(wildcardToLike('a_b%c*d?')).toBe('a\\_b\\%c%d_');
  });
});

describe('buildListSql', () => {
  const spec = {
    from: 't',
    select: 't.id',
    columns: { name: 't.name', at: 't.at', kind: 't.kind' },
    filters: { name: 'like' as const, at: 'range' as const, kind: 'eq' as const },
    defaultSort: 't.id',
  };

  test('declared filters and sort only, values as parameters, page size capped', () => {
    const { sql, params } = buildListSql(
      spec,
      { page: 3, pageSize: 1000, sort: { field: 'name', order: 'descend' }, filters: { name: "o'k%", at: ['2026-01-01', '2026-02-01'], kind: 'a', evil: '1; DROP TABLE t' } },
      undefined,
    );
    expect(sql).toContain('t.name::text ILIKE $1');
    expect(sql).toContain('t.at >= $2');
    expect(sql).toContain('t.at < $3');
    expect(sql).toContain('t.kind::text = $4');
    expect(sql).toContain('ORDER BY t.name DESC NULLS LAST, t.id');
    expect(sql).not.toContain('DROP');
    expect(params).toEqual(["%o'k\\%%", '2026-01-01', '2026-02-01', 'a', 100, 200]);
  });

  test('an undeclared sort field falls back to the default order', () => {
    expect(buildListSql(spec, { sort: { field: 'password_hash' } }, undefined).sql).toContain('ORDER BY t.id');
  });

  test('a narrower relation counts in a statement of its own, with only the values it names', () => {
    // $1 only in the page's select (as the caller's id is), $2 in the fixed condition.
    const narrow = { ...spec, select: 't.id, t.owner = $1::int AS mine', params: [7, 'open'], where: 'w.state = $2', key: 't.id', keyFrom: { from: 'w', key: 'w.id' } };
    const { sql, params, count } = buildListSql(narrow, { page: 2, pageSize: 10, filters: { kind: 'a' } }, undefined);
    expect(sql).not.toContain('count(');
    expect(sql).toContain('LIMIT 10 OFFSET $4');
    expect(params).toEqual([7, 'open', 'a', 10]);
    expect(count!.sql).toBe('SELECT count(*) AS "__total" FROM w WHERE w.state = $1 AND t.kind::text = $2');
    expect(count!.params).toEqual(['open', 'a']);
  });
});

describe('permissions', () => {
  test('only declared keys are accepted', () => {
    expect(() => assertPermissionKey('report:write')).not.toThrow();
    expect(() => assertPermissionKey('report:fly')).toThrow(/not declared/);
    expect(() => assertPermissionKey('nothing:view')).toThrow(/not declared/);
  });

  test('hasPermission, normalizePermissions and menus', () => {
    const map = normalizePermissions({ report: ['write', 'write', 'fly'], ghost: ['view'], registration: ['view'] });
    expect(map).toEqual({ report: ['write'], registration: ['view'] });
    expect(hasPermission(map, 'report:write')).toBe(true);
    expect(hasPermission(map, 'report:verify')).toBe(false);
    const menus = menuList(map);
    expect(menus).toEqual(expect.arrayContaining(['dashboard', 'report', 'reportDetail', 'examination', 'errorLog']));
    expect(menus).not.toContain('user');
    expect(menuList({})).toEqual([]);
    // The report page opens from the remote centre's list too (the server decides which report).
    const remoteOnly = menuList(normalizePermissions({ remote: ['view', 'write'] }));
    expect(remoteOnly).toContain('reportDetail');
    expect(remoteOnly).not.toContain('report');
  });
});
