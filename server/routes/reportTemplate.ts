/**
 * /api/report/v1/template: report templates (spec section 3 "Templates", issue #8
 * item 4). Public templates belong to a hospital and are managed with the
 * publicTemplate rights within the data scope; private ones belong to their author,
 * who alone sees and manages them with the privateTemplate rights. Two class levels
 * (className1, className2) file them; a class is renamed over all its templates.
 * Names and classes are 1-16 characters (entities/template.json), unique within a
 * class of one hospital's public or one doctor's private templates (REPORT204).
 *
 *   GET  /template/tree?scope=public|private[&hospitalId]   class → class → templates
 *   POST /template/list                                     paged, filtered
 *   GET  /template/detail/:id    POST /template/save    POST /template/delete/:id
 *   POST /template/class/rename  {scope, hospitalId?, className1, className2?, name}
 * Touches report_template only.
 */
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { hasPermission } from '../identity/access';
import { requireHospital } from '../identity/scope';
import { AppError } from '../lib/errors';
import { listBodySchema, runList, type ListBody, type ListSpec } from '../lib/list';
import { ok, replies } from '../lib/reply';
import { dropNulls, uniqueOr } from '../lib/resource';
import { caller } from '../plugins/auth';
import type { Template } from '../../src/shared/generated/entities/template';
import { closed, common, idParams } from '../lib/schemas';

type Scope = Template['scope'];
type Right = 'view' | 'add' | 'edit' | 'delete';

const MODULE: Record<Scope, string> = { public: 'publicTemplate', private: 'privateTemplate' };
const UNIQUE = { report_template_name_key: 'REPORT204' };
/** A template as the tree, list, detail and save answer it: its fields and its hospital's name. */
const TEMPLATE = { allOf: [{ $ref: 'entities/template.json' }, { type: 'object', required: ['id'], properties: { hospitalName: { type: 'string' } } }] };
const templateReply = replies(TEMPLATE);
/** A class of the tree: its name and what it files. */
const treeClass = (children: object) => ({ type: 'object', required: ['name', 'children'], properties: { name: { type: 'string' }, children: { type: 'array', items: children } } });
const allKeys = (right: Right) => [`publicTemplate:${right}`, `privateTemplate:${right}`];

function may(me: AuthContext, scope: Scope, right: Right): boolean {
  return hasPermission(me.permissions, `${MODULE[scope]}:${right}`);
}

function assertMay(me: AuthContext, scope: Scope, right: Right): void {
  if (!may(me, scope, right)) throw new AppError('UAA103');
}

const SELECT = `t.id, t.scope, t.hospital_id AS "hospitalId", t.owner_id AS "ownerId", t.class_name1 AS "className1",
  t.class_name2 AS "className2", t.template_name AS "templateName", t.see, t.diagnosis, t.sort, o.name AS "hospitalName"`;
const FROM = 'report_template t LEFT JOIN org o ON o.id = t.hospital_id';

/**
 * The templates the caller may read, as a SQL condition: public ones of the hospitals
 * in scope (with the public view right), and their own private ones. Its values are
 * the session's integers, written as literals so the condition also serves as a
 * list's fixed `where`.
 */
function visible(me: AuthContext): string {
  const parts: string[] = [];
  if (may(me, 'public', 'view')) {
    const hospitals = me.scope.all ? 'TRUE' : `t.hospital_id IN (${me.scope.hospitalIds.map(Number).join(', ') || 'NULL'})`;
    parts.push(`(t.scope = 'public' AND ${hospitals})`);
  }
  if (may(me, 'private', 'view')) parts.push(`(t.scope = 'private' AND t.owner_id = ${Number(me.userId)})`);
  return parts.length ? `(${parts.join(' OR ')})` : 'FALSE';
}

async function templateRow(q: Queryable, id: number, me: AuthContext): Promise<Template & { id: number }> {
  const { rows } = await q.query<Template & { id: number }>(`SELECT ${SELECT} FROM ${FROM} WHERE t.id = $1 AND ${visible(me)}`, [id]);
  if (!rows[0]) throw new AppError('BDT104');
  return dropNulls(rows[0]);
}

