/**
 * The server half of the resource contract the generic admin screens use
 * (react-admin's data provider, by resource): for a base path it registers
 *   POST {base}/list  GET {base}/detail/:id  POST {base}/save  POST {base}/delete/:id  GET {base}/options
 * with their permissions (module:view/add/edit/delete), schemas by $ref and the
 * caller's data scope. A resource supplies only its SQL and its rules.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { hasPermission } from '../identity/access';
import { hasRegionScope } from '../identity/grants';
import { caller } from './http';
import type { AuditDeclaration } from '../audit/declaration';
import type { PatientRef } from '../audit/trail';
import { AppError } from './errors';
import { listBodySchema, runList, type ListBody, type ListSpec } from './list';
import { ok, replies } from './reply';
import { idParams } from './schemas';

export interface ResourceDef<T extends { id?: number }> {
  /** Path under the service prefix, e.g. "user". */
  path: string;
  tag: string;
  /** Permission module, e.g. "system.user". */
  module: string;
  /**
   * The audit trail's object type; with `patient`, rows are patient data: lists are
   * recorded as searches and each detail as a read of that patient. Saves and deletes
   * are always recorded (configuration and identity changes); `reads` records lists and
   * details of a resource that is no patient data but is watched (the audit trail itself).
   */
  audit: { object: string; patient?: PatientRef; reads?: boolean };
  /** The module's action names for the four rights, where they are not view/add/edit/delete (e.g. registration's modifyExam). */
  actions?: { view?: string; add?: string; edit?: string; delete?: string };
  /** $id of the entity schema, e.g. "entities/user.json". */
  entity: string;
  /** Rows belong to hospitals (default); false for region-wide data such as roles. */
  hospitalScoped?: boolean;
  /** Region-owned rows (dictionaries, exam parts, QC rules): saved and deleted only with region scope, and listed as readOnly to others. */
  regionWide?: boolean;
  /** Code for "no such row (or not yours)". */
  notFound: string;
  list: ListSpec;
  /** Refuses a list call whose body the resource cannot answer (a required filter missing), before any query. */
  checkList?(request: FastifyRequest, body: ListBody): void;
  /** Replaces the plain paged query of `list` (e.g. a tree that nests children). */
  listRows?(q: Queryable, body: ListBody, me: AuthContext, lang: string): Promise<{ list: Array<Record<string, unknown>>; total: number }>;
  /** One row by id within the caller's scope, or undefined; `lang` for texts the server writes into it. */
  get(q: Queryable, id: number, me: AuthContext, lang?: string): Promise<T | undefined>;
  /** Creates or updates (body.id) in a transaction; returns the id. Absent for a read-only resource (no save call). */
  save?(q: Queryable, body: T, me: AuthContext): Promise<number>;
  /** Absent when the resource deletes by calls of its own (no delete call). */
  remove?(q: Queryable, id: number, me: AuthContext): Promise<void>;
  options?(q: Queryable, query: Record<string, string>, me: AuthContext): Promise<Array<{ value: number | string; label: string; [field: string]: unknown }>>;
  /** Query parameters the options call accepts. */
  optionParams?: Record<string, object>;
}


