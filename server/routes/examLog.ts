/**
 * /api/ris/v1/exam/logs: an exam's operation record (the exam_log rows that
 * ./exam.ts and ./schedule.ts write with each registration, booking and state
 * action), newest first, for the exam list's "operation record" dialog. Reads only:
 * exam (for the caller's data scope) and exam_log. Kept apart from ./exam.ts, which
 * owns the writes.
 */
import type { FastifyInstance } from 'fastify';
import examSchema from '../../schemas/entities/exam.json';
import examLogSchema from '../../schemas/entities/examLog.json';
import type { ExamLog } from '../../src/shared/generated/entities/examLog';
import { ok, replies } from '../lib/reply';
import { caller } from '../plugins/auth';
import { closed, entityFields, pick } from '../lib/schemas';
import { examRow } from '../exam/domain';

/** snake_case column → camelCase name ("his_patient_name" → "hisPatientName"). */
const camel = (column: string) => column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const EXAM_FIELDS = new Set(Object.keys(examSchema.properties));
/** What an entry's detail may say (entities/examLog.json); the rest of a stored detail (the exam code, a device id) stays in the table. */
const DETAIL_KEYS = Object.keys(examLogSchema.properties.detail.properties);

/**
 * An update logs the exam's changed columns; the record names them as the exam's
 * fields, so the screen can show their labels. Columns with no field of their own
 * (the worklist's scheduled station and start follow the device and the booking)
 * are left out.
 */
function changedFields(columns: unknown): string[] | undefined {
  if (!Array.isArray(columns)) return undefined;
  return columns.map((c) => camel(String(c))).filter((f) => EXAM_FIELDS.has(f));
}

export default async function examLogRoutes(fastify: FastifyInstance) {
  fastify.post<{ Body: { examId: number } }>(
    '/exam/logs',
    {
      config: { permission: 'registration:operationRecord', audit: { action: 'read', object: 'examLog', id: 'body.examId', patient: 'exam' } },
      schema: {
        tags: ['ris'],
        summary: "An exam's operation record, newest first; an exam outside the caller's data scope is not found (RIS101)",
        body: {
          type: 'object',
          required: ['examId'],
          properties: { examId: { $ref: 'common.json#/definitions/id' } },
          additionalProperties: false,
        },
        // Entries are entities/examLog.json, each field by reference (the file whole would bring its save rules, and a reply needs none).
        response: replies(closed({ list: { type: 'array', items: pick('entities/examLog.json', entityFields('entities/examLog.json'), { required: ['id', 'examId', 'action', 'createdAt', 'detail'] }) } })),
      },
    },
    async (request) => {
      const me = caller(request);
      const { examId } = request.body;
      // The one scope check of exams: absent and out of scope answer alike (RIS101).
      await examRow(fastify.db, examId, me);
      const { rows } = await fastify.db.query<ExamLog & { detail: Record<string, unknown> }>(
        `SELECT id, exam_id AS "examId", action, user_name AS "userName", created_at AS "createdAt", detail
           FROM exam_log WHERE exam_id = $1 ORDER BY created_at DESC, id DESC`,
        [examId],
      );
      const list = rows.map((r) => {
        const detail = Object.fromEntries(DETAIL_KEYS.filter((k) => r.detail[k] !== undefined && r.detail[k] !== null).map((k) => [k, r.detail[k]]));
        const changed = changedFields(detail.changed);
        if (changed) detail.changed = changed;
        return { ...r, userName: r.userName ?? undefined, detail };
      });
      return ok({ list });
    },
  );
}
