/**
 * /api/report/v1/crisisValue: critical-value notices (server/report/crisis.ts), the
 * generic resource contract's read calls plus the acknowledgement, registered from
 * ./report.ts. The notices themselves are made by report saves and submits.
 *
 *   POST /crisisValue/list               report:view   paged; the waiting ones unless filters.acknowledged says otherwise
 *   GET  /crisisValue/detail/:id         report:view
 *   POST /crisisValue/acknowledge/:id    report:crisisAcknowledge   once; REPORT102 when already acknowledged
 */
import type { FastifyInstance } from 'fastify';
import { ok, replies } from '../lib/reply';
import { dropNulls, registerResource } from '../lib/resource';
import { caller } from '../plugins/auth';
import { ACKNOWLEDGE_RIGHT, acknowledgeCrisis, CRISIS_LIST, crisisRow, listCrisis } from '../report/crisis';
import { rowMasker } from '../identity/gradeSafety';
import { idParams } from '../lib/schemas';


export default async function reportCrisisRoutes(fastify: FastifyInstance) {
  registerResource<{ id?: number }>(fastify, {
    path: 'crisisValue',
    tag: 'report',
    module: 'report',
    audit: { object: 'crisisValue' },
    entity: 'entities/crisisValue.json',
    notFound: 'REPORT004',
    list: CRISIS_LIST,
    async listRows(q, body, me) {
      const { list, total } = await listCrisis(q, body, me);
      const mask = await rowMasker(q, me);
      return { list: list.map((row) => mask(dropNulls(row))), total };
    },
    async get(q, id, me) {
      const row = await crisisRow(q, id, me);
      return row && (await rowMasker(q, me))(row);
    },
  });

  fastify.post<{ Params: { id: number } }>(
    '/crisisValue/acknowledge/:id',
    {
      config: { permission: ACKNOWLEDGE_RIGHT, scoped: { resource: 'crisisValue', param: 'id' }, audit: { action: 'update', object: 'crisisValue', id: 'params.id' } },
      schema: {
        tags: ['report'],
        summary: 'Acknowledge a critical-value notice addressed to the caller’s department (who, when); a second acknowledgement is refused (REPORT102)',
        params: idParams,
        // The notice as its detail reads, now with who acknowledged it and when.
        response: replies({ $ref: 'entities/crisisValue.json' }),
      },
    },
    async (request) => {
      const me = caller(request);
      await acknowledgeCrisis(fastify.db, request.params.id, me);
      return ok(dropNulls((await crisisRow(fastify.db, request.params.id, me)) ?? {}));
    },
  );
}
