/**
 * Query/Retrieve over the image archive (PS3.4 C): the Patient Root and Study Root
 * C-FIND at the PATIENT, STUDY, SERIES and IMAGE levels, and the instances a C-MOVE or
 * C-GET identifier names. Universal, single value, wildcard, UID list and date/time
 * range matching on the attributes the archive indexes (dicom_study, dicom_series,
 * dicom_instance); other keys are returned from the stored metadata, empty when the
 * archive does not hold them. Always cut to the hospitals the calling device may see.
 * Reads the database only; every value goes in as a SQL parameter.
 */
import * as dcmjs from 'dcmjs';
import type { Queryable } from '../db';
import type { DicomJson } from '../pacs/dicomFile';
import { dateRange, emptyLike, SqlConditions, timeRange, universal, WorklistQueryError, type NaturalDataset } from './worklist';

const { DicomMetaDictionary } = dcmjs.data;

/** The Query/Retrieve information models (PS3.4 C.6) the node serves. */
export const QUERY_RETRIEVE = {
  patientRootFind: '1.2.840.10008.5.1.4.1.2.1.1',
  patientRootMove: '1.2.840.10008.5.1.4.1.2.1.2',
  patientRootGet: '1.2.840.10008.5.1.4.1.2.1.3',
  studyRootFind: '1.2.840.10008.5.1.4.1.2.2.1',
  studyRootMove: '1.2.840.10008.5.1.4.1.2.2.2',
  studyRootGet: '1.2.840.10008.5.1.4.1.2.2.3',
} as const;

const PATIENT_ROOT = new Set<string>([QUERY_RETRIEVE.patientRootFind, QUERY_RETRIEVE.patientRootMove, QUERY_RETRIEVE.patientRootGet]);

/** An identifier the SCP cannot process: a level the model lacks, a malformed range, a retrieve naming nothing. */
export class QueryError extends WorklistQueryError {}

const LEVELS = ['PATIENT', 'STUDY', 'SERIES', 'IMAGE'] as const;
type Level = (typeof LEVELS)[number];

type Kind = 'text' | 'pn' | 'date' | 'time' | 'uid' | 'int' | 'modalities';

/** The attributes matched in SQL: the level they belong to, their column and how they match. */
const MATCHED: Record<string, { level: Level; column: string; kind: Kind }> = {
  PatientID: { level: 'PATIENT', column: 's.patient_id', kind: 'text' },
  PatientName: { level: 'PATIENT', column: 's.patient_name', kind: 'pn' },
  PatientBirthDate: { level: 'PATIENT', column: 's.patient_birth_date', kind: 'date' },
  PatientSex: { level: 'PATIENT', column: 's.patient_sex', kind: 'text' },
  StudyInstanceUID: { level: 'STUDY', column: 's.study_uid', kind: 'uid' },
  StudyDate: { level: 'STUDY', column: 's.study_date', kind: 'date' },
  StudyTime: { level: 'STUDY', column: 's.study_time', kind: 'time' },
  AccessionNumber: { level: 'STUDY', column: 's.accession_number', kind: 'text' },
  StudyID: { level: 'STUDY', column: 's.study_id', kind: 'text' },
  StudyDescription: { level: 'STUDY', column: 's.study_description', kind: 'text' },
  ReferringPhysicianName: { level: 'STUDY', column: 's.referring_physician', kind: 'pn' },
  ModalitiesInStudy: { level: 'STUDY', column: 's.modalities', kind: 'modalities' },
  SeriesInstanceUID: { level: 'SERIES', column: 'se.series_uid', kind: 'uid' },
  Modality: { level: 'SERIES', column: 'se.modality', kind: 'text' },
  SeriesNumber: { level: 'SERIES', column: 'se.series_number', kind: 'int' },
  SeriesDescription: { level: 'SERIES', column: 'se.series_description', kind: 'text' },
  BodyPartExamined: { level: 'SERIES', column: 'se.body_part', kind: 'text' },
  SeriesDate: { level: 'SERIES', column: 'se.series_date', kind: 'date' },
  SOPInstanceUID: { level: 'IMAGE', column: 'i.sop_instance_uid', kind: 'uid' },
  SOPClassUID: { level: 'IMAGE', column: 'i.sop_class_uid', kind: 'uid' },
  InstanceNumber: { level: 'IMAGE', column: 'i.instance_number', kind: 'int' },
};

/** The unique key of each level (PS3.4 C.6.1.1 and C.6.2.1): a retrieve must name one at its level. */
const UNIQUE_KEY: Record<Level, string> = { PATIENT: 'PatientID', STUDY: 'StudyInstanceUID', SERIES: 'SeriesInstanceUID', IMAGE: 'SOPInstanceUID' };

