/**
 * Modality Worklist C-FIND (PS3.4 K.6): the open scheduled procedure steps of one
 * hospital (view worklist_steps), matched on the keys modalities send (start date and
 * time, modality, station AE title, performing physician, patient, accession number)
 * and answered with every requested return key, empty when the platform has no value.
 * Answers are UTF-8, or in the device's character set for modalities that cannot read
 * it. Reads the database only; every value goes in as a SQL parameter. Dates and times
 * are the region's wall clock (REGION_TIME_ZONE).
 */
import * as dcmjs from 'dcmjs';
import iconv from 'iconv-lite';
import type { Queryable } from '../db';
import { pinyinName, REGION_TIME_ZONE } from '../lib/examRules';
import { utf8Again } from '../pacs/dicomFile';

const { DicomMessage, DicomMetaDictionary, WriteBufferStream } = dcmjs.data;

/** A dataset as dcmjs naturalizes it: keyword → value, sequences as arrays of such objects. */
export type NaturalDataset = Record<string, unknown>;

/** A query the SCP cannot process (a malformed date range): answered with a failure status. */
export class WorklistQueryError extends Error {}

/** The Scheduled Procedure Step Sequence's return keys, in PS3.4 K.6 order. */
const STEP_KEYS = [
  'Modality',
  'ScheduledStationAETitle',
  'ScheduledProcedureStepStartDate',
  'ScheduledProcedureStepStartTime',
  'ScheduledPerformingPhysicianName',
  'ScheduledProcedureStepDescription',
  'ScheduledProcedureStepID',
] as const;

/** Top-level return keys (the character set is always returned). */
const TOP_KEYS = [
  'AccessionNumber',
  'ReferringPhysicianName',
  'PatientName',
  'PatientID',
  'PatientBirthDate',
  'PatientSex',
  'StudyInstanceUID',
  'RequestedProcedureID',
  'RequestedProcedureDescription',
  'ScheduledProcedureStepSequence',
] as const;

type StepKey = (typeof STEP_KEYS)[number];
type TopKey = (typeof TOP_KEYS)[number];

interface StepRow {
  accession_number: string;
  study_instance_uid: string;
  patient_id: string;
  patient_name: string;
  patient_name_en: string | null;
  birth_date: string | null;
  sex: number;
  scheduled_ae_title: string | null;
  modality: string | null;
  start_date: string;
  start_time: string;
  scheduled_step_id: string;
  requested_procedure_id: string;
  requested_procedure_description: string;
  performing_physician: string | null;
  referring_physician: string | null;
}

/** Sex codes (schemas/codes/sex.json: 1 male, 2 female, 3 other, 4 unknown) as DICOM CS. */
const DICOM_SEX: Record<number, string> = { 1: 'M', 2: 'F', 3: 'O' };

/** A naturalized value as matching text: first value, person names as "Alphabetic=Ideographic", trimmed. */
function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.length ? text(value[0]) : '';
  if (typeof value === 'object') {
    const pn = value as { Alphabetic?: string; Ideographic?: string; Phonetic?: string };
    return [pn.Alphabetic ?? '', pn.Ideographic ?? '', pn.Phonetic ?? ''].join('=').replace(/=+$/, '').trim();
  }
  return String(value).trim();
}

/** The first item of a sequence key, or undefined when the key or its item is absent. */
function firstItem(value: unknown): NaturalDataset | undefined {
  return Array.isArray(value) && value[0] && typeof value[0] === 'object' ? (value[0] as NaturalDataset) : undefined;
}

/**
 * The query's scheduled step item. dcmjs decodes text inside sequence items byte by
 * byte: in a UTF-8 query (a Chinese performing physician's name) it is read again as UTF-8.
 */
function stepOf(query: NaturalDataset): NaturalDataset | undefined {
  const item = firstItem(query.ScheduledProcedureStepSequence);
  if (!item || !text(query.SpecificCharacterSet).includes('192')) return item;
  const again = (v: unknown): unknown =>
    typeof v === 'string' ? utf8Again(v) : Array.isArray(v) ? v.map(again) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, again(x)])) : v;
  return again(item) as NaturalDataset;
}

/** Keys of a naturalized dataset; dcmjs adds bookkeeping members starting with "_". */
function keysOf(ds: NaturalDataset): string[] {
  return Object.keys(ds).filter((k) => !k.startsWith('_'));
}

const hasWildcard = (v: string) => /[*?]/.test(v);

/** A DICOM wildcard pattern (* any run, ? one character) as a LIKE pattern with "\" escaping. */
export function likePattern(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%').replace(/\?/g, '_');
}

/** Universal matching: an empty value or a lone "*" matches everything (PS3.4 C.2.2.2.3). */
export const universal = (v: string) => v === '' || /^\*+$/.test(v);

