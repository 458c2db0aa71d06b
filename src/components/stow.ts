/**
 * The browser side of a STOW-RS upload (PS3.18 10.5), pure so it is tested in node:
 * which files are DICOM Part-10 ("DICM" at byte 128) and their SOP Instance UID from
 * the meta header, how files go into requests (a few files or megabytes each, so the
 * progress is smooth and a failure costs one batch), the multipart/related body, and
 * what the DICOM JSON answer says about each instance (ReferencedSOPSequence stored,
 * FailedSOPSequence failed with a reason code). No React, no antd, no request.
 */

/** Bytes read from the start of a file: the preamble, "DICM" and the meta header. */
export const HEAD_BYTES = 16 * 1024;
export const BATCH_FILES = 10;
export const BATCH_BYTES = 20 * 1024 * 1024;

const MAGIC_AT = 128;
const MAGIC = [0x44, 0x49, 0x43, 0x4d]; // "DICM"

/** Does the file start like a DICOM Part-10 file (a 128-byte preamble, then "DICM")? */
export function isPart10(head: Uint8Array): boolean {
  return head.length >= MAGIC_AT + 4 && MAGIC.every((b, i) => head[MAGIC_AT + i] === b);
}

/** VRs with a 2-byte reserved field and a 4-byte length in explicit VR (PS3.5 7.1.2). */
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);

/**
 * The Media Storage SOP Instance UID (0002,0003) of a Part-10 head: the meta header is
 * explicit VR little endian whatever the dataset's transfer syntax. Undefined when
 * the head is not Part-10 or ends before the element.
 */
export function sopInstanceUidOf(head: Uint8Array): string | undefined {
  if (!isPart10(head)) return undefined;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  let at = MAGIC_AT + 4;
  while (at + 8 <= head.length) {
    const group = view.getUint16(at, true);
    const element = view.getUint16(at + 2, true);
    if (group !== 0x0002) return undefined;
    const vr = String.fromCharCode(head[at + 4], head[at + 5]);
    let length: number;
    let value: number;
    if (LONG_VRS.has(vr)) {
      if (at + 12 > head.length) return undefined;
      length = view.getUint32(at + 8, true);
      value = at + 12;
    } else {
      length = view.getUint16(at + 6, true);
      value = at + 8;
    }
    if (value + length > head.length) return undefined;
    if (element === 0x0003) {
      let uid = '';
      for (let i = value; i < value + length; i++) uid += String.fromCharCode(head[i]);
      return uid.replace(/[\0\s]+$/, '');
    }
    at = value + length;
  }
  return undefined;
}

/**
 * Groups items in order into batches of at most `maxFiles` and `maxBytes` (a file
 * larger than `maxBytes` goes alone).
 */
export function batches<T extends { size: number }>(items: T[], maxFiles = BATCH_FILES, maxBytes = BATCH_BYTES): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    if (current.length && (current.length >= maxFiles || bytes + item.size > maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += item.size;
  }
  if (current.length) out.push(current);
  return out;
}

/** A boundary that cannot occur in the parts by chance. */
export function newBoundary(random: () => number = Math.random): string {
  let s = '';
  for (let i = 0; i < 4; i++) s += Math.floor(random() * 0x100000000).toString(16).padStart(8, '0');
  return `rcloud-stow-${s}`;
}

/** The request's Content-Type (PS3.18 10.5.1.1). */
export function stowContentType(boundary: string): string {
  return `multipart/related; type="application/dicom"; boundary=${boundary}`;
}

/**
 * The multipart/related body: each file a part of type application/dicom (RFC 2046
 * 5.1). The Blob has no type of its own: Blob lower-cases it, and a boundary is case
 * sensitive; the request sets stowContentType.
 */
export function multipartBody(files: Blob[], boundary: string): Blob {
  const parts: BlobPart[] = [];
  for (const file of files) parts.push(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`, file, '\r\n');
  parts.push(`--${boundary}--\r\n`);
  return new Blob(parts);
}

type DicomJson = Record<string, { vr?: string; Value?: unknown[] } | undefined>;

/** What one instance of a STOW-RS answer came to: stored, or failed with the Failure Reason (0008,1197) code. */
export interface StowOutcome {
  stored: Map<string, true>;
  failed: Map<string, number | undefined>;
}

function uidOf(item: unknown): string | undefined {
  const v = (item as DicomJson | undefined)?.['00081155']?.Value?.[0];
  return typeof v === 'string' ? v : undefined;
}

/**
 * The instances of a STOW-RS answer (a DICOM JSON object, or an array holding one):
 * Referenced SOP Sequence (0008,1199) stored, Failed SOP Sequence (0008,1198) failed.
 */
export function stowOutcome(answer: unknown): StowOutcome {
  const root = (Array.isArray(answer) ? answer[0] : answer) as DicomJson | undefined;
  const stored = new Map<string, true>();
  const failed = new Map<string, number | undefined>();
  for (const item of root?.['00081199']?.Value ?? []) {
    const uid = uidOf(item);
    if (uid) stored.set(uid, true);
  }
  for (const item of root?.['00081198']?.Value ?? []) {
    const uid = uidOf(item);
    const reason = (item as DicomJson)['00081197']?.Value?.[0];
    if (uid) failed.set(uid, typeof reason === 'number' ? reason : undefined);
  }
  return { stored, failed };
}

/** Failure reasons with a text of their own (PS3.18 table 10.5.3-1 and PS3.4 annex B); others say their code. */
export const KNOWN_FAILURE_REASONS = [0x0110, 0x0122, 0x0124, 0xa700, 0xa900, 0xc000, 0xc122] as const;

/** The locale key and parameters of a failure reason. */
export function failureReasonText(reason: number | undefined): { key: string; params?: Record<string, string> } {
  if (reason === undefined) return { key: 'entity.dicomUpload.reason.unknown' };
  const hex = reason.toString(16).toUpperCase().padStart(4, '0');
  if ((KNOWN_FAILURE_REASONS as readonly number[]).includes(reason)) return { key: `entity.dicomUpload.reason.${hex}` };
  return { key: 'entity.dicomUpload.reason.other', params: { code: hex } };
}
