/**
 * QIDO-RS (PS3.18 10.6): search for studies, series and instances. Query keys are
 * attribute keywords or tags; matching follows PS3.4 C.2.2.2 (single value, * and ?
 * wildcards, list of UIDs, date and time ranges, list of values); person names match
 * either their alphabetic (pinyin) or ideographic component. Every condition is an SQL
 * parameter on the indexed columns of migration 0010; results are DICOM JSON built
 * from the stored study, series and instance metadata. Reads the archive tables only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { caller } from '../lib/http';
import { scopeSql, wildcardToLike } from '../identity/scope';
import { AppError } from '../lib/errors';
import { resolveTag, TAG } from './dictionary';
import { notAcceptable } from './errors';
import { covers, parseAccept } from './media';
import type { DicomJson } from '../pacs/dicomFile';
import { dicomJsonMasker } from './privacy';
import { findSeries, findStudy, serviceUrl, studyScope, type SeriesRef, type StudyRef } from './resources';

/** Most results of one search; a client pages with offset beyond it (a Warning header says there are more). */
export const QIDO_MAX_RESULTS = 1000;

type Kind = 'text' | 'pn' | 'date' | 'time' | 'uid' | 'int' | 'modalities';
type Level = 'study' | 'series' | 'instance';

interface Matcher {
  column: string;
  kind: Kind;
}

/** Matching keys by level, on the columns the archive indexes them in. */
const MATCHERS: Record<Level, Record<string, Matcher>> = {
  study: {
    [TAG.PatientID]: { column: 's.patient_id', kind: 'text' },
    [TAG.PatientName]: { column: 's.patient_name', kind: 'pn' },
    [TAG.PatientBirthDate]: { column: 's.patient_birth_date', kind: 'date' },
    [TAG.PatientSex]: { column: 's.patient_sex', kind: 'text' },
    [TAG.StudyDate]: { column: 's.study_date', kind: 'date' },
    [TAG.StudyTime]: { column: 's.study_time', kind: 'time' },
    [TAG.AccessionNumber]: { column: 's.accession_number', kind: 'text' },
    [TAG.ModalitiesInStudy]: { column: 's.modalities', kind: 'modalities' },
    [TAG.StudyInstanceUID]: { column: 's.study_uid', kind: 'uid' },
    [TAG.StudyID]: { column: 's.study_id', kind: 'text' },
    [TAG.StudyDescription]: { column: 's.study_description', kind: 'text' },
    [TAG.ReferringPhysicianName]: { column: 's.referring_physician', kind: 'pn' },
  },
  series: {
    [TAG.SeriesInstanceUID]: { column: 'se.series_uid', kind: 'uid' },
    [TAG.Modality]: { column: 'se.modality', kind: 'text' },
    [TAG.SeriesNumber]: { column: 'se.series_number', kind: 'int' },
    [TAG.SeriesDescription]: { column: 'se.series_description', kind: 'text' },
    [TAG.BodyPartExamined]: { column: 'se.body_part', kind: 'text' },
    [TAG.StationName]: { column: 'se.station_name', kind: 'text' },
    [TAG.SeriesDate]: { column: 'se.series_date', kind: 'date' },
    [TAG.SeriesTime]: { column: 'se.series_time', kind: 'time' },
  },
  instance: {
    [TAG.SOPInstanceUID]: { column: 'i.sop_instance_uid', kind: 'uid' },
    [TAG.SOPClassUID]: { column: 'i.sop_class_uid', kind: 'uid' },
    [TAG.InstanceNumber]: { column: 'i.instance_number', kind: 'int' },
  },
};

/** Levels whose keys a search at each level may use: its own and those above. */
const LEVELS_OF: Record<Level, Level[]> = { study: ['study'], series: ['study', 'series'], instance: ['study', 'series', 'instance'] };

/** Instance attributes a search returns without includefield (PS3.18's defaults, plus what viewers sort on). */
const INSTANCE_DEFAULT = [
  TAG.SpecificCharacterSet, TAG.SOPClassUID, TAG.SOPInstanceUID, TAG.Modality, TAG.StudyInstanceUID, TAG.SeriesInstanceUID,
  TAG.InstanceNumber, TAG.Rows, TAG.Columns, TAG.BitsAllocated, TAG.NumberOfFrames,
];

