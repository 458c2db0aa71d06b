/**
 * Data masking of patient identifiers (spec section 5), applied by the server when the
 * grade-safety setting is on and the caller lacks privacy:phoneVisible, so the plain
 * value never leaves the server for that caller. Pure functions; no I/O.
 *
 * Rules (an empty value shows "-"):
 * - name: a Chinese name keeps its first character; another name longer than 5
 *   characters keeps its first 5; a shorter one keeps its first character; the rest are stars;
 * - phone: 11 digits show the first 3 and the last 4 (138****5678); another length keeps
 *   the first 3 and last 4 when longer than 7, else only stars;
 * - identity number: keeps the first 6 and the last 3;
 * - social security number: keeps the first 6, and the last 1 when it has 15 characters or more;
 * - medical card number: the last 5 characters become 4 stars.
 */
export const EMPTY = '-';

type Value = string | null | undefined;

const stars = (n: number) => '*'.repeat(Math.max(0, n));
const isEmpty = (v: Value): v is null | undefined | '' => v === null || v === undefined || v === '';
/** Han characters (CJK unified ideographs and extension A). */
const HAN = /^[\u3400-\u9fff]/;

export function maskName(v: Value): string {
  if (isEmpty(v)) return EMPTY;
  const chars = Array.from(v);
  const keep = !HAN.test(v) && chars.length > 5 ? 5 : 1;
  return chars.slice(0, keep).join('') + stars(chars.length - keep);
}

export function maskPhone(v: Value): string {
  if (isEmpty(v)) return EMPTY;
  if (v.length <= 7) return stars(v.length);
  return v.slice(0, 3) + stars(v.length - 7) + v.slice(-4);
}

export function maskIdNo(v: Value): string {
  if (isEmpty(v)) return EMPTY;
  if (v.length <= 9) return stars(v.length);
  return v.slice(0, 6) + stars(v.length - 9) + v.slice(-3);
}

export function maskSocialNo(v: Value): string {
  if (isEmpty(v)) return EMPTY;
  const tail = v.length >= 15 ? 1 : 0;
  if (v.length <= 6 + tail) return stars(v.length);
  return v.slice(0, 6) + stars(v.length - 6 - tail) + (tail ? v.slice(-1) : '');
}

export function maskMedicalCardNo(v: Value): string {
  if (isEmpty(v)) return EMPTY;
  return v.length <= 5 ? '****' : `${v.slice(0, -5)}****`;
}

/** Exam fields and their masks (hisPatientNameEn is a name too; a credential number may be an id). */
export const EXAM_MASKS: Readonly<Record<string, (v: Value) => string>> = Object.freeze({
  hisPatientName: maskName,
  hisPatientNameEn: maskName,
  phone: maskPhone,
  idNo: maskIdNo,
  credentialNo: maskIdNo,
  socialSecurityNo: maskSocialNo,
  medicalCardNo: maskMedicalCardNo,
});

/**
 * A copy of a row with the masked fields masked. Absent fields stay absent (the
 * client shows its own "-" for them) so a row stays the shape of the entity.
 */
export function maskRow<T extends Record<string, unknown>>(row: T, masks: Readonly<Record<string, (v: Value) => string>> = EXAM_MASKS): T {
  const out: Record<string, unknown> = { ...row };
  for (const [field, mask] of Object.entries(masks)) {
    const v = out[field];
    if (typeof v === 'string' && v !== '') out[field] = mask(v);
  }
  return out as T;
}