/** A DICOM DA value that is a real calendar date. */
function isDate(value: string): boolean {
  if (!/^\d{8}$/.test(value)) return false;
  const [y, m, d] = [Number(value.slice(0, 4)), Number(value.slice(4, 6)), Number(value.slice(6, 8))];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** "YYYYMMDD", "YYYYMMDD-YYYYMMDD", "YYYYMMDD-" or "-YYYYMMDD" → inclusive bounds. */
export function dateRange(value: string): { from?: string; to?: string } {
  const v = value.replace(/\s+/g, '');
  const parts = v.includes('-') ? v.split('-') : [v, v];
  if (parts.length !== 2 || (!parts[0] && !parts[1])) throw new WorklistQueryError(`invalid date range ${value}`);
  for (const p of parts) if (p && !isDate(p)) throw new WorklistQueryError(`invalid date ${p}`);
  return { from: parts[0] || undefined, to: parts[1] || undefined };
}

/** A query's WHERE conditions and their parameters (values never go into the SQL text). */
export class SqlConditions {
  readonly where: string[] = [];
  readonly params: unknown[] = [];
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }
  /** A LIKE condition from a DICOM wildcard pattern. */
  like(column: string, value: string, insensitive = false): string {
    return `${column} ${insensitive ? 'ILIKE' : 'LIKE'} ${this.param(likePattern(value))} ESCAPE '\\'`;
  }
  /** Single value matching, or wildcard matching when the value has * or ?. */
  match(column: string, value: string): void {
    if (universal(value)) return;
    this.where.push(hasWildcard(value) ? this.like(column, value) : `${column} = ${this.param(value)}`);
  }
}

interface Requested {
  top: Set<TopKey>;
  step: Set<StepKey>;
  /** Requested keys the platform has no value for: returned empty (Type 2, PS3.4 K.6.1.2.2), by key. */
  otherTop: NaturalDataset;
  otherStep: NaturalDataset;
}

/** The empty value of a requested key: an empty sequence for a sequence, else an empty value. */
export const emptyLike = (value: unknown) => (Array.isArray(value) && (value.length === 0 || typeof value[0] === 'object') && !isPersonName(value) ? [] : '');
const isPersonName = (value: unknown[]) => value.some((v) => v && typeof v === 'object' && ('Alphabetic' in v || 'Ideographic' in v));

/** Which return keys were asked for: all of them when the query names none. */
function requestedKeys(query: NaturalDataset): Requested {
  const asked = keysOf(query).filter((k) => k !== 'SpecificCharacterSet');
  const top = new Set(TOP_KEYS.filter((k) => asked.includes(k)));
  const item = stepOf(query) ?? {};
  const stepAsked = keysOf(item);
  // An empty sequence (or an empty item) asks for the whole item, as findscu users write it.
  const step = new Set(STEP_KEYS.filter((k) => stepAsked.includes(k)));
  const others = (keys: string[], known: readonly string[], from: NaturalDataset) =>
    Object.fromEntries(keys.filter((k) => !known.includes(k)).map((k) => [k, emptyLike(from[k])]));
  if (top.size === 0 && asked.length === 0) return { top: new Set(TOP_KEYS), step: new Set(STEP_KEYS), otherTop: {}, otherStep: {} };
  return { top, step: step.size ? step : new Set(STEP_KEYS), otherTop: others(asked, TOP_KEYS, query), otherStep: others(stepAsked, STEP_KEYS, item) };
}

/** "HHMMSS-HHMMSS", either end open, fractions dropped: bounds as HHMMSS (a "to" of fewer digits takes the whole minute or hour). */
export function timeRange(value: string): { from?: string; to?: string } {
  const v = value.replace(/\s+/g, '');
  const parts = v.includes('-') ? v.split('-') : [v, v];
  if (parts.length !== 2 || (!parts[0] && !parts[1])) throw new WorklistQueryError(`invalid time range ${value}`);
  const [from, to] = parts.map((p) => {
    if (p && !/^([01]\d|2[0-3])([0-5]\d){0,2}(\.\d{0,6})?$/.test(p)) throw new WorklistQueryError(`invalid time ${p}`);
    return p.split('.')[0];
  });
  const TO_END: Record<number, string> = { 2: '5959', 4: '59', 6: '' };
  return { from: from ? from.padEnd(6, '0') : undefined, to: to ? to + TO_END[to.length] : undefined };
}

/**
 * The station AE title of a step: the one scheduled, else that of the exam's device,
 * else the asking modality's own (never empty, and what the modality's own AE title matches).
 */
const STATION_AE = (callingAe: string) => `coalesce(nullif(w.scheduled_ae_title, ''), d.ae_title, ${callingAe})`;

