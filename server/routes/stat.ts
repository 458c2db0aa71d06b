/**
 * /api/stat/v1: the declared statistics views (schemas/stats/*.json, run by
 * server/stats). Two routes per view, each with the view's own permission key:
 *   POST /<view>          {range, dimension?, series?, measures?, filters?} → rows, totals
 *   POST /<view>/export   the same body → the rows as .xlsx (the view's export right),
 *                         also recorded as a finished job on the export list
 * Both are cut to the caller's data scope by the compiler; a name the view does not
 * declare, a missing or too long range, or a bad filter value answers UAA421 naming it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors';
import { ok, replies } from '../lib/reply';
import { caller } from '../plugins/auth';
import { t } from '../plugins/platform';
import { recordFinishedExport } from '../export/jobs';
import { runStats, statsWorkbook, StatsRefusal, STATS_VIEWS, type StatsQuery } from '../stats';

const NAME = { type: 'string', pattern: '^[a-z][A-Za-z0-9]*$', maxLength: 40 };
const SCALAR = { anyOf: [{ type: 'integer' }, { type: 'string', maxLength: 64 }] };

const BODY = {
  type: 'object',
  required: ['range'],
  properties: {
    range: { type: 'array', items: { type: 'string', maxLength: 40 }, maxItems: 2, description: '[from, to) instants' },
    dimension: NAME,
    series: { anyOf: [NAME, { type: 'string', maxLength: 0 }] },
    measures: { type: 'array', items: NAME, maxItems: 20 },
    filters: { type: 'object', additionalProperties: { anyOf: [SCALAR, { type: 'array', items: SCALAR, maxItems: 100 }] } },
  },
  additionalProperties: false,
};

const KEY = { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] };
const ANSWER = {
  type: 'object',
  required: ['dimension', 'measures', 'rows', 'totals'],
  properties: {
    dimension: { type: 'string' },
    series: { type: 'string' },
    measures: { type: 'array', items: { type: 'string' } },
    rows: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'label', 'values'],
        properties: {
          key: KEY,
          label: { type: 'string' },
          seriesKey: KEY,
          seriesLabel: { type: 'string' },
          values: { type: 'object', additionalProperties: { type: ['number', 'null'] } },
        },
      },
    },
    totals: { type: 'object', additionalProperties: { type: ['number', 'null'] } },
  },
};

/** A refusal of the compiler as the catalogue's invalid-parameters answer, the field named as the query bar names it. */
function refused(request: FastifyRequest, e: StatsRefusal): AppError {
  const field = t(request, `stats.field.${e.field.replace(/^filters\./, '')}`);
  const detail = t(request, `validation.${e.reason}`, { field, limit: e.limit });
  return new AppError('UAA421', { detail }, { field: e.field, detail });
}

export default async function statRoutes(fastify: FastifyInstance) {
  for (const [name, view] of Object.entries(STATS_VIEWS)) {
    const run = async (request: FastifyRequest<{ Body: StatsQuery }>) => {
      const me = caller(request);
      try {
        return await runStats(fastify.db, view, request.body, me, request.lang);
      } catch (e) {
        throw e instanceof StatsRefusal ? refused(request, e) : e;
      }
    };
    fastify.post<{ Body: StatsQuery }>(
      `/${name}`,
      {
        config: { permission: view.permission, audit: { action: 'search', object: 'statistics' } },
        schema: { tags: ['stat'], summary: `Statistics ${name}: the measures grouped by the dimension (and series) over the range, in the caller's data scope`, body: BODY, response: replies(ANSWER) },
      },
      async (request) => ok(await run(request)),
    );
    if (!view.export) continue;
    fastify.post<{ Body: StatsQuery }>(
      `/${name}/export`,
      {
        config: { permission: view.export, audit: { action: 'export', object: 'statistics' } },
        schema: { tags: ['stat'], summary: `Statistics ${name} as .xlsx (the same rows and totals)`, body: BODY },
      },
      async (request, reply) => {
        const me = caller(request);
        const answer = await run(request);
        const title = t(request, `stats.${name}.title`);
        const fileName = `${title}.xlsx`;
        const file = await statsWorkbook(name, view, answer, request.lang);
        // Recorded on the export list (/exportReportList) like every other export.
        await recordFinishedExport(fastify.db, fastify.storage, { userId: me.userId, kind: 'stats', lang: request.lang, filters: { view: name, ...request.body }, scope: me.scope, fileName: title, rows: answer.rows.length }, file);
        return reply
          .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
          .header('Content-Disposition', `attachment; filename="${name}.xlsx"; filename*=UTF-8''${encodeURIComponent(fileName)}`)
          .send(file);
      },
    );
  }
}
