/**
 * The archive's studies, series and instances as DICOMweb addresses them: by UID,
 * always inside the caller's data scope (a study outside it is absent: 404 PACS100),
 * and the URLs that name them in responses (RetrieveURL, BulkDataURI). Reads
 * dicom_study, dicom_series, dicom_instance (and exam, for scope conditions).
 */
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { scopeSql, type ScopeTarget } from '../identity/scope';
import { AppError } from '../lib/errors';
import { consultedStudySql } from '../consult/domain';
import { inScope as examScope } from '../exam/domain';
import type { DicomJson } from '../pacs/dicomFile';
import { TAG, instanceInfo, sortInstances } from '../../src/shared/dicomJson';

export const PREFIX = '/dicom-web';

/**
 * A study is in scope by its hospital. A role's custom conditions name exam fields:
 * hospital, device and modality are the study's own (device: the matched exam's, else
 * the sending modality); the others are read from the matched exam, so an unmatched
 * study is outside a scope that conditions on them.
 */
export const studyScope: ScopeTarget = {
  hospitalColumn: 's.hospital_id',
  fields: {
    ...Object.fromEntries(Object.entries(examScope.fields ?? {}).map(([field, expr]) => [field, `(SELECT ${expr} FROM exam e WHERE e.id = s.exam_id)`])),
    hospitalId: 's.hospital_id',
    deviceId: 'COALESCE((SELECT e.device_id FROM exam e WHERE e.id = s.exam_id), s.source_device_id)',
    modality: "array_to_string(s.modalities, '\\')",
  },
};

export interface StudyRef {
  id: number;
  hospitalId: number;
  uid: string;
}

export interface SeriesRef {
  id: number;
  uid: string;
}

export interface InstanceRow {
  id: number;
  uid: string;
  seriesUid: string;
  sopClassUid: string;
  transferSyntaxUid: string;
  fileKey: string;
  fileSize: number;
  frames: number;
  rows: number | null;
  metadata?: DicomJson;
}

export function notFound(): AppError {
  return new AppError('PACS100');
}

/**
 * The study with this UID in the caller's scope, or shared with the caller by a consultation
 * (consult/domain consultedStudySql). Each hospital keeps its own copy of a
 * study it received; a caller who sees several gets the own hospital's, else the first.
 */
export async function findStudy(q: Queryable, me: AuthContext, uid: string): Promise<StudyRef> {
  const params: unknown[] = [uid, me.hospitalId];
  const { rows } = await q.query<StudyRef>(
    `SELECT s.id, s.hospital_id AS "hospitalId", s.study_uid AS uid FROM dicom_study s
      WHERE s.study_uid = $1 AND (${scopeSql(me.scope, studyScope, params)} OR ${consultedStudySql(me, params)})
      ORDER BY (s.hospital_id = $2) DESC, s.id LIMIT 1`,
    params,
  );
  if (!rows[0]) throw notFound();
  return rows[0];
}

export async function findSeries(q: Queryable, study: StudyRef, uid: string): Promise<SeriesRef> {
  const { rows } = await q.query<SeriesRef>('SELECT id, series_uid AS uid FROM dicom_series WHERE study_id = $1 AND series_uid = $2', [study.id, uid]);
  if (!rows[0]) throw notFound();
  return rows[0];
}

const INSTANCE_COLUMNS = `i.id, i.sop_instance_uid AS uid, se.series_uid AS "seriesUid", i.sop_class_uid AS "sopClassUid",
  i.transfer_syntax_uid AS "transferSyntaxUid", i.file_key AS "fileKey", i.file_size::float8 AS "fileSize", COALESCE(i.frames, 1) AS frames, i.rows`;
const INSTANCE_ORDER = 'se.series_number NULLS LAST, se.id, i.instance_number NULLS LAST, i.id';

/** Instances of a study, or of one of its series, or one instance: in series and instance number order. */
export async function listInstances(
  q: Queryable,
  study: StudyRef,
  opts: { series?: SeriesRef; instanceUid?: string; metadata?: boolean } = {},
): Promise<InstanceRow[]> {
  const params: unknown[] = [study.id];
  const where = ['i.study_id = $1'];
  if (opts.series) {
    params.push(opts.series.id);
    where.push(`i.series_id = $${params.length}`);
  }
  if (opts.instanceUid) {
    // The unique (hospital, SOP Instance UID) index finds it.
    params.push(study.hospitalId, opts.instanceUid);
    where.push(`i.hospital_id = $${params.length - 1} AND i.sop_instance_uid = $${params.length}`);
  }
  const { rows } = await q.query<InstanceRow>(
    `SELECT ${INSTANCE_COLUMNS}${opts.metadata ? ', i.metadata' : ''}
       FROM dicom_instance i JOIN dicom_series se ON se.id = i.series_id
      WHERE ${where.join(' AND ')} ORDER BY ${INSTANCE_ORDER}`,
    params,
  );
  return rows;
}

