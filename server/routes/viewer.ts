/**
 * The diagnostic viewer's calls (issue #7, spec sections 2, 3, 5, 9), under /api/pacs/v1:
 * - POST study/viewer: the studies to show (by study UID or by exam), with their series
 *   and thumbnails, and whether patient identifiers are masked for this caller;
 * - POST study/compare: the same for an image comparison, which the spec allows for
 *   compareStudiesMin..compareStudiesMax studies with images of one patient (PACS101
 *   for a wrong count, PACS102 for several patients, PACS100 for a study without images);
 * - GET study/compare/candidates/{examId}: the studies a comparison may pick from for
 *   an exam: the same patient's studies in the exam's hospital;
 * - POST viewer/config: the caller's image-viewer settings (commonSetting.viewConfig),
 *   kept with the other common settings in user_setting and read back by user info.
 * Reads the archive's tables (rows cut to the caller's data scope); writes only the
 * caller's own setting. Pixel data and DICOM metadata come from DICOMweb, which does not
 * mask: the client hides the DICOM patient name and ID when `masked` says so.
 */
import type { FastifyInstance } from 'fastify';
import { LIMITS } from '../../config/limits';
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { hasPermission } from '../identity/access';
import { scopeSql, type ScopeTarget } from '../identity/scope';
import { AppError } from '../lib/errors';
import { maskIdNo, maskName } from '../lib/masking';
import { ok, replies } from '../lib/reply';
import { dropNulls } from '../lib/resource';
import { caller } from '../plugins/auth';
import { firstInstances } from '../dicomweb/resources';
import { consultedStudySql } from '../consult/domain';
import { examRow } from '../exam/domain';
import { gradeSafetyOn } from '../identity/gradeSafety';
import type { CommonSetting } from '../../src/shared/generated/entities/commonSetting';
import type { Study } from '../../src/shared/generated/entities/study';
import { closed, common, pick } from '../lib/schemas';

const scope: ScopeTarget = { hospitalColumn: 's.hospital_id', fields: { hospitalId: 's.hospital_id' } };

/** A study's patient: its exam's patient number when matched, else the DICOM patient ID, within one hospital. */
const PATIENT_KEY = `s.hospital_id::text || '/' || coalesce(e.patient_id, s.patient_id, '')`;

const SELECT = `s.id, s.hospital_id AS "hospitalId", o.name AS "hospitalName", s.study_uid AS "studyUid", s.exam_id AS "examId",
  e.exam_code AS "examCode", (s.exam_id IS NOT NULL) AS matched, s.patient_id AS "patientId", s.patient_name AS "patientName",
  s.patient_sex AS "patientSex", s.patient_birth_date AS "patientBirthDate", s.study_date AS "studyDate", s.study_time AS "studyTime",
  s.accession_number AS "accessionNumber", s.study_description AS "studyDescription", array_to_string(s.modalities, ',') AS modality,
  s.series_count AS "seriesCount", s.instance_count AS "instanceCount", ${PATIENT_KEY} AS "patientKey"`;
const FROM = 'dicom_study s JOIN org o ON o.id = s.hospital_id LEFT JOIN exam e ON e.id = s.exam_id';
const ORDER = 's.study_date DESC NULLS LAST, s.study_time DESC NULLS LAST, s.id DESC';

type StudyRow = Study & { id: number; studyUid: string; hospitalId: number; patientKey: string };

interface Selection {
  studyUids?: string[];
  examIds?: number[];
}

/** The studies named by UID or by exam, in the caller's scope; PACS100 when one names nothing with images. */
async function selectStudies(q: Queryable, me: AuthContext, sel: Selection): Promise<StudyRow[]> {
  const uids = [...new Set(sel.studyUids ?? [])];
  const examIds = [...new Set(sel.examIds ?? [])];
  const params: unknown[] = [uids, examIds];
  const { rows } = await q.query<StudyRow>(
    `SELECT ${SELECT} FROM ${FROM}
      WHERE (s.study_uid = ANY($1::text[]) OR s.exam_id = ANY($2::int[])) AND s.instance_count > 0
        AND (${scopeSql(me.scope, scope, params)} OR ${consultedStudySql(me, params)})
      ORDER BY ${ORDER}`,
    params,
  );
  // A UID in two hospitals of the caller's scope is one study to the viewer: the caller's hospital's copy.
  const byUid = new Map<string, StudyRow>();
  for (const r of rows) {
    const seen = byUid.get(r.studyUid);
    if (!seen || (seen.hospitalId !== me.hospitalId && r.hospitalId === me.hospitalId)) byUid.set(r.studyUid, r);
  }
  const found = [...byUid.values()];
  if (uids.some((uid) => !byUid.has(uid))) throw new AppError('PACS100');
  if (examIds.some((id) => !found.some((r) => r.examId === id))) throw new AppError('PACS100');
  return found;
}

