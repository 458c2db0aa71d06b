/**
 * /api/ris/v1/exam: registration and the exam list (issue #5). The five resource
 * calls (registerResource, with registration's own rights: view, add, modifyExam,
 * deleteExam) plus the state actions of config/workflows/exam.json (check-in,
 * terminate, restore, hide; run by the workflow engine, ../exam/workflow.ts), and a
 * patient's history. Every save and action runs in one
 * transaction and writes an exam_log row; registering an exam or changing it judges
 * the unmatched studies that may be its again (server/pacs/matching.ts). Patient
 * identifiers are masked on the way out when grade safety is on (../identity/gradeSafety.ts).
 * Touches the exam, exam_item_line, exam_log, exam_code_counter and
 * exam_code_region_counter tables; reads org, device, exam_item and organ. The exam
 * domain (states, scope, list query, log) is ../exam/domain.ts and the rules of a save
 * ../exam/registration.ts; this file translates HTTP.
 */
import { hasPermission } from '../identity/access';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { requireHospital, scopeSql } from '../identity/scope';
import { AppError } from '../lib/errors';
import { ok, replies } from '../lib/reply';
import { dropNulls, registerResource } from '../lib/resource';
import { runList, type ListBody } from '../lib/list';
import { EXAM_MASKS } from '../lib/masking';
import { caller } from '../plugins/auth';
import { rowMasker } from '../identity/gradeSafety';
import type { Exam } from '../../src/shared/generated/entities/exam';
import { closed, common, entityFields, idParams, pick } from '../lib/schemas';
import { EXAM_STATE, FROM, LIST_SELECT, examDetail, examListQuery, examRow, inScope, listSpec, writeLog, type ExamLogAction, type ExamRow } from '../exam/domain';
import { checkIdNumbers, checkPatientNumber, createExam, updateExam } from '../exam/registration';
import { EXAM_WORKFLOW, examActions, performExamAction } from '../exam/workflow';

/** An exam's fields as stored and shown (masked, nulls dropped), whichever of them a reply carries. */
const EXAM_FIELDS = entityFields('entities/exam.json');
/** An exam action's answer: the exam as its detail reads, with the actions the caller may take on it now. */
const examReply = replies(pick('entities/exam.json', EXAM_FIELDS, { required: ['id', 'actions'], extra: { actions: { type: 'array', items: { type: 'string' } } } }));

