/**
 * Images of exams (issue #6, spec sections 2, 4, 7): the received studies
 * (/api/pacs/v1/study: the image record list, one study with its series, deleting a
 * study, a series or an image) and the exam list's matching calls under
 * /api/ris/v1/exam (studies of an exam, manual match, auto match, unbind). The rules
 * are server/pacs/matching.ts's; every change is logged on the exam and needs its
 * right of the image module (manualLink, autoLink, unbind, deleteStudy).
 */
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { scopeSql, type ScopeTarget } from '../identity/scope';
import { AppError } from '../lib/errors';
import { ok, replies } from '../lib/reply';
import { dropNulls, registerResource } from '../lib/resource';
import { runList, type ListSpec } from '../lib/list';
import { caller } from '../plugins/auth';
import { dayKey } from '../lib/examRules';
import { renderedPathSql } from '../pacs/thumbnail';
import { namesExam, WAITING } from '../pacs/reviewQueue';
import { assertImageChange, compareWithExam, evaluate, linkStudy, refreshExamImages, reviewText, studyServesHospital, unlinkStudy, type Review } from '../pacs/matching';
import { examRow, writeLog } from '../exam/domain';
import type { Study } from '../../src/shared/generated/entities/study';
import { closed, common, entityFields, idParams, pick } from '../lib/schemas';

const studyScope: ScopeTarget = { hospitalColumn: 's.hospital_id', fields: { hospitalId: 's.hospital_id' } };

const STUDY_SELECT = `s.id, s.hospital_id AS "hospitalId", o.name AS "hospitalName", s.study_uid AS "studyUid", s.exam_id AS "examId",
  e.exam_code AS "examCode", (s.exam_id IS NOT NULL) AS matched, s.match_kind AS "matchKind", s.matched_at AS "matchedAt",
  s.patient_id AS "patientId", s.patient_name AS "patientName", s.patient_sex AS "patientSex", s.patient_birth_date AS "patientBirthDate",
  s.study_date AS "studyDate", s.study_time AS "studyTime", s.accession_number AS "accessionNumber", s.study_description AS "studyDescription",
  array_to_string(s.modalities, ',') AS modality, s.series_count AS "seriesCount", s.instance_count AS "instanceCount",
  s.total_bytes::float8 AS "totalBytes", s.source_ae AS "sourceAe", s.received_at AS "receivedAt",
  (${WAITING('s')}) AS review, CASE WHEN s.exam_id IS NULL THEN s.match_review END AS "matchReview"`;
const STUDY_FROM = 'dicom_study s JOIN org o ON o.id = s.hospital_id LEFT JOIN exam e ON e.id = s.exam_id';

const studyList: ListSpec = {
  from: STUDY_FROM,
  select: STUDY_SELECT,
  columns: {
    id: 's.id',
    hospitalId: 's.hospital_id',
    patientId: 's.patient_id',
    patientName: 's.patient_name',
    accessionNumber: 's.accession_number',
    studyDate: 's.study_date',
    examCode: 'e.exam_code',
    sourceAe: 's.source_ae',
    receivedAt: 's.received_at',
    seriesCount: 's.series_count',
    instanceCount: 's.instance_count',
  },
  filters: { hospitalId: 'id', patientId: 'eq', patientName: 'like', accessionNumber: 'eq', examCode: 'eq', sourceAe: 'eq', receivedAt: 'range' },
  customFilters: {
    // A DICOM date range compares as text (YYYYMMDD): "from~to" as listRows passes it, either end open.
    studyDate: (p) =>
      `(s.study_date >= split_part(${p}::text, '~', 1) AND (split_part(${p}::text, '~', 2) = '' OR s.study_date < split_part(${p}::text, '~', 2)))`,
    modality: (p) => `${p}::text = ANY(s.modalities)`,
    matched: (p) => `((s.exam_id IS NOT NULL) = (${p}::text = 'true'))`,
    // The review queue: unmatched studies the matching policy could not link, with its reason.
    review: (p) => `((${WAITING('s')}) = (${p}::text = 'true'))`,
  },
  defaultSort: 's.received_at DESC, s.id DESC',
  scope: studyScope,
};

