/**
 * Debian's Orthanc as the tests and benchmarks start it: on loopback, with a config of
 * their own in a temp folder (never the system service), so two runs never share it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Queryable } from '../../server/db';
import { datasetOf } from '../dicom/dcmtk';

/** BENCH_ORTHANC points elsewhere (for the benchmarks, a missing path shows the platform-only output). */
export const ORTHANC = process.env.BENCH_ORTHANC || '/usr/sbin/Orthanc';

/** The settings every such Orthanc has: its folders under `dir`, HTTP on loopback without authentication, its DICOM server on `dicomPort`. */
export function orthancConfig(dir: string, opts: { name: string; aet: string; httpPort: number; dicomPort: number }): Record<string, unknown> {
  return {
    Name: opts.name,
    StorageDirectory: path.join(dir, 'storage'),
    IndexDirectory: path.join(dir, 'index'),
    StorageCompression: false,
    HttpServerEnabled: true,
    HttpPort: opts.httpPort,
    RemoteAccessAllowed: false,
    AuthenticationEnabled: false,
    DicomServerEnabled: true,
    DicomAet: opts.aet,
    DicomPort: opts.dicomPort,
    DicomCheckCalledAet: false,
    SaveJobs: false,
  };
}

/**
 * Asserts that each of Orthanc's instances `ids` holds, byte for byte, the dataset the
 * platform stored of the same SOP Instance UID in `studyUid` (the meta header aside,
 * which each writes its own).
 */
export async function expectOrthancHoldsStored(
  orthancHttp: string,
  platform: { db: Queryable; dataDir: string },
  studyUid: string,
  ids: string[],
): Promise<void> {
  const { rows } = await platform.db.query<{ sop_instance_uid: string; file_key: string }>(
    'SELECT i.sop_instance_uid, i.file_key FROM dicom_instance i JOIN dicom_study s ON s.id = i.study_id WHERE s.study_uid = $1',
    [studyUid],
  );
  const stored = new Map(rows.map((r) => [r.sop_instance_uid, fs.readFileSync(path.join(platform.dataDir, 'files', r.file_key))]));
  for (const id of ids) {
    const tags = await (await fetch(`${orthancHttp}/instances/${id}/simplified-tags`)).json();
    const file = Buffer.from(await (await fetch(`${orthancHttp}/instances/${id}/file`)).arrayBuffer());
    const ours = stored.get(tags.SOPInstanceUID);
    expect(ours).toBeDefined();
    expect(datasetOf(file).equals(datasetOf(ours!))).toBe(true);
  }
}
