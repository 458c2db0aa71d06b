/** What the tests check in an Orthanc they started (./orthanc.ts): its files against the platform's. */
import fs from 'node:fs';
import path from 'node:path';
import type { Queryable } from '../../server/db';
import { datasetOf } from '../dicom/dcmtk';

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