export default async function reportTemplateRoutes(fastify: FastifyInstance) {
  fastify.get<{ Querystring: { scope: Scope; hospitalId?: number } }>(
    '/template/tree',
    {
      config: { permission: allKeys('view'), audit: 'none' },
      schema: {
        tags: ['report'],
        summary: "Templates of a scope as a tree: level 1 classes → level 2 classes → templates (public: the caller's hospital unless hospitalId names another in scope)",
        querystring: {
          type: 'object',
          required: ['scope'],
          properties: { scope: { $ref: 'codes/templateScope.json' }, hospitalId: common('id') },
        },
        response: replies({ type: 'array', items: treeClass(treeClass(TEMPLATE)) }),
      },
    },
    async (request) => {
      const me = caller(request);
      const { scope } = request.query;
      assertMay(me, scope, 'view');
      const params: unknown[] = [];
      let where: string;
      if (scope === 'public') {
        const hospitalId = request.query.hospitalId ?? me.hospitalId!;
        requireHospital(me.scope, hospitalId);
        params.push(hospitalId);
        where = `t.scope = 'public' AND t.hospital_id = $1`;
      } else {
        params.push(me.userId);
        where = `t.scope = 'private' AND t.owner_id = $1`;
      }
      const { rows } = await fastify.db.query<Template & { id: number }>(
        `SELECT ${SELECT} FROM ${FROM} WHERE ${where} ORDER BY t.class_name1, t.class_name2, t.sort, t.template_name, t.id`,
        params,
      );
      const tree: Array<{ name: string; children: Array<{ name: string; children: Array<Record<string, unknown>> }> }> = [];
      for (const row of rows) {
        let first = tree.find((c) => c.name === row.className1);
        if (!first) tree.push((first = { name: row.className1, children: [] }));
        let second = first.children.find((c) => c.name === row.className2);
        if (!second) first.children.push((second = { name: row.className2, children: [] }));
        second.children.push(dropNulls(row) as unknown as Record<string, unknown>);
      }
      return ok(tree);
    },
  );

  fastify.post<{ Body: ListBody }>(
    '/template/list',
    {
      config: { permission: allKeys('view'), audit: 'none' },
      schema: {
        tags: ['report'],
        summary: 'Templates the caller may read (public ones in scope, their own private ones), paged and filtered (scope, hospitalId, classes, name)',
        body: listBodySchema,
        // The tree's rows (the same SELECT), a page of them.
        response: replies(closed({ list: { type: 'array', items: TEMPLATE }, total: { type: 'integer' } })),
      },
    },
    async (request) => {
      const me = caller(request);
      const spec: ListSpec = {
        from: FROM,
        select: SELECT,
        columns: {
          id: 't.id',
          scope: 't.scope',
          hospitalId: 't.hospital_id',
          className1: 't.class_name1',
          className2: 't.class_name2',
          templateName: 't.template_name',
          sort: 't.sort',
        },
        filters: { scope: 'eq', hospitalId: 'id', className1: 'eq', className2: 'eq', templateName: 'like' },
        defaultSort: 't.scope, t.class_name1, t.class_name2, t.sort, t.template_name, t.id',
        where: visible(me),
      };
      const { list, total } = await runList<Record<string, unknown>>(fastify.db, spec, request.body ?? {}, undefined);
      return ok({ list: list.map(dropNulls), total });
    },
  );

  fastify.get<{ Params: { id: number } }>(
    '/template/detail/:id',
    {
      config: { permission: allKeys('view'), scoped: { resource: 'template', param: 'id' }, audit: 'none' },
      schema: { tags: ['report'], summary: 'One template the caller may read', params: idParams, response: templateReply },
    },
    async (request) => ok(await templateRow(fastify.db, request.params.id, caller(request))),
  );

  fastify.post<{ Body: Template }>(
    '/template/save',
    {
      config: { permission: [...allKeys('add'), ...allKeys('edit')], audit: { action: 'save', object: 'template', id: 'reply' } },
      schema: {
        tags: ['report'],
        summary: "Create (no id) or update a template: public ones for a hospital in scope (the caller's by default), private ones for the caller",
        body: { $ref: 'entities/template.json' },
        response: templateReply,
      },
    },
    async (request) => {
      const me = caller(request);
      const body = request.body as Template & { id?: number };
      const id = await fastify.db.tx(async (q) => {
        if (body.id) {
          const before = await templateRow(q, body.id, me);
          // A template stays public or private: moving it between the two is a new template.
          if (before.scope !== body.scope) throw new AppError('UAA421', { detailKey: 'validation.invalid', field: 'scope' }, { field: 'scope' });
        }
        assertMay(me, body.scope, body.id ? 'edit' : 'add');
        let hospitalId: number | null = null;
        if (body.scope === 'public') {
          hospitalId = body.hospitalId ?? me.hospitalId!;
          requireHospital(me.scope, hospitalId);
        }
        const values = [body.scope, hospitalId, body.scope === 'private' ? me.userId : null, body.className1, body.className2, body.templateName, body.see ?? null, body.diagnosis ?? null, body.sort ?? 0];
        return uniqueOr(async () => {
          if (body.id) {
            await q.query(
              `UPDATE report_template SET scope = $2, hospital_id = $3, owner_id = $4, class_name1 = $5, class_name2 = $6, template_name = $7,
                      see = $8, diagnosis = $9, sort = $10, updated_at = now() WHERE id = $1`,
              [body.id, ...values],
            );
            return body.id;
          }
          const { rows } = await q.query<{ id: number }>(
            `INSERT INTO report_template (scope, hospital_id, owner_id, class_name1, class_name2, template_name, see, diagnosis, sort)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
            values,
          );
          return rows[0].id;
        }, UNIQUE);
      });
      return ok(await templateRow(fastify.db, id, me));
    },
  );

  fastify.post<{ Params: { id: number } }>(
    '/template/delete/:id',
    {
      config: { permission: allKeys('delete'), scoped: { resource: 'template', param: 'id' }, audit: { action: 'delete', object: 'template', id: 'params.id' } },
      schema: { tags: ['report'], summary: 'Delete a template', params: idParams, response: replies({ type: 'null' }) },
    },
    async (request) => {
      const me = caller(request);
      await fastify.db.tx(async (q) => {
        const row = await templateRow(q, request.params.id, me);
        assertMay(me, row.scope, 'delete');
        if (row.scope === 'public') requireHospital(me.scope, row.hospitalId!);
        await q.query('DELETE FROM report_template WHERE id = $1', [row.id]);
      });
      return ok(null);
    },
  );

  fastify.post<{ Body: { scope: Scope; hospitalId?: number; className1: string; className2?: string; name: string } }>(
    '/template/class/rename',
    {
      config: { permission: allKeys('edit'), audit: { action: 'update', object: 'templateClass' } },
      schema: {
        tags: ['report'],
        summary: 'Rename a level 1 class (className1), or a level 2 class (className1 + className2), over every template filed under it',
        body: {
          type: 'object',
          required: ['scope', 'className1', 'name'],
          properties: {
            scope: { $ref: 'codes/templateScope.json' },
            hospitalId: common('id'),
            className1: { $ref: 'common.json#/definitions/text16' },
            className2: { $ref: 'common.json#/definitions/text16' },
            name: { $ref: 'common.json#/definitions/text16' },
          },
          additionalProperties: false,
        },
        response: replies({ type: 'object', properties: { updated: { type: 'integer' } } }),
      },
    },
    async (request) => {
      const me = caller(request);
      const { scope, className1, className2, name } = request.body;
      assertMay(me, scope, 'edit');
      const params: unknown[] = [className1, name];
      let owner: string;
      if (scope === 'public') {
        const hospitalId = request.body.hospitalId ?? me.hospitalId!;
        requireHospital(me.scope, hospitalId);
        params.push(hospitalId);
        owner = `scope = 'public' AND hospital_id = $3`;
      } else {
        params.push(me.userId);
        owner = `scope = 'private' AND owner_id = $3`;
      }
      let sql = `UPDATE report_template SET class_name1 = $2, updated_at = now() WHERE ${owner} AND class_name1 = $1`;
      if (className2 !== undefined) {
        params.push(className2);
        sql = `UPDATE report_template SET class_name2 = $2, updated_at = now() WHERE ${owner} AND class_name1 = $1 AND class_name2 = $4`;
      }
      const updated = await fastify.db.tx((q) => uniqueOr(async () => (await q.query(sql, params)).rowCount, UNIQUE));
      if (!updated) throw new AppError('BDT104');
      return ok({ updated });
    },
  );
}
