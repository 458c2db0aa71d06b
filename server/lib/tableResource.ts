/**
 * The generic table store: a resource declared in config/resources.json with a
 * `table` is served from its entity schema and that declaration alone, so an admin
 * entity costs a schema, a view, a registry entry, a migration and locale keys, and
 * no route handler. The five calls come from registerResource (./resource); this
 * module supplies the SQL, derived from the schema:
 * - columns: the entity's top-level scalar properties (and arrays of scalars, as
 *   PostgreSQL arrays; objects and arrays of objects as jsonb, validated by the schema
 *   like the rest), camelCase → snake_case
 * - children: an array-of-objects field the registry keeps in a child table is saved
 *   in the parent's transaction (replace-all, rows kept by the ids sent back), loaded
 *   into the detail in order and deleted with the parent, only ever through the
 *   parent's calls (so under its scope and rights)
 * - a discriminator (../../src/shared/schema/discriminator): the fields of the other cases
 *   than the record's are cleared on save, so a record holds its own type's fields
 * - written: the properties that are not readOnly; an absent one is stored as its
 *   schema default, else NULL (a save replaces the record, as the form sends it whole)
 * - filters: codes, numbers, booleans and ids by equality, text by substring,
 *   date-times by range; any column may sort
 * - scope: with `hospital`, rows belong to the hospital that field names and follow
 *   the caller's data scope, for reading and for writing; without, rows are the
 *   region's and only a caller with region scope writes them
 * - a field backed by a data dictionary takes only that dictionary's enabled values
 * - unique constraints map to catalogue codes; `inUse` refuses a delete while rows
 *   elsewhere refer to the row; `tree` nests descendants under the listed rows.
 * Identifiers reach SQL only from the schema and the registry, never from a request.
 */
import type { FastifyInstance } from 'fastify';
import { RESOURCE_REGISTRY } from '../../config/declared';
import { discriminatorOf, foreignFields, type Discriminator } from '../../src/shared/schema/discriminator';
import { entityModel, type FieldInfo } from '../../src/shared/schema/model';
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { requireHospital, scopeSql, type ScopeTarget } from '../identity/scope';
import { AppError } from './errors';
import { runList, type FilterKind, type ListBody, type ListSpec } from './list';
import { dropNulls, registerResource, uniqueOr, type ResourceDef } from './resource';
import { common } from './schemas';

export interface TableDecl {
  name: string;
  hospital?: string;
  /** Fields listing hospitals a row is given access to: each within the writer's scope. */
  hospitalLists?: string[];
  label: string;
  order: string[];
  tree?: string;
  notFound: string;
  /** Field → data dictionary code whose enabled items are the field's values. */
  dictionaries?: Record<string, string>;
  unique?: Record<string, string>;
  /** Check-constraint name → the field a violation names (UAA421). */
  checks?: Record<string, string>;
  inUse?: Array<{ table: string; column: string; code: string }>;
  /** Fields the options call sends besides value and label (an exam item's price, for the registration total). */
  optionFields?: string[];
  /** Array-of-objects fields kept in child tables (the QC rule's scoring items). */
  children?: Record<string, ChildDecl>;
}

export interface ChildDecl {
  table: string;
  /** Column naming the parent row. */
  foreignKey: string;
  /** Column keeping the rows' order (0, 1, …), as sent. */
  order: string;
}

export interface RegistryEntry {
  base: string;
  entity?: string;
  module?: string;
  /** The module's rights for the four calls where they are not view/add/edit/delete. */
  actions?: ResourceDef<Row>['actions'];
  table?: TableDecl;
}

type Row = Record<string, unknown> & { id?: number };

/** config/resources.json with the admin entities their views declare (config/declared.ts). */
export const RESOURCES = RESOURCE_REGISTRY as Readonly<Record<string, RegistryEntry>>;

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const SCALARS = new Set(['string', 'integer', 'number', 'boolean']);
/** A field the table store keeps: a scalar, or an array of scalars (an integer[] or text[] column, such as a device's served hospitals), or a structure (jsonb). */
const storable = (f: FieldInfo) => SCALARS.has(f.type) || (f.type === 'array' && SCALARS.has(f.items?.type ?? '')) || isJson(f);
/** An object or an array of objects: a jsonb column (unless the registry makes it a child table). */
const isJson = (f: FieldInfo) => f.type === 'object' || (f.type === 'array' && f.items?.type === 'object');
const fieldKey = (f: FieldInfo) => f.name.slice(f.name.lastIndexOf('.') + 1);

