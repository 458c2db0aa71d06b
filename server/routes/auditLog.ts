/**
 * The auditor's reading of the audit trail (/auditLog, module `audit`):
 *   POST auditLog/list     audit:view    the records of a time range (required), filtered, newest first
 *   GET  auditLog/detail   audit:view    one record
 *   POST auditLog/export   audit:export  {filters} → a background Excel export (the export list offers the file)
 * Only records of hospitals in the caller's data scope; a record without a hospital (a
 * refused request without a session, a login with an unknown mobile) only with all data.
 * Reading and exporting the trail are audited themselves. Touches audit_log (read) and
 * export_job (insert).
 */
import type { FastifyInstance } from 'fastify';
import { listBodySchema, runList, type ListBody, type ListSpec } from '../lib/list';
import { requireRange } from '../lib/rangeFilter';
import { ok, replies } from '../lib/reply';
import { registerResource } from '../lib/resource';
import { caller } from '../plugins/auth';
import { registerExportSource } from '../export/jobs';

const SELECT = [
  // bigserial: exact as a double far beyond any region's volume, and a number as the entity says.
  'a.id::float8 AS id',
  'a.at',
  'a.last_at AS "lastAt"',
  'a.count',
  'a.user_id AS "userId"',
  'a.user_name AS "userName"',
  'a.mobile',
  'a.hospital_id AS "hospitalId"',
  'a.hospital_name AS "hospitalName"',
  'a.action',
  'a.object_type AS "objectType"',
  'a.object_id AS "objectId"',
  'a.patient_id AS "patientId"',
  'a.patient_name AS "patientName"',
  'a.outcome',
  'a.code',
  'a.http_status AS "httpStatus"',
  'a.ip',
  'a.method',
  'a.route',
  'a.request_id AS "requestId"',
].join(', ');

export const AUDIT_LIST: ListSpec = {
  from: 'audit_log a',
  select: SELECT,
  columns: {
    at: 'a.at',
    userName: 'a.user_name',
    mobile: 'a.mobile',
    hospitalId: 'a.hospital_id',
    action: 'a.action',
    objectType: 'a.object_type',
    objectId: 'a.object_id',
    outcome: 'a.outcome',
    code: 'a.code',
    ip: 'a.ip',
  },
  filters: { at: 'range', userName: 'like', mobile: 'like', hospitalId: 'id', action: 'in', objectType: 'eq', objectId: 'eq', outcome: 'eq', code: 'eq', ip: 'like' },
  customFilters: {
    // A patient id exactly, or part of a name.
    patient: (p) => `(a.patient_id = ${p} OR a.patient_name ILIKE '%' || replace(replace(replace(${p}, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%')`,
  },
  defaultSort: 'a.at DESC, a.id DESC',
  scope: { hospitalColumn: 'a.hospital_id' },
};

registerExportSource('audit', { view: 'auditLog', fileTitle: 'menu.auditLog', query: (filters) => ({ spec: AUDIT_LIST, filters }), keyset: { at: 'a.at', id: 'a.id' }, masked: false });

export default async function auditLogRoutes(fastify: FastifyInstance) {
  registerResource<{ id?: number }>(fastify, {
    path: 'auditLog',
    tag: 'ucenter',
    module: 'audit',
    audit: { object: 'auditLog', reads: true },
    entity: 'entities/auditLog.json',
    notFound: 'UCENTER001',
    list: AUDIT_LIST,
    // The time range is required: it bounds the months (partitions) a list reads.
    checkList: (request, body: ListBody) => requireRange(request, (body.filters ?? {}) as Record<string, unknown>, 'auditLog', 'at'),
    async get(q, id, me) {
      return (await runList(q, { ...AUDIT_LIST, where: `a.id = ${Number(id)}` }, { page: 1, pageSize: 1 }, me.scope)).list[0];
    },
  });

  fastify.post<{ Body: { filters?: Record<string, unknown> } }>(
    '/auditLog/export',
    {
      config: { permission: 'audit:export', audit: { action: 'export', object: 'auditLog', id: 'reply' } },
      schema: {
        tags: ['ucenter'],
        summary: 'Queue an Excel export of the audit records of a time range (filters as the list; `at` required); answers the job id at once',
        body: { ...listBodySchema, required: ['filters'] },
        response: replies({ type: 'object', properties: { id: { type: 'integer' }, state: { type: 'string' } } }),
      },
    },
    async (request) => {
      const me = caller(request);
      const filters = request.body.filters ?? {};
      requireRange(request, filters, 'auditLog', 'at');
      const { rows } = await fastify.db.query<{ id: number; state: string }>(
        `INSERT INTO export_job (user_id, kind, lang, filters, scope, sees_plain) VALUES ($1, 'audit', $2, $3::jsonb, $4::jsonb, true) RETURNING id, state`,
        [me.userId, request.lang, JSON.stringify(filters), JSON.stringify(me.scope)],
      );
      // The export worker (./export.ts) finds it at its next poll, within a second.
      return ok(rows[0]);
    },
  );
}