/** The worklist query for one hospital: its open steps that match, in scheduled order. */
export function worklistSql(query: NaturalDataset, hospitalId: number, callingAe = ''): { sql: string; params: unknown[] } {
  const q = new SqlConditions();
  q.where.push(`w.hospital_id = ${q.param(hospitalId)}`);
  const tz = q.param(REGION_TIME_ZONE);
  const stationAe = STATION_AE(q.param(callingAe));
  q.match('w.patient_id', text(query.PatientID));
  q.match('w.accession_number', text(query.AccessionNumber));

  // Person name: the alphabetic component against the pinyin name (case-insensitive) or
  // the Chinese name, as people type either; the ideographic one against the Chinese name.
  const [alphabetic = '', ideographic = ''] = text(query.PatientName).split('=');
  if (!universal(alphabetic)) {
    const pattern = q.param(likePattern(alphabetic));
    q.where.push(`(w.patient_name LIKE ${pattern} ESCAPE '\\' OR lower(coalesce(w.patient_name_en, '')) LIKE lower(${pattern}) ESCAPE '\\')`);
  }
  q.match('w.patient_name', ideographic);

  const step = stepOf(query) ?? {};
  q.match('w.modality', text(step.Modality));
  q.match(stationAe, text(step.ScheduledStationAETitle));
  const date = text(step.ScheduledProcedureStepStartDate);
  const time = text(step.ScheduledProcedureStepStartTime);
  const dates = universal(date) ? {} : dateRange(date);
  const times = universal(time) ? {} : timeRange(time);
  if (!universal(date)) {
    // Date and time together are one range of instants (PS3.4 C.2.2.2.5): from the first
    // date at the first time to the last date at the last time, in the region's wall
    // clock; bounds as instants, so the comparison is on the column itself.
    const bound = (day: string, at: string | undefined, end: boolean) =>
      at
        ? `(to_timestamp(${q.param(day + at)}, 'YYYYMMDDHH24MISS')::timestamp ${end ? "+ interval '1 second'" : ''}) AT TIME ZONE ${tz}`
        : `((to_date(${q.param(day)}, 'YYYYMMDD') ${end ? '+ 1' : ''})::timestamp AT TIME ZONE ${tz})`;
    if (dates.from) q.where.push(`w.scheduled_start >= ${bound(dates.from, times.from, false)}`);
    if (dates.to) q.where.push(`w.scheduled_start < ${bound(dates.to, times.to, true)}`);
  } else if (!universal(time)) {
    // A time alone: the time of day, whatever the date.
    const local = `to_char(w.scheduled_start AT TIME ZONE ${tz}, 'HH24MISS')`;
    if (times.from) q.where.push(`${local} >= ${q.param(times.from)}`);
    if (times.to) q.where.push(`${local} <= ${q.param(times.to)}`);
  }

  const sql = `SELECT w.accession_number, w.study_instance_uid, w.patient_id, w.patient_name, w.patient_name_en,
         to_char(w.birth_date, 'YYYYMMDD') AS birth_date, w.sex, ${stationAe} AS scheduled_ae_title, w.modality,
         to_char(w.scheduled_start AT TIME ZONE ${tz}, 'YYYYMMDD') AS start_date,
         to_char(w.scheduled_start AT TIME ZONE ${tz}, 'HH24MISS') AS start_time,
         w.scheduled_step_id, w.requested_procedure_id, w.requested_procedure_description,
         w.performing_physician, w.referring_physician
    FROM worklist_steps w JOIN exam e ON e.id = w.exam_id LEFT JOIN device d ON d.id = e.device_id
   WHERE ${q.where.join('\n     AND ')}
   ORDER BY w.scheduled_start, w.exam_id`;
  return { sql, params: q.params };
}

/** A person name as Alphabetic (pinyin) = Ideographic (Chinese) components. */
function personName(name: string | null, alphabetic?: string | null): Array<{ Alphabetic?: string; Ideographic?: string }> {
  const value = (name ?? '').trim();
  if (!value) return [];
  const latin = alphabetic?.trim() || pinyinName(value);
  // A name without Han characters is its own alphabetic form.
  return [latin === value ? { Alphabetic: value } : { Alphabetic: latin, Ideographic: value.slice(0, 64) }];
}