function filterKind(f: FieldInfo): FilterKind | undefined {
  // An array or jsonb column is shown and written, not searched.
  if (f.type === 'array' || f.type === 'object') return undefined;
  if (f.format === 'date-time') return 'range';
  if (f.type === 'string' && !f.enum && !f.code) return 'like';
  return 'eq';
}

/** What the store needs to know of one table resource, worked out once at startup. */
export interface TablePlan {
  resource: string;
  path: string;
  prefix: string;
  module: string;
  actions?: RegistryEntry['actions'];
  decl: TableDecl;
  fields: FieldInfo[];
  writable: FieldInfo[];
  column: (field: string) => string;
  select: string;
  /** The options call's extra columns (decl.optionFields), as select does them. */
  optionSelect: string;
  scope?: ScopeTarget;
  /** The list query's spec (columns, filters, default order), worked out once. */
  list: ListSpec;
  children: ChildPlan[];
  discriminator?: Discriminator;
}

/** One child table: the parent's field, the declaration, and the item properties that are its columns. */
export interface ChildPlan {
  field: string;
  decl: ChildDecl;
  /** The item's scalar properties besides id, by their short names. */
  columns: FieldInfo[];
  select: string;
}

export function planTable(resource: string, entry: RegistryEntry): TablePlan {
  const decl = entry.table;
  if (!decl || !entry.module) throw new Error(`config/resources.json: ${resource} is not a table resource`);
  const model = entityModel(entry.entity ?? resource);
  const children = Object.entries(decl.children ?? {}).map(([name, child]) => childPlan(model.name, model.fields.find((f) => f.name === name), name, child));
  const childNames = new Set(children.map((c) => c.field));
  const fields = model.fields.filter((f) => storable(f) && !childNames.has(f.name));
  const skipped = model.fields.filter((f) => !storable(f)).map((f) => f.name);
  if (skipped.length) throw new Error(`entities/${model.name}.json: the table store keeps scalars, arrays and objects, not ${skipped.join(', ')}`);
  const names = new Set(fields.map((f) => f.name));
  for (const f of [
    decl.label,
    ...decl.order,
    decl.hospital,
    ...(decl.hospitalLists ?? []),
    decl.tree,
    ...Object.keys(decl.dictionaries ?? {}),
    ...(decl.optionFields ?? []),
    ...(decl.hospitalLists ?? []),
  ]) {
    if (f && !names.has(f)) throw new Error(`config/resources.json: ${resource} names ${f}, which entities/${model.name}.json lacks`);
  }
  // A check may name a child row's field (items.deduction).
  for (const f of Object.values(decl.checks ?? {})) {
    if (!names.has(f) && !(childNames.has(f.split('.')[0]) && model.byName.has(f))) throw new Error(`config/resources.json: ${resource} names ${f}, which entities/${model.name}.json lacks`);
  }
  if (!names.has('id')) throw new Error(`entities/${model.name}.json: a table resource needs an id`);
  const column = (field: string) => `t.${snake(field)}`;
  // numeric columns come back from pg as strings; the schema says number
  const selectOf = (f: FieldInfo) => `${column(f.name)}${f.type === 'number' ? '::float8' : ''} AS "${f.name}"`;
  const slash = entry.base.lastIndexOf('/');
  const plan: Omit<TablePlan, 'list'> = {
    resource,
    prefix: entry.base.slice(0, slash),
    path: entry.base.slice(slash + 1),
    module: entry.module,
    actions: entry.actions,
    decl,
    fields,
    writable: fields.filter((f) => !f.readOnly),
    column,
    select: fields.map(selectOf).join(', '),
    optionSelect: fields
      .filter((f) => decl.optionFields?.includes(f.name))
      .map((f) => `, ${selectOf(f)}`)
      .join(''),
    scope: decl.hospital ? { hospitalColumn: column(decl.hospital) } : undefined,
    children,
    discriminator: discriminatorOf(model),
  };
  return { ...plan, list: listSpec(plan) };
}