/**
 * The series of the studies with the DICOMweb thumbnail of each (its middle image,
 * rendered). When the viewer opens them (`opening`), the series each study opens on
 * (its first) also names its first instance in display order: the viewer asks for that
 * image beside the series' metadata instead of after it.
 */
async function withSeries(q: Queryable, studies: StudyRow[], opening: boolean) {
  if (!studies.length) return [];
  const { rows } = await q.query<{ studyId: number; id: number; seriesUid: string } & Record<string, unknown>>(
    `SELECT se.study_id AS "studyId", se.id, se.series_uid AS "seriesUid", se.modality, se.series_number AS "seriesNumber",
            se.series_description AS "seriesDescription", se.instance_count AS "instanceCount"
       FROM dicom_series se WHERE se.study_id = ANY($1::int[]) AND se.instance_count > 0
      ORDER BY se.study_id, se.series_number NULLS LAST, se.id`,
    [studies.map((s) => s.id)],
  );
  const opensOn = opening ? studies.map((study) => rows.find((se) => se.studyId === study.id)?.id).filter((id): id is number => id !== undefined) : [];
  const first = await firstInstances(q, opensOn);
  return studies.map(({ patientKey: _key, ...study }) => ({
    ...dropNulls(study as unknown as Record<string, unknown>),
    series: rows
      .filter((se) => se.studyId === study.id)
      .map(({ studyId: _s, ...se }) => ({
        ...dropNulls(se),
        thumbnail: `/dicom-web/studies/${study.studyUid}/series/${se.seriesUid}/thumbnail`,
        firstInstanceUid: first.get(se.id),
      })),
  }));
}

/** Does this caller see patient identifiers masked (grade safety on, no privacy:phoneVisible)? */
async function masksFor(q: Queryable, me: AuthContext): Promise<boolean> {
  return !hasPermission(me.permissions, 'privacy:phoneVisible') && (await gradeSafetyOn(q));
}

/** The name as people read it (ideographic, else alphabetic), masked; the alphabetic form would give the name away. */
function maskedPatientName(pn: string | undefined): string {
  const [alphabetic = '', ideographic = ''] = (pn ?? '').split('=').map((g) => g.split('^').filter(Boolean).join(' ').trim());
  return maskName(ideographic || alphabetic);
}

/** The studies as the viewer gets them; `opening` when it opens them (not for a comparison's candidates). */
async function answer(q: Queryable, me: AuthContext, studies: StudyRow[], opening = true) {
  const masked = await masksFor(q, me);
  const list = await withSeries(
    q,
    masked ? studies.map((s) => ({ ...s, patientName: maskedPatientName(s.patientName), patientId: maskIdNo(s.patientId) })) : studies,
    opening,
  );
  return { masked, list, total: list.length };
}

// Arrays are bounded for the request's sake; the comparison's own limits answer with the catalogue's words.
const selection = {
  type: 'object',
  additionalProperties: false,
  properties: {
    studyUids: { type: 'array', maxItems: LIMITS.pageSizeMax, items: { $ref: 'common.json#/definitions/dicomUid' } },
    examIds: { type: 'array', maxItems: LIMITS.pageSizeMax, items: common('id') },
  },
  anyOf: [{ required: ['studyUids'] }, { required: ['examIds'] }],
};
/** A study as SELECT reads it (nulls dropped), with the series withSeries() adds: what the viewer opens. */
const viewerStudy = pick(
  'entities/study.json',
  ['id', 'hospitalId', 'hospitalName', 'studyUid', 'examId', 'examCode', 'matched', 'patientId', 'patientName', 'patientSex', 'patientBirthDate', 'studyDate', 'studyTime', 'accessionNumber', 'studyDescription', 'modality', 'seriesCount', 'instanceCount'],
  {
    required: ['id', 'hospitalId', 'studyUid', 'series'],
    extra: {
      series: {
        type: 'array',
        items: closed(
          {
            id: { type: 'integer' },
            seriesUid: { type: 'string' },
            modality: { type: 'string' },
            seriesNumber: { type: 'integer' },
            seriesDescription: { type: 'string' },
            instanceCount: { type: 'integer' },
            thumbnail: { type: 'string', description: 'DICOMweb path of the series thumbnail (its middle image, rendered).' },
            firstInstanceUid: { type: 'string', description: 'Its first instance in display order, for the series a study opens on.' },
          },
          { optional: ['modality', 'seriesNumber', 'seriesDescription', 'instanceCount', 'firstInstanceUid'] },
        ),
      },
    },
  },
);
const studiesReply = replies({
  type: 'object',
  required: ['masked', 'list', 'total'],
  properties: {
    masked: { type: 'boolean', description: 'Patient name and ID are masked here; DICOM metadata is not, so the viewer hides its own.' },
    list: { type: 'array', items: viewerStudy },
    total: { type: 'integer' },
  },
});
// The common settings' schema, of which this call takes viewConfig (a reference into the property would make its `default` a root's).
const settingBody = { type: 'object', required: ['viewConfig'], allOf: [{ $ref: 'entities/commonSetting.json#' }] };
// The saved value, as the entity declares it (a reply has no defaults to fill, so the property can be referenced).
const viewConfigReply = replies({ $ref: 'entities/commonSetting.json#/properties/viewConfig' });

