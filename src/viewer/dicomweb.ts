/**
 * What the viewer reads from the platform's DICOMweb (server/dicomweb): a series'
 * WADO-RS metadata (DICOM JSON), turned into a sorted stack of frames with their
 * 'wadors:' image ids, and the values the overlays show. No Cornerstone here: the
 * session (./session.ts) hands the metadata to the image loader. Requests carry the
 * request wrapper's headers; refusals come back in its words (catalogue errors).
 */
import { apiBase, buildHeaders, buildUrl, request } from '../services/request';

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
export function sortInstances(list: InstanceInfo[]): InstanceInfo[] {
  const keyed = list.map((i, k) => ({ i, k, d: along(i) }));
  const spatial = keyed.every((x) => x.d !== undefined) && new Set(keyed.map((x) => x.d)).size === keyed.length;
  return keyed
    .sort((a, b) => (spatial ? a.d! - b.d! : (a.i.instanceNumber ?? Infinity) - (b.i.instanceNumber ?? Infinity) || a.k - b.k))
    .map((x) => x.i);
}

export function instanceUrl(base: string, studyUid: string, seriesUid: string, sopInstanceUid: string): string {
  return `${base.replace(/\/+$/, '')}/dicom-web/studies/${studyUid}/series/${seriesUid}/instances/${sopInstanceUid}`;
}

/** One 'wadors:' image id per frame of the instance. */
export function frameImageIds(base: string, studyUid: string, seriesUid: string, i: InstanceInfo): string[] {
  const url = instanceUrl(base, studyUid, seriesUid, i.sopInstanceUid);
  return Array.from({ length: i.frames }, (_, k) => `wadors:${url}/frames/${k + 1}`);
}

/** Frames per second of a multi-frame instance (cine), from its recommended rate, cine rate or frame time. */
export function frameRate(json: DicomJson): number | undefined {
  const rate = number(json, TAG.RecommendedDisplayFrameRate) ?? number(json, TAG.CineRate);
  if (rate && rate > 0) return rate;
  const ms = number(json, TAG.FrameTime);
  return ms && ms > 0 ? Math.round(1000 / ms) : undefined;
}

export interface SeriesStack {
  studyUid: string;
  seriesUid: string;
  modality: string;
  /** One per frame, in display order. */
  imageIds: string[];
  /** The instance each image id shows. */
  instanceOf: Map<string, InstanceInfo>;
  /** Syntaxes of the series the browser cannot decode (a study that cannot be shown says which). */
  undecodable: string[];
  multiFrame: boolean;
  frameRate?: number;
}

/** A series' instances with a SOP Instance UID, in display order (sortInstances). */
export function seriesInstances(metadata: DicomJson[]): InstanceInfo[] {
  return sortInstances(metadata.map(instanceInfo).filter((i) => i.sopInstanceUid));
}

/** Syntaxes of these instances the browser cannot decode. */
export function undecodableSyntaxes(instances: InstanceInfo[]): string[] {
  const out = new Set<string>();
  for (let k = 0; k < instances.length; k++) {
    const ts = instances[k].transferSyntaxUid;
    if (ts && !DECODABLE_SYNTAXES.has(ts)) out.add(ts);
  }
  return [...out];
}

/**
 * The image id a stack of these (sorted) instances opens on, its first instance's first
 * frame: known before the stack is built, so that its request goes out first.
 */
export function firstImageId(base: string, studyUid: string, seriesUid: string, instances: InstanceInfo[]): string | undefined {
  return instances[0] && `wadors:${instanceUrl(base, studyUid, seriesUid, instances[0].sopInstanceUid)}/frames/1`;
}

/** The stack of a series from its sorted instances (seriesInstances). */
export function stackFromInstances(base: string, studyUid: string, seriesUid: string, instances: InstanceInfo[]): SeriesStack {
  const imageIds: string[] = [];
  const instanceOf = new Map<string, InstanceInfo>();
  // Index loops: the build compiles for...of to iterator helpers, several ms for 300 slices in a fresh page.
  for (let k = 0; k < instances.length; k++) {
    const ids = frameImageIds(base, studyUid, seriesUid, instances[k]);
    for (let f = 0; f < ids.length; f++) {
      imageIds.push(ids[f]);
      instanceOf.set(ids[f], instances[k]);
    }
  }
  const multi = instances.find((i) => i.frames > 1);
  return {
    studyUid,
    seriesUid,
    modality: instances[0] ? text(instances[0].metadata, TAG.Modality) : '',
    imageIds,
    instanceOf,
    undecodable: undecodableSyntaxes(instances),
    multiFrame: !!multi,
    frameRate: multi ? frameRate(multi.metadata) : undefined,
  };
}

