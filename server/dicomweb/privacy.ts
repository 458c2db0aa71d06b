/**
 * Grade safety (spec section 5 "Data masking") on DICOMweb answers: QIDO-RS results and
 * WADO-RS metadata carry the patient's names and identifiers masked by the same rules
 * as every other screen and list (lib/masking.ts), for a caller who would see them
 * masked there. The Part-10 files themselves (WADO-RS instances, frames) go out as
 * stored: they are the diagnostic data a workstation reads, and a changed file would
 * no longer be the one the modality sent. Pure but for reading the setting.
 */
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { maskMedicalCardNo, maskName, maskPhone } from '../lib/masking';
import type { DicomJson } from '../pacs/dicomFile';
import { masksFor } from '../identity/gradeSafety';

type PersonName = { Alphabetic?: string; Ideographic?: string; Phonetic?: string };

const maskPersonName = (v: unknown) =>
  v && typeof v === 'object' ? Object.fromEntries(Object.entries(v as PersonName).map(([k, s]) => [k, typeof s === 'string' ? maskName(s) : s])) : v;
const each = (mask: (v: string) => string) => (v: unknown) => (typeof v === 'string' ? mask(v) : v);

/** The attributes masked, by tag: names as names, identifiers as card numbers, phone numbers as phones. */
const DICOM_MASKS: Readonly<Record<string, (v: unknown) => unknown>> = Object.freeze({
  '00100010': maskPersonName, // Patient's Name
  '00101001': maskPersonName, // Other Patient Names
  '00101060': maskPersonName, // Patient's Mother's Birth Name
  '00100020': each(maskMedicalCardNo), // Patient ID
  '00101000': each(maskMedicalCardNo), // Other Patient IDs
  '00102154': each(maskPhone), // Patient's Telephone Numbers
});

export function maskDicomJson(json: DicomJson): DicomJson {
  const out: DicomJson = { ...json };
  for (const [tag, mask] of Object.entries(DICOM_MASKS)) {
    const attr = out[tag];
    if (attr?.Value) out[tag] = { ...attr, Value: attr.Value.map(mask) };
  }
  return out;
}

/** What this caller gets of a DICOM JSON object: masked under grade safety, else as it is. */
export async function dicomJsonMasker(q: Queryable, me: AuthContext): Promise<((json: DicomJson) => DicomJson) | undefined> {
  return (await masksFor(q, me)) ? maskDicomJson : undefined;
}
