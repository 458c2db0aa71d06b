/**
 * STOW-RS (PS3.18 10.5): POST /studies and /studies/{study} with a multipart/related
 * body of application/dicom parts. The body is parsed as it arrives; each part is
 * written to a temp file of the archive's storage and handed to the archive (the same
 * way in as the DICOM listener's C-STORE), while the next part is received. The
 * answer lists what was stored (ReferencedSOPSequence) and what failed, with why
 * (FailedSOPSequence). Writes through server/pacs/archive.ts only.
 */
import fsp from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { caller } from '../lib/http';
import { AppError } from '../lib/errors';
import { InvalidDicomError, readDicomHeader, type DicomJson } from '../pacs/dicomFile';
import { InstanceRefusedError } from '../pacs/archive';
import { TAG } from './dictionary';
import { DicomWebError } from './errors';
import { parseMediaType } from './media';
import { MultipartError, readMultipart, type PartHeaders, type PartSink } from './multipart';
import { instanceUrl, serviceUrl, studyUrl } from './resources';

/** Largest request body: a study of a few thousand slices; the uploader sends bigger folders in several requests. */
export const STOW_MAX_BYTES = 2 * 1024 ** 3;

/** Failure reasons of PS3.4 / PS3.18 for the FailedSOPSequence. */
const FAILURE = {
  /** Processing failure: something of ours went wrong. */
  processing: 0x0110,
  /** Out of resources (disk full). */
  resources: 0xa700,
  /** The dataset does not belong here: its Study Instance UID is not the one of the URL. */
  studyMismatch: 0xa900,
  /** Cannot understand: not a DICOM Part-10 file, or malformed (truncated included). */
  unreadable: 0xc000,
  /** Duplicate SOP Instance (PS3.7 C): the UID is stored with other content. */
  duplicateDifferent: 0x0111,
} as const;

interface Outcome {
  sopClassUid?: string;
  sopInstanceUid?: string;
  studyUid?: string;
  seriesUid?: string;
  failure?: number;
}

const RESOURCE_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EMFILE', 'ENFILE', 'ENOMEM']);

function uidItem(o: Outcome): DicomJson {
  return {
    [TAG.ReferencedSOPClassUID]: o.sopClassUid ? { vr: 'UI', Value: [o.sopClassUid] } : { vr: 'UI' },
    [TAG.ReferencedSOPInstanceUID]: o.sopInstanceUid ? { vr: 'UI', Value: [o.sopInstanceUid] } : { vr: 'UI' },
  };
}

/** The STOW-RS response (PS3.18 10.5); only the sequences that have items are present. */
export function stowResponse(base: string, outcomes: Outcome[]): DicomJson {
  const stored = outcomes.filter((o) => o.failure === undefined);
  const failed = outcomes.filter((o) => o.failure !== undefined);
  const json: DicomJson = {};
  const studies = new Set(stored.map((o) => o.studyUid));
  if (studies.size === 1) json[TAG.RetrieveURL] = { vr: 'UR', Value: [studyUrl(base, stored[0].studyUid!)] };
  if (failed.length) {
    json[TAG.FailedSOPSequence] = { vr: 'SQ', Value: failed.map((o) => ({ ...uidItem(o), [TAG.FailureReason]: { vr: 'US', Value: [o.failure] } })) };
  }
  if (stored.length) {
    json[TAG.ReferencedSOPSequence] = {
      vr: 'SQ',
      Value: stored.map((o) => ({ ...uidItem(o), [TAG.RetrieveURL]: { vr: 'UR', Value: [instanceUrl(base, o.studyUid!, o.seriesUid!, o.sopInstanceUid!)] } })),
    };
  }
  return json;
}