export default async function examRoutes(fastify: FastifyInstance) {
  /**
   * Before the schema: a bad identity number answers UCENTER004 (the catalogue's code,
   * not the schema's generic UAA421), a missing hospital number is named by the patient
   * source, an empty optional text counts as absent, and
   * a masked value sent back unchanged by a form means "keep what is stored".
   */
  fastify.addHook('preValidation', async (request) => {
    if (request.method !== 'POST' || !request.routeOptions.url?.endsWith('/exam/save')) return;
    const body = request.body as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return;
    for (const [k, v] of Object.entries(body)) if (v === '') delete body[k];
    if (typeof body.id === 'number' && request.auth) {
      const mask = await rowMasker(fastify.db, request.auth);
      const params: unknown[] = [body.id];
      const stored = (
        await fastify.db.query<Record<string, string | null>>(
          `SELECT e.his_patient_name AS "hisPatientName", e.his_patient_name_en AS "hisPatientNameEn", e.phone, e.id_no AS "idNo",
                  e.credential_no AS "credentialNo", e.social_security_no AS "socialSecurityNo", e.medical_card_no AS "medicalCardNo"
             FROM exam e WHERE e.id = $1 AND ${scopeSql(request.auth.scope, inScope, params)}`,
          params,
        )
      ).rows[0];
      if (stored) {
        const shown = mask(dropNulls(stored));
        for (const field of Object.keys(EXAM_MASKS)) {
          if (stored[field] && body[field] === shown[field] && shown[field] !== stored[field]) body[field] = stored[field];
        }
      }
    }
    checkIdNumbers(body as Partial<Exam>);
    checkPatientNumber(body as Partial<Exam>);
  });

  const visible = async (q: Queryable, me: AuthContext) => {
    const mask = await rowMasker(q, me);
    return (row: Record<string, unknown>) => mask(dropNulls(row));
  };

  registerResource<Exam>(fastify, {
    path: 'exam',
    tag: 'ris',
    module: 'registration',
    audit: { object: 'exam', patient: 'exam' },
    actions: { view: 'view', add: 'add', edit: 'modifyExam', delete: 'deleteExam' },
    entity: 'entities/exam.json',
    notFound: 'RIS101',
    list: listSpec,
    async listRows(q, body: ListBody, me) {
      const { spec, filters } = examListQuery(body.filters);
      const { list, total } = await runList(q, spec, { ...body, filters }, me.scope);
      const show = await visible(q, me);
      // Each row carries the workflow actions the caller may take on it now (config/workflows/exam.json).
      return { list: list.map((row) => ({ ...show(row), actions: examActions(row, me) })), total };
    },
    async get(q, id, me) {
      const exam = await examDetail(q, id, me);
      return exam && ({ ...(await visible(q, me))(exam as unknown as Record<string, unknown>), actions: examActions(exam as unknown as Record<string, unknown>, me) } as unknown as Exam);
    },
    async save(q, body, me) {
      requireHospital(me.scope, body.hospitalId);
      return body.id ? updateExam(q, body as Exam & { id: number }, me) : createExam(q, body, me);
    },
    async remove(q, id, me) {
      const exam = await examRow(q, id, me, true);
      if (exam.exam_state !== EXAM_STATE.registered || exam.exam_time) throw new AppError('RIS102');
      await q.query('DELETE FROM exam WHERE id = $1', [id]);
      await writeLog(q, exam, 'deleteExam', me, { patientId: exam.patient_id });
    },
    // The exams a form may pick (the consultation wizard's): labelled by exam code, which
    // names no patient (nothing to mask), newest first, within the scope, for whoever
    // may open exams in a module that shows them.
    async options(q, _query, me) {
      if (!['registration:view', 'report:view', 'consult:view'].some((key) => hasPermission(me.permissions, key))) return [];
      const params: unknown[] = [];
      const { rows } = await q.query<{ value: number; label: string }>(
        `SELECT e.id AS value, e.exam_code AS label FROM exam e WHERE NOT e.hidden AND ${scopeSql(me.scope, inScope, params)} ORDER BY e.id DESC LIMIT 200`,
        params,
      );
      return rows;
    },
  });

  // One route per declared exam action (config/workflows/exam.json), run by the workflow engine; answers the exam as detail does.
  for (const [name, declared] of Object.entries(EXAM_WORKFLOW.actions)) {
    // The platform's own (declared on an event) have no route.
    if (declared.on) continue;
    fastify.post<{ Params: { id: number } }>(
      `/exam/${name}/:id`,
      {
        config: { permission: declared.permission, scoped: { resource: 'exam', param: 'id' }, audit: { action: 'workflow', object: 'exam', id: 'params.id', patient: 'exam' } },
        schema: { tags: ['ris'], summary: `${declared.description} (workflow action "${name}")`, params: idParams, response: examReply },
      },
      async (request) => {
        const me = caller(request);
        await performExamAction(fastify.db, me, request.params.id, name);
        const exam = await examDetail(fastify.db, request.params.id, me);
        return ok({ ...(await visible(fastify.db, me))(exam as unknown as Record<string, unknown>), actions: examActions(exam as unknown as Record<string, unknown>, me) });
      },
    );
  }

  fastify.get<{ Querystring: { patientId: string; hospitalId?: number } }>(
    '/exam/history',
    {
      config: { permission: 'registration:history', audit: { action: 'read', object: 'patientHistory', id: 'query.patientId', patient: 'patientId' } },
      schema: {
        tags: ['ris'],
        summary: "A patient's exams within the caller's scope, newest first (hospitalId narrows to one hospital's patient ids)",
        querystring: {
          type: 'object',
          required: ['patientId'],
          properties: { patientId: common('text32'), hospitalId: common('id') },
        },
        response: replies(closed({ list: { type: 'array', items: pick('entities/exam.json', EXAM_FIELDS) }, total: { type: 'integer' } })),
      },
    },
    async (request) => {
      const me = caller(request);
      const params: unknown[] = [request.query.patientId, request.query.hospitalId ?? null];
      const { rows } = await fastify.db.query<Record<string, unknown>>(
        `SELECT ${LIST_SELECT} FROM ${FROM}
          WHERE e.patient_id = $1 AND ($2::int IS NULL OR e.hospital_id = $2) AND NOT e.hidden AND ${scopeSql(me.scope, inScope, params)}
          ORDER BY e.created_at DESC, e.id DESC LIMIT 200`,
        params,
      );
      const show = await visible(fastify.db, me);
      return ok({ list: rows.map(show), total: rows.length });
    },
  );
}