/** Which attributes of a representative instance count as study or series attributes for includefield=all. */
const STUDY_GROUPS = new Set(['0010', '0032', '0038']);
const STUDY_EXTRA = new Set([
  TAG.SpecificCharacterSet, TAG.StudyDate, TAG.StudyTime, TAG.AccessionNumber, '00080051', TAG.ReferringPhysicianName, TAG.StudyDescription,
  '00081032', '00081060', '00081080', TAG.StudyInstanceUID, TAG.StudyID,
]);
const SERIES_EXTRA = new Set([
  TAG.SpecificCharacterSet, TAG.SeriesDate, TAG.SeriesTime, TAG.Modality, TAG.SeriesDescription, TAG.StationName, '00080070', '00080080',
  '00081050', '00081070', '00081090', TAG.BodyPartExamined, '00181000', '00181020', '00181030', '00185100', TAG.SeriesInstanceUID,
  TAG.SeriesNumber, '00200060', '00400244', '00400245', '00400254',
]);

/**
 * What the study and series rows keep in their metadata (server/pacs/archive.ts
 * STUDY_TAGS, SERIES_TAGS) or this module computes: asking for anything else reads
 * the first instance's metadata too.
 */
const STUDY_STORED = new Set([
  '00080005', '00080020', '00080030', '00080050', '00080090', '00081030', '00100010', '00100020', '00100030', '00100040', '0020000D', '00200010',
  TAG.ModalitiesInStudy, TAG.NumberOfStudyRelatedSeries, TAG.NumberOfStudyRelatedInstances, TAG.InstanceAvailability, TAG.RetrieveURL,
]);
const SERIES_STORED = new Set([
  '00080005', '00080021', '00080031', '00080060', '0008103E', '00081010', '00180015', '0020000E', '00200011',
  TAG.StudyInstanceUID, TAG.NumberOfSeriesRelatedInstances, TAG.InstanceAvailability, TAG.RetrieveURL,
]);

class Conditions {
  readonly where: string[] = [];
  constructor(readonly params: unknown[]) {}

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }
}

function badQuery(detail: string): AppError {
  return new AppError('UAA421', { detail }, { field: detail });
}

const hasWildcard = (v: string) => /[*?]/.test(v);

/** DA: YYYYMMDD (also YYYY-MM-DD, which some clients send). */
function normalizeDate(v: string, key: string): string {
  const dashed = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  const d = dashed ? dashed.slice(1).join('') : v;
  if (!/^\d{8}$/.test(d)) throw badQuery(`${key}: ${v}`);
  return d;
}

function normalizeTime(v: string, key: string): string {
  const t = v.replace(/:/g, '');
  if (!/^\d{2}(\d{2}(\d{2}(\.\d{1,6})?)?)?$/.test(t)) throw badQuery(`${key}: ${v}`);
  return t;
}

/** A range "A-B", "A-", "-B" or a single value, for DA and TM. */
function rangeOf(value: string): [string, string] | [string] {
  // A date with dashes (2026-11-20) is one value, not a range.
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return [value];
  const dash = value.indexOf('-');
  return dash < 0 ? [value] : [value.slice(0, dash), value.slice(dash + 1)];
}

