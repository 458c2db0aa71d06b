/**
 * The image archive's one way in: a received Part-10 file (an Arrival from the DICOM
 * listener's C-STORE, or a STOW-RS upload) is checked, put in file storage and indexed
 * (study, series, instance) in one statement before the caller acknowledges it, so an
 * acknowledged instance survives a crash. The same SOP Instance UID at the same
 * hospital is stored once. A new study is matched to its exam on arrival.
 */
import fsp from 'node:fs/promises';
import type { Db, Queryable, QueryResult } from '../db';
import type { FileStorage, TempFile } from '../storage';
import type { LogActor } from '../exam/domain';
import { HEAD_BYTES, InvalidDicomError, int, parseDicomHeader, readDicomHeader, readHead, str, type DicomHeader, type DicomJson, type HeadHeader } from './dicomFile';
import { autoMatch, logMatch, refreshExamImages } from './matching';

/** Where an instance came from: the device (modality) that sent it, or the user who uploaded it. */
export interface IngestSource {
  hospitalId: number;
  deviceId?: number | null;
  /** The sender's AE title (listener) or the uploading user's name (STOW-RS): named in the exam log. */
  sender: string;
  userId?: number | null;
  /** The SOP Instance UID the sender announced (C-STORE's Affected SOP Instance UID): the dataset must carry it. */
  expectSopInstanceUid?: string;
}

/** The dataset carries another SOP Instance UID than its sender announced. */
export class SopInstanceMismatchError extends InvalidDicomError {}

/**
 * A well-formed instance the archive will not take (issue #15): its SOP Instance UID
 * is stored already with other content, or its Study Instance UID is stored for
 * another patient. Nothing of it is kept; the refusal is in image_match_log.
 */
export class InstanceRefusedError extends Error {
  constructor(
    readonly reason: 'differentContent' | 'otherPatient',
    message: string,
    /** The instance refused, for the sender's failure report. */
    readonly instance: Pick<DicomHeader, 'sopClassUid' | 'sopInstanceUid'>,
  ) {
    super(message);
  }
}

/** What the archive needs of a sending device: the hospitals it also serves, its default character set. */
interface DeviceProfile {
  servedHospitalIds: number[];
  defaultCharset: string | null;
}
const NO_DEVICE: DeviceProfile = { servedHospitalIds: [], defaultCharset: null };
/** How long a device's profile is reused: a change in /deviceList applies within this. */
const DEVICE_PROFILE_MS = 5000;

/** The patient an instance names, as the archive compares it with its study's (see samePatient). */
interface PatientKey {
  id: string;
  name: string;
  sex: string;
  birth: string;
}

function patientKey(j: DicomJson): PatientKey {
  return {
    id: str(j, '00100020'),
    name: str(j, '00100010').toLowerCase().replace(/[\s^=.,_-]/g, ''),
    sex: str(j, '00100040').toUpperCase(),
    birth: str(j, '00100030'),
  };
}

/** The same rule as the study upsert's: same id and name, sex and birth date equal where both have one. */
function samePatient(a: PatientKey, b: PatientKey): boolean {
  const either = (x: string, y: string) => !x || !y || x === y;
  return a.id === b.id && a.name === b.name && either(a.sex, b.sex) && either(a.birth, b.birth);
}

/** Key order aside, whether two DICOM JSON datasets are the same. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export interface IngestResult {
  status: 'stored' | 'duplicate';
  header: DicomHeader;
  studyId: number;
  instanceId: number;
  /** The exam the study is matched to, if any. */
  examId: number | null;
}

export { InvalidDicomError };

/** What an Arrival hands storeReceived: the closed file, where it is, and the bytes kept of it. */
interface ReceivedFile {
  path: string;
  /** The key it was placed under while arriving, if any. */
  key?: string;
  size: number;
  /** Synced to disk already (FILE_SYNC). */
  synced: boolean;
  /** The file's first bytes (HEAD_BYTES, or all of a smaller file) and its last ones. */
  head: Buffer;
  tail: Buffer;
  /** The header, when it was read from `head` while the rest arrived. */
  early?: HeadHeader;
}

