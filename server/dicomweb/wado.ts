/**
 * WADO-RS (PS3.18 10.4): studies, series and instances as the stored Part-10 files
 * (byte for byte, streamed file after file), their metadata as DICOM JSON, frames, and
 * rendered pictures and thumbnails. Instances go out in Explicit VR Little Endian
 * unless the request asks otherwise: Implicit VR data is converted on the way
 * (./transcode.ts), lossless compressed data of a syntax ./codecs decodes (RLE, JPEG
 * Lossless) is decoded, other compressed data is sent as stored only when the request
 * takes it (transfer-syntax=* or its own UID), else 406. Frames and rendered pictures
 * of decodable data are decoded the same way. Reads the archive's tables and
 * file storage; writes nothing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { caller } from '../lib/http';
import type { DicomJson } from '../pacs/dicomFile';
import { encodePng } from '../lib/png';
import { encodeJpeg } from '../lib/jpeg';
import { TAG } from './dictionary';
import { DicomWebError, notAcceptable } from './errors';
import { JPEG_BASELINE, frameMediaType, frameSources, parseFrameList, pixelModule, readFrame, type FrameSource, type PixelModule } from './frames';
import { covers, parseAccept, type MediaType } from './media';
import { multipartStream, newBoundary, type OutPart } from './multipart';
import { EXPLICIT_LITTLE, IMPLICIT_LITTLE, NATIVE_SYNTAXES } from './pixeldata';
import { dicomJsonMasker } from './privacy';
import { canTranscode, decompressToExplicit, implicitToExplicit } from './transcode';
import { DECODERS, canDecode, decodeFrame } from './codecs';
import { MAX_VIEWPORT, fitViewport, renderFrame, resize, type Window } from './render';
import { displayOrder, findInstance, findSeries, findStudy, instanceUrl, listInstances, notFound, representativeInstance, serviceUrl, type InstanceRow, type SeriesRef, type StudyRef } from './resources';

type Params = { study: string; series: string; instance: string; frames: string };

/** Thumbnails fit this box unless the request gives a viewport. */
const THUMBNAIL_SIZE = 128;

const isMultipartRelated = (r: MediaType) => r.essence === 'multipart/related' || r.essence === 'multipart/*' || r.essence === '*/*';

/** What an Accept header asks of DICOM instances: one part or multipart, and the transfer syntaxes in preference order ('*': as stored). */
interface DicomAccept {
  singlePart: boolean;
  syntaxes: string[];
}

/**
 * Reads the Accept header of a retrieve of instances (PS3.18 8.7.3, 10.4.1.1): the
 * first acceptable range decides between a single application/dicom part and
 * multipart/related; ranges of that form list the syntaxes, a range without a
 * transfer-syntax parameter meaning Explicit VR Little Endian (8.7.3.5.2). A single
 * part is only for one instance: a study or series asking for nothing else is 406
 * (8.7.5: a single-part media type cannot carry several representations).
 */
function dicomAccept(request: FastifyRequest, oneInstance: boolean): DicomAccept {
  let singlePart: boolean | undefined;
  const syntaxes: string[] = [];
  for (const r of parseAccept(request.headers.accept)) {
    const type = r.params.type?.toLowerCase();
    const single = r.essence === 'application/dicom';
    const multi = isMultipartRelated(r) && (!type || type === 'application/dicom');
    if (!multi && !(single && oneInstance)) continue;
    singlePart ??= single;
    if (single === singlePart) syntaxes.push(r.params['transfer-syntax'] || EXPLICIT_LITTLE);
  }
  if (singlePart === undefined) {
    throw notAcceptable(
      oneInstance
        ? 'Instances are sent as application/dicom or multipart/related; type="application/dicom".'
        : 'A study or series is several instances: it is sent as multipart/related; type="application/dicom" only.',
    );
  }
  return { singlePart, syntaxes };
}

/** Stored instances up to this size go out of a WADO-RS multipart read whole; larger ones (multi-frame) are streamed. */
const WHOLE_READ = 8 << 20;