async function handleStow(fastify: FastifyInstance, request: FastifyRequest<{ Params: { study?: string } }>, reply: FastifyReply) {
  const me = caller(request);
  // Images belong to a hospital; the region's administrative org keeps none.
  const org = await fastify.db.query<{ kind: string }>('SELECT kind FROM org WHERE id = $1', [me.hospitalId]);
  if (org.rows[0]?.kind !== 'central' && org.rows[0]?.kind !== 'subordinate') throw new AppError('PACS006');

  const contentType = parseMediaType(request.headers['content-type'] ?? '');
  if (contentType.essence !== 'multipart/related' || !contentType.params.boundary) {
    throw new AppError('UAA421', { detail: 'Content-Type: multipart/related; type="application/dicom"; boundary=...' });
  }
  const partType = contentType.params.type?.toLowerCase();
  if (partType && partType !== 'application/dicom') {
    throw new DicomWebError(415, `Only application/dicom parts are accepted (not ${partType}).`);
  }

  const expectedStudy = request.params.study;
  const source = { hospitalId: me.hospitalId!, sender: me.name, userId: me.userId };
  const outcomes: Outcome[] = [];

  /** Checks and archives one received part; never throws (a failure is an outcome). */
  const store = async (path: string, headers: PartHeaders): Promise<Outcome> => {
    let known: Outcome = {};
    try {
      const declared = headers['content-type'] ? parseMediaType(headers['content-type']).essence : 'application/dicom';
      if (declared !== 'application/dicom') {
        await fsp.rm(path, { force: true });
        return { failure: FAILURE.unreadable };
      }
      if (expectedStudy) {
        // Read first so a foreign instance never enters the archive.
        const header = await readDicomHeader(path);
        known = { sopClassUid: header.sopClassUid, sopInstanceUid: header.sopInstanceUid };
        if (header.studyUid !== expectedStudy) {
          await fsp.rm(path, { force: true });
          return { ...known, failure: FAILURE.studyMismatch };
        }
      }
      // storeFile consumes the temp file whatever happens.
      const result = await fastify.archive.storeFile(path, source);
      const h = result.header;
      // A duplicate is the instance the client wanted stored: it is.
      return { sopClassUid: h.sopClassUid, sopInstanceUid: h.sopInstanceUid, studyUid: h.studyUid, seriesUid: h.seriesUid };
    } catch (e) {
      await fsp.rm(path, { force: true });
      // Named when its header was read (PS3.18: a failed item's UIDs are Type 1).
      if (e instanceof InvalidDicomError) return { ...known, ...e.instance, failure: FAILURE.unreadable };
      // Another patient's study, or another object under a stored UID: refused, never dropped silently.
      if (e instanceof InstanceRefusedError) return { sopClassUid: e.instance.sopClassUid, sopInstanceUid: e.instance.sopInstanceUid, failure: e.reason === 'otherPatient' ? FAILURE.studyMismatch : FAILURE.duplicateDifferent };
      const code = (e as NodeJS.ErrnoException).code;
      if (code && RESOURCE_ERRORS.has(code)) return { ...known, failure: FAILURE.resources };
      request.log.error({ err: e }, 'STOW-RS: storing a part failed');
      return { ...known, failure: FAILURE.processing };
    }
  };

  // One part is stored while the next one is received; the chain keeps their order.
  let pending: Promise<void> = Promise.resolve();
  const begin = async (headers: PartHeaders): Promise<PartSink> => {
    const path = fastify.archive.tempPath();
    const handle = await fsp.open(path, 'w');
    let closed = false;
    const close = async () => {
      if (!closed) {
        closed = true;
        await handle.close();
      }
    };
    return {
      write: (chunk) => handle.write(chunk),
      end: async () => {
        await close();
        const previous = pending;
        pending = previous.then(async () => {
          outcomes.push(await store(path, headers));
        });
        // Backpressure: at most one part waits for the archive while the next arrives.
        await previous;
      },
      abort: async () => {
        await close();
        await fsp.rm(path, { force: true });
      },
    };
  };

  try {
    await readMultipart(request.body as AsyncIterable<Buffer>, contentType.params.boundary, begin, STOW_MAX_BYTES);
  } catch (e) {
    await pending;
    if (e instanceof MultipartError) {
      if (/larger than/.test(e.message)) throw new AppError('UAA413');
      throw new AppError('UAA421', { detail: e.message });
    }
    throw e;
  }
  await pending;
  if (!outcomes.length) throw new AppError('UAA421', { detail: 'the multipart body has no parts' });

  const failed = outcomes.filter((o) => o.failure !== undefined).length;
  const status = failed === 0 ? 200 : failed === outcomes.length ? 409 : 202;
  return reply.code(status).type('application/dicom+json').send(JSON.stringify(stowResponse(serviceUrl(request), outcomes)));
}

export function registerStow(fastify: FastifyInstance) {
  // The body stays a stream: parts are written to disk as they arrive, never buffered
  // whole, so Fastify's body limit does not apply (readMultipart enforces STOW_MAX_BYTES).
  fastify.addContentTypeParser('multipart/related', (_request, payload, done) => done(null, payload));
  // Uploading images is the image module's "upload" right (config/permissions.json):
  // the exam page's uploader, given to technicians; a clerk's role gets it when the
  // hospital lets clerks upload too.
  const config = { permission: 'image:upload', audit: { action: 'upload', object: 'study', id: 'params.study', patient: 'studyUid' } } as const;
  const schema = { tags: ['pacs'], summary: 'STOW-RS' };
  fastify.post('/studies', { config, schema: { ...schema, summary: 'STOW-RS: store instances' } }, (request, reply) => handleStow(fastify, request as FastifyRequest<{ Params: { study?: string } }>, reply));
  fastify.post<{ Params: { study: string } }>(
    '/studies/:study',
    {
      config,
      schema: {
        ...schema,
        summary: 'STOW-RS: store instances of one study',
        params: { type: 'object', required: ['study'], properties: { study: { $ref: 'common.json#/definitions/dicomUid' } } },
      },
    },
    (request, reply) => handleStow(fastify, request, reply),
  );
}