/** The SQL of one matching key's value(s); undefined for universal matching. */
function matchSql(c: Conditions, m: Matcher, key: string, values: string[]): string | undefined {
  const terms: string[] = [];
  switch (m.kind) {
    case 'uid': {
      const list = values.flatMap((v) => v.split(/[\\,]/)).map((v) => v.trim()).filter(Boolean);
      if (!list.length) return undefined;
      for (const uid of list) if (!/^[0-9.]{1,64}$/.test(uid)) throw badQuery(`${key}: ${uid}`);
      return `${m.column} = ANY(${c.param(list)}::text[])`;
    }
    case 'modalities': {
      const list = values.flatMap((v) => v.split(/[\\,]/)).map((v) => v.trim()).filter(Boolean);
      if (!list.length || list.includes('*')) return undefined;
      if (list.some(hasWildcard)) {
        return `EXISTS (SELECT 1 FROM unnest(${m.column}) AS m(v) WHERE ${list.map((v) => `m.v LIKE ${c.param(wildcardToLike(v))}`).join(' OR ')})`;
      }
      return `${m.column} && ${c.param(list)}::text[]`;
    }
    case 'int': {
      const list = values.flatMap((v) => v.split('\\')).map((v) => v.trim()).filter(Boolean);
      if (!list.length) return undefined;
      const numbers = list.map((v) => {
        if (!/^-?\d{1,9}$/.test(v)) throw badQuery(`${key}: ${v}`);
        return Number(v);
      });
      return `${m.column} = ANY(${c.param(numbers)}::int[])`;
    }
    case 'date':
    case 'time': {
      const norm = m.kind === 'date' ? normalizeDate : normalizeTime;
      // Times compare as text once short forms are padded: 0930 is 093000.
      const col = m.kind === 'time' ? `rpad(${m.column}, 6, '0')` : m.column;
      for (const v of values.flatMap((x) => x.split('\\')).map((x) => x.trim()).filter(Boolean)) {
        const range = rangeOf(v);
        if (range.length === 1) {
          const single = norm(range[0], key);
          terms.push(m.kind === 'time' ? `${col} LIKE ${c.param(`${single}%`)}` : `${col} = ${c.param(single)}`);
          continue;
        }
        const [from, to] = range;
        if (!from && !to) throw badQuery(`${key}: ${v}`);
        const parts: string[] = [];
        if (from) parts.push(`${col} >= ${c.param(m.kind === 'time' ? norm(from, key).padEnd(6, '0') : norm(from, key))}`);
        // An upper time bound covers what it leaves out: -0930 takes 09:30:59 too.
        if (to) parts.push(`${col} <= ${c.param(m.kind === 'time' ? `${norm(to, key)}~` : norm(to, key))}`);
        terms.push(`(${parts.join(' AND ')})`);
      }
      break;
    }
    case 'pn': {
      for (const v of values.flatMap((x) => x.split('\\')).map((x) => x.trim()).filter(Boolean)) {
        if (v === '*') return undefined;
        const [alphabetic, ideographic] = v.split('=');
        const like = (part: string) => c.param(wildcardToLike(part));
        if (ideographic === undefined) {
          // One component given: it may be the pinyin or the characters.
          const p = like(alphabetic);
          terms.push(`(split_part(${m.column}, '=', 1) ILIKE ${p} OR split_part(${m.column}, '=', 2) ILIKE ${p})`);
        } else {
          const both: string[] = [];
          if (alphabetic) both.push(`split_part(${m.column}, '=', 1) ILIKE ${like(alphabetic)}`);
          if (ideographic) both.push(`split_part(${m.column}, '=', 2) ILIKE ${like(ideographic)}`);
          if (both.length) terms.push(`(${both.join(' AND ')})`);
        }
      }
      break;
    }
    default: {
      for (const v of values.flatMap((x) => x.split('\\')).map((x) => x.trim()).filter(Boolean)) {
        if (v === '*') return undefined;
        terms.push(hasWildcard(v) ? `${m.column} LIKE ${c.param(wildcardToLike(v))}` : `${m.column} = ${c.param(v)}`);
      }
    }
  }
  return terms.length ? (terms.length === 1 ? terms[0] : `(${terms.join(' OR ')})`) : undefined;
}

interface ParsedQuery {
  limit: number;
  offset: number;
  /** 'all', or the extra tags asked for. */
  include: 'all' | string[];
  warnings: string[];
}

const CONTROL_KEYS = new Set(['limit', 'offset', 'includefield', 'fuzzymatching', 'charset', 'orderby']);

function list(value: unknown): string[] {
  return [value ?? []].flat().map(String);
}