/** The syntax an instance goes out in: the first asked for that it is stored in or converts to; 406 when none. */
function syntaxFor(i: InstanceRow, syntaxes: string[]): string {
  for (const wanted of syntaxes) {
    if (wanted === '*' || wanted === i.transferSyntaxUid) return i.transferSyntaxUid;
    if (canTranscode(i.transferSyntaxUid, wanted)) return wanted;
  }
  throw notAcceptable(
    `Instance ${i.uid} is stored as ${i.transferSyntaxUid}; converting it to ${syntaxes.join(', ')} is not supported on this server (only Implicit VR Little Endian, ${Object.keys(DECODERS).join(', ')} to Explicit VR Little Endian are): ask for transfer-syntax=* to receive it as stored.`,
  );
}

/**
 * Instances in the syntax the request takes: as stored, streamed from the file (no
 * copy in memory), or converted, which needs the whole file. Every syntax is decided
 * before the first byte goes out, so a refusal is a clean 406.
 */
async function sendInstances(fastify: FastifyInstance, request: FastifyRequest, reply: FastifyReply, instances: InstanceRow[], oneInstance = false) {
  if (!instances.length) throw notFound();
  const accept = dicomAccept(request, oneInstance);
  const syntaxes = instances.map((i) => syntaxFor(i, accept.syntaxes));
  const converted = async (i: InstanceRow) => {
    const file = await fastify.storage.read(i.fileKey);
    if (i.transferSyntaxUid === IMPLICIT_LITTLE) return implicitToExplicit(file);
    return decompressToExplicit(file, i.transferSyntaxUid, await storedPixelModule(fastify, i));
  };
  // DICOM parts are not worth compressing and must reach the client as the bytes they are.
  reply.header('Content-Encoding', 'identity');
  if (accept.singlePart) {
    const [i] = instances;
    reply.type(`application/dicom; transfer-syntax=${syntaxes[0]}`);
    if (syntaxes[0] === i.transferSyntaxUid) return reply.header('Content-Length', i.fileSize).send(await fastify.storage.get(i.fileKey));
    return reply.send(await converted(i));
  }
  const boundary = newBoundary();
  const parts = instances.map<OutPart>((i, k) => ({
    headers: { 'Content-Type': `application/dicom; transfer-syntax=${syntaxes[k]}`, ...(syntaxes[k] === i.transferSyntaxUid ? { 'Content-Length': i.fileSize } : {}) },
    // As stored: read whole (one read; the next file is read while this one goes out), a large one streamed.
    body: syntaxes[k] !== i.transferSyntaxUid ? () => converted(i) : i.fileSize <= WHOLE_READ ? () => fastify.storage.read(i.fileKey) : () => fastify.storage.get(i.fileKey),
  }));
  const body = multipartStream(boundary, parts);
  body.on('error', (err) => request.log.error({ err }, 'WADO-RS retrieve failed while streaming'));
  return reply.type(`multipart/related; type="application/dicom"; boundary=${boundary}`).send(body);
}

/** The Image Pixel module of an instance (its stored metadata, read when the row came without it); undefined without pixels. */
async function storedPixelModule(fastify: FastifyInstance, i: InstanceRow): Promise<PixelModule | undefined> {
  if (i.rows === null) return undefined;
  const metadata = i.metadata ?? (await fastify.db.query<{ metadata: DicomJson }>('SELECT metadata FROM dicom_instance WHERE id = $1', [i.id])).rows[0]?.metadata;
  return pixelModule(metadata ?? {});
}

/** An instance's metadata as WADO-RS returns it: stored attributes, the syntax it is available in, and where its pixels are. */
function instanceMetadata(base: string, study: string, i: InstanceRow & { metadata?: DicomJson }): DicomJson {
  const json: DicomJson = { ...(i.metadata ?? {}) };
  json[TAG.AvailableTransferSyntaxUID] = { vr: 'UI', Value: [i.transferSyntaxUid] };
  if (i.rows !== null) {
    const bits = Number(json[TAG.BitsAllocated]?.Value?.[0] ?? 8);
    // A multi-frame's list of frame numbers could outgrow a URL: its pixel data has a resource of its own.
    json[TAG.PixelData] = {
      vr: NATIVE_SYNTAXES.has(i.transferSyntaxUid) && bits > 8 ? 'OW' : 'OB',
      BulkDataURI: `${instanceUrl(base, study, i.seriesUid, i.uid)}/${i.frames > 1 ? `bulkdata/${TAG.PixelData}` : 'frames/1'}`,
    };
  }
  const out: DicomJson = {};
  for (const tag of Object.keys(json).sort()) out[tag] = json[tag];
  return out;
}

