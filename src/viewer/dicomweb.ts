/**
 * What the viewer reads from the platform's DICOMweb (server/dicomweb): a series'
 * WADO-RS metadata (DICOM JSON), turned into a sorted stack of frames with their
 * 'wadors:' image ids, and the values the overlays show. No Cornerstone here: the
 * session (./session.ts) hands the metadata to the image loader. Requests carry the
 * request wrapper's headers; refusals come back in its words (catalogue errors).
 */
import { apiBase, buildHeaders, buildUrl, request } from '../services/request';
import { readArrayBody } from './streamJson';
import { DECODABLE_SYNTAXES, TAG, instanceInfo, sortInstances, text, number, type DicomJson, type InstanceInfo } from '../shared/dicomJson';

export { DECODABLE_SYNTAXES, TAG, instanceInfo, number, numbers, sortInstances, text, value, type DicomJson, type InstanceInfo } from '../shared/dicomJson';

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
  /**
   * On a series' head (its first image alone, drawn before the series' metadata is in):
   * how many images the study says the series has, so the overlay and the scrollbar
   * count the series, not the one image known yet.
   */
  expected?: number;
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

/** The image id of an instance's first frame (a stack opens on its first instance's). */
export function firstImageId(base: string, studyUid: string, seriesUid: string, sopInstanceUid: string): string {
  return `wadors:${instanceUrl(base, studyUid, seriesUid, sopInstanceUid)}/frames/1`;
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

/** A series' metadata answer (its bytes) as its instances in display order, sorted here (./dicomJson.ts). */
function parseSeries(bytes: Uint8Array): InstanceInfo[] {
  return seriesInstances(JSON.parse(new TextDecoder().decode(bytes)) as DicomJson[]);
}

/**
 * A series' instances in display order, from its WADO-RS metadata. `onFirst` gets the
 * answer's first instance as soon as its bytes are in (the server lists a series in
 * display order): the viewer asks for its frame while the rest of the answer is still
 * arriving and being parsed. A refusal (or a network failure) is asked again through
 * the request wrapper, which says it in the catalogue's words (and signs out on an
 * ended session).
 */
export async function fetchSeriesInstances(studyUid: string, seriesUid: string, options: { signal?: AbortSignal; onFirst?: (first: DicomJson) => void } = {}): Promise<InstanceInfo[]> {
  const path = `/dicom-web/studies/${studyUid}/series/${seriesUid}/metadata`;
  const accept = 'application/dicom+json';
  const direct = await getDirect(path, accept, options.signal).catch(() => undefined);
  if (direct) {
    const onFirst = options.onFirst;
    const read = direct.body ? readArrayBody(direct.body, onFirst && ((text) => onFirst(JSON.parse(text) as DicomJson))) : direct.arrayBuffer().then((b) => new Uint8Array(b));
    return parseSeries(await read);
  }
  const blob = await request<Blob>(path, { responseType: 'blob', headers: { Accept: accept }, signal: options.signal });
  return parseSeries(new Uint8Array(await blob.arrayBuffer()));
}

/** One instance's WADO-RS metadata; rejects unless answered. */
export async function fetchInstance(studyUid: string, seriesUid: string, sopInstanceUid: string): Promise<InstanceInfo> {
  const response = await getDirect(`/dicom-web/studies/${studyUid}/series/${seriesUid}/instances/${sopInstanceUid}/metadata`, 'application/dicom+json');
  const [json] = response ? ((await response.json()) as DicomJson[]) : [];
  if (!json) throw new Error(`instance ${sopInstanceUid}: no metadata`);
  return instanceInfo(json);
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