/** The stack of a series from its WADO-RS metadata (one DICOM JSON object per instance). */
export function buildStack(base: string, studyUid: string, seriesUid: string, metadata: DicomJson[]): SeriesStack {
  return stackFromInstances(base, studyUid, seriesUid, seriesInstances(metadata));
}

/**
 * A DICOMweb GET with the headers the request wrapper sends, its body read straight from
 * the Response: the wrapper hands a body over as a Blob, which the browser writes to its
 * blob store and reads back (some 10 ms for a series' metadata or a frame on a 2-core
 * machine, on the first image's path). undefined unless 2xx.
 */
async function getDirect(path: string, accept: string, signal?: AbortSignal): Promise<Response | undefined> {
  const options = { responseType: 'blob' as const, headers: { Accept: accept } };
  const headers = buildHeaders(path, options, typeof localStorage === 'undefined' ? undefined : localStorage);
  const response = await fetch(buildUrl(apiBase(), path), { headers, credentials: 'same-origin', signal });
  return response.ok ? response : undefined;
}

/**
 * WADO-RS series metadata. A refusal (or a network failure) is asked again through the
 * request wrapper, which says it in the catalogue's words (and signs out on an ended session).
 */
export async function fetchSeriesMetadata(studyUid: string, seriesUid: string, signal?: AbortSignal): Promise<DicomJson[]> {
  const path = `/dicom-web/studies/${studyUid}/series/${seriesUid}/metadata`;
  const accept = 'application/dicom+json';
  const direct = await getDirect(path, accept, signal).catch(() => undefined);
  if (direct) return (await direct.json()) as DicomJson[];
  const blob = await request<Blob>(path, { responseType: 'blob', headers: { Accept: accept }, signal });
  return JSON.parse(await blob.text()) as DicomJson[];
}

/** Accept of a frame request, as Cornerstone's image loader sends it: the frame as stored, in a multipart/related body. */
export const FRAME_ACCEPT = 'multipart/related; type=application/octet-stream; transfer-syntax=*';

/** One frame as WADO-RS sends it: its bytes as stored, and their transfer syntax. */
export interface FrameBytes {
  pixelData: Uint8Array;
  transferSyntaxUid: string;
}

const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);
/** Longest part head read (delimiter line and part headers). */
const PART_HEAD_MAX = 2048;

/**
 * The frame in a one-part multipart/related body: the delimiter line gives the
 * boundary, the part's Content-Type its transfer syntax; the close delimiter is looked
 * for from the end, so the frame's own bytes are not read (a byte-by-byte scan of a
 * 512 KB frame is the slowest step of Cornerstone's own extraction in a fresh page).
 * undefined for anything else (the caller then lets the loader fetch the frame).
 */
export function framePart(body: Uint8Array): FrameBytes | undefined {
  const head = latin1(body.subarray(0, PART_HEAD_MAX));
  const lineEnd = head.indexOf('\r\n');
  const headEnd = head.indexOf('\r\n\r\n');
  if (!head.startsWith('--') || lineEnd < 3 || headEnd < lineEnd) return undefined;
  const boundary = head.slice(2, lineEnd).trim();
  const type = /^content-type:(.*)$/im.exec(head.slice(lineEnd + 2, headEnd))?.[1] ?? '';
  const transferSyntaxUid = /(?:^|;)\s*transfer-syntax\s*=\s*"?([0-9.]+)"?/i.exec(type)?.[1];
  const close = `\r\n--${boundary}--`;
  const tail = latin1(body.subarray(Math.max(headEnd + 4, body.length - close.length - 64)));
  const closeAt = tail.lastIndexOf(close);
  if (!transferSyntaxUid || closeAt < 0) return undefined;
  const end = body.length - tail.length + closeAt;
  // A copy: the decoders view the bytes as 16-bit words, which need an even offset.
  return { pixelData: body.slice(headEnd + 4, end), transferSyntaxUid };
}

/** One frame (a wadors image id's URL); a failure is the image loader's to retry and report (the viewport says what failed). */
export async function fetchFrame(url: string): Promise<FrameBytes> {
  const response = await getDirect(url, FRAME_ACCEPT);
  if (!response) throw new Error(`${url}: not answered`);
  const frame = framePart(new Uint8Array(await response.arrayBuffer()));
  if (!frame) throw new Error(`${url}: not a one-part multipart/related frame`);
  return frame;
}