async function sendMetadata(fastify: FastifyInstance, request: FastifyRequest, reply: FastifyReply, study: StudyRef, instances: InstanceRow[]) {
  if (!instances.length) throw notFound();
  const ok = parseAccept(request.headers.accept).some((r) => covers(r.essence, 'application/dicom+json') || covers(r.essence, 'application/json'));
  if (!ok) throw notAcceptable('Metadata is available as application/dicom+json only.');
  const base = serviceUrl(request);
  const mask = (await dicomJsonMasker(fastify.db, caller(request))) ?? ((json: DicomJson) => json);
  return reply.type('application/dicom+json').send(JSON.stringify(displayOrder(instances, (i) => i.seriesUid).map((i) => mask(instanceMetadata(base, study.uid, i)))));
}

/** How a frame goes out: its part's media type and syntax, and whether it is decoded on the way. */
interface FrameAnswer {
  type: string;
  transferSyntaxUid: string;
  decode: boolean;
}

/**
 * The media type each frame goes out as, from the Accept header: frames are sent as
 * stored (native bytes as application/octet-stream, compressed ones in their own
 * media type, or as application/octet-stream with transfer-syntax when asked so), or,
 * when application/octet-stream is asked without a syntax or in Explicit VR Little
 * Endian (PS3.18 8.7.3.5.2), a compressed frame of a syntax ./codecs decodes is decoded.
 */
function frameContentType(request: FastifyRequest, source: FrameSource): FrameAnswer {
  const ts = source.transferSyntaxUid;
  const own = frameMediaType(ts);
  const stored = (type: string): FrameAnswer => ({ type, transferSyntaxUid: ts, decode: false });
  for (const r of parseAccept(request.headers.accept)) {
    // The part type asked for: multipart/related's type parameter, or a bare media type (lenient).
    const media = isMultipartRelated(r) ? r.params.type?.toLowerCase() ?? '*/*' : r.essence;
    const wantedTs = r.params['transfer-syntax'];
    const uncompressed = !wantedTs || wantedTs === EXPLICIT_LITTLE || wantedTs === IMPLICIT_LITTLE;
    // Native frames are little endian whatever the file's VR encoding was.
    const syntaxOk = !wantedTs || wantedTs === '*' || wantedTs === ts || (!source.encapsulated && uncompressed);
    if (syntaxOk && covers(media, own)) return stored(own);
    // application/octet-stream without transfer-syntax means uncompressed (explicit VR little endian):
    // a compressed frame goes out so as stored only when the client takes the stored syntax.
    if (media === 'application/octet-stream' && syntaxOk && wantedTs) return stored('application/octet-stream');
    if (media === 'application/octet-stream' && source.encapsulated && uncompressed && canDecode(ts)) {
      return { type: 'application/octet-stream', transferSyntaxUid: EXPLICIT_LITTLE, decode: true };
    }
  }
  throw notAcceptable(
    source.encapsulated
      ? `Frame ${source.number} is stored as ${ts} (${own}); ${canDecode(ts) ? 'it is decoded to application/octet-stream (Explicit VR Little Endian) when asked so' : 'decompression is not supported'}. Accept ${own} or application/octet-stream with transfer-syntax=*.`
      : `Frame ${source.number} is uncompressed; it is available as application/octet-stream only.`,
  );
}

/** Frames of the request's list, or all of them (the pixel data's bulk data resource). */
async function sendFrames(fastify: FastifyInstance, request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, all = false) {
  const { study, instance } = await locateInstance(fastify, request);
  const pm = pixelModule(instance.metadata);
  const numbers = all ? Array.from({ length: pm.frames }, (_, k) => k + 1) : parseFrameList(request.params.frames, pm.frames);
  const sources = await frameSources(fastify.storage, instance, pm, numbers);
  const answers = sources.map((s) => frameContentType(request, s));
  const boundary = newBoundary();
  const parts = sources.map<OutPart>((s, k) => ({
    headers: {
      'Content-Type': `${answers[k].type}; transfer-syntax=${answers[k].transferSyntaxUid}`,
      'Content-Location': `${instanceUrl(serviceUrl(request), study.uid, instance.seriesUid, instance.uid)}/frames/${s.number}`,
    },
    // A decoded frame is made when the response comes near it (one ahead), not all at once.
    body: answers[k].decode ? async () => decodeFrame(s.transferSyntaxUid, await readFrame(s), pm) : () => s.open(),
  }));
  const body = multipartStream(boundary, parts);
  body.on('error', (err) => request.log.error({ err }, 'WADO-RS frames failed while streaming'));
  return reply.type(`multipart/related; type="${answers[0].type}"; boundary=${boundary}`).send(body);
}

