/**
 * Data scope: which rows a caller may see. A role gives all data, its own hospital
 * (plus the hospitals of its regional authorization), or its own hospitals narrowed
 * by custom conditions; a user's own custom conditions narrow further.
 * `scopeSql` turns a scope into a WHERE fragment for one resource: the resource
 * names its hospital column and which condition fields it has (others do not apply).
 */
import { AppError } from '../lib/errors';

export type Operator = 'lt' | 'lte' | 'gt' | 'gte' | 'eq' | 'ne' | 'wildcard' | 'notWildcard';

export interface Condition {
  field: string;
  op: Operator;
  value: string;
}

export interface ConditionSet {
  logic: 'and' | 'or';
  conditions: Condition[];
}

export interface DataScope {
  /** No hospital restriction. */
  all: boolean;
  /** Hospitals whose rows are visible (own first) when not `all`. */
  hospitalIds: number[];
  /** Further conditions, each set applied with AND against the others. */
  conditionSets: ConditionSet[];
}

export interface RoleScopeInput {
  dataScope: 'all' | 'own' | 'custom';
  dataConditions?: ConditionSet | null;
  regionOrgIds?: number[];
}

export interface UserScopeInput {
  mode?: 'all' | 'custom';
  logic?: 'and' | 'or';
  conditions?: Condition[];
}

export function buildScope(hospitalId: number | null, role: RoleScopeInput | null, user: UserScopeInput | null): DataScope {
  if (!role || hospitalId === null) return { all: false, hospitalIds: [], conditionSets: [] };
  const sets: ConditionSet[] = [];
  if (role.dataScope === 'custom' && role.dataConditions?.conditions?.length) sets.push(role.dataConditions);
  if (user?.mode === 'custom' && user.conditions?.length) sets.push({ logic: user.logic ?? 'and', conditions: user.conditions });
  const hospitalIds = [hospitalId, ...(role.regionOrgIds ?? []).filter((id) => id !== hospitalId)];
  return { all: role.dataScope === 'all', hospitalIds, conditionSets: sets };
}

const SQL_OPS: Record<Exclude<Operator, 'wildcard' | 'notWildcard'>, string> = {
  lt: '<',
  lte: '<=',
  gt: '>',
  gte: '>=',
  eq: '=',
  ne: '<>',
};

/** `*` and `?` wildcards to a LIKE pattern, escaping LIKE's own characters. */
export function wildcardToLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%').replace(/\?/g, '_');
}

export interface ScopeTarget {
  /** SQL expression of the row's hospital, e.g. "d.hospital_id"; an EXISTS clause is fine too via `hospitalSql`. */
  hospitalColumn?: string;
  /** Builds the hospital test itself (e.g. membership via EXISTS) from a parameter placeholder of an int[]. */
  hospitalSql?: (param: string) => string;
  /** Condition field → SQL expression (text-comparable). */
  fields?: Record<string, string>;
}

/**
 * Appends the scope's restrictions to `params` and returns a SQL boolean expression
 * ("TRUE" when nothing restricts).
 */
export function scopeSql(scope: DataScope, target: ScopeTarget, params: unknown[]): string {
  const parts: string[] = [];
  if (!scope.all) {
    params.push(scope.hospitalIds);
    const p = `$${params.length}::int[]`;
    if (target.hospitalSql) parts.push(target.hospitalSql(p));
    else if (target.hospitalColumn) parts.push(`${target.hospitalColumn} = ANY(${p})`);
    else parts.push('FALSE');
  }
  for (const set of scope.conditionSets) {
    const terms: string[] = [];
    for (const c of set.conditions) {
      const column = target.fields?.[c.field];
      if (!column) continue; // a condition on a field this resource does not have does not apply to it
      params.push(c.op === 'wildcard' || c.op === 'notWildcard' ? wildcardToLike(c.value) : c.value);
      const p = `$${params.length}`;
      if (c.op === 'wildcard') terms.push(`${column}::text LIKE ${p}`);
      else if (c.op === 'notWildcard') terms.push(`${column}::text NOT LIKE ${p}`);
      else if (c.op !== 'eq' && c.op !== 'ne' && /^-?\d+(\.\d+)?$/.test(c.value)) {
        // Ordered comparisons of numbers must not compare as text ("10" < "9").
        terms.push(`${column}::numeric ${SQL_OPS[c.op]} ${p}::numeric`);
      } else terms.push(`${column}::text ${SQL_OPS[c.op]} ${p}`);
    }
    if (terms.length) parts.push(`(${terms.join(set.logic === 'or' ? ' OR ' : ' AND ')})`);
  }
  return parts.length ? parts.join(' AND ') : 'TRUE';
}

/** Writing a row of `hospitalId` needs that hospital in the caller's scope (UCENTER101 otherwise). */
export function requireHospital(scope: DataScope, hospitalId: number): void {
  if (!scope.all && !scope.hospitalIds.includes(hospitalId)) throw new AppError('UCENTER101');
}