export function registerResource<T extends { id?: number }>(fastify: FastifyInstance, def: ResourceDef<T>) {
  const base = `/${def.path}`;
  const right = { view: 'view', add: 'add', edit: 'edit', delete: 'delete', ...def.actions };
  const entity = { $ref: def.entity };
  const scoped = def.hospitalScoped === false ? undefined : { resource: def.path, param: 'id' };
  const regionWide = def.regionWide || undefined;
  const { object, patient } = def.audit;
  const audit: Record<'list' | 'detail' | 'save' | 'delete', AuditDeclaration> = {
    list: patient || def.audit.reads ? { action: 'search', object } : 'none',
    detail: patient || def.audit.reads ? { action: 'read', object, id: 'params.id', patient } : 'none',
    save: { action: 'save', object, id: 'reply', patient },
    delete: { action: 'delete', object, id: 'params.id', patient },
  };
  const load = async (q: Queryable, id: number, me: AuthContext, lang?: string) => {
    const row = await def.get(q, id, me, lang);
    if (!row) throw new AppError(def.notFound);
    return dropNulls(row);
  };

  fastify.post<{ Body: ListBody }>(
    `${base}/list`,
    {
      config: { permission: `${def.module}:${right.view}`, audit: audit.list },
      schema: {
        tags: [def.tag],
        summary: `List ${def.path} (paged, sorted, filtered, within the data scope)`,
        body: listBodySchema,
        response: replies({
          type: 'object',
          properties: {
            // A generic resource's rows are what its ListSpec selects (and its view decides), not one schema per resource here.
            list: { type: 'array', items: { type: 'object', additionalProperties: true } },
            total: { type: 'integer' },
            // The caller may change none of the rows (region-owned, without region scope): the screen offers no add, edit or delete.
            readOnly: { type: 'boolean' },
          },
        }),
      },
    },
    async (request) => {
      const body = request.body ?? {};
      def.checkList?.(request, body);
      const me = caller(request);
      const readOnly = regionWide && !hasRegionScope(me.scope) ? { readOnly: true } : {};
      if (def.listRows) return ok({ ...(await def.listRows(fastify.db, body, me, request.lang)), ...readOnly });
      const { list, total } = await runList(fastify.db, def.list, body, me.scope);
      return ok({ list: list.map(dropNulls), total, ...readOnly });
    },
  );

  fastify.get<{ Params: { id: number } }>(
    `${base}/detail/:id`,
    {
      config: { permission: `${def.module}:${right.view}`, scoped, audit: audit.detail },
      // Open like the list's rows: the resource's own get() decides the row.
      schema: { tags: [def.tag], summary: `One ${def.path}`, params: idParams, response: replies({ type: 'object', additionalProperties: true }) },
    },
    async (request) => ok(await load(fastify.db, request.params.id, caller(request), request.lang)),
  );

  const { save, remove } = def;
  if (save) fastify.post<{ Body: T }>(
    `${base}/save`,
    {
      // Creating and editing are separate rights; the handler checks the one that applies.
      config: { permission: [`${def.module}:${right.add}`, `${def.module}:${right.edit}`], regionScope: regionWide, audit: audit.save },
      schema: {
        tags: [def.tag],
        summary: `Create (no id) or update ${def.path}`,
        body: entity,
        // The saved row as the resource's save() answers it (open for the same reason as the detail).
        response: replies({ type: 'object', additionalProperties: true }),
      },
    },
    async (request) => {
      const me = caller(request);
      const body = request.body as T;
      if (!hasPermission(me.permissions, `${def.module}:${body.id ? right.edit : right.add}`)) throw new AppError('UAA103');
      const id = await fastify.db.tx(async (q) => {
        if (body.id) await load(q, body.id, me);
        return save(q, body, me);
      });
      return ok(await load(fastify.db, id, me));
    },
  );

  if (remove) fastify.post<{ Params: { id: number } }>(
    `${base}/delete/:id`,
    {
      config: { permission: `${def.module}:${right.delete}`, scoped, regionScope: regionWide, audit: audit.delete },
      schema: { tags: [def.tag], summary: `Delete ${def.path}`, params: idParams, response: replies({ type: 'null' }) },
    },
    async (request) => {
      const me = caller(request);
      await fastify.db.tx(async (q) => {
        await load(q, request.params.id, me);
        await remove(q, request.params.id, me);
      });
      return ok(null);
    },
  );

  if (def.options) {
    const options = def.options;
    fastify.get<{ Querystring: Record<string, string> }>(
      `${base}/options`,
      {
        config: { session: true, audit: 'none' },
        schema: {
          tags: [def.tag],
          summary: `${def.path} as {value, label} options within the data scope (plus the registry's optionFields)`,
          querystring: { type: 'object', properties: def.optionParams ?? {} },
          response: replies({
            type: 'array',
            items: {
              type: 'object',
              properties: { value: { type: ['integer', 'string'] }, label: { type: 'string' } },
              // A table resource's optionFields (config/resources.json), e.g. an exam item's price.
              additionalProperties: { type: ['integer', 'number', 'string', 'boolean', 'null'] },
            },
          }),
        },
      },
      async (request: FastifyRequest<{ Querystring: Record<string, string> }>) => ok(await options(fastify.db, request.query, caller(request))),
    );
  }
}

/**
 * An empty optional field is absent rather than null, so what the API sends back
 * validates against the same entity schema when a form saves it again.
 */
export function dropNulls<T extends object>(row: T): T {
  // A plain loop: every list row of every answer goes through here (20 to 100 a page).
  const out: Record<string, unknown> = {};
  for (const key in row) {
    const v = row[key] as unknown;
    if (v === null) continue;
    // A tree's rows nest their children (tableResource): those go out the same way.
    out[key] = key === 'children' && Array.isArray(v) ? v.map((c) => dropNulls(c as object)) : v;
  }
  return out as T;
}

/** Maps a unique-constraint violation to a catalogue code by constraint name. */
export async function uniqueOr<T>(work: () => Promise<T>, byConstraint: Record<string, string>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    const err = e as { code?: string; constraint?: string; message?: string };
    if (err.code === '23505') {
      const hit = Object.entries(byConstraint).find(([name]) => err.constraint === name || err.message?.includes(name));
      if (hit) throw new AppError(hit[1]);
    }
    throw e;
  }
}
