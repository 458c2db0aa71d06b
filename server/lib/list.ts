/**
 * Server-side paging, sorting and filtering for list calls: the body
 * {page, pageSize, sort: {field, order}, filters: {field: value | [from, to]}} is
 * turned into one parameterised query over a resource's declared columns, with the
 * caller's data scope. Only declared fields can be sorted or filtered: the request
 * never reaches SQL as text.
 */
import type { Queryable } from '../db';
import { scopeSql, type DataScope, type ScopeTarget } from '../identity/scope';
import { AppError } from './errors';
import { common } from './schemas';

/**
 * eq: equal as text; id: an integer key, compared as an integer so the column's index
 * serves (a text comparison hides it; a value that is no integer matches nothing, as
 * the text comparison did); like: substring, case-insensitive; range: [from, to);
 * in: one of several values.
 */
export type FilterKind = 'eq' | 'id' | 'like' | 'range' | 'in';

export interface ListSpec {
  /** FROM clause with joins, e.g. "department d JOIN org o ON o.id = d.hospital_id". */
  from: string;
  /** SELECT list producing the API's camelCase fields. */
  select: string;
  /** API field → SQL expression, for sorting and filtering. */
  columns: Record<string, string>;
  filters: Record<string, FilterKind>;
  defaultSort: string;
  scope?: ScopeTarget;
  /** Extra fixed condition (e.g. "o.kind <> 'region'"). */
  where?: string;
  /** Filters that are not a plain column test, given the parameter placeholder (e.g. membership EXISTS). */
  customFilters?: Record<string, (param: string) => string>;
  /**
   * Values of the placeholders $1..$n that the texts above use (the caller's id, the
   * business clock): a value written into the text would make a new text, parsed and
   * planned anew, for every caller and every instant.
   */
  params?: unknown[];
  /**
   * The row's unique key (e.g. "e.id"). Given it, the page is chosen (and the total
   * counted) on the key and the sorted and filtered columns alone, and only the page's
   * rows are read whole: the joins that only add columns (left joins on a unique key)
   * then drop out of the counting query, and the wide rows are built for 20 rows, not
   * for every row of the list.
   */
  key?: string;
  /**
   * With `key`: a narrower relation `from` whose rows are the list's (e.g. the reports
   * waiting at a centre), where the page's keys (its `key`) are chosen and counted, then
   * joined to the outer `from` on `key` for the page's rows. The conditions, the data
   * scope and the sort are read there: `where`, `scope`, `defaultSort` and the sorted
   * `columns` name its columns (a filter may name the outer `from`'s, which `keyFrom.from`
   * then joins in itself). The outer query orders the page by its place in the subquery,
   * so the outer `from` need not hold the sort's columns.
   */
  keyFrom?: { from: string; key: string };
  /** The texts are one of a fixed few (all values in params): PostgreSQL keeps them prepared (QueryOptions.prepare). */
  prepare?: boolean;
}

export interface ListBody {
  page?: number;
  pageSize?: number;
  sort?: { field?: string; order?: 'ascend' | 'descend' };
  filters?: Record<string, unknown>;
}

export const MAX_PAGE_SIZE = 100;

/**
 * The WHERE conditions of a list query (fixed condition, data scope, filters), their
 * values appended to `params`. Shared by the paged list and by exports that walk the
 * same rows in batches, so both select exactly the same rows.
 */
