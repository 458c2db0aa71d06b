/**
 * The image archive's one way in: a received Part-10 file (from the DICOM listener's
 * C-STORE or a STOW-RS upload) is checked, moved into file storage and indexed
 * (study, series, instance) in one transaction before the caller acknowledges it, so
 * an acknowledged instance survives a crash. The same SOP Instance UID at the same
 * hospital is stored once. A new study is matched to its exam on arrival.
 */
import fsp from 'node:fs/promises';
import type { Db, Queryable } from '../db';
import type { FileStorage } from '../storage';
import type { LogActor } from '../routes/exam';
import { InvalidDicomError, int, readDicomHeader, str, type DicomHeader, type DicomJson } from './dicomFile';
import { autoMatch, refreshExamImages } from './matching';

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

export interface IngestResult {
  status: 'stored' | 'duplicate';
  header: DicomHeader;
  studyId: number;
  instanceId: number;
  /** The exam the study is matched to, if any. */
  examId: number | null;
}

export { InvalidDicomError };

/** Patient and study module attributes: what a QIDO-RS study result carries. */
const STUDY_TAGS = [
  '00080005', '00080020', '00080030', '00080050', '00080090', '00081030', '00100010', '00100020',
  '00100030', '00100040', '0020000D', '00200010',
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

export class Archive {
  /** `db` is a getter: the app builds the archive while its database still opens. */
  constructor(
    private readonly getDb: () => Db,
    private readonly storage: FileStorage,
  ) {}

  private get db(): Db {
    return this.getDb();
  }

  /** A fresh temporary path to write a received file to before storeFile. */
  tempPath(): string {
    return this.storage.tempPath();
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
    let moved = false;
    try {
      const header = await readDicomHeader(tmpPath);
      if (source.expectSopInstanceUid && header.sopInstanceUid !== source.expectSopInstanceUid) {
        throw new SopInstanceMismatchError('SOP Instance UID differs from the command');
      }
      const existing = await this.findInstance(this.db, source.hospitalId, header.sopInstanceUid);
      if (existing) return { status: 'duplicate', header, ...existing };
      const key = instanceKey(source.hospitalId, header);
      const stored = await this.storage.putFile(key, tmpPath);
      moved = true;
      const indexed = await this.index(header, key, stored.size, source);
      return { header, ...indexed };
    } finally {
      if (!moved) await fsp.rm(tmpPath, { force: true });
    }
  }

  private async findInstance(q: Queryable, hospitalId: number, sopInstanceUid: string) {
    const { rows } = await q.query<{ instanceId: number; studyId: number; examId: number | null }>(
      `SELECT i.id AS "instanceId", i.study_id AS "studyId", s.exam_id AS "examId"
         FROM dicom_instance i JOIN dicom_study s ON s.id = i.study_id
        WHERE i.hospital_id = $1 AND i.sop_instance_uid = $2`,
      [hospitalId, sopInstanceUid],
    );
    return rows[0];
  }

  /**
   * Indexes one instance. The common case (another instance of a known series) is one
   * statement, committed on its own: the study and series upserts count the instance
   * as they lock their rows, the instance row goes in with them, and a matched exam
   * counts it. What happens once per series or study (the study's series count and
   * modalities, the automatic match) and the rare race of two senders storing the same
   * instance at once follow in statements of their own.
   */
  private async index(header: DicomHeader, key: string, size: number, source: IngestSource): Promise<Omit<IngestResult, 'header'>> {
    const j = header.json;
    const modality = str(j, '00080060');
    const { rows } = await this.db.query<{ study_id: number; exam_id: number | null; study_inserted: boolean; series_inserted: boolean; instance_id: number | null }>(
      `WITH st AS (
         INSERT INTO dicom_study (hospital_id, study_uid, patient_id, patient_name, patient_birth_date, patient_sex, study_date, study_time,
                                  accession_number, study_id, study_description, referring_physician, metadata, source_device_id, source_ae,
                                  instance_count, total_bytes, series_count, modalities)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $15, 1, $16, 1,
                 CASE WHEN $18::text IS NULL THEN '{}'::text[] ELSE ARRAY[$18::text] END)
         ON CONFLICT (hospital_id, study_uid) DO UPDATE
           SET instance_count = dicom_study.instance_count + 1, total_bytes = dicom_study.total_bytes + excluded.total_bytes, updated_at = now()
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
         RETURNING id),
       -- A matched study's exam counts the image too (its image status was set at the match).
       ex AS (
         UPDATE exam e SET instance_count = e.instance_count + 1, series_count = e.series_count + CASE WHEN se.inserted THEN 1 ELSE 0 END
           FROM st, se WHERE e.id = st.exam_id)
       SELECT st.id AS study_id, st.exam_id, st.inserted AS study_inserted, se.inserted AS series_inserted, (SELECT id FROM ins) AS instance_id
         FROM st, se`,
      [
        source.hospitalId, header.studyUid, str(j, '00100020'), str(j, '00100010'), str(j, '00100030'), str(j, '00100040'),
        str(j, '00080020'), str(j, '00080030'), str(j, '00080050'), str(j, '00200010'), str(j, '00081030'), str(j, '00080090'),
        JSON.stringify(pick(j, STUDY_TAGS)), source.deviceId ?? null, source.sender, size,
        header.seriesUid, modality || null, int(j, '00200011') ?? null, str(j, '0008103E'), str(j, '00180015'), str(j, '00081010'),
        str(j, '00080021'), str(j, '00080031'), JSON.stringify(pick(j, SERIES_TAGS)),
        header.sopInstanceUid, header.sopClassUid, header.transferSyntaxUid, int(j, '00200013') ?? null,
        int(j, '00280010') ?? null, int(j, '00280011') ?? null, int(j, '00280008') ?? 1, int(j, '00280100') ?? null, key, JSON.stringify(j),
      ],
    );
    const row = rows[0];
    if (row.instance_id === null) {
      // Another sender stored the same instance a moment ago (same key, same file), or the
      // UID is already stored under another study: take the counts back, and the rows
      // made for this instance alone.
      if (row.study_inserted) await this.db.query('DELETE FROM dicom_study WHERE id = $1', [row.study_id]);
      else if (row.series_inserted) await this.db.query('DELETE FROM dicom_series WHERE study_id = $1 AND series_uid = $2', [row.study_id, header.seriesUid]);
      await this.db.query('UPDATE dicom_series SET instance_count = instance_count - 1 WHERE study_id = $1 AND series_uid = $2', [row.study_id, header.seriesUid]);
      await this.db.query('UPDATE dicom_study SET instance_count = instance_count - 1, total_bytes = total_bytes - $2 WHERE id = $1', [row.study_id, size]);
      if (row.exam_id) await this.db.query('UPDATE exam SET instance_count = instance_count - 1 WHERE id = $1', [row.exam_id]);
      const existing = (await this.findInstance(this.db, source.hospitalId, header.sopInstanceUid))!;
      return { status: 'duplicate', ...existing };
    }
    let examId = row.exam_id;
    if (row.study_inserted) {
      // A new study (its first series counted at insert): matched on arrival.
      const actor: LogActor = { userId: source.userId ?? null, name: source.sender };
      const keys = { hospitalId: source.hospitalId, studyUid: header.studyUid, accessionNumber: str(j, '00080050'), patientId: str(j, '00100020'), studyDate: str(j, '00080020'), modalities: modality ? [modality] : [] };
      examId = (await autoMatch(this.db, row.study_id, keys, actor)) ?? null;
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
}