/** Patient and study module attributes: what a QIDO-RS study result carries. */
const STUDY_TAGS = [
  '00080005', '00080020', '00080030', '00080050', '00080051', '00080090', '00081030', '00100010', '00100020',
  '00100021', '00100030', '00100040', '0020000D', '00200010',
];
/** Series module attributes for QIDO-RS series results. */
const SERIES_TAGS = ['00080005', '00080021', '00080031', '00080060', '0008103E', '00081010', '00180015', '0020000E', '00200011'];

function pick(json: DicomJson, tags: string[]): DicomJson {
  const out: DicomJson = {};
  for (const tag of tags) if (json[tag]) out[tag] = json[tag];
  return out;
}

/** The storage key of an instance: one folder per study and series, named by UIDs (digits and dots only, checked on reading). */
export function instanceKey(hospitalId: number, header: Pick<DicomHeader, 'studyUid' | 'seriesUid' | 'sopInstanceUid'>): string {
  return `dicom/${hospitalId}/${header.studyUid}/${header.seriesUid}/${header.sopInstanceUid}.dcm`;
}

/**
 * The archive's per-instance statements, prepared once on the embedded database.
 * PGlite parses and plans every query anew, in WebAssembly, through six protocol
 * messages: for these statements that was over half of an instance's database time.
 * Its query() has no named statements, so they are prepared in SQL (PREPARE) and run
 * with EXECUTE, whose arguments are quoted literals (EXECUTE takes no bind
 * parameters): each goes through the parameter type's input function, as a text
 * parameter would; standard_conforming_strings makes a doubled quote the only escape.
 * An EXECUTE goes by the simple query protocol (QueryOptions.simple): one message.
 * A value with a NUL (which ends a simple query's text) takes the parameterized path.
 * PostgreSQL plans these in a fraction of a millisecond: there they run as they are.
 */
class PreparedStatements {
  /** Per database: its statements being prepared or prepared, or false when its session cannot take them. */
  private readonly sessions = new WeakMap<Db, Promise<Map<string, Promise<unknown>> | false>>();

  async query<T>(db: Db, name: string, sql: string, params: unknown[]): Promise<QueryResult<T>> {
    const prepared = await this.session(db);
    if (!prepared || params.some((v) => typeof v === 'string' && v.includes('\0'))) return db.query<T>(sql, params);
    let ready = prepared.get(name);
    if (!ready) {
      ready = db.query(`PREPARE ${name} AS ${sql}`);
      prepared.set(name, ready);
      // A failed PREPARE is tried again next time.
      ready.catch(() => prepared.delete(name));
    }
    await ready;
    const literals = params.map((v) => (v === null || v === undefined ? 'NULL' : `'${String(v).replace(/'/g, "''")}'`));
    return db.query<T>(`EXECUTE ${name}(${literals.join(', ')})`, undefined, { simple: true });
  }

  private session(db: Db): Promise<Map<string, Promise<unknown>> | false> {
    let session = this.sessions.get(db);
    if (!session) {
      session =
        db.kind === 'pglite'
          ? db.query<{ standard_conforming_strings: string }>('SHOW standard_conforming_strings').then((r) => (r.rows[0]?.standard_conforming_strings === 'on' ? new Map() : false))
          : Promise.resolve(false);
      this.sessions.set(db, session);
    }
    return session;
  }
}

/** A series indexed lately: its rows, and the patient its study was stored for. */
interface KnownSeries {
  studyId: number;
  seriesId: number;
  patient: PatientKey;
}

/** An instance as indexed, with what says whether a copy sent again is the same. */
interface StoredInstance {
  instanceId: number;
  studyId: number;
  examId: number | null;
  fileKey: string;
  metadata: DicomJson;
  transferSyntaxUid: string;
  sopClassUid: string;
}