function childPlan(entity: string, f: FieldInfo | undefined, name: string, decl: ChildDecl): ChildPlan {
  if (!f || f.type !== 'array' || f.items?.type !== 'object') throw new Error(`config/resources.json: the child table ${decl.table} keeps ${name}, which entities/${entity}.json has not as an array of objects`);
  const props = f.items.properties ?? [];
  const odd = props.filter((p) => !SCALARS.has(p.type)).map(fieldKey);
  if (odd.length) throw new Error(`entities/${entity}.json: the child rows of ${name} hold scalars only, not ${odd.join(', ')}`);
  if (!props.some((p) => fieldKey(p) === 'id')) throw new Error(`entities/${entity}.json: the child rows of ${name} need an id`);
  const columns = props.filter((p) => fieldKey(p) !== 'id');
  const select = ['c.id AS "id"', ...columns.map((p) => `c.${snake(fieldKey(p))}${p.type === 'number' ? '::float8' : ''} AS "${fieldKey(p)}"`)].join(', ');
  return { field: name, decl, columns, select };
}

/** The child rows of parents `ids`, in order, nulls dropped (as the parent's), by parent id. */
async function loadChildren(q: Queryable, child: ChildPlan, ids: number[]): Promise<Map<number, Row[]>> {
  const { decl } = child;
  const { rows } = await q.query<Row & { _parent: number }>(
    `SELECT ${child.select}, c.${decl.foreignKey} AS "_parent" FROM ${decl.table} c WHERE c.${decl.foreignKey} = ANY($1::int[]) ORDER BY c.${decl.foreignKey}, c.${decl.order}, c.id`,
    [ids],
  );
  const out = new Map<number, Row[]>();
  for (const { _parent, ...r } of rows) {
    const list = out.get(_parent) ?? [];
    list.push(dropNulls(r));
    out.set(_parent, list);
  }
  return out;
}

/**
 * Replaces the child rows of `parentId` with `rows` (in the caller's transaction): a row
 * sent with the id of one of this parent's rows updates it, any other is inserted (an
 * id of another parent's row is not taken over), the parent's rows not sent are deleted.
 */
async function saveChildren(q: Queryable, child: ChildPlan, parentId: number, rows: Row[]): Promise<void> {
  const { decl, columns } = child;
  const { rows: held } = await q.query<{ id: number }>(`SELECT id FROM ${decl.table} WHERE ${decl.foreignKey} = $1`, [parentId]);
  const mine = new Set(held.map((r) => r.id));
  const kept = rows.map((r) => (r.id !== undefined && mine.has(Number(r.id)) ? Number(r.id) : undefined));
  await q.query(`DELETE FROM ${decl.table} WHERE ${decl.foreignKey} = $1 AND NOT (id = ANY($2::int[]))`, [parentId, kept.filter((id) => id !== undefined)]);
  const names = [...columns.map((p) => snake(fieldKey(p))), decl.order];
  for (const [i, row] of rows.entries()) {
    const values = [...columns.map((p) => row[fieldKey(p)] ?? p.default ?? null), i];
    const id = kept[i];
    if (id !== undefined) {
      await q.query(`UPDATE ${decl.table} SET ${names.map((c, j) => `${c} = $${j + 3}`).join(', ')} WHERE id = $1 AND ${decl.foreignKey} = $2`, [id, parentId, ...values]);
    } else {
      await q.query(
        `INSERT INTO ${decl.table} (${decl.foreignKey}, ${names.join(', ')}) VALUES ($1, ${names.map((_, j) => `$${j + 2}`).join(', ')})`,
        [parentId, ...values],
      );
    }
  }
}

function listSpec(plan: Omit<TablePlan, 'list'>, where?: string): ListSpec {
  return {
    from: `${plan.decl.name} t`,
    select: plan.select,
    columns: Object.fromEntries(plan.fields.map((f) => [f.name, plan.column(f.name)])),
    filters: Object.fromEntries(plan.fields.flatMap((f) => (filterKind(f) ? [[f.name, filterKind(f)!]] : []))),
    defaultSort: [...plan.decl.order.map(plan.column), 't.id'].join(', '),
    scope: plan.scope,
    where,
  };
}

/** Scope clause for one resource ("TRUE" when region-wide), appending its parameters. */
function scoped(plan: TablePlan, me: AuthContext, params: unknown[]): string {
  return plan.scope ? scopeSql(me.scope, plan.scope, params) : 'TRUE';
}

