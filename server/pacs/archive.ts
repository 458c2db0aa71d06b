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
      const existing = await this.findInstance(this.db, source.hospitalId, header.sopInstanceUid);
      if (existing) return { status: 'duplicate', header, ...existing };
      const key = instanceKey(source.hospitalId, header);
      const stored = await this.storage.putFile(key, tmpPath);
      moved = true;
      const indexed = await this.db.tx((q) => this.index(q, header, key, stored.size, source));
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

  private async index(q: Queryable, header: DicomHeader, key: string, size: number, source: IngestSource): Promise<Omit<IngestResult, 'header'>> {
    const j = header.json;
    const modality = str(j, '00080060');
    // The study row is locked by the upsert: instances of one study index one at a time.
    const study = (
      await q.query<{ id: number; exam_id: number | null; inserted: boolean }>(
        `INSERT INTO dicom_study (hospital_id, study_uid, patient_id, patient_name, patient_birth_date, patient_sex, study_date, study_time,
                                  accession_number, study_id, study_description, referring_physician, metadata, source_device_id, source_ae)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $15)
         ON CONFLICT (hospital_id, study_uid) DO UPDATE SET updated_at = now()
         RETURNING id, exam_id, (xmax = 0) AS inserted`,
        [
          source.hospitalId, header.studyUid, str(j, '00100020'), str(j, '00100010'), str(j, '00100030'), str(j, '00100040'),
          str(j, '00080020'), str(j, '00080030'), str(j, '00080050'), str(j, '00200010'), str(j, '00081030'), str(j, '00080090'),
          JSON.stringify(pick(j, STUDY_TAGS)), source.deviceId ?? null, source.sender,
        ],
      )
    ).rows[0];
    const series = (
      await q.query<{ id: number; inserted: boolean }>(
        `INSERT INTO dicom_series (study_id, series_uid, modality, series_number, series_description, body_part, station_name, series_date, series_time, metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb)
         ON CONFLICT (study_id, series_uid) DO UPDATE SET received_at = dicom_series.received_at
         RETURNING id, (xmax = 0) AS inserted`,
        [
          study.id, header.seriesUid, modality || null, int(j, '00200011') ?? null, str(j, '0008103E'), str(j, '00180015'), str(j, '00081010'),
          str(j, '00080021'), str(j, '00080031'), JSON.stringify(pick(j, SERIES_TAGS)),
        ],
      )
    ).rows[0];
    const instance = (
      await q.query<{ id: number }>(
        `INSERT INTO dicom_instance (hospital_id, study_id, series_id, sop_instance_uid, sop_class_uid, transfer_syntax_uid, instance_number,
                                     rows, columns, frames, bits_allocated, file_key, file_size, metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb)
         ON CONFLICT (hospital_id, sop_instance_uid) DO NOTHING
         RETURNING id`,
        [
          source.hospitalId, study.id, series.id, header.sopInstanceUid, header.sopClassUid, header.transferSyntaxUid, int(j, '00200013') ?? null,
          int(j, '00280010') ?? null, int(j, '00280011') ?? null, int(j, '00280008') ?? 1, int(j, '00280100') ?? null, key, size, JSON.stringify(j),
        ],
      )
    ).rows[0];
    if (!instance) {
      // Another association stored the same instance a moment ago, under the same key.
      const existing = (await this.findInstance(q, source.hospitalId, header.sopInstanceUid))!;
      return { status: 'duplicate', ...existing };
    }
    await q.query('UPDATE dicom_series SET instance_count = instance_count + 1 WHERE id = $1', [series.id]);
    await q.query(
      `UPDATE dicom_study SET instance_count = instance_count + 1, total_bytes = total_bytes + $2, series_count = series_count + $3,
              modalities = CASE WHEN $4 = '' OR $4 = ANY(modalities) THEN modalities ELSE array_append(modalities, $4) END, updated_at = now()
        WHERE id = $1`,
      [study.id, size, series.inserted ? 1 : 0, modality],
    );
    let examId = study.exam_id;
    if (examId) await refreshExamImages(q, examId);
    else if (study.inserted) {
      const actor: LogActor = { userId: source.userId ?? null, name: source.sender };
      examId =
        (await autoMatch(
          q,
          study.id,
          { hospitalId: source.hospitalId, studyUid: header.studyUid, accessionNumber: str(j, '00080050'), patientId: str(j, '00100020'), studyDate: str(j, '00080020'), modalities: modality ? [modality] : [] },
          actor,
        )) ?? null;
    }
    return { status: 'stored', studyId: study.id, instanceId: instance.id, examId };
  }
}