function parseQuery(request: FastifyRequest, level: Level, c: Conditions): ParsedQuery {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const warnings: string[] = [];
  const int = (name: string, fallback: number) => {
    const raw = list(query[name])[0];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d{1,9}$/.test(raw)) throw badQuery(`${name}: ${raw}`);
    return Number(raw);
  };
  let limit = int('limit', QIDO_MAX_RESULTS);
  if (limit > QIDO_MAX_RESULTS) {
    limit = QIDO_MAX_RESULTS;
    warnings.push(`The limit was reduced to ${QIDO_MAX_RESULTS}, the most this server returns at once.`);
  }
  const offset = int('offset', 0);
  if (list(query.fuzzymatching)[0] === 'true') warnings.push('The fuzzymatching parameter is not supported. Only literal matching has been performed.');

  const includeValues = list(query.includefield).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  let include: 'all' | string[] = [];
  if (includeValues.includes('all')) include = 'all';
  else {
    include = includeValues.map((v) => {
      const tag = resolveTag(v);
      if (!tag) throw badQuery(`includefield: ${v}`);
      return tag;
    });
  }

  const matchers = Object.assign({}, ...LEVELS_OF[level].map((l) => MATCHERS[l])) as Record<string, Matcher>;
  for (const [key, raw] of Object.entries(query)) {
    if (CONTROL_KEYS.has(key)) continue;
    const tag = resolveTag(key);
    if (!tag) throw badQuery(key);
    const m = matchers[tag];
    if (!m) {
      warnings.push(`${key} is not supported as a matching key at this level and was ignored.`);
      continue;
    }
    const sql = matchSql(c, m, key, list(raw));
    if (sql) c.where.push(sql);
    // A key is also a return key: it is in the stored attributes when the data has it.
    if (include !== 'all' && !include.includes(tag)) include.push(tag);
  }
  return { limit, offset, include, warnings };
}

/**
 * Results are built as DICOM JSON text by the database: jsonb `||` merges the stored
 * metadata with the computed attributes (the right side wins), and jsonb keeps keys of
 * equal length in byte order, so the 8-digit tags come out in tag order as PS3.18 F.2
 * writes them. Nothing is parsed and serialized again here: a page of 1,000 studies
 * is one string per row.
 */
const attr = (vr: string, valueSql: string) => `jsonb_build_object('vr', '${vr}', 'Value', jsonb_build_array(${valueSql}))`;
const ONLINE = `'{"vr":"CS","Value":["ONLINE"]}'::jsonb`;

/** The attributes includefield asks for that only an instance has: those of the first instance ('{}' when none are asked). */
function extraSql(c: Conditions, tags: 'all' | string[], allFilter: { groups: string[]; tags: string[] }, from: string): string {
  if (tags !== 'all' && !tags.length) return `'{}'::jsonb`;
  const filter = tags === 'all'
    ? `left(key, 4) = ANY(${c.param(allFilter.groups)}::text[]) OR key = ANY(${c.param(allFilter.tags)}::text[])`
    : `key = ANY(${c.param(tags)}::text[])`;
  return `COALESCE((SELECT (SELECT jsonb_object_agg(key, value) FROM jsonb_each(i.metadata) WHERE ${filter}) FROM dicom_instance i WHERE ${from} ORDER BY i.id LIMIT 1), '{}'::jsonb)`;
}

async function sendResults(fastify: FastifyInstance, request: FastifyRequest, reply: FastifyReply, sql: string, c: Conditions, q: ParsedQuery) {
  const { rows } = await fastify.db.query<{ json: string }>(`${sql} LIMIT ${c.param(q.limit + 1)} OFFSET ${c.param(q.offset)}`, c.params);
  const warnings = [...q.warnings];
  if (rows.length > q.limit) warnings.push('The number of results exceeded the maximum supported by the server. Additional results can be requested.');
  if (warnings.length) reply.header('Warning', warnings.map((w) => `299 ${request.host} "${w.replace(/"/g, "'")}"`).join(', '));
  // No match is 200 with [] here, always (PS3.18 allows it; one shape is easier on clients than 204).
  const mask = await dicomJsonMasker(fastify.db, caller(request));
  const results = rows.slice(0, q.limit).map((r) => (mask ? JSON.stringify(mask(JSON.parse(r.json) as DicomJson)) : r.json));
  return reply.type('application/dicom+json').send(`[${results.join(',')}]`);
}