/**
 * A SOP Instance UID sent again is the same instance when its attributes (every one
 * but the pixel data, UIDs and patient included) and its encoding are: then it is
 * acknowledged as stored. Anything else is another object under a used UID.
 */
function assertSameInstance(stored: StoredInstance, header: DicomHeader): void {
  if (stored.sopClassUid !== header.sopClassUid || stored.transferSyntaxUid !== header.transferSyntaxUid || !sameJson(stored.metadata, JSON.parse(JSON.stringify(header.json)))) {
    throw new InstanceRefusedError('differentContent', `SOP Instance UID ${header.sopInstanceUid} is stored already with other content`, header);
  }
}

export class Archive {
  /** `db` is a getter: the app builds the archive while its database still opens. */
  constructor(
    private readonly getDb: () => Db,
    private readonly storage: FileStorage,
  ) {}

  private readonly statements = new PreparedStatements();
  /**
   * Keys of instances placed while still arriving (Arrival), until stored or dropped:
   * a second copy of one arriving meanwhile waits for the first before it decides.
   */
  private readonly arriving = new Map<string, Promise<unknown>>();

  private get db(): Db {
    return this.getDb();
  }

  private readonly devices = new Map<number, { at: number; profile: Promise<DeviceProfile> }>();

  /** The sending device's profile, read at most every few seconds per device. */
  private device(deviceId: number | null | undefined): Promise<DeviceProfile> {
    if (!deviceId) return Promise.resolve(NO_DEVICE);
    const cached = this.devices.get(deviceId);
    if (cached && Date.now() - cached.at < DEVICE_PROFILE_MS) return cached.profile;
    const profile = this.db
      .query<DeviceProfile>('SELECT served_hospital_ids AS "servedHospitalIds", default_charset AS "defaultCharset" FROM device WHERE id = $1', [deviceId])
      .then((r) => r.rows[0] ?? NO_DEVICE);
    if (this.devices.size >= 1000) this.devices.clear();
    this.devices.set(deviceId, { at: Date.now(), profile });
    profile.catch(() => this.devices.delete(deviceId));
    return profile;
  }

  /** A fresh temporary path to write a received file to before storeFile. */
  tempPath(): string {
    return this.storage.tempPath();
  }

  /** An instance about to arrive over the network for `hospitalId`, its Part-10 meta header first. */
  receive(hospitalId: number, prefix: Buffer): Arrival {
    return new Arrival(this, this.storage.createTemp(), hospitalId, prefix);
  }

  /** Gives an Arrival's file its key once its header is read, unless another copy is arriving under it. */
  async placeArriving(file: TempFile, hospitalId: number, header: DicomHeader, settled: Promise<unknown>): Promise<void> {
    const key = instanceKey(hospitalId, header);
    if (this.arriving.has(key) || !(await file.place(key))) return;
    this.arriving.set(key, settled);
    void settled.finally(() => {
      if (this.arriving.get(key) === settled) this.arriving.delete(key);
    });
  }

  /** Stores bytes already in memory (a STOW-RS part). */
  async storeBuffer(bytes: Buffer, source: IngestSource): Promise<IngestResult> {
    const tmp = this.storage.tempPath();
    await fsp.writeFile(tmp, bytes);
    return this.storeFile(tmp, source);
  }

  /**
   * Checks, stores and indexes a Part-10 file written at a tempPath(); the temp file
   * is consumed (moved into storage or removed) whatever the outcome. Throws
   * InvalidDicomError for a dataset that cannot be archived.
   */
  async storeFile(tmpPath: string, source: IngestSource): Promise<IngestResult> {
    return this.ingest(tmpPath, source, (charset) => readDicomHeader(tmpPath, charset));
  }