interface StudyRow {
  id: number;
  hospital_id: number;
  study_uid: string;
  exam_id: number | null;
  patient_id: string;
  study_date: string;
  accession_number: string;
  modalities: string[];
}

/** A study in the caller's scope, locked inside a transaction when asked; PACS100 when absent. */
async function studyRow(q: Queryable, id: number, me: AuthContext, lock = false): Promise<StudyRow> {
  const params: unknown[] = [id];
  const { rows } = await q.query<StudyRow>(`SELECT s.* FROM dicom_study s WHERE s.id = $1 AND ${scopeSql(me.scope, studyScope, params)}${lock ? ' FOR UPDATE' : ''}`, params);
  if (!rows[0]) throw new AppError('PACS100');
  return rows[0];
}

/** The series of studies, each with the DICOMweb path of its middle instance's rendered image (the thumbnail). */
async function seriesOf(q: Queryable, studyIds: number[]) {
  const { rows } = await q.query<Record<string, unknown> & { studyId: number }>(
    `SELECT se.study_id AS "studyId", se.id, se.series_uid AS "seriesUid", se.modality, se.series_number AS "seriesNumber",
            se.series_description AS "seriesDescription", se.instance_count AS "instanceCount",
            ${renderedPathSql('st', 'se')} AS thumbnail
       FROM dicom_series se
       JOIN dicom_study st ON st.id = se.study_id
      WHERE se.study_id = ANY($1::int[])
      ORDER BY se.study_id, se.series_number NULLS LAST, se.id`,
    [studyIds],
  );
  return rows;
}

/** Deletes instances' rows and recounts what held them; the files go after the commit (see deleteFiles). */
async function deleteInstances(q: Queryable, study: StudyRow, where: string, params: unknown[]): Promise<string[]> {
  const { rows } = await q.query<{ file_key: string }>(`DELETE FROM dicom_instance WHERE study_id = $1 AND ${where} RETURNING file_key`, [study.id, ...params]);
  if (!rows.length) throw new AppError('PACS100');
  await q.query(
    `UPDATE dicom_series se SET instance_count = (SELECT count(*) FROM dicom_instance i WHERE i.series_id = se.id) WHERE se.study_id = $1`,
    [study.id],
  );
  await q.query('DELETE FROM dicom_series WHERE study_id = $1 AND instance_count = 0', [study.id]);
  const left = await q.query<{ n: number }>(
    `UPDATE dicom_study s SET series_count = (SELECT count(*) FROM dicom_series se WHERE se.study_id = s.id),
            instance_count = (SELECT count(*) FROM dicom_instance i WHERE i.study_id = s.id),
            total_bytes = (SELECT coalesce(sum(file_size), 0) FROM dicom_instance i WHERE i.study_id = s.id),
            modalities = coalesce((SELECT array_agg(DISTINCT se.modality) FROM dicom_series se WHERE se.study_id = s.id AND se.modality IS NOT NULL), '{}'),
            updated_at = now()
      WHERE s.id = $1 RETURNING instance_count AS n`,
    [study.id],
  );
  if (left.rows[0].n === 0) await q.query('DELETE FROM dicom_study WHERE id = $1', [study.id]);
  if (study.exam_id) await refreshExamImages(q, study.exam_id);
  return rows.map((r) => r.file_key);
}

/**
 * A study row as the screens get it: the review reason in the reader's language
 * (the policy's words, server/pacs/matching.ts), and not the structure behind it.
 */
function withReviewReason(row: Record<string, unknown>, language: string): Record<string, unknown> {
  const { matchReview, ...rest } = row;
  const text = row.examId ? undefined : reviewText((matchReview as Review | null) ?? { reason: 'noExam' }, language);
  return dropNulls({ ...rest, reviewReason: text });
}
/** A study row with its series (withReviewReason: the review's structure left out, its reason in words). */
const studyReply = pick('entities/study.json', entityFields('entities/study.json'), { required: ['id', 'hospitalId', 'studyUid', 'series'] });
/** What a link or unbind changed. */
const linkReply = replies(closed({ examId: common('id'), studyId: common('id') }));