/** DICOM wildcard matching of a person name query against a name's pinyin and Chinese forms, case-insensitive. */
export function personNameMatches(query: string, name: string | null): boolean {
  const [alphabetic = '', ideographic = ''] = query.split('=');
  const wanted = universal(alphabetic) ? ideographic : alphabetic;
  if (universal(wanted)) return true;
  const value = (name ?? '').trim();
  const pattern = new RegExp(`^${wanted.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
  return pattern.test(value) || pattern.test(pinyinName(value));
}

/** LO values hold at most 64 characters. */
const lo = (v: string | null) => (v ?? '').slice(0, 64);

function responseOf(row: StepRow, keys: Requested): NaturalDataset {
  const stepValues: Record<StepKey, unknown> = {
    Modality: row.modality ?? '',
    ScheduledStationAETitle: row.scheduled_ae_title ?? '',
    ScheduledProcedureStepStartDate: row.start_date,
    ScheduledProcedureStepStartTime: row.start_time,
    ScheduledPerformingPhysicianName: personName(row.performing_physician),
    ScheduledProcedureStepDescription: lo(row.requested_procedure_description),
    ScheduledProcedureStepID: row.scheduled_step_id,
  };
  const step: NaturalDataset = { ...keys.otherStep };
  for (const k of STEP_KEYS) if (keys.step.has(k)) step[k] = stepValues[k];
  const topValues: Record<TopKey, unknown> = {
    AccessionNumber: row.accession_number,
    ReferringPhysicianName: personName(row.referring_physician),
    PatientName: personName(row.patient_name, row.patient_name_en),
    PatientID: row.patient_id,
    PatientBirthDate: row.birth_date ?? '',
    PatientSex: DICOM_SEX[row.sex] ?? '',
    StudyInstanceUID: row.study_instance_uid,
    RequestedProcedureID: row.requested_procedure_id,
    RequestedProcedureDescription: lo(row.requested_procedure_description),
    ScheduledProcedureStepSequence: [step],
  };
  // UTF-8: Chinese names and descriptions as they are.
  const out: NaturalDataset = { SpecificCharacterSet: 'ISO_IR 192', ...keys.otherTop };
  for (const k of TOP_KEYS) if (keys.top.has(k)) out[k] = topValues[k];
  return out;
}

/**
 * The matching steps of the hospital as response identifiers, in scheduled order.
 * `callingAe` is the asking modality's AE title: a step scheduled on no station is
 * answered (and matched) as its own.
 */
export async function findWorklist(db: Queryable, hospitalId: number, query: NaturalDataset, callingAe = ''): Promise<NaturalDataset[]> {
  const { sql, params } = worklistSql(query, hospitalId, callingAe);
  const { rows } = await db.query<StepRow>(sql, params);
  const keys = requestedKeys(query);
  // The performing physician is stored in Chinese: a pinyin query is matched here, on both forms.
  const physician = text(stepOf(query)?.ScheduledPerformingPhysicianName);
  return rows.filter((row) => personNameMatches(physician, row.performing_physician)).map((row) => responseOf(row, keys));
}

/** Character sets (DICOM defined terms) worklist answers can be written in, as iconv encodings; `han`: it holds Chinese. */
const CHARSETS: Record<string, { encoding: string; han: boolean }> = {
  GB18030: { encoding: 'gb18030', han: true },
  GBK: { encoding: 'gbk', han: true },
  'ISO_IR 100': { encoding: 'latin1', han: false },
};

/** A copy without the ideographic components of person names (a character set without Chinese keeps the pinyin). */
function withoutIdeographic(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIdeographic);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as NaturalDataset);
    if ('Alphabetic' in value || 'Ideographic' in value) return Object.fromEntries(entries.filter(([k]) => k === 'Alphabetic'));
    return Object.fromEntries(entries.map(([k, v]) => [k, withoutIdeographic(v)]));
  }
  return value;
}

/**
 * An answer encoded with its text in `charset` (GB18030, GBK, ISO_IR 100) for
 * modalities that cannot read UTF-8; undefined for UTF-8 or a character set not
 * offered (the answer then goes out in UTF-8). dcmjs writes text as UTF-8 only: its
 * string writer is swapped for the encoding while this one dataset is written
 * (synchronously, so nothing else is written meanwhile).
 */
export function encodeInCharset(elements: NaturalDataset, transferSyntaxUid: string, charset: string): Buffer | undefined {
  const target = CHARSETS[charset.trim().toUpperCase()];
  if (!target) return undefined;
  const data = { ...(target.han ? elements : (withoutIdeographic(elements) as NaturalDataset)), SpecificCharacterSet: charset.trim().toUpperCase() };
  const dict = DicomMetaDictionary.denaturalizeDataset(data);
  const stream = new WriteBufferStream();
  const writer = WriteBufferStream.prototype as unknown as { writeUTF8String(this: any, value: string): number };
  const utf8 = writer.writeUTF8String;
  writer.writeUTF8String = function (value: string) {
    const bytes = iconv.encode(value, target.encoding);
    this.checkSize(bytes.length);
    this.view.writeBuffer(bytes, this.offset);
    return this.increment(bytes.length);
  };
  try {
    DicomMessage.write(dict, stream, transferSyntaxUid, {});
  } finally {
    writer.writeUTF8String = utf8;
  }
  return Buffer.from(stream.getBuffer());
}