  /**
   * storeFile for a file an Arrival has written and closed: the header is read from the
   * bytes it kept (`head`, `tail`) rather than from the file (or was read already:
   * `early`), the file is not synced again, and not moved when already placed.
   * Consumes the file like storeFile.
   */
  async storeReceived(file: ReceivedFile, source: IngestSource): Promise<IngestResult> {
    const { path, size, head, tail } = file;
    let handle: fsp.FileHandle | undefined;
    // Ranges the kept bytes do not cover (a header longer than head, a long trailer) come from the file.
    const read = async (position: number, length: number) => {
      if (position >= size - tail.length && position + length <= size) return tail.subarray(position - (size - tail.length), position - (size - tail.length) + length);
      if (position + length <= head.length) return head.subarray(position, position + length);
      handle ??= await fsp.open(path, 'r');
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      return buffer.subarray(0, bytesRead);
    };
    const header = async (charset: string | null) => {
      try {
        // The header read early did not know the device's character set.
        return await parseDicomHeader({ size, head, read }, charset ? undefined : file.early, charset);
      } finally {
        await handle?.close();
      }
    };
    return this.ingest(path, source, header, { size, synced: file.synced, placed: file.key });
  }

  private async ingest(
    tmpPath: string,
    source: IngestSource,
    readHeader: (charset: string | null) => Promise<DicomHeader>,
    known: { size?: number; synced?: boolean; placed?: string } = {},
  ): Promise<IngestResult> {
    let consumed = false;
    const device = await this.device(source.deviceId);
    let header: DicomHeader | undefined;
    try {
      header = await readHeader(device.defaultCharset);
      if (source.expectSopInstanceUid && header.sopInstanceUid !== source.expectSopInstanceUid) {
        throw new SopInstanceMismatchError('SOP Instance UID differs from the command');
      }
      const key = instanceKey(source.hospitalId, header);
      // The file goes in only under a key nobody holds: an instance stored before keeps its
      // file (no second lookup in the common case, a new instance). An Arrival has taken
      // its key already.
      let stored = known.placed === key ? { key, size: known.size! } : await this.storage.putFile(key, tmpPath, { ...known, exclusive: true });
      if (!stored) {
        // Another copy still arriving under that key is indexed or dropped first.
        await this.arriving.get(key)?.catch(() => undefined);
        const found = await this.findInstance(this.db, source.hospitalId, header.sopInstanceUid);
        if (found) {
          assertSameInstance(found, header);
          const { fileKey: _, metadata: __, ...existing } = found;
          return { status: 'duplicate', header, ...existing };
        }
        // A file without an index row: left by a crash between the two, never acknowledged.
        stored = (await this.storage.putFile(key, tmpPath, known))!;
      }
      consumed = true;
      const indexed = await this.index(header, key, stored.size, source, device);
      return { header, ...indexed };
    } catch (e) {
      if (e instanceof InstanceRefusedError && header) {
        await logMatch(this.db, {
          hospitalId: source.hospitalId, studyUid: header.studyUid, sopInstanceUid: header.sopInstanceUid, action: 'refuseInstance', rule: e.reason,
          detail: { message: e.message, patient: patientKey(header.json) }, actor: { userId: source.userId ?? null, name: source.sender },
        }).catch(() => undefined);
      }
      throw e;
    } finally {
      if (!consumed) await fsp.rm(tmpPath, { force: true });
    }
  }

  private async findInstance(q: Queryable, hospitalId: number, sopInstanceUid: string) {
    const { rows } = await q.query<StoredInstance>(
      `SELECT i.id AS "instanceId", i.study_id AS "studyId", s.exam_id AS "examId", i.file_key AS "fileKey",
              i.metadata, i.transfer_syntax_uid AS "transferSyntaxUid", i.sop_class_uid AS "sopClassUid"
         FROM dicom_instance i JOIN dicom_study s ON s.id = i.study_id
        WHERE i.hospital_id = $1 AND i.sop_instance_uid = $2`,
      [hospitalId, sopInstanceUid],
    );
    return rows[0];
  }

