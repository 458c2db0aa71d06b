/**
 * A retrieve's sub-operations (PS3.4 C.4.2 C-MOVE, C.4.3 C-GET): the stored instances
 * sent as C-STOREs to a StoreTarget, counted as the pending responses report them
 * (remaining, completed, failed, warning). An instance goes as stored when the target
 * accepted its transfer syntax; an uncompressed one may go in the other little endian
 * syntax (re-encoded by dcmjs); a losslessly compressed one the server decodes (RLE,
 * JPEG lossless: ../dicomweb/codecs) goes uncompressed to a target that takes only
 * that (the values are the same); any other compressed one the target cannot take
 * counts as failed, with the reason in the log. Reads file storage only.
 */
import * as dcmjs from 'dcmjs';
import type { FastifyBaseLogger } from 'fastify';
import { ahead } from '../lib/ahead';
import type { FileStorage } from '../storage';
import { canDecode } from '../dicomweb/codecs';
import { pixelModule } from '../dicomweb/frames';
import { decompressToExplicit } from '../dicomweb/transcode';
import { EXPLICIT_VR_LE, IMPLICIT_VR_LE } from './negotiation';
import { datasetOffset, storeRequest, type ProposedContext } from './pdu';
import type { RetrieveInstance } from './query';
import type { AcceptedContext, StoreTarget } from './scu';

const { DicomMessage, DicomDict } = dcmjs.data;

const UNCOMPRESSED = [EXPLICIT_VR_LE, IMPLICIT_VR_LE];

/** DIMSE C-STORE statuses counted as warnings (PS3.4 B.2.3: coercion, elements discarded, not checked). */
const STORE_WARNINGS = new Set([0xb000, 0xb006, 0xb007]);

export interface RetrieveCounts {
  remaining: number;
  completed: number;
  failed: number;
  warning: number;
  /** SOP Instance UIDs that failed (the final response's Failed SOP Instance UID List). */
  failedUids: string[];
  /** Why the last failed sub-operation failed (a regional send shows it). */
  lastReason?: string;
}

/**
 * The contexts to propose to a C-MOVE destination: per SOP class, each stored transfer
 * syntax on its own (so the one accepted is known to be that one), and both little
 * endian syntaxes for instances held uncompressed or compressed in a syntax decoded here.
 */
export function proposedContexts(instances: RetrieveInstance[]): ProposedContext[] {
  const wanted = new Map<string, string[][]>();
  for (const { sopClassUid, transferSyntaxUid } of instances) {
    const lists = wanted.get(sopClassUid) ?? [];
    const add = (list: string[]) => {
      if (!lists.some((l) => l.join() === list.join())) lists.push(list);
    };
    add([transferSyntaxUid]);
    if (UNCOMPRESSED.includes(transferSyntaxUid) || canDecode(transferSyntaxUid)) add(UNCOMPRESSED);
    wanted.set(sopClassUid, lists);
  }
  const contexts: ProposedContext[] = [];
  for (const [abstractSyntax, lists] of wanted) {
    for (const transferSyntaxes of lists) {
      // Context ids are odd, 1 to 255 (PS3.8 9.3.2.2): at most 128 contexts.
      if (contexts.length < 128) contexts.push({ id: contexts.length * 2 + 1, abstractSyntax, transferSyntaxes });
    }
  }
  return contexts;
}

/** How a stored file becomes the dataset sent: as it is, re-encoded between the little endian syntaxes, or decoded first. */
type Conversion = 'none' | 'reencode' | 'decode';

/** The context an instance goes on, and how its dataset is made; a reason when none will do. */
function contextFor(instance: RetrieveInstance, contexts: AcceptedContext[]): { context: AcceptedContext; conversion: Conversion } | { reason: string } {
  const ofClass = contexts.filter((c) => c.abstractSyntax === instance.sopClassUid);
  if (!ofClass.length) return { reason: 'SOP class not accepted by the destination' };
  const asStored = ofClass.find((c) => c.transferSyntax === instance.transferSyntaxUid);
  if (asStored) return { context: asStored, conversion: 'none' };
  const uncompressed = ofClass.find((c) => UNCOMPRESSED.includes(c.transferSyntax));
  if (uncompressed && UNCOMPRESSED.includes(instance.transferSyntaxUid)) return { context: uncompressed, conversion: 'reencode' };
  if (uncompressed && canDecode(instance.transferSyntaxUid)) return { context: uncompressed, conversion: 'decode' };
  return { reason: `transfer syntax ${instance.transferSyntaxUid} not accepted by the destination (it is not decoded on this server)` };
}