/** Descendants of `rows` as nested `children`, one query per level (trees here are shallow). */
async function attachChildren(q: Queryable, plan: TablePlan, rows: Row[], me: AuthContext): Promise<void> {
  const parent = plan.decl.tree as string;
  let level = rows;
  const seen = new Set(rows.map((r) => r.id));
  while (level.length) {
    const params: unknown[] = [level.map((r) => r.id)];
    const { rows: kids } = await q.query<Row>(
      `SELECT ${plan.select} FROM ${plan.decl.name} t
        WHERE ${plan.column(parent)} = ANY($1::int[]) AND ${scoped(plan, me, params)}
        ORDER BY ${plan.list.defaultSort}`,
      params,
    );
    // A cycle written by hand in the database must not loop.
    const fresh = kids.filter((k) => !seen.has(k.id));
    for (const k of fresh) seen.add(k.id);
    for (const r of level) {
      const children = fresh.filter((k) => k[parent] === r.id);
      if (children.length) r.children = children;
    }
    level = fresh;
  }
}

export function tableDef(plan: TablePlan): ResourceDef<Row> {
  const { decl } = plan;
  const table = decl.name;
  const hospitalField = decl.hospital;

  const get = async (q: Queryable, id: number, me: AuthContext) => {
    const params: unknown[] = [id];
    const { rows } = await q.query<Row>(`SELECT ${plan.select} FROM ${table} t WHERE t.id = $1 AND ${scoped(plan, me, params)}`, params);
    const row = rows[0];
    if (row) for (const child of plan.children) row[child.field] = (await loadChildren(q, child, [id])).get(id) ?? [];
    return row;
  };

  return {
    path: plan.path,
    tag: plan.prefix.split('/')[2],
    module: plan.module,
    // Configuration tables (devices, exam items, QC rules…): their saves and deletes are audited.
    audit: { object: plan.resource },
    actions: plan.actions,
    entity: `entities/${entityName(plan)}.json`,
    hospitalScoped: Boolean(hospitalField),
    // A table without an owning hospital is the region's (exam parts, QC rules).
    regionWide: !hospitalField,
    notFound: decl.notFound,
    list: plan.list,
    async listRows(q: Queryable, body: ListBody, me: AuthContext) {
      const filters = body.filters ?? {};
      const searching = Object.keys(filters).some((k) => k !== decl.tree && filters[k] !== undefined && filters[k] !== '');
      // A tree lists its roots (or the children of the parent asked for) unless a
      // search is under way, which shows the matching rows wherever they sit.
      const roots = decl.tree && !searching && filters[decl.tree] === undefined ? `${plan.column(decl.tree)} IS NULL` : undefined;
      const result = await runList<Row>(q, listSpec(plan, roots), body, me.scope);
      if (decl.tree && !searching) await attachChildren(q, plan, result.list, me);
      return { list: result.list.map(dropNulls), total: result.total };
    },
    get,
    async save(q, body, me) {
      if (hospitalField) {
        const hospitalId = Number(body[hospitalField]);
        requireHospital(me.scope, hospitalId);
      }
      // Hospitals a row is given access to: only those the writer holds.
      for (const field of decl.hospitalLists ?? []) for (const id of (body[field] as number[] | undefined) ?? []) requireHospital(me.scope, Number(id));
      if (decl.tree && body.id && body[decl.tree] !== undefined) await refuseCycle(q, plan, body.id, Number(body[decl.tree]));
      for (const [field, code] of Object.entries(decl.dictionaries ?? {})) await refuseUnlisted(q, field, code, body[field]);
      // Another type's fields do not belong to the record: cleared, as the form drops them.
      const foreign = new Set(plan.discriminator ? foreignFields(plan.discriminator, body[plan.discriminator.field]) : []);
      // An absent array is an empty one (its column is NOT NULL DEFAULT '{}'); a structure goes as JSON text to its jsonb column.
      const values = plan.writable.map((f) => {
        if (foreign.has(f.name)) return null;
        const v = body[f.name] ?? f.default ?? (f.type === 'array' ? [] : null);
        return isJson(f) && v !== null ? JSON.stringify(v) : v;
      });
      const columns = plan.writable.map((f) => snake(f.name));
      const cast = (i: number) => (isJson(plan.writable[i]) ? '::jsonb' : '');
      return checkedOr(decl.checks ?? {}, () =>
        uniqueOr(async () => {
          let id = body.id;
          if (id) {
            const sets = columns.map((c, i) => `${c} = $${i + 2}${cast(i)}`);
            await q.query(`UPDATE ${table} SET ${sets.join(', ')}, updated_at = now() WHERE id = $1`, [id, ...values]);
          } else {
            const { rows } = await q.query<{ id: number }>(
              `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}${cast(i)}`).join(', ')}) RETURNING id`,
              values,
            );
            id = rows[0].id;
          }
          for (const child of plan.children) await saveChildren(q, child, id, (body[child.field] as Row[] | undefined) ?? []);
          return id;
        }, decl.unique ?? {}),
      );
    },
    async remove(q, id) {
      for (const ref of decl.inUse ?? []) {
        const used = await q.query(`SELECT 1 FROM ${ref.table} WHERE ${ref.column} = $1 LIMIT 1`, [id]);
        if (used.rowCount) throw new AppError(ref.code);
      }
      for (const child of plan.children) await q.query(`DELETE FROM ${child.decl.table} WHERE ${child.decl.foreignKey} = $1`, [id]);
      await q.query(`DELETE FROM ${table} WHERE id = $1`, [id]);
    },
    optionParams: Object.fromEntries(
      plan.fields
        .filter((f) => filterKind(f) === 'eq')
        // "null" asks for rows without a value (the roots of a tree).
        .map((f) => [f.name, { anyOf: [optionParam(f), { type: 'string', const: 'null' }] }]),
    ),
    async options(q, query, me) {
      const params: unknown[] = [];
      const where = [scoped(plan, me, params)];
      for (const f of plan.fields) {
        const v = (query as Record<string, unknown>)[f.name];
        if (v === undefined || filterKind(f) !== 'eq') continue;
        if (v === 'null') where.push(`${plan.column(f.name)} IS NULL`);
        else {
          params.push(v);
          where.push(`${plan.column(f.name)} = $${params.length}`);
        }
      }
      const { rows } = await q.query<{ value: number; label: string }>(
        `SELECT t.id AS value, ${plan.column(decl.label)}::text AS label${plan.optionSelect} FROM ${table} t
          WHERE ${where.join(' AND ')} ORDER BY ${plan.list.defaultSort}`,
        params,
      );
      return rows;
    },
  };
}

/** An options query parameter of field `f`: bounded as its column is (an integer column's range, a text without NUL). */
function optionParam(f: FieldInfo): object {
  if (f.type === 'integer') return common('int32');
  if (f.type === 'string') return common('text');
  return { type: f.type };
}

function entityName(plan: TablePlan): string {
  return (RESOURCES[plan.resource].entity ?? plan.resource) as string;
}

/** A value a dictionary-backed field may hold: an enabled item of an enabled dictionary. */
async function refuseUnlisted(q: Queryable, field: string, code: string, value: unknown): Promise<void> {
  if (value === undefined || value === null) return;
  const { rowCount } = await q.query(
    `SELECT 1 FROM dictionary_item i JOIN dictionary d ON d.id = i.dictionary_id
      WHERE d.code = $1 AND d.status = 1 AND i.status = 1 AND i.value = $2`,
    [code, String(value)],
  );
  if (!rowCount) throw new AppError('UAA421', { detailKey: 'validation.select', field }, { field });
}

/** A check constraint between fields (an end after a start) refuses the field it names, as the schema would. */
async function checkedOr<T>(byConstraint: Record<string, string>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    const err = e as { code?: string; constraint?: string; message?: string };
    const field = err.code === '23514' ? Object.entries(byConstraint).find(([name]) => err.constraint === name || err.message?.includes(name))?.[1] : undefined;
    if (field) throw new AppError('UAA421', { detailKey: 'validation.invalid', field }, { field });
    throw e;
  }
}

/** A row may not become its own ancestor. */
async function refuseCycle(q: Queryable, plan: TablePlan, id: number, parentId: number): Promise<void> {
  const parent = snake(plan.decl.tree as string);
  const { rows } = await q.query<{ hit: boolean }>(
    `WITH RECURSIVE up(id, parent) AS (
       SELECT id, ${parent} FROM ${plan.decl.name} WHERE id = $2
       UNION SELECT t.id, t.${parent} FROM ${plan.decl.name} t JOIN up ON t.id = up.parent)
     SELECT EXISTS (SELECT 1 FROM up WHERE id = $1) AS hit`,
    [id, parentId],
  );
  if (rows[0]?.hit) throw new AppError('UAA421', { detailKey: 'validation.invalid', field: plan.decl.tree }, { field: plan.decl.tree });
}

/** Every table resource of the registry, each under its own base path. */
export default async function tableResources(fastify: FastifyInstance) {
  for (const [resource, entry] of Object.entries(RESOURCES)) {
    if (!entry.table) continue;
    const plan = planTable(resource, entry);
    await fastify.register(async (scope) => registerResource(scope, tableDef(plan)), { prefix: plan.prefix });
  }
}