  /**
   * Series this process has indexed lately, by hospital, study and series UID: the
   * next instance of one is one insert and three counter updates by primary key (the
   * study's and series' rows are not looked up by UID again). A row deleted meanwhile
   * makes that insert fail on its foreign key, and the full path runs.
   */
  private readonly knownSeries = new Map<string, KnownSeries>();

  private rememberSeries(key: string, ids: KnownSeries): void {
    if (this.knownSeries.size >= 1000) this.knownSeries.clear();
    this.knownSeries.set(key, ids);
  }

  /**
   * Indexes one instance, committed on its own before the caller acknowledges it. The
   * common case (another instance of a series indexed lately) takes indexKnownSeries.
   * Otherwise one statement upserts study and series, counting the instance as it
   * locks their rows, and inserts the instance row. What happens once per series or
   * study (the study's series count and modalities, the automatic match, the exam's
   * image status) and the rare race of two senders storing the same instance at once
   * follow in statements of their own. Nothing here writes the exam: an UPDATE of exam,
   * even of no row, runs its three statement triggers (statistics rollups, the remote
   * worklist), which cost more than the rest of the statement on the embedded database;
   * the exam list counts its images from the studies instead.
   */
  private async index(header: DicomHeader, key: string, size: number, source: IngestSource, device: DeviceProfile): Promise<Omit<IngestResult, 'header'>> {
    const seriesKey = `${source.hospitalId}/${header.studyUid}/${header.seriesUid}`;
    const known = this.knownSeries.get(seriesKey);
    const patient = patientKey(header.json);
    // Another patient under a known series takes the full path, which refuses it.
    if (known && samePatient(known.patient, patient)) {
      const indexed = await this.indexKnownSeries(known, header, key, size, source).catch((e: { code?: string }) => {
        // 23503: the study or series is gone (deleted since).
        if (e?.code === '23503') return undefined;
        throw e;
      });
      if (indexed) return indexed;
      this.knownSeries.delete(seriesKey);
    }
    const j = header.json;
    const modality = str(j, '00080060');
    const { rows } = await this.statements.query<{ study_id: number; series_id: number; exam_id: number | null; study_inserted: boolean; series_inserted: boolean; instance_id: number | null; may_match: boolean }>(
      this.db,
      'archive_index_instance',
      `WITH st AS (
         INSERT INTO dicom_study (hospital_id, study_uid, patient_id, patient_name, patient_birth_date, patient_sex, study_date, study_time,
                                  accession_number, study_id, study_description, referring_physician, metadata, source_device_id, source_ae,
                                  instance_count, total_bytes, series_count, modalities)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $15, 1, $16, 1,
                 CASE WHEN $18::text IS NULL THEN '{}'::text[] ELSE ARRAY[$18::text] END)
         -- A stored study takes instances of its own patient only (samePatient's rule):
         -- for another one nothing is returned, and nothing below happens.
         ON CONFLICT (hospital_id, study_uid) DO UPDATE
           SET instance_count = dicom_study.instance_count + 1, total_bytes = dicom_study.total_bytes + excluded.total_bytes, updated_at = now()
           WHERE coalesce(dicom_study.patient_id, '') = coalesce(excluded.patient_id, '')
             AND regexp_replace(lower(coalesce(dicom_study.patient_name, '')), '[[:space:]^=.,_-]', '', 'g') = regexp_replace(lower(coalesce(excluded.patient_name, '')), '[[:space:]^=.,_-]', '', 'g')
             AND (coalesce(dicom_study.patient_sex, '') = '' OR coalesce(excluded.patient_sex, '') = '' OR upper(dicom_study.patient_sex) = upper(excluded.patient_sex))
             AND (coalesce(dicom_study.patient_birth_date, '') = '' OR coalesce(excluded.patient_birth_date, '') = '' OR dicom_study.patient_birth_date = excluded.patient_birth_date)
         RETURNING id, exam_id, (xmax = 0) AS inserted),
       se AS (
         INSERT INTO dicom_series (study_id, series_uid, modality, series_number, series_description, body_part, station_name, series_date, series_time,
                                   metadata, instance_count)
         SELECT st.id, $17, $18, $19, $20, $21, $22, $23, $24, $25::jsonb, 1 FROM st
         ON CONFLICT (study_id, series_uid) DO UPDATE SET instance_count = dicom_series.instance_count + 1
         RETURNING id, (xmax = 0) AS inserted),
       ins AS (
         INSERT INTO dicom_instance (hospital_id, study_id, series_id, sop_instance_uid, sop_class_uid, transfer_syntax_uid, instance_number,
                                     rows, columns, frames, bits_allocated, file_key, file_size, metadata)
         SELECT $1, st.id, se.id, $26, $27, $28, $29, $30, $31, $32, $33, $34, $16, $35::jsonb FROM st, se
         ON CONFLICT (hospital_id, sop_instance_uid) DO NOTHING
         RETURNING id)
       -- Whether a new study could match an exam at all: an exam of the hospital with its
       -- accession number, study UID or patient id (matching.ts narrows this down). Most
       -- studies of a modality without worklist have none, and skip the match's queries.
       SELECT st.id AS study_id, se.id AS series_id, st.exam_id, st.inserted AS study_inserted, se.inserted AS series_inserted, (SELECT id FROM ins) AS instance_id,
              st.inserted AND (EXISTS (SELECT 1 FROM exam x WHERE x.exam_code = $9)
                               OR EXISTS (SELECT 1 FROM exam x WHERE x.study_uid = $2)
                               OR EXISTS (SELECT 1 FROM exam x WHERE x.hospital_id = ANY($36::int[]) AND x.patient_id = $3)) AS may_match
         FROM st, se`,
      [
        source.hospitalId, header.studyUid, str(j, '00100020'), str(j, '00100010'), str(j, '00100030'), str(j, '00100040'),
        str(j, '00080020'), str(j, '00080030'), str(j, '00080050'), str(j, '00200010'), str(j, '00081030'), str(j, '00080090'),
        JSON.stringify(pick(j, STUDY_TAGS)), source.deviceId ?? null, source.sender, size,
        header.seriesUid, modality || null, int(j, '00200011') ?? null, str(j, '0008103E'), str(j, '00180015'), str(j, '00081010'),
        str(j, '00080021'), str(j, '00080031'), JSON.stringify(pick(j, SERIES_TAGS)),
        header.sopInstanceUid, header.sopClassUid, header.transferSyntaxUid, int(j, '00200013') ?? null,
        int(j, '00280010') ?? null, int(j, '00280011') ?? null, int(j, '00280008') ?? 1, int(j, '00280100') ?? null, key, JSON.stringify(j),
        `{${[source.hospitalId, ...device.servedHospitalIds].join(',')}}`,
      ],
    );
    const row = rows[0];
    if (!row) {
      // The study is stored for another patient: this instance is not appended to it.
      await this.storage.delete(key);
      throw new InstanceRefusedError('otherPatient', `Study Instance UID ${header.studyUid} is stored for another patient`, header);
    }
    if (row.instance_id === null) {
      // Another sender stored the same instance a moment ago (same key, same file), or the
      // UID is already stored under another study: take the counts back, and the rows
      // made for this instance alone.
      if (row.study_inserted) await this.db.query('DELETE FROM dicom_study WHERE id = $1', [row.study_id]);
      else if (row.series_inserted) await this.db.query('DELETE FROM dicom_series WHERE study_id = $1 AND series_uid = $2', [row.study_id, header.seriesUid]);
      await this.db.query('UPDATE dicom_series SET instance_count = instance_count - 1 WHERE study_id = $1 AND series_uid = $2', [row.study_id, header.seriesUid]);
      await this.db.query('UPDATE dicom_study SET instance_count = instance_count - 1, total_bytes = total_bytes - $2 WHERE id = $1', [row.study_id, size]);
      return this.storedBefore(header, key, source);
    }
    this.rememberSeries(seriesKey, { studyId: row.study_id, seriesId: row.series_id, patient });
    let examId = row.exam_id;
    if (row.study_inserted) {
      // A new study (its first series counted at insert): judged by the matching policy on
      // arrival, when an exam might take it.
      if (row.may_match) {
        const actor: LogActor = { userId: source.userId ?? null, name: source.sender };
        examId = (await autoMatch(this.db, row.study_id, actor)) ?? null;
      }
    } else if (row.series_inserted) {
      examId = await this.db.tx(async (q) => {
        const study = await q.query<{ exam_id: number | null }>(
          `UPDATE dicom_study SET series_count = series_count + 1,
                  modalities = CASE WHEN $2 = '' OR $2 = ANY(modalities) THEN modalities ELSE array_append(modalities, $2) END
            WHERE id = $1 RETURNING exam_id`,
          [row.study_id, modality],
        );
        // The exam as linked now (a manual match may have come in between).
        const linked = study.rows[0].exam_id;
        if (linked) await refreshExamImages(q, linked);
        return linked;
      });
    }
    return { status: 'stored', studyId: row.study_id, instanceId: row.instance_id, examId };
  }