export default async function viewerRoutes(fastify: FastifyInstance) {
  fastify.post<{ Body: Selection }>(
    '/study/viewer',
    {
      config: { permission: 'image:view', audit: { action: 'read', object: 'viewer', id: 'body.examIds', patient: 'exam' } },
      schema: { tags: ['pacs'], summary: 'Studies to show in the viewer, by study UID or by exam, with series and thumbnails', body: selection, response: studiesReply },
    },
    async (request) => {
      const me = caller(request);
      const studies = await selectStudies(fastify.db, me, request.body);
      if (!studies.length) throw new AppError('PACS100');
      if (studies.length > LIMITS.compareStudiesMax) throw new AppError('PACS101', { min: LIMITS.compareStudiesMin, max: LIMITS.compareStudiesMax });
      return ok(await answer(fastify.db, me, studies));
    },
  );

  fastify.post<{ Body: Selection }>(
    '/study/compare',
    {
      config: { permission: 'image:compare', audit: { action: 'read', object: 'viewer', id: 'body.studyUids', patient: 'studyUid' } },
      schema: {
        tags: ['pacs'],
        summary: `Image comparison: ${LIMITS.compareStudiesMin} to ${LIMITS.compareStudiesMax} studies with images of one patient`,
        body: selection,
        response: studiesReply,
      },
    },
    async (request) => {
      const me = caller(request);
      const asked = new Set(request.body.studyUids ?? []).size + new Set(request.body.examIds ?? []).size;
      const limits = { min: LIMITS.compareStudiesMin, max: LIMITS.compareStudiesMax };
      // Too many asked for is refused before anything is read.
      if (asked > LIMITS.compareStudiesMax) throw new AppError('PACS101', limits);
      const studies = await selectStudies(fastify.db, me, request.body);
      if (studies.length < LIMITS.compareStudiesMin || studies.length > LIMITS.compareStudiesMax) throw new AppError('PACS101', limits);
      if (new Set(studies.map((s) => s.patientKey)).size > 1) throw new AppError('PACS102');
      return ok(await answer(fastify.db, me, studies));
    },
  );

  fastify.get<{ Params: { examId: number } }>(
    '/study/compare/candidates/:examId',
    {
      config: { permission: 'image:compare', scoped: { resource: 'exam', param: 'examId' }, audit: 'none' },
      schema: {
        tags: ['pacs'],
        summary: "The studies with images of an exam's patient (in the exam's hospital), newest first: what a comparison picks from",
        params: { type: 'object', required: ['examId'], properties: { examId: common('id') } },
        response: studiesReply,
      },
    },
    async (request) => {
      const me = caller(request);
      const exam = await examRow(fastify.db, request.params.examId, me);
      const params: unknown[] = [`${exam.hospital_id}/${exam.patient_id ?? ''}`];
      const { rows } = await fastify.db.query<StudyRow>(
        `SELECT ${SELECT} FROM ${FROM}
          WHERE s.instance_count > 0 AND ${PATIENT_KEY} = $1 AND ${scopeSql(me.scope, scope, params)}
          ORDER BY ${ORDER}
          LIMIT ${LIMITS.pageSizeMax}`,
        params,
      );
      return ok(await answer(fastify.db, me, rows, false));
    },
  );

  fastify.post<{ Body: { viewConfig: NonNullable<CommonSetting['viewConfig']> } }>(
    '/viewer/config',
    {
      config: { permission: 'image:view', audit: 'none' },
      schema: {
        tags: ['pacs'],
        summary: 'Save the caller’s image-viewer settings ({viewConfig}: single or dual screen, new window, auto-load); user info returns them',
        body: settingBody,
        response: viewConfigReply,
      },
    },
    async (request) => {
      const me = caller(request);
      // Bare module name: a common setting (server/routes/uaa.ts merges it over config/defaults.json).
      await fastify.db.query(
        `INSERT INTO user_setting (user_id, module, value) VALUES ($1, 'viewConfig', $2::jsonb)
         ON CONFLICT (user_id, module) DO UPDATE SET value = excluded.value, updated_at = now()`,
        [me.userId, JSON.stringify(request.body.viewConfig)],
      );
      return ok(request.body.viewConfig);
    },
  );
}
