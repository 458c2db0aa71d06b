/**
 * Pure rules of exam registration shared by the exam routes and the demo seed:
 * numbering formats and the pre-assigned Study Instance UID, plus the patient rules of
 * config/person.ts (age from a birth date, pinyin of a name) that the form shares. No I/O: the counters live in
 * server/exam/domain.ts.
 */
import crypto from 'node:crypto';
import { pinyin } from 'pinyin-pro';
import { pinyinName as personName, type PinyinFn } from '../../config/person';

// The region's time (its zone and calendar day) is code both sides run.
export { REGION_TIME_ZONE, dayKey } from '../../src/shared/regionTime';

/**
 * Exam number = DICOM Accession Number (SH, at most 16 characters): the day and a
 * 5-digit daily sequence, e.g. 2025031400042 (13 characters). Unique per hospital
 * through the (hospital, day) counter; a day past 99999 exams just grows a digit.
 */
export function formatExamCode(day: string, seq: number): string {
  return `${day}${String(seq).padStart(5, '0')}`;
}

/** Generated patient id: "P", the day and a 4-digit daily sequence (P202503140007). */
export function formatPatientId(day: string, seq: number): string {
  return `P${day}${String(seq).padStart(4, '0')}`;
}

/**
 * A UID under the 2.25 arc (ISO/IEC 9834-8): "2.25." and a random UUID read as one
 * decimal number, at most 44 characters, so no organisation root is needed.
 */
export function newStudyUid(): string {
  return `2.25.${BigInt(`0x${crypto.randomUUID().replace(/-/g, '')}`).toString(10)}`;
}

export { AGE_UNIT, ageFromBirthDate } from '../../config/person';

/** Birth date (YYYY-MM-DD) written in a mainland identity number, digits 7-14. */
export function birthDateOfIdCard(idNo: string): string {
  return `${idNo.slice(6, 10)}-${idNo.slice(10, 12)}-${idNo.slice(12, 14)}`;
}

/** The name in DICOM Person Name form (config/person.ts), with pinyin-pro's dictionary. */
export function pinyinName(name: string): string {
  return personName(name, pinyin as PinyinFn);
}