/** Return keys the archive counts rather than stores, by the level they are answered at. */
const COUNTED: Record<string, Level> = {
  NumberOfPatientRelatedStudies: 'PATIENT',
  NumberOfPatientRelatedSeries: 'PATIENT',
  NumberOfPatientRelatedInstances: 'PATIENT',
  NumberOfStudyRelatedSeries: 'STUDY',
  NumberOfStudyRelatedInstances: 'STUDY',
  ModalitiesInStudy: 'STUDY',
  NumberOfSeriesRelatedInstances: 'SERIES',
};

const depth = (level: Level) => LEVELS.indexOf(level);

/** Keys of a naturalized dataset; dcmjs adds bookkeeping members starting with "_". */
const keysOf = (ds: NaturalDataset) => Object.keys(ds).filter((k) => !k.startsWith('_'));

/** A naturalized value's values as matching text: person names as "Alphabetic=Ideographic". */
function values(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(values);
  if (typeof value === 'object') {
    const pn = value as { Alphabetic?: string; Ideographic?: string };
    return [[pn.Alphabetic ?? '', pn.Ideographic ?? ''].join('=').replace(/=+$/, '').trim()];
  }
  return String(value)
    .split('\\')
    .map((v) => v.trim());
}

class Sql extends SqlConditions {
  /** One key's matching condition (PS3.4 C.2.2.2), none for universal matching. */
  matchKey(kind: Kind, column: string, given: string[]): void {
    const value = given[0] ?? '';
    if (kind === 'uid') {
      const uids = given.filter((v) => v && !universal(v));
      if (uids.length) this.where.push(`${column} = ANY(${this.param(uids)}::text[])`);
      return;
    }
    if (universal(value)) return;
    if (kind === 'modalities') {
      this.where.push(`${column} && ${this.param(given.filter(Boolean))}::text[]`);
    } else if (kind === 'int') {
      const n = Number.parseInt(value, 10);
      if (!Number.isFinite(n)) throw new QueryError(`invalid number ${value}`);
      this.where.push(`${column} = ${this.param(n)}`);
    } else if (kind === 'date' || kind === 'time') {
      const { from, to } = kind === 'date' ? dateRange(value) : timeRange(value);
      if (from) this.where.push(`${column} >= ${this.param(from)}`);
      // A time is compared on its whole seconds (HHMMSS).
      if (to) this.where.push(kind === 'date' ? `${column} <= ${this.param(to)}` : `substr(${column}, 1, 6) <= ${this.param(to)}`);
    } else if (kind === 'pn') {
      // The alphabetic component against the stored one (case-insensitive) or the Chinese
      // name, as people type either; an ideographic component against the Chinese name.
      const [alphabetic = '', ideographic = ''] = value.split('=');
      const latin = `split_part(coalesce(${column}, ''), '=', 1)`;
      const han = `split_part(coalesce(${column}, ''), '=', 2)`;
      if (!universal(alphabetic)) this.where.push(`(${this.like(latin, alphabetic, true)} OR ${this.like(han, alphabetic)})`);
      if (!universal(ideographic)) this.where.push(this.like(han, ideographic));
    } else this.match(column, value);
  }
}

/** The query's level, checked against the information model (Study Root has no PATIENT level). */
function levelOf(query: NaturalDataset, sopClassUid: string): Level {
  const level = String(values(query.QueryRetrieveLevel)[0] ?? '').toUpperCase() as Level;
  if (!LEVELS.includes(level)) throw new QueryError(`invalid Query/Retrieve Level ${level || '(none)'}`);
  if (level === 'PATIENT' && !PATIENT_ROOT.has(sopClassUid)) throw new QueryError('the Study Root model has no PATIENT level');
  return level;
}

/** The matching conditions of the keys at or above `level` (relational: higher keys need not be unique). */
function conditions(query: NaturalDataset, level: Level, hospitalIds: number[]): Sql {
  const q = new Sql();
  q.where.push(`s.hospital_id = ANY(${q.param(hospitalIds)}::int[])`);
  for (const key of keysOf(query)) {
    const attr = MATCHED[key];
    if (attr && depth(attr.level) <= depth(level)) q.matchKey(attr.kind, attr.column, values(query[key]));
  }
  return q;
}

const FROM: Record<Level, string> = {
  PATIENT: 'dicom_study s',
  STUDY: 'dicom_study s',
  SERIES: 'dicom_series se JOIN dicom_study s ON s.id = se.study_id',
  IMAGE: 'dicom_instance i JOIN dicom_series se ON se.id = i.series_id JOIN dicom_study s ON s.id = i.study_id',
};