const STUDY_ALL = { groups: [...STUDY_GROUPS], tags: [...STUDY_EXTRA] };
const SERIES_ALL = { groups: [...STUDY_GROUPS], tags: [...STUDY_EXTRA, ...SERIES_EXTRA] };

/** Searches for studies in the caller's scope, newest study date first (the order of the hospital/date index). */
async function searchStudies(fastify: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
  const me = caller(request);
  const c = new Conditions([]);
  const q = parseQuery(request, 'study', c);
  c.where.push(scopeSql(me.scope, studyScope, c.params));
  // Tags the study row does not keep come from its first instance, only when asked for.
  const extra = extraSql(c, q.include === 'all' ? 'all' : q.include.filter((t) => !STUDY_STORED.has(t)), STUDY_ALL, 'i.study_id = s.id');
  const base = `${c.param(`${serviceUrl(request)}/studies/`)}::text`;
  const sql = `SELECT (${extra} || s.metadata || jsonb_build_object(
        '${TAG.InstanceAvailability}', ${ONLINE},
        '${TAG.ModalitiesInStudy}', CASE WHEN cardinality(s.modalities) > 0 THEN jsonb_build_object('vr', 'CS', 'Value', to_jsonb(s.modalities)) ELSE '{"vr":"CS"}'::jsonb END,
        '${TAG.RetrieveURL}', ${attr('UR', `${base} || s.study_uid`)},
        '${TAG.NumberOfStudyRelatedSeries}', ${attr('IS', 's.series_count')},
        '${TAG.NumberOfStudyRelatedInstances}', ${attr('IS', 's.instance_count')}))::text AS json
      FROM dicom_study s WHERE ${c.where.join(' AND ')}
     ORDER BY s.study_date DESC, s.id DESC`;
  return sendResults(fastify, request, reply, sql, c, q);
}

/** Searches for series: of one study (in series number order) or of all studies in scope (newest first). */
async function searchSeries(fastify: FastifyInstance, request: FastifyRequest, reply: FastifyReply, study?: StudyRef) {
  const me = caller(request);
  const c = new Conditions([]);
  const q = parseQuery(request, 'series', c);
  if (study) c.where.push(`se.study_id = ${c.param(study.id)}`);
  else c.where.push(scopeSql(me.scope, studyScope, c.params));
  const extraTags = q.include === 'all' ? 'all' : q.include.filter((t) => !SERIES_STORED.has(t) && (study !== undefined || !STUDY_STORED.has(t)));
  const extra = extraSql(c, extraTags, SERIES_ALL, 'i.series_id = se.id');
  const base = `${c.param(`${serviceUrl(request)}/studies/`)}::text`;
  // Searching all series returns the study attributes as well, as PS3.18 asks of an all-series search.
  const sql = `SELECT (${extra} || ${study ? '' : 's.metadata || '}se.metadata || jsonb_build_object(
        '${TAG.InstanceAvailability}', ${ONLINE},
        '${TAG.RetrieveURL}', ${attr('UR', `${base} || s.study_uid || '/series/' || se.series_uid`)},
        '${TAG.StudyInstanceUID}', ${attr('UI', 's.study_uid')},
        '${TAG.NumberOfSeriesRelatedInstances}', ${attr('IS', 'se.instance_count')}))::text AS json
      FROM dicom_series se JOIN dicom_study s ON s.id = se.study_id
     WHERE ${c.where.join(' AND ')}
     ORDER BY ${study ? 'se.series_number NULLS LAST, se.id' : 'se.id DESC'}`;
  return sendResults(fastify, request, reply, sql, c, q);
}