/** The dataset of a stored Part-10 file in `transferSyntax`: its own bytes, or re-encoded between the little endian syntaxes. */
export function datasetIn(file: Buffer, transferSyntax: string, reencode: boolean): Buffer {
  if (!reencode) return file.subarray(datasetOffset(file));
  const parsed = DicomMessage.readFile(file.buffer.slice(file.byteOffset, file.byteOffset + file.length), { ignoreErrors: true });
  const meta = { ...parsed.meta, '00020010': { vr: 'UI', Value: [transferSyntax] } };
  const dict = new DicomDict(meta);
  dict.dict = parsed.dict;
  const out = Buffer.from(dict.write());
  return out.subarray(datasetOffset(out));
}

/** The Image Pixel module a stored file's own attributes give (read up to its pixel data). */
function filePixelModule(file: Buffer) {
  const parsed = DicomMessage.readFile(file.buffer.slice(file.byteOffset, file.byteOffset + file.length), { ignoreErrors: true, untilTag: '7FE00010', includeUntilTagValue: false });
  return pixelModule(parsed.dict);
}

/** The dataset a stored file is sent as, in the context's transfer syntax. */
async function datasetFor(file: Buffer, transferSyntaxUid: string, context: AcceptedContext, conversion: Conversion): Promise<Buffer> {
  if (conversion !== 'decode') return datasetIn(file, context.transferSyntax, conversion === 'reencode');
  const explicit = await decompressToExplicit(file, transferSyntaxUid, filePixelModule(file));
  return datasetIn(explicit, context.transferSyntax, context.transferSyntax !== EXPLICIT_VR_LE);
}

export interface RetrieveOptions {
  storage: FileStorage;
  log: FastifyBaseLogger;
  /** A C-MOVE's requester, named in each C-STORE (Move Originator). */
  moveOriginator?: { aeTitle: string; messageId: number };
  /** Called after each sub-operation, with the counts so far (a pending response). */
  progress(counts: RetrieveCounts): void;
  /** True once the requester cancelled (C-CANCEL): the rest is not sent. */
  cancelled(): boolean;
}

/** Sends the instances one by one to the target; the counts at the end. */
export async function sendInstances(instances: RetrieveInstance[], target: StoreTarget, opts: RetrieveOptions): Promise<RetrieveCounts> {
  const counts: RetrieveCounts = { remaining: instances.length, completed: 0, failed: 0, warning: 0, failedUids: [] };
  // The next file is read while the destination stores this one (its response is awaited before the next request).
  for (const [instance, file] of ahead(instances, (i) => opts.storage.read(i.fileKey), 1)) {
    if (opts.cancelled()) break;
    counts.remaining--;
    const plan = contextFor(instance, target.contexts);
    let status: number | undefined;
    let reason: string | undefined;
    if ('reason' in plan) reason = plan.reason;
    else {
      try {
        const dataset = await datasetFor(await file, instance.transferSyntaxUid, plan.context, plan.conversion);
        const response = await target.request(
          plan.context.id,
          (messageId) => storeRequest(messageId, instance.sopClassUid, instance.sopInstanceUid, opts.moveOriginator),
          [dataset],
        );
        status = response?.status;
        if (status === undefined) reason = 'no C-STORE response';
      } catch (e) {
        reason = (e as Error).message;
      }
    }
    if (status === 0) counts.completed++;
    else if (status !== undefined && STORE_WARNINGS.has(status)) counts.warning++;
    else {
      counts.failed++;
      counts.failedUids.push(instance.sopInstanceUid);
      counts.lastReason = reason ?? `C-STORE status 0x${(status ?? 0).toString(16).padStart(4, '0')}`;
      opts.log.warn({ sopInstanceUid: instance.sopInstanceUid, status, reason }, 'dicom retrieve: sub-operation failed');
    }
    opts.progress(counts);
  }
  return counts;
}