export function listConditions(spec: ListSpec, filters: ListBody['filters'], scope: DataScope | undefined, params: unknown[]): string[] {
  const where: string[] = [];
  if (spec.params?.length) {
    // The spec's texts number their placeholders from $1.
    if (params.length) throw new Error('listConditions: a spec with params starts the parameter list');
    params.push(...spec.params);
  }
  if (spec.where) where.push(spec.where);
  if (scope && spec.scope) where.push(scopeSql(scope, spec.scope, params));
  for (const [field, raw] of Object.entries(filters ?? {})) {
    const custom = spec.customFilters?.[field];
    if (custom && raw !== undefined && raw !== null && raw !== '') {
      params.push(raw);
      where.push(custom(`$${params.length}`));
      continue;
    }
    const kind = spec.filters[field];
    const column = spec.columns[field];
    if (!kind || !column || raw === undefined || raw === null || raw === '') continue;
    if (kind === 'like') {
      params.push(`%${String(raw).replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`${column}::text ILIKE $${params.length}`);
    } else if (kind === 'range' && Array.isArray(raw)) {
      const [from, to] = raw;
      if (from !== undefined && from !== null && from !== '') {
        params.push(dateBound(field, from));
        where.push(`${column} >= $${params.length}`);
      }
      if (to !== undefined && to !== null && to !== '') {
        params.push(dateBound(field, to));
        where.push(`${column} < $${params.length}`);
      }
    } else if (kind === 'in' || Array.isArray(raw)) {
      params.push((Array.isArray(raw) ? raw : [raw]).map(String));
      where.push(`${column}::text = ANY($${params.length}::text[])`);
    } else if (kind === 'id') {
      params.push(String(raw));
      const p = `$${params.length}`;
      where.push(`${column} = CASE WHEN ${p} ~ '^[0-9]{1,9}$' THEN ${p}::int END`);
    } else {
      params.push(String(raw));
      where.push(`${column}::text = $${params.length}`);
    }
  }
  return where;
}

/** A date (2026-03-01) or date-time (ISO 8601, as the client sends a range), else the filter's field is refused. */
const DATE_BOUND = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?)?$/;

export function dateBound(field: string, value: unknown): string {
  // The calendar check: Date rolls 2026-02-30 over into March rather than refusing it.
  if (typeof value === 'string' && DATE_BOUND.test(value) && new Date(`${value.slice(0, 10)}T00:00:00Z`).toISOString().startsWith(value.slice(0, 10))) return value;
  throw new AppError('UAA421', { detailKey: 'validation.format', field }, { field });
}

/**
 * `sql` with only the placeholders it names, numbered from $1, and their values: a statement
 * given a value it never names fails (PostgreSQL cannot tell the parameter's type).
 */
function renumbered(sql: string, params: unknown[]): { sql: string; params: unknown[] } {
  const used = new Map<number, number>();
  const out: unknown[] = [];
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n);
    if (!used.has(i)) used.set(i, out.push(params[i - 1]));
    return `$${used.get(i)}`;
  });
  return { sql: text, params: out };
}

export function buildListSql(spec: ListSpec, body: ListBody, scope: DataScope | undefined) {
  const params: unknown[] = [];
  const where = listConditions(spec, body.filters, scope, params);
  const sortColumn = body.sort?.field ? spec.columns[body.sort.field] : undefined;
  const order = sortColumn ? `${sortColumn} ${body.sort?.order === 'descend' ? 'DESC' : 'ASC'} NULLS LAST, ${spec.defaultSort}` : spec.defaultSort;
  const pageSize = Math.min(Math.max(1, Math.trunc(body.pageSize ?? 20)), MAX_PAGE_SIZE);
  const page = Math.max(1, Math.trunc(body.page ?? 1));
  const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
  if (spec.key && spec.keyFrom) {
    // The page size written in (one of a few texts): a placeholder leaves the planner guessing a
    // tenth of the rows for the page, and a generic plan costed on that loses to planning anew
    // each call. The page in the subquery's order (its row number), since only keyFrom sorts.
    // The total is a statement of its own, run beside the page's on another connection: each reads
    // its own snapshot, so a write committed between the two can make the total differ from the page by it.
    const count = renumbered(`SELECT count(*) AS "__total" FROM ${spec.keyFrom.from} ${whereSql}`, params);
    params.push((page - 1) * pageSize);
    const sql = `SELECT ${spec.select}
                   FROM ${spec.from}
                   JOIN (SELECT ${spec.keyFrom.key} AS __key, row_number() OVER (ORDER BY ${order}) AS __n
                           FROM ${spec.keyFrom.from} ${whereSql} ORDER BY ${order} LIMIT ${pageSize} OFFSET $${params.length}) p ON p.__key = ${spec.key}
                  ORDER BY p.__n`;
    return { sql, params, count };
  }
  params.push(pageSize, (page - 1) * pageSize);
  const limit = `LIMIT $${params.length - 1} OFFSET $${params.length}`;
  if (spec.key) {
    // The page's keys first (spec.key), then their rows whole, in the same order.
    const sql = `SELECT ${spec.select}, p.__total AS "__total"
                   FROM ${spec.from}
                   JOIN (SELECT ${spec.key} AS __key, count(*) OVER () AS __total FROM ${spec.from} ${whereSql} ORDER BY ${order} ${limit}) p ON p.__key = ${spec.key}
                  ORDER BY ${order}`;
    return { sql, params };
  }
  const sql = `SELECT ${spec.select}, count(*) OVER () AS "__total"
                 FROM ${spec.from}
                ${whereSql}
                ORDER BY ${order}
                ${limit}`;
  return { sql, params };
}

export async function runList<T extends Record<string, unknown>>(
  q: Queryable,
  spec: ListSpec,
  body: ListBody,
  scope: DataScope | undefined,
): Promise<{ list: T[]; total: number }> {
  const { sql, params, count } = buildListSql(spec, body, scope);
  if (count) {
    // Counted apart, at the same time: the two statements run side by side on two connections.
    const [page, counted] = await Promise.all([
      q.query<T>(sql, params, { prepare: spec.prepare }),
      q.query<{ __total: number }>(count.sql, count.params, { prepare: spec.prepare }),
    ]);
    return { list: page.rows, total: Number(counted.rows[0].__total) };
  }
  const { rows } = await q.query<T & { __total: number }>(sql, params, { prepare: spec.prepare });
  let total = rows.length ? Number(rows[0].__total) : 0;
  if (!rows.length && (body.page ?? 1) > 1) {
    // Past the last page: still report how many there are.
    const count = buildListSql(spec, { ...body, page: 1, pageSize: 1 }, scope);
    const r = await q.query<{ __total: number }>(count.sql, count.params, { prepare: spec.prepare });
    total = r.rows.length ? Number(r.rows[0].__total) : 0;
  }
  return { list: rows.map(({ __total, ...rest }) => rest as unknown as T), total };
}

/** Request schema of every list call: the primitives of schemas/common.json (bounded page and size, filters of plain values). */
export const listBodySchema = {
  type: 'object',
  properties: {
    page: common('page'),
    pageSize: common('pageSize'),
    sort: common('sort'),
    filters: common('listFilters'),
  },
} as const;