  /** The instance row for a series indexed lately and the counts of its series and study: one statement. */
  private async indexKnownSeries(known: KnownSeries, header: DicomHeader, key: string, size: number, source: IngestSource): Promise<Omit<IngestResult, 'header'>> {
    const j = header.json;
    const { rows } = await this.statements.query<{ instance_id: number | null; exam_id: number | null }>(
      this.db,
      'archive_index_known_series',
      `WITH ins AS (
         INSERT INTO dicom_instance (hospital_id, study_id, series_id, sop_instance_uid, sop_class_uid, transfer_syntax_uid, instance_number,
                                     rows, columns, frames, bits_allocated, file_key, file_size, metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb)
         ON CONFLICT (hospital_id, sop_instance_uid) DO NOTHING
         RETURNING id),
       se AS (UPDATE dicom_series SET instance_count = instance_count + 1 WHERE id = $3 AND EXISTS (SELECT 1 FROM ins)),
       st AS (
         UPDATE dicom_study SET instance_count = instance_count + 1, total_bytes = total_bytes + $13, updated_at = now()
          WHERE id = $2 AND EXISTS (SELECT 1 FROM ins)
         RETURNING exam_id)
       SELECT (SELECT id FROM ins) AS instance_id, (SELECT exam_id FROM st) AS exam_id`,
      [
        source.hospitalId, known.studyId, known.seriesId, header.sopInstanceUid, header.sopClassUid, header.transferSyntaxUid, int(j, '00200013') ?? null,
        int(j, '00280010') ?? null, int(j, '00280011') ?? null, int(j, '00280008') ?? 1, int(j, '00280100') ?? null, key, size, JSON.stringify(j),
      ],
    );
    const row = rows[0];
    // Nothing counted when the instance was there already.
    if (row.instance_id === null) return this.storedBefore(header, key, source);
    return { status: 'stored', studyId: known.studyId, instanceId: row.instance_id, examId: row.exam_id };
  }