/**
 * Instances listed series by series (listInstances' order), each series in the order a
 * viewer shows it (space order, else instance number: the viewer's own sort). WADO-RS
 * metadata lists a series so: the viewer asks for the first instance's frame as soon as
 * that instance is in, before the rest of the answer.
 */
export function displayOrder<T extends { metadata?: DicomJson }>(rows: T[], seriesOf: (row: T) => unknown): T[] {
  const out: T[] = [];
  for (let start = 0; start < rows.length; ) {
    let end = start + 1;
    while (end < rows.length && seriesOf(rows[end]) === seriesOf(rows[start])) end += 1;
    const series = rows.slice(start, end).map((row) => Object.assign(instanceInfo(row.metadata ?? {}), { row }));
    for (const i of sortInstances(series)) out.push(i.row);
    start = end;
  }
  return out;
}

/**
 * The first instance of each of these series in display order, the one the series'
 * WADO-RS metadata lists first: what a viewer opens the series on. Read from the few
 * attributes the order needs. Series ids of the caller's studies.
 */
export async function firstInstances(q: Queryable, seriesIds: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  if (!seriesIds.length) return out;
  const { rows } = await q.query<{ seriesId: number; uid: string; metadata: DicomJson }>(
    `SELECT i.series_id AS "seriesId", i.sop_instance_uid AS uid,
            jsonb_build_object('${TAG.InstanceNumber}', i.metadata->'${TAG.InstanceNumber}', '${TAG.ImagePositionPatient}', i.metadata->'${TAG.ImagePositionPatient}',
              '${TAG.ImageOrientationPatient}', i.metadata->'${TAG.ImageOrientationPatient}') AS metadata
       FROM dicom_instance i WHERE i.series_id = ANY($1::int[])
      ORDER BY i.series_id, i.instance_number NULLS LAST, i.id`,
    [seriesIds],
  );
  for (const r of displayOrder(rows, (row) => row.seriesId)) if (!out.has(r.seriesId)) out.set(r.seriesId, r.uid);
  return out;
}

/** One instance with its metadata; 404 when absent. */
export async function findInstance(q: Queryable, study: StudyRef, series: SeriesRef, uid: string): Promise<InstanceRow & { metadata: DicomJson }> {
  const [row] = await listInstances(q, study, { series, instanceUid: uid, metadata: true });
  if (!row) throw notFound();
  return row as InstanceRow & { metadata: DicomJson };
}

/**
 * The instance a study's or series' thumbnail shows: the middle image of the first
 * series that has images (the middle slice of a CT says more than the first).
 */
export async function representativeInstance(q: Queryable, study: StudyRef, series?: SeriesRef): Promise<InstanceRow & { metadata: DicomJson }> {
  const params: unknown[] = [study.id];
  let seriesId = series?.id;
  if (!seriesId) {
    const first = await q.query<{ id: number }>(
      `SELECT se.id FROM dicom_series se WHERE se.study_id = $1
          AND EXISTS (SELECT 1 FROM dicom_instance i WHERE i.series_id = se.id AND i.rows IS NOT NULL)
        ORDER BY se.series_number NULLS LAST, se.id LIMIT 1`,
      params,
    );
    seriesId = first.rows[0]?.id;
    if (!seriesId) throw notFound();
  }
  params.push(seriesId);
  const { rows } = await q.query<InstanceRow & { metadata: DicomJson }>(
    `SELECT ${INSTANCE_COLUMNS}, i.metadata FROM dicom_instance i JOIN dicom_series se ON se.id = i.series_id
      WHERE i.study_id = $1 AND i.series_id = $2 AND i.rows IS NOT NULL
      ORDER BY ${INSTANCE_ORDER}
      OFFSET (SELECT count(*) / 2 FROM dicom_instance c WHERE c.series_id = $2 AND c.rows IS NOT NULL) LIMIT 1`,
    params,
  );
  if (!rows[0]) throw notFound();
  return rows[0];
}

/** The absolute base of this service as the client reached it (behind a proxy too, when trustProxy says so). */
export function serviceUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}${PREFIX}`;
}

export function studyUrl(base: string, study: string): string {
  return `${base}/studies/${study}`;
}

export function seriesUrl(base: string, study: string, series: string): string {
  return `${studyUrl(base, study)}/series/${series}`;
}

export function instanceUrl(base: string, study: string, series: string, instance: string): string {
  return `${seriesUrl(base, study, series)}/instances/${instance}`;
}
