/**
 * Exports as background jobs (spec sections 2, 5, 9: the exam-list export covers at
 * most 31 days; the file is ready on the export list a while later).
 *   POST /exam/export            registration:export  {filters} → {id}, queued at once
 *   GET  /export/list            session               the caller's own jobs, newest first
 *   GET  /export/download/:id    session               the caller's own finished file; records the download
 * The worker (../export/jobs.ts) runs in this process from ready to close. Touches
 * export_job and the storage keys under exports/.
 */
import type { FastifyInstance } from 'fastify';
import { hasPermission } from '../identity/access';
import { AppError } from '../lib/errors';
import { listBodySchema } from '../lib/list';
import { ok, replies } from '../lib/reply';
import { caller } from '../plugins/auth';
import { requireRange } from '../lib/rangeFilter';
import { ExportWorker, registerExportSource, type ExportState } from '../export/jobs';
import { examListQuery } from '../exam/domain';

// The exam list's export: the list's columns and masking, newest registration first.
registerExportSource('exam', { view: 'exam', fileTitle: 'menu.examination', query: examListQuery, keyset: { at: 'e.created_at', id: 'e.id' }, masked: true });
import { idParams } from '../lib/schemas';

/** Spec section 9: an exam-list export covers at most 31 days. */
export const EXPORT_MAX_DAYS = 31;

const jobSchema = {
  type: 'object',
  // Nulls are dropped from a job's row: the columns set later (rows_total, file_name, finished_at, downloaded_at) may be absent.
  required: ['id', 'kind', 'state', 'rowsDone', 'createdAt'],
  properties: {
    id: { type: 'integer' },
    kind: { type: 'string' },
    state: { type: 'string', enum: ['queued', 'running', 'done', 'failed'] },
    rowsDone: { type: 'integer' },
    rowsTotal: { type: 'integer' },
    fileName: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: 'string', format: 'date-time' },
    downloadedAt: { type: 'string', format: 'date-time' },
  },
};

export default async function exportRoutes(fastify: FastifyInstance) {
  const worker = new ExportWorker(() => fastify.db, fastify.storage, { log: fastify.log });
  fastify.background.add('exports', () => worker.start());
  fastify.addHook('onClose', async () => worker.stop());

  fastify.post<{ Body: { filters?: Record<string, unknown> } }>(
    '/exam/export',
    {
      config: { permission: 'registration:export', audit: { action: 'export', object: 'exam', id: 'reply' } },
      schema: {
        tags: ['ris'],
        summary: `Queue an export of the exam list for its filters (createdAt required, at most ${EXPORT_MAX_DAYS} days); answers the job id at once`,
        body: { ...listBodySchema, required: ['filters'] },
        response: replies({ type: 'object', properties: { id: { type: 'integer' }, state: { type: 'string' } } }),
      },
    },
    async (request) => {
      const me = caller(request);
      const filters = request.body.filters ?? {};
      requireRange(request, filters, 'exam', 'createdAt', EXPORT_MAX_DAYS);
      // The requester's scope and right to plain identifiers as they are now: the file
      // holds what the list showed them when they asked.
      const { rows } = await fastify.db.query<{ id: number; state: ExportState }>(
        `INSERT INTO export_job (user_id, kind, lang, filters, scope, sees_plain) VALUES ($1, 'exam', $2, $3::jsonb, $4::jsonb, $5) RETURNING id, state`,
        [me.userId, request.lang, JSON.stringify(filters), JSON.stringify(me.scope), hasPermission(me.permissions, 'privacy:phoneVisible')],
      );
      worker.kick();
      return ok(rows[0]);
    },
  );

  fastify.get(
    '/export/list',
    {
      config: { session: true, audit: 'none' },
      schema: {
        tags: ['ris'],
        summary: "The caller's own export jobs, newest first, with their progress",
        response: replies({ type: 'object', required: ['list', 'total'], properties: { list: { type: 'array', items: jobSchema }, total: { type: 'integer' } } }),
      },
    },
    async (request) => {
      const me = caller(request);
      const { rows } = await fastify.db.query<Record<string, unknown>>(
        `SELECT id, kind, state, rows_done AS "rowsDone", rows_total AS "rowsTotal", file_name AS "fileName",
                created_at AS "createdAt", finished_at AS "finishedAt", downloaded_at AS "downloadedAt"
           FROM export_job WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT 100`,
        [me.userId],
      );
      const list = rows.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null)));
      return ok({ list, total: list.length });
    },
  );

  fastify.get<{ Params: { id: number } }>(
    '/export/download/:id',
    {
      config: { session: true, audit: { action: 'download', object: 'export', id: 'params.id' } },
      schema: {
        tags: ['ris'],
        summary: "The file of one of the caller's finished exports (.xlsx); records when it was downloaded",
        params: idParams,
      },
    },
    async (request, reply) => {
      const me = caller(request);
      // Someone else's job answers as a missing one: its existence is not the caller's business.
      const { rows } = await fastify.db.query<{ file_key: string; file_name: string }>(
        `UPDATE export_job SET downloaded_at = now() WHERE id = $1 AND user_id = $2 AND state = 'done' RETURNING file_key, file_name`,
        [request.params.id, me.userId],
      );
      const job = rows[0];
      if (!job || (await fastify.storage.stat(job.file_key)) === undefined) throw new AppError('UCENTER001');
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('Content-Disposition', `attachment; filename="export-${request.params.id}.xlsx"; filename*=UTF-8''${encodeURIComponent(job.file_name)}`)
        .send(await fastify.storage.get(job.file_key));
    },
  );
}