  /** The instance as indexed before (a duplicate found at indexing time), when this copy is the same. */
  private async storedBefore(header: DicomHeader, key: string, source: IngestSource): Promise<Omit<IngestResult, 'header'>> {
    const found = (await this.findInstance(this.db, source.hospitalId, header.sopInstanceUid))!;
    const { fileKey, metadata: _, transferSyntaxUid: __, sopClassUid: ___, ...existing } = found;
    // The instance stored before under other study or series UIDs keeps its file; this copy goes.
    if (fileKey !== key) await this.storage.delete(key);
    assertSameInstance(found, header);
    return { status: 'duplicate', ...existing };
  }
}

/** The last bytes of a received file kept for the truncation check (trailing padding included). */
const TAIL_BYTES = 64 * 1024;

/**
 * An instance arriving over the network (the DICOM listener's C-STORE), written as its
 * bytes come, with the first and last bytes kept so its header is never read back
 * from disk. The header is read as soon as the first HEAD_BYTES are in (or the whole
 * of a smaller file); the file then takes its storage key while the rest still
 * arrives, so nothing is moved once it is whole (with FILE_SYNC: the file is synced,
 * then its folder). store() indexes it; discard() drops an unfinished one.
 */
export class Arrival {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private early: HeadHeader | undefined;
  private placing: Promise<void> | undefined;
  private settle!: () => void;
  /** Resolves once stored or dropped: a second copy of the instance waits for it. */
  private readonly settled = new Promise<void>((resolve) => (this.settle = resolve));

