/**
 * A series' instances from their DICOM JSON (WADO-RS metadata), pure: the values the
 * viewer reads, and the display order of the slices. The viewer sorts with it, and the
 * server (server/dicomweb/wado.ts) lists a series' metadata in the same order, so that
 * the first instance of the answer is the one a viewer opens on (./dicomweb.ts asks for
 * its frame before the rest of the answer is in).
 */
export type DicomJson = Record<string, { vr: string; Value?: unknown[]; BulkDataURI?: string } | undefined>;

export const TAG = {
  PatientName: '00100010',
  PatientID: '00100020',
  PatientBirthDate: '00100030',
  PatientSex: '00100040',
  PatientAge: '00101010',
  StudyDate: '00080020',
  StudyTime: '00080030',
  AccessionNumber: '00080050',
  Modality: '00080060',
  InstitutionName: '00080080',
  StudyDescription: '00081030',
  SeriesDescription: '0008103E',
  AvailableTransferSyntaxUID: '00083002',
  RecommendedDisplayFrameRate: '00082144',
  SliceThickness: '00180050',
  CineRate: '00180040',
  FrameTime: '00181063',
  SeriesNumber: '00200011',
  InstanceNumber: '00200013',
  ImagePositionPatient: '00200032',
  ImageOrientationPatient: '00200037',
  SliceLocation: '00201041',
  NumberOfFrames: '00280008',
  Rows: '00280010',
  Columns: '00280011',
  PixelSpacing: '00280030',
  SOPInstanceUID: '00080018',
} as const;

/** Transfer syntaxes Cornerstone's image loader decodes in the browser (native, deflate, RLE, JPEG family, JPEG-LS, JPEG 2000, HTJ2K, JPEG XL). */
export const DECODABLE_SYNTAXES: ReadonlySet<string> = new Set([
  '1.2.840.10008.1.2',
  '1.2.840.10008.1.2.1',
  '1.2.840.10008.1.2.1.99',
  '1.2.840.10008.1.2.2',
  '1.2.840.10008.1.2.5',
  '1.2.840.10008.1.2.4.50',
  '1.2.840.10008.1.2.4.51',
  '1.2.840.10008.1.2.4.57',
  '1.2.840.10008.1.2.4.70',
  '1.2.840.10008.1.2.4.80',
  '1.2.840.10008.1.2.4.81',
  '1.2.840.10008.1.2.4.90',
  '1.2.840.10008.1.2.4.91',
  '1.2.840.10008.1.2.4.201',
  '1.2.840.10008.1.2.4.202',
  '1.2.840.10008.1.2.4.203',
  '3.2.840.10008.1.2.4.96',
  '1.2.840.10008.1.2.4.110',
  '1.2.840.10008.1.2.4.111',
  '1.2.840.10008.1.2.4.112',
]);

export function value(json: DicomJson, tag: string): unknown {
  return json[tag]?.Value?.[0];
}

export function text(json: DicomJson, tag: string): string {
  const v = value(json, tag);
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') {
    // A person name: the ideographic form with the alphabetic after it, as the rest of the platform shows names.
    const pn = v as { Alphabetic?: string; Ideographic?: string };
    const clean = (s?: string) => (s ?? '').split('^').filter(Boolean).join(' ').trim();
    const [alphabetic, ideographic] = [clean(pn.Alphabetic), clean(pn.Ideographic)];
    return ideographic && alphabetic ? `${ideographic} (${alphabetic})` : ideographic || alphabetic;
  }
  return String(v).trim();
}

export function numbers(json: DicomJson, tag: string): number[] | undefined {
  const values = json[tag]?.Value;
  if (!values?.length) return undefined;
  const out = values.map((v) => Number(v));
  return out.every(Number.isFinite) ? out : undefined;
}

export function number(json: DicomJson, tag: string): number | undefined {
  return numbers(json, tag)?.[0];
}

export interface InstanceInfo {
  sopInstanceUid: string;
  instanceNumber?: number;
  frames: number;
  position?: number[];
  orientation?: number[];
  transferSyntaxUid?: string;
  metadata: DicomJson;
}

export function instanceInfo(json: DicomJson): InstanceInfo {
  return {
    sopInstanceUid: text(json, TAG.SOPInstanceUID),
    instanceNumber: number(json, TAG.InstanceNumber),
    frames: Math.max(1, number(json, TAG.NumberOfFrames) ?? 1),
    position: numbers(json, TAG.ImagePositionPatient),
    orientation: numbers(json, TAG.ImageOrientationPatient),
    transferSyntaxUid: text(json, TAG.AvailableTransferSyntaxUID) || undefined,
    metadata: json,
  };
}

/** Distance of an image along the normal of its plane (ImagePositionPatient · (row × column)). */
function along(i: InstanceInfo): number | undefined {
  const o = i.orientation;
  const p = i.position;
  if (!o || o.length < 6 || !p || p.length < 3) return undefined;
  const n = [o[1] * o[5] - o[2] * o[4], o[2] * o[3] - o[0] * o[5], o[0] * o[4] - o[1] * o[3]];
  return p[0] * n[0] + p[1] * n[1] + p[2] * n[2];
}

/** Slices in space order when every one has a position, else by instance number, else as listed. */
export function sortInstances<T extends InstanceInfo>(list: T[]): T[] {
  const keyed = list.map((i, k) => ({ i, k, d: along(i) }));
  const spatial = keyed.every((x) => x.d !== undefined) && new Set(keyed.map((x) => x.d)).size === keyed.length;
  return keyed
    .sort((a, b) => (spatial ? a.d! - b.d! : (a.i.instanceNumber ?? Infinity) - (b.i.instanceNumber ?? Infinity) || a.k - b.k))
    .map((x) => x.i);
}