/** /api/pacs/v1: the received studies. */
export async function studyRoutes(fastify: FastifyInstance) {
  registerResource<Study>(fastify, {
    path: 'study',
    tag: 'pacs',
    module: 'image',
    audit: { object: 'study', patient: 'study' },
    entity: 'entities/study.json',
    notFound: 'PACS100',
    list: studyList,
    async listRows(q, body, me, language) {
      // The list sends ISO dates [from, to); the filter wants one text parameter of DICOM dates.
      const filters = { ...(body.filters ?? {}) };
      if (Array.isArray(filters.studyDate)) {
        // A plain date is the region's day already; an instant is turned into the region's day.
        const day = (d: unknown) => {
          const text = d === null || d === undefined ? '' : String(d);
          if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text.replace(/-/g, '');
          const at = new Date(text);
          return text && !Number.isNaN(at.getTime()) ? dayKey(at) : '';
        };
        const [from, to] = filters.studyDate.map(day);
        filters.studyDate = `${from ?? ''}~${to ?? ''}`;
      }
      const { list, total } = await runList(q, studyList, { ...body, filters }, me.scope);
      return { list: list.map((row) => withReviewReason(row, language)), total };
    },
    async get(q, id, me, language = 'zh-CN') {
      const params: unknown[] = [id];
      const { rows } = await q.query<Study>(`SELECT ${STUDY_SELECT} FROM ${STUDY_FROM} WHERE s.id = $1 AND ${scopeSql(me.scope, studyScope, params)}`, params);
      if (!rows[0]) return undefined;
      const series = await seriesOf(q, [id]);
      return { ...withReviewReason(rows[0] as never, language), series: series.map(({ studyId, ...rest }) => dropNulls(rest)) } as Study;
    },
  });

  /**
   * The technician's count of the review queue: unmatched studies in the caller's
   * scope that the matching policy could not link (the list's `review` filter shows them).
   */
  fastify.get(
    '/study/review/count',
    {
      // A count, no patient's data: nothing to audit.
      config: { permission: 'image:view', audit: 'none' },
      schema: { tags: ['pacs'], summary: 'How many received studies wait on the review queue, within the data scope', response: replies(closed({ count: { type: 'integer' } })) },
    },
    async (request) => {
      const me = caller(request);
      const params: unknown[] = [];
      const { rows } = await fastify.db.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM dicom_study s WHERE ${WAITING('s')} AND ${scopeSql(me.scope, studyScope, params)}`,
        params,
      );
      return ok({ count: rows[0].count });
    },
  );

  /**
   * Deletes a whole study, one series of it, or one image (spec: "delete images or
   * series"): allowed while the matched exam's report is open and not sent upward
   * (PACS103-105). The files are removed after the commit: a crash in between leaves
   * files without rows, never rows without files.
   */
  fastify.post<{ Body: { studyId: number; seriesUid?: string; sopInstanceUid?: string } }>(
    '/study/delete',
    {
      config: { permission: 'image:deleteStudy', audit: { action: 'delete', object: 'study', id: 'body.studyId', patient: 'study' } },
      schema: {
        tags: ['pacs'],
        summary: 'Delete a study, a series of it (seriesUid) or one image (sopInstanceUid)',
        body: {
          type: 'object',
          required: ['studyId'],
          additionalProperties: false,
          properties: {
            studyId: common('id'),
            seriesUid: { type: 'string', pattern: '^[0-9.]{1,64}$' },
            sopInstanceUid: { type: 'string', pattern: '^[0-9.]{1,64}$' },
          },
        },
        response: replies(closed({ deleted: { type: 'integer', description: 'Images removed.' } })),
      },
    },
    async (request) => {
      const me = caller(request);
      const { studyId, seriesUid, sopInstanceUid } = request.body;
      const keys = await fastify.db.tx(async (q) => {
        const study = await studyRow(q, studyId, me, true);
        const exam = study.exam_id ? await examRow(q, study.exam_id, me, true) : undefined;
        if (exam) assertImageChange(exam as unknown as { report_state: number; sent_to_superior: boolean }, 'delete');
        const where: string[] = ['true'];
        const params: unknown[] = [];
        if (seriesUid) {
          params.push(seriesUid);
          where.push(`series_id = (SELECT id FROM dicom_series WHERE study_id = $1 AND series_uid = $${params.length + 1})`);
        }
        if (sopInstanceUid) {
          params.push(sopInstanceUid);
          where.push(`sop_instance_uid = $${params.length + 1}`);
        }
        const removed = await deleteInstances(q, study, where.join(' AND '), params);
        if (exam) await writeLog(q, exam, 'deleteImages', me, { studyUid: study.study_uid, seriesUid, sopInstanceUid, instances: removed.length });
        return removed;
      });
      await Promise.all(keys.map((key) => fastify.storage.delete(key).catch((err) => request.log.warn({ err, key }, 'stored file left behind'))));
      return ok({ deleted: keys.length });
    },
  );
}

/** /api/ris/v1/exam/…: an exam's studies and the matching calls of the exam list. */
export async function examImageRoutes(fastify: FastifyInstance) {
  fastify.get<{ Params: { id: number } }>(
    '/exam/:id/studies',
    {
      config: { permission: 'image:view', scoped: { resource: 'exam', param: 'id' }, audit: { action: 'read', object: 'examStudies', id: 'params.id', patient: 'exam' } },
      schema: {
        tags: ['ris'],
        summary: "The studies matched to an exam, with their series and thumbnails, and the review queue's studies naming it",
        params: idParams,
        response: replies(closed({ list: { type: 'array', items: studyReply }, total: { type: 'integer' }, review: { type: 'array', items: studyReply } })),
      },
    },
    async (request) => {
      const me = caller(request);
      const exam = await examRow(fastify.db, request.params.id, me);
      const params: unknown[] = [request.params.id];
      const { rows } = await fastify.db.query<Study & { id: number }>(
        `SELECT ${STUDY_SELECT} FROM ${STUDY_FROM} WHERE s.exam_id = $1 AND ${scopeSql(me.scope, studyScope, params)} ORDER BY s.study_date, s.id`,
        params,
      );
      // The review queue's studies that name this exam: the policy's closest candidate, or one of several.
      const reviewParams: unknown[] = [String(exam.id), JSON.stringify(exam.exam_code)];
      const waiting = await fastify.db.query<Study & { id: number }>(
        `SELECT ${STUDY_SELECT} FROM ${STUDY_FROM}
          WHERE ${WAITING('s')} AND ${namesExam('s', '$1', '$2::jsonb')}
            AND ${scopeSql(me.scope, studyScope, reviewParams)} ORDER BY s.received_at DESC, s.id DESC LIMIT 50`,
        reviewParams,
      );
      const series = await seriesOf(fastify.db, [...rows, ...waiting.rows].map((r) => r.id));
      const withSeries = (study: Study & { id: number }) => ({
        ...withReviewReason(study as unknown as Record<string, unknown>, request.lang),
        series: series.filter((se) => se.studyId === study.id).map(({ studyId, ...rest }) => dropNulls(rest)),
      });
      const list = rows.map(withSeries);
      return ok({ list, total: list.length, review: waiting.rows.map(withSeries) });
    },
  );

  /** Manual match: the chosen study (unmatched, same hospital) joins the exam. */
  fastify.post<{ Params: { id: number }; Body: { studyId: number } }>(
    '/exam/:id/match',
    {
      config: { permission: 'image:manualLink', scoped: { resource: 'exam', param: 'id' }, audit: { action: 'update', object: 'exam', id: 'params.id', patient: 'exam' } },
      schema: {
        tags: ['ris'],
        summary: 'Manual match: link an unmatched study of the same hospital to the exam',
        params: idParams,
        body: { type: 'object', required: ['studyId'], additionalProperties: false, properties: { studyId: common('id') } },
        response: linkReply,
      },
    },
    async (request) => {
      const me = caller(request);
      await fastify.db.tx(async (q) => {
        const exam = await examRow(q, request.params.id, me, true);
        const study = await studyRow(q, request.body.studyId, me, true);
        if (study.exam_id) throw new AppError('RIS108');
        if (!(await studyServesHospital(q, study.id, exam.hospital_id))) throw new AppError('RIS104');
        assertImageChange(exam as never, 'link');
        // A person decides over the policy; the log keeps what disagreed.
        const compared = await compareWithExam(q, study.id, exam.id);
        await linkStudy(q, study.id, study.study_uid, exam as never, 'manual', me, { rule: 'manual', compared: compared?.compared, disagreements: compared?.disagreements });
      });
      return ok({ examId: request.params.id, studyId: request.body.studyId });
    },
  );

  /**
   * Auto match asked for from the exam list: the exam's unmatched studies by the
   * archive's rules, from the exam's side. None or several → RIS107.
   */
  fastify.post<{ Params: { id: number } }>(
    '/exam/:id/autoMatch',
    {
      config: { permission: 'image:autoLink', scoped: { resource: 'exam', param: 'id' }, audit: { action: 'update', object: 'exam', id: 'params.id', patient: 'exam' } },
      schema: { tags: ['ris'], summary: 'Auto match: find the one unmatched study of this exam and link it', params: idParams, response: linkReply },
    },
    async (request) => {
      const me = caller(request);
      const studyId = await fastify.db.tx(async (q) => {
        const exam = await examRow(q, request.params.id, me, true);
        assertImageChange(exam as never, 'link');
        const found = await q.query<{ id: number; study_uid: string }>(
          `SELECT s.id, s.study_uid FROM dicom_study s LEFT JOIN device d ON d.id = s.source_device_id
            WHERE (s.hospital_id = $1 OR $1 = ANY(d.served_hospital_ids)) AND s.exam_id IS NULL
              AND (s.accession_number = $2 OR s.study_uid = $3 OR s.patient_id = $4)
            ORDER BY s.id FOR UPDATE OF s`,
          [exam.hospital_id, exam.exam_code, exam.study_uid, exam.patient_id],
        );
        // Each unmatched study of the patient goes through the matching policy; it belongs
        // here when the policy would link it to this exam.
        const mine: Array<{ id: number; study_uid: string; rule: string; compared: string[] }> = [];
        for (const s of found.rows) {
          const decision = (await evaluate(q, s.id))?.decision;
          if (decision && 'link' in decision && decision.link.id === exam.id) mine.push({ ...s, rule: decision.rule, compared: decision.compared });
        }
        if (mine.length !== 1) throw new AppError('RIS107');
        await linkStudy(q, mine[0].id, mine[0].study_uid, exam as never, 'manual', me, { rule: mine[0].rule, compared: mine[0].compared });
        return mine[0].id;
      });
      return ok({ examId: request.params.id, studyId });
    },
  );

  /** Unbind (spec: PUT with three path segments, then relationship/unbind): hospital, exam, study. */
  fastify.put<{ Params: { hospitalId: number; examId: number; studyId: number } }>(
    '/exam/:hospitalId/:examId/:studyId/relationship/unbind',
    {
      config: { permission: 'image:unbind', scoped: { resource: 'exam', param: 'examId' }, audit: { action: 'update', object: 'exam', id: 'params.examId', patient: 'exam' } },
      schema: {
        tags: ['ris'],
        summary: 'Unbind a study from its exam (allowed while the report is open and not sent upward)',
        params: {
          type: 'object',
          required: ['hospitalId', 'examId', 'studyId'],
          properties: { hospitalId: common('id'), examId: common('id'), studyId: common('id') },
        },
        response: linkReply,
      },
    },
    async (request) => {
      const me = caller(request);
      const { hospitalId, examId, studyId } = request.params;
      await fastify.db.tx(async (q) => {
        const exam = await examRow(q, examId, me, true);
        if (exam.hospital_id !== hospitalId) throw new AppError('RIS101');
        const study = await studyRow(q, studyId, me, true);
        if (study.exam_id !== exam.id) throw new AppError('PACS100');
        assertImageChange(exam as never, 'unbind');
        await unlinkStudy(q, study.id, study.study_uid, exam as never, me);
      });
      return ok({ examId, studyId });
    },
  );
}