async function locateInstance(fastify: FastifyInstance, request: FastifyRequest<{ Params: Params }>) {
  const study = await findStudy(fastify.db, caller(request), request.params.study);
  const series = await findSeries(fastify.db, study, request.params.series);
  return { study, series, instance: await findInstance(fastify.db, study, series, request.params.instance) };
}

interface RenderOptions {
  viewport?: { width?: number; height?: number };
  /** The default thumbnail box shrinks large images but does not enlarge small ones. */
  shrinkOnly: boolean;
  window?: Window;
  quality: number;
}

function renderOptions(request: FastifyRequest, thumbnail: boolean): RenderOptions {
  // A repeated parameter counts once.
  const query = Object.fromEntries(Object.entries((request.query ?? {}) as Record<string, unknown>).map(([k, v]) => [k, [v].flat()[0] as string | undefined]));
  // viewport=width,height; either may be left empty ("128," keeps the aspect from the width).
  const vp = query.viewport ? query.viewport.split(',').map((p) => (p.trim() === '' ? undefined : Number(p))) : undefined;
  let viewport: RenderOptions['viewport'] = thumbnail ? { width: THUMBNAIL_SIZE, height: THUMBNAIL_SIZE } : undefined;
  const shrinkOnly = thumbnail && !vp;
  if (vp) {
    const [width, height] = vp;
    for (const v of [width, height]) {
      if (v !== undefined && (!Number.isInteger(v) || v < 1 || v > MAX_VIEWPORT)) throw new DicomWebError(400, `viewport sides are whole numbers from 1 to ${MAX_VIEWPORT}`);
    }
    if (width === undefined && height === undefined) throw new DicomWebError(400, 'viewport needs a width or a height');
    viewport = { width, height };
  }
  // window=center,width[,function]: only the linear function is implemented.
  const [center, width, fn] = (query.window ?? '').split(',').map((v) => v.trim());
  let window: Window | undefined;
  if (query.window) {
    if (!center || !width || !Number.isFinite(Number(center)) || !(Number(width) > 0)) throw new DicomWebError(400, 'window is center,width[,function] with a positive width');
    if (fn && !/^linear$/i.test(fn)) throw new DicomWebError(400, 'Only the LINEAR VOI LUT function is supported.');
    window = { center: Number(center), width: Number(width) };
  }
  const quality = query.quality === undefined ? 85 : Number(query.quality);
  if (!Number.isInteger(quality) || quality < 1 || quality > 100) throw new DicomWebError(400, 'quality is a whole number from 1 to 100');
  return { viewport, shrinkOnly, window, quality };
}

/**
 * image/png or image/jpeg from the Accept header (a bare type, or the type of a
 * multipart/related range); PNG unless JPEG comes first (or is stored).
 */
function renderedType(request: FastifyRequest, storedJpeg: boolean): 'image/png' | 'image/jpeg' {
  for (const r of parseAccept(request.headers.accept)) {
    const essence = r.essence === 'multipart/related' ? r.params.type?.toLowerCase() ?? '*/*' : r.essence;
    if (essence === 'image/png') return 'image/png';
    if (essence === 'image/jpeg') return 'image/jpeg';
    if (essence === 'image/*' || essence === '*/*') return storedJpeg ? 'image/jpeg' : 'image/png';
  }
  throw notAcceptable('Rendered images are available as image/png or image/jpeg.');
}

/** Whether an instance stored so can be rendered as `type`; the reason when it cannot. */
function renderRefusal(ts: string, type: string): string | undefined {
  if (NATIVE_SYNTAXES.has(ts) || canDecode(ts)) return undefined;
  // Other compressed frames are not decoded here; a baseline JPEG already is a picture.
  if (ts === JPEG_BASELINE) return type === 'image/jpeg' ? undefined : 'This instance is stored as JPEG: it is rendered as image/jpeg only.';
  return `Rendering pixel data stored as ${ts} is not supported; retrieve the frames (${frameMediaType(ts)}) instead.`;
}