/** Searches for instances of a series, of a study, or of all studies in scope. */
async function searchInstances(fastify: FastifyInstance, request: FastifyRequest, reply: FastifyReply, study?: StudyRef, series?: SeriesRef) {
  const me = caller(request);
  const c = new Conditions([]);
  const q = parseQuery(request, 'instance', c);
  if (series) c.where.push(`i.series_id = ${c.param(series.id)}`);
  else if (study) c.where.push(`i.study_id = ${c.param(study.id)}`);
  else c.where.push(scopeSql(me.scope, studyScope, c.params));
  const attrs = q.include === 'all'
    ? 'i.metadata'
    : `COALESCE((SELECT jsonb_object_agg(key, value) FROM jsonb_each(i.metadata) WHERE key = ANY(${c.param([...new Set([...INSTANCE_DEFAULT, ...q.include])])}::text[])), '{}'::jsonb)`;
  const base = `${c.param(`${serviceUrl(request)}/studies/`)}::text`;
  // The instance's own attributes win over its series' and study's.
  const sql = `SELECT (${study ? '' : 's.metadata || '}${series ? '' : 'se.metadata || '}${attrs} || jsonb_build_object(
        '${TAG.InstanceAvailability}', ${ONLINE},
        '${TAG.AvailableTransferSyntaxUID}', ${attr('UI', 'i.transfer_syntax_uid')},
        '${TAG.RetrieveURL}', ${attr('UR', `${base} || s.study_uid || '/series/' || se.series_uid || '/instances/' || i.sop_instance_uid`)},
        '${TAG.StudyInstanceUID}', ${attr('UI', 's.study_uid')},
        '${TAG.SeriesInstanceUID}', ${attr('UI', 'se.series_uid')}))::text AS json
      FROM dicom_instance i JOIN dicom_series se ON se.id = i.series_id JOIN dicom_study s ON s.id = i.study_id
     WHERE ${c.where.join(' AND ')}
     ORDER BY ${study ? 'se.series_number NULLS LAST, se.id, i.instance_number NULLS LAST, i.id' : 'i.id DESC'}`;
  return sendResults(fastify, request, reply, sql, c, q);
}

/** QIDO answers DICOM JSON only: a client that accepts neither it nor plain JSON gets 406. */
export function requireJsonAccept(request: FastifyRequest): void {
  const ok = parseAccept(request.headers.accept).some((r) => covers(r.essence, 'application/dicom+json') || covers(r.essence, 'application/json'));
  if (!ok) throw notAcceptable('Search results are available as application/dicom+json only.');
}

type Params = { study: string; series: string };
const uid = { $ref: 'common.json#/definitions/dicomUid' };

export function registerQido(fastify: FastifyInstance) {
  const tags = ['pacs'];
  const get = (url: string, params: string[], handler: (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => Promise<unknown>) =>
    fastify.get<{ Params: Params }>(url, {
      // A search inside one study reads that study's (that patient's) contents.
      config: {
        permission: 'image:view',
        audit: params.includes('study') ? { action: 'read', object: 'study', id: 'params.study', patient: 'studyUid' } : { action: 'search', object: 'study' },
      },
      schema: {
        tags,
        summary: `QIDO-RS ${url}`,
        ...(params.length ? { params: { type: 'object', required: params, properties: Object.fromEntries(params.map((p) => [p, uid])) } } : {}),
      },
      handler: async (request, reply) => {
        requireJsonAccept(request);
        return handler(request, reply);
      },
    });

  get('/studies', [], (request, reply) => searchStudies(fastify, request, reply));
  get('/series', [], (request, reply) => searchSeries(fastify, request, reply));
  get('/instances', [], (request, reply) => searchInstances(fastify, request, reply));
  get('/studies/:study/series', ['study'], async (request, reply) =>
    searchSeries(fastify, request, reply, await findStudy(fastify.db, caller(request), request.params.study)),
  );
  get('/studies/:study/instances', ['study'], async (request, reply) =>
    searchInstances(fastify, request, reply, await findStudy(fastify.db, caller(request), request.params.study)),
  );
  get('/studies/:study/series/:series/instances', ['study', 'series'], async (request, reply) => {
    const study = await findStudy(fastify.db, caller(request), request.params.study);
    return searchInstances(fastify, request, reply, study, await findSeries(fastify.db, study, request.params.series));
  });
}
