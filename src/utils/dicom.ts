/**
 * DICOM values as people read them: a date (DA, YYYYMMDD) as YYYY-MM-DD, a time (TM,
 * HHMMSS.FFFFFF, minutes and seconds optional) as HH:MM:SS, and a person
 * name (PN: Alphabetic=Ideographic=Phonetic groups, ^ between family and given name)
 * as the ideographic name with the alphabetic one after it, "张三 (Zhang San)". Pure.
 */

/** A DICOM date (YYYYMMDD) as YYYY-MM-DD; anything else as it is. */
export function dicomDateText(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v);
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : s;
}

/** A DICOM time (HH, HHMM, HHMMSS, with or without a fraction) as HH:MM[:SS]; anything else as it is. */
export function dicomTimeText(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v).trim();
  const m = /^(\d{2})(\d{2})?(\d{2})?(\.\d{1,6})?$/.exec(s);
  if (!m) return s;
  return [m[1], m[2] ?? '00', m[3]].filter((x) => x !== undefined).join(':');
}

/** A DICOM person name: the ideographic name, then the alphabetic one in brackets; either alone as it is. */
export function dicomNameText(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v);
  const [alphabetic = '', ideographic = ''] = s.split('=').map((group) => group.split('^').filter(Boolean).join(' ').trim());
  if (ideographic && alphabetic) return `${ideographic} (${alphabetic})`;
  return ideographic || alphabetic;
}

export type DicomVr = 'DA' | 'TM' | 'PN';

/** The text of a value of this VR. */
export function dicomText(vr: DicomVr, v: unknown): string {
  if (vr === 'DA') return dicomDateText(v);
  if (vr === 'TM') return dicomTimeText(v);
  return dicomNameText(v);
}