/** One frame of an instance as a picture of `type`. */
async function renderBytes(fastify: FastifyInstance, instance: InstanceRow & { metadata: DicomJson }, frame: number, type: 'image/png' | 'image/jpeg', opts: RenderOptions): Promise<Buffer> {
  const pm = pixelModule(instance.metadata);
  const [source] = await frameSources(fastify.storage, instance, pm, [frame]);
  const ts = instance.transferSyntaxUid;
  if (!NATIVE_SYNTAXES.has(ts) && !canDecode(ts)) return readFrame(source);
  const frameBytes = canDecode(ts) ? decodeFrame(ts, await readFrame(source), pm) : await readFrame(source);
  let image = renderFrame(frameBytes, pm, opts.window);
  const size = fitViewport(image.width, image.height, opts.viewport?.width, opts.viewport?.height);
  if (!opts.shrinkOnly || size.width < image.width) image = resize(image, size.width, size.height);
  return type === 'image/png' ? encodePng(image.width, image.height, image.channels, image.data) : encodeJpeg(image.width, image.height, image.channels, image.data, opts.quality);
}

async function sendRendered(fastify: FastifyInstance, request: FastifyRequest, reply: FastifyReply, instance: InstanceRow & { metadata: DicomJson }, frame: number, thumbnail: boolean) {
  const opts = renderOptions(request, thumbnail);
  const type = renderedType(request, instance.transferSyntaxUid === JPEG_BASELINE);
  const refusal = renderRefusal(instance.transferSyntaxUid, type);
  if (refusal) throw notAcceptable(refusal);
  const bytes = await renderBytes(fastify, instance, frame, type, opts);
  // Instances never change: a rendered picture may be kept by the browser.
  return reply.header('Cache-Control', 'private, max-age=86400').type(type).send(bytes);
}

/**
 * A study's or series' rendered resource (PS3.18 10.4.1.1.3): multipart/related, one
 * picture per image instance (its first frame; a multi-frame's other frames are its
 * own frames/N/rendered), in the order the viewer shows them. Instances without
 * pixels (reports, presentation states) are left out; a type some image cannot be
 * rendered in is 406 before anything is sent. Pictures are made one at a time as the
 * client reads.
 */
async function sendRenderedMany(fastify: FastifyInstance, request: FastifyRequest, reply: FastifyReply, study: StudyRef, instances: InstanceRow[]) {
  const images = displayOrder(instances.filter((i) => i.rows !== null), (i) => i.seriesUid) as Array<InstanceRow & { metadata: DicomJson }>;
  if (!images.length) throw notFound();
  const opts = renderOptions(request, false);
  const type = renderedType(request, images.every((i) => i.transferSyntaxUid === JPEG_BASELINE));
  for (const i of images) {
    const refusal = renderRefusal(i.transferSyntaxUid, type);
    if (refusal) throw notAcceptable(`Instance ${i.uid}: ${refusal}`);
  }
  const base = serviceUrl(request);
  const boundary = newBoundary();
  const parts = images.map<OutPart>((i) => ({
    headers: { 'Content-Type': type, 'Content-Location': `${instanceUrl(base, study.uid, i.seriesUid, i.uid)}/rendered` },
    body: () => renderBytes(fastify, i, 1, type, opts),
  }));
  const body = multipartStream(boundary, parts);
  body.on('error', (err) => request.log.error({ err }, 'WADO-RS rendered failed while streaming'));
  return reply.header('Cache-Control', 'private, max-age=86400').type(`multipart/related; type="${type}"; boundary=${boundary}`).send(body);
}

const uid = { $ref: 'common.json#/definitions/dicomUid' };

/** What a WADO-RS path retrieves, as the audit trail names it. */
function wadoObject(url: string): string {
  const last = url.split('/').pop() ?? '';
  if (last === 'metadata') return 'dicomMetadata';
  if (last === 'rendered') return 'dicomRendered';
  if (last === 'thumbnail') return 'dicomThumbnail';
  if (url.includes('/frames/') || url.includes('/bulkdata/')) return 'dicomFrames';
  return 'dicomInstances';
}