  constructor(
    private readonly archive: Archive,
    private readonly file: TempFile,
    private readonly hospitalId: number,
    prefix: Buffer,
  ) {
    this.write(prefix);
  }

  /** Queues bytes for the file (not copied: the caller must not reuse them); false when the disk is behind. */
  write(bytes: Buffer): boolean {
    if (!bytes.length) return true;
    if (this.headBytes < HEAD_BYTES) {
      const part = bytes.subarray(0, HEAD_BYTES - this.headBytes);
      // Copied: a view would keep the socket's whole chunk alive.
      this.head.push(Buffer.from(part));
      this.headBytes += part.length;
      if (this.headBytes === HEAD_BYTES) this.readEarly();
    }
    this.tail.push(bytes);
    this.tailBytes += bytes.length;
    while (this.tailBytes - this.tail[0].length >= TAIL_BYTES) this.tailBytes -= this.tail.shift()!.length;
    return this.file.write(bytes);
  }

  /** Resolves once the disk has caught up. */
  drain(): Promise<void> {
    return this.file.drain();
  }

  /** Reads the header from the first bytes (`size`: the whole file's, once known) and places the file under its key. */
  private readEarly(size = Infinity): void {
    const head = Buffer.concat(this.head);
    this.head.length = 0;
    this.head.push(head);
    try {
      this.early = readHead(head, size);
    } catch {
      // storeReceived reads it again once the file is whole, and says what is wrong.
    }
    if (this.early) this.placing = this.archive.placeArriving(this.file, this.hospitalId, this.early.header, this.settled).catch(() => undefined);
  }

  /** The whole instance is in: writes it out and stores it (see Archive.storeReceived). */
  async store(source: IngestSource): Promise<IngestResult> {
    try {
      // A file smaller than the first bytes kept takes its key now, before it is synced
      // (with FILE_SYNC, the file's sync then commits its name as well).
      if (this.headBytes < HEAD_BYTES) this.readEarly(this.headBytes);
      await this.placing;
      let written: { size: number; synced: boolean };
      try {
        written = await this.file.finish();
      } catch (e) {
        // A write that failed: the file goes. Past this point storeReceived owns it, and
        // must not lose it: an index row committed before a later step failed (the
        // automatic match) points to it, and the sender's retry is told it is stored.
        await this.file.discard().catch(() => undefined);
        throw e;
      }
      const tail = Buffer.concat(this.tail);
      return await this.archive.storeReceived(
        { path: this.file.path, key: this.file.key, ...written, head: Buffer.concat(this.head), tail: tail.subarray(Math.max(0, tail.length - TAIL_BYTES)), early: this.early },
        source,
      );
    } finally {
      this.settle();
    }
  }

  /** Drops an unfinished transfer (the peer aborted or went away). */
  async discard(): Promise<void> {
    try {
      await this.placing;
      await this.file.discard();
    } finally {
      this.settle();
    }
  }
}
