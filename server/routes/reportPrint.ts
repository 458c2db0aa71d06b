/**
 * Report printing under /api/report/v1 (issue #8, item 6). Printing one report is the
 * workflow action `print` (POST /report/print/:id, declared in
 * config/workflows/report.json and routed with the other actions); here:
 *
 *   GET  /print/layout/:id          the printed sheet of a report: its hospital's layout, the items' values, signatures (REPORT301: no layout)
 *   POST /report/batchPrint         {ids} → {printed: ids, refused: [{id, status, message}]}: `print` on each
 *   /printLayout/{list,detail/:id,save,delete/:id,options}   the layouts and their hospitals (reportPage rights; /qualityControl)
 *   GET  /printLayout/mapping       the hospitals of the caller's scope and their layouts
 *   POST /printLayout/mapping       {hospitalId, layoutId|null}: one hospital's layout
 *   /printSignature/{list,detail/:id,save}   whether a doctor's uploaded signature may print
 *   GET  /printSignature/image/:id  that signature's picture
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/errors';
import { refusals } from '../lib/http';
import { ok, replies } from '../lib/reply';
import { registerResource } from '../lib/resource';
import { caller } from '../plugins/auth';
import { BATCH_BODY, BATCH_REFUSED, loadReport, performEach } from '../report/engine';
import { getLayout, LAYOUT_LIST, layoutOptions, mappingList, removeLayout, saveLayout, saveMapping, type PrintLayout } from '../report/printLayouts';
import { assertMayPreview, getSignature, printSheet, saveSignature, signatureKey, signatureListSpec } from '../report/printSheet';
import type { PrintSignature } from '../../src/shared/generated/entities/printSignature';
import { common, idParams } from '../lib/schemas';


export default async function reportPrintRoutes(fastify: FastifyInstance) {
  fastify.get<{ Params: { id: number } }>(
    '/print/layout/:id',
    {
      config: {
        permission: ['report:view', 'remote:view', 'myReport:view', 'report:print', 'remote:print'],
        scoped: { resource: 'report', param: 'id' },
        audit: { action: 'read', object: 'printSheet', id: 'params.id', patient: 'exam' },
      },
      schema: {
        tags: ['report'],
        summary:
          "The printed sheet of the report of exam :id: {layout (entities/printLayout.json), report {id, reportState, version, printNumber, reportPrintState, hospitalName, canPrint}, values by print item, signatures {firstTrialDoctorName, retrialDoctorName: {name, active, image?}}}; REPORT301 when the report's hospital has no layout",
        params: idParams,
        response: replies({ $ref: 'printSheet.json' }),
      },
    },
    async (request) => {
      const me = caller(request);
      const report = await loadReport(fastify.db, request.params.id, me);
      assertMayPreview(report, me);
      return ok(await printSheet(fastify.db, fastify.storage, report, me));
    },
  );

  fastify.post<{ Body: { ids: number[] } }>(
    '/report/batchPrint',
    {
      config: { permission: 'report:batchPrint', audit: { action: 'print', object: 'report', id: 'body.ids' } },
      schema: {
        tags: ['report'],
        summary: 'Print several approved reports: the workflow action "print" on each, judged alone (its right, state and layout) → {printed: ids, refused: [{id, status, message}]}',
        body: BATCH_BODY,
        response: replies({
          type: 'object',
          required: ['printed', 'refused'],
          properties: {
            printed: { type: 'array', items: { type: 'integer' } },
            refused: BATCH_REFUSED,
          },
        }),
      },
    },
    async (request) => {
      const me = caller(request);
      // Each at the version read now: a batch prints the reports as the list shows them.
      const { done, refused } = await performEach(fastify.db, me, request.body.ids, 'print', async (id) => ({ version: (await loadReport(fastify.db, id, me)).version }));
      return ok({ printed: done, refused: refusals(request, refused) });
    },
  );

  // Layouts are the region's: the hospitals a caller's scope covers decide what they may change (printLayouts.saveLayout).
  registerResource<PrintLayout & { id?: number }>(fastify, {
    path: 'printLayout',
    tag: 'report',
    module: 'reportPage',
    audit: { object: 'printLayout' },
    actions: { add: 'edit', delete: 'edit' },
    entity: 'entities/printLayout.json',
    hospitalScoped: false,
    notFound: 'BDT104',
    list: LAYOUT_LIST,
    get: (q, id, me) => getLayout(q, id, me),
    save: (q, body, me) => saveLayout(q, body, me),
    remove: (q, id) => removeLayout(q, id),
    options: (q) => layoutOptions(q),
  });

  const mappingItem = {
    type: 'object',
    properties: { hospitalId: { type: 'integer' }, hospitalCode: { type: 'string' }, hospitalName: { type: 'string' }, layoutId: { type: 'integer' }, layoutName: { type: 'string' } },
  };
  fastify.get(
    '/printLayout/mapping',
    {
      config: { permission: 'reportPage:view', audit: 'none' },
      schema: { tags: ['report'], summary: "The hospitals of the caller's scope and the layout each prints with (absent: none)", response: replies({ type: 'object', properties: { list: { type: 'array', items: mappingItem } } }) },
    },
    async (request) => ok({ list: await mappingList(fastify.db, caller(request)) }),
  );

  fastify.post<{ Body: { hospitalId: number; layoutId: number | null } }>(
    '/printLayout/mapping',
    {
      config: { permission: 'reportPage:edit', audit: { action: 'configure', object: 'printLayoutMapping', id: 'body.hospitalId' } },
      schema: {
        tags: ['report'],
        summary: "Set the layout a hospital of the caller's scope prints with (layoutId null: none, printing then refuses)",
        body: {
          type: 'object',
          required: ['hospitalId', 'layoutId'],
          properties: { hospitalId: common('id'), layoutId: { anyOf: [common('id'), { type: 'null' }] } },
          additionalProperties: false,
        },
        response: replies({ type: 'object', properties: { list: { type: 'array', items: mappingItem } } }),
      },
    },
    async (request) => {
      const me = caller(request);
      await fastify.db.tx((q) => saveMapping(q, request.body.hospitalId, request.body.layoutId, me));
      return ok({ list: await mappingList(fastify.db, me) });
    },
  );

  registerResource<PrintSignature>(fastify, {
    path: 'printSignature',
    tag: 'report',
    module: 'reportPage',
    audit: { object: 'printSignature' },
    actions: { add: 'edit' },
    entity: 'entities/printSignature.json',
    // Users belong to hospitals through memberships: the list and get say which the caller sees.
    hospitalScoped: false,
    notFound: 'UCENTER006',
    list: signatureListSpec,
    get: (q, id, me) => getSignature(q, id, me) as Promise<PrintSignature | undefined>,
    async save(q, body, me) {
      // Only an existing signature of a doctor in scope (the resource's save loads it first when id is given).
      if (!(await getSignature(q, body.id, me))) throw new AppError('UCENTER006');
      await saveSignature(q, body.id, body.active);
      return body.id;
    },
  });

  fastify.get<{ Params: { id: number } }>(
    '/printSignature/image/:id',
    {
      config: { permission: 'reportPage:view', scoped: { resource: 'user', param: 'id' }, audit: 'none' },
      schema: { tags: ['report'], summary: "A doctor's signature picture (a doctor of the caller's hospitals), to check it before it prints", params: idParams },
    },
    async (request, reply) => {
      const key = await signatureKey(fastify.db, request.params.id, caller(request));
      if (!key) throw new AppError('UCENTER006');
      return reply.type(key.endsWith('.png') ? 'image/png' : 'image/jpeg').send(await fastify.storage.get(key));
    },
  );
}