/** The rows of a level: the metadata its answers are read from, and its counts. */
function findSql(level: Level, q: Sql): string {
  const where = q.where.join(' AND ');
  switch (level) {
    case 'PATIENT':
      return `SELECT (array_agg(s.metadata ORDER BY s.received_at DESC))[1] AS metadata, count(*)::int AS studies,
                     sum(s.series_count)::int AS series, sum(s.instance_count)::int AS instances
                FROM ${FROM.PATIENT} WHERE ${where}
               GROUP BY s.hospital_id, s.patient_id ORDER BY s.patient_id`;
    case 'STUDY':
      return `SELECT s.metadata, s.series_count AS series, s.instance_count AS instances, s.modalities
                FROM ${FROM.STUDY} WHERE ${where} ORDER BY s.study_date DESC NULLS LAST, s.id DESC`;
    case 'SERIES':
      return `SELECT s.metadata || se.metadata AS metadata, se.instance_count AS instances
                FROM ${FROM.SERIES} WHERE ${where} ORDER BY s.id, se.series_number NULLS LAST, se.id`;
    case 'IMAGE':
      return `SELECT i.metadata FROM ${FROM.IMAGE} WHERE ${where} ORDER BY s.id, se.id, i.instance_number NULLS LAST, i.id`;
  }
}

interface FoundRow {
  metadata: DicomJson;
  studies?: number;
  series?: number;
  instances?: number;
  modalities?: string[];
}

/** DICOM JSON tag (8 hex digits) of a keyword, when dcmjs's dictionary knows it. */
function tagOf(keyword: string): string | undefined {
  const entry = DicomMetaDictionary.nameMap[keyword] as { tag?: string } | undefined;
  return entry?.tag?.replace(/[(),]/g, '').toUpperCase();
}

function counted(key: string, row: FoundRow): unknown {
  switch (key) {
    case 'NumberOfPatientRelatedStudies':
      return String(row.studies ?? 0);
    case 'NumberOfPatientRelatedSeries':
    case 'NumberOfStudyRelatedSeries':
      return String(row.series ?? 0);
    case 'ModalitiesInStudy':
      return row.modalities ?? [];
    default:
      return String(row.instances ?? 0);
  }
}

/** One answer: every requested key, from the counts or the stored metadata, empty when unknown. */
function answer(query: NaturalDataset, level: Level, row: FoundRow, retrieveAeTitle: string): NaturalDataset {
  const out: NaturalDataset = { SpecificCharacterSet: 'ISO_IR 192', QueryRetrieveLevel: level, RetrieveAETitle: retrieveAeTitle };
  for (const key of keysOf(query)) {
    if (key in out) continue;
    // Everything the archive holds is on its disks.
    if (key === 'InstanceAvailability') {
      out[key] = 'ONLINE';
      continue;
    }
    if (COUNTED[key] && depth(COUNTED[key]) <= depth(level)) {
      out[key] = counted(key, row);
      continue;
    }
    const tag = tagOf(key);
    const stored = tag ? row.metadata[tag] : undefined;
    if (stored?.Value?.length) {
      const natural = DicomMetaDictionary.naturalizeDataset({ [tag!]: stored }) as NaturalDataset;
      out[key] = natural[key];
    } else out[key] = stored?.vr === 'SQ' ? [] : emptyLike(query[key]);
  }
  return out;
}

/** C-FIND: the answers to a Query/Retrieve identifier within the given hospitals, in a stable order. */
export async function findArchive(db: Queryable, hospitalIds: number[], sopClassUid: string, query: NaturalDataset, retrieveAeTitle: string): Promise<NaturalDataset[]> {
  const level = levelOf(query, sopClassUid);
  const q = conditions(query, level, hospitalIds);
  const { rows } = await db.query<FoundRow>(findSql(level, q), q.params);
  return rows.map((row) => answer(query, level, row, retrieveAeTitle));
}

/** One stored instance a retrieve sends. */
export interface RetrieveInstance {
  sopInstanceUid: string;
  sopClassUid: string;
  transferSyntaxUid: string;
  fileKey: string;
}

/**
 * C-MOVE / C-GET: the instances an identifier names within the given hospitals, each
 * SOP Instance UID once (the same instance kept by two visible hospitals is one), in
 * series and instance order. The identifier must name its level's unique key.
 */
export async function retrieveInstances(db: Queryable, hospitalIds: number[], sopClassUid: string, query: NaturalDataset): Promise<RetrieveInstance[]> {
  const level = levelOf(query, sopClassUid);
  const unique = values(query[UNIQUE_KEY[level]]).filter((v) => !universal(v));
  if (!unique.length) throw new QueryError(`a ${level} retrieve names no ${UNIQUE_KEY[level]}`);
  const q = conditions(query, level, hospitalIds);
  const { rows } = await db.query<RetrieveInstance>(
    `SELECT "sopInstanceUid", "sopClassUid", "transferSyntaxUid", "fileKey" FROM (
       SELECT DISTINCT ON (i.sop_instance_uid) i.sop_instance_uid AS "sopInstanceUid", i.sop_class_uid AS "sopClassUid",
              i.transfer_syntax_uid AS "transferSyntaxUid", i.file_key AS "fileKey", s.id AS study, se.series_number, se.id AS series, i.instance_number, i.id
         FROM ${FROM.IMAGE} WHERE ${q.where.join(' AND ')}
        ORDER BY i.sop_instance_uid, s.hospital_id) one
      ORDER BY study, series_number NULLS LAST, series, instance_number NULLS LAST, id`,
    q.params,
  );
  return rows;
}