export function registerWado(fastify: FastifyInstance) {
  const get = (url: string, params: Array<keyof Params>, handler: (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => Promise<unknown>) =>
    fastify.get<{ Params: Params }>(url, {
      // Recorded per study: the frames of one study fetched by one viewer fold into one row with their count.
      config: { permission: 'image:view', audit: { action: 'read', object: wadoObject(url), id: 'params.study', patient: 'studyUid' } },
      schema: {
        tags: ['pacs'],
        summary: `WADO-RS ${url}`,
        params: {
          type: 'object',
          required: params,
          properties: Object.fromEntries(params.map((p) => [p, p === 'frames' ? { type: 'string', pattern: '^[0-9]+(,[0-9]+)*$', maxLength: 4096 } : uid])),
        },
      },
      handler,
    });
  const study = (request: FastifyRequest<{ Params: Params }>): Promise<StudyRef> => findStudy(fastify.db, caller(request), request.params.study);
  const series = async (request: FastifyRequest<{ Params: Params }>): Promise<[StudyRef, SeriesRef]> => {
    const s = await study(request);
    return [s, await findSeries(fastify.db, s, request.params.series)];
  };
  const S = '/studies/:study';
  const SE = `${S}/series/:series`;
  const I = `${SE}/instances/:instance`;

  get(S, ['study'], async (request, reply) => {
    const s = await study(request);
    return sendInstances(fastify, request, reply, await listInstances(fastify.db, s));
  });
  get(SE, ['study', 'series'], async (request, reply) => {
    const [s, se] = await series(request);
    return sendInstances(fastify, request, reply, await listInstances(fastify.db, s, { series: se }));
  });
  get(I, ['study', 'series', 'instance'], async (request, reply) => {
    const { instance } = await locateInstance(fastify, request);
    return sendInstances(fastify, request, reply, [instance], true);
  });

  get(`${S}/metadata`, ['study'], async (request, reply) => {
    const s = await study(request);
    return sendMetadata(fastify, request, reply, s, await listInstances(fastify.db, s, { metadata: true }));
  });
  get(`${SE}/metadata`, ['study', 'series'], async (request, reply) => {
    const [s, se] = await series(request);
    return sendMetadata(fastify, request, reply, s, await listInstances(fastify.db, s, { series: se, metadata: true }));
  });
  get(`${I}/metadata`, ['study', 'series', 'instance'], async (request, reply) => {
    const { study: s, instance } = await locateInstance(fastify, request);
    return sendMetadata(fastify, request, reply, s, [instance]);
  });

  get(`${I}/frames/:frames`, ['study', 'series', 'instance', 'frames'], (request, reply) => sendFrames(fastify, request, reply));
  // The BulkDataURI of a multi-frame's pixel data: every frame, in order.
  get(`${I}/bulkdata/${TAG.PixelData}`, ['study', 'series', 'instance'], (request, reply) => sendFrames(fastify, request, reply, true));

  get(`${S}/rendered`, ['study'], async (request, reply) => {
    const s = await study(request);
    return sendRenderedMany(fastify, request, reply, s, await listInstances(fastify.db, s, { metadata: true }));
  });
  get(`${SE}/rendered`, ['study', 'series'], async (request, reply) => {
    const [s, se] = await series(request);
    return sendRenderedMany(fastify, request, reply, s, await listInstances(fastify.db, s, { series: se, metadata: true }));
  });
  get(`${I}/rendered`, ['study', 'series', 'instance'], async (request, reply) => {
    const { instance } = await locateInstance(fastify, request);
    return sendRendered(fastify, request, reply, instance, 1, false);
  });
  get(`${I}/frames/:frames/rendered`, ['study', 'series', 'instance', 'frames'], async (request, reply) => {
    const { instance } = await locateInstance(fastify, request);
    const frames = parseFrameList(request.params.frames, pixelModule(instance.metadata).frames);
    if (frames.length !== 1) throw new DicomWebError(400, 'A rendered frame is one frame number.');
    return sendRendered(fastify, request, reply, instance, frames[0], false);
  });

  // Thumbnails: what the exam list shows, from the middle image of the first series.
  get(`${S}/thumbnail`, ['study'], async (request, reply) => {
    const s = await study(request);
    return sendRendered(fastify, request, reply, await representativeInstance(fastify.db, s), 1, true);
  });
  get(`${SE}/thumbnail`, ['study', 'series'], async (request, reply) => {
    const [s, se] = await series(request);
    return sendRendered(fastify, request, reply, await representativeInstance(fastify.db, s, se), 1, true);
  });
  get(`${I}/thumbnail`, ['study', 'series', 'instance'], async (request, reply) => {
    const { instance } = await locateInstance(fastify, request);
    return sendRendered(fastify, request, reply, instance, 1, true);
  });
}
