/**
 * Storage Commitment Push Model SCP (PS3.4 J.3): a modality's N-ACTION asks whether the
 * archive has taken responsibility for the instances it lists; the answer is an
 * N-EVENT-REPORT naming the committed references and the failed ones with a reason.
 * An instance is committed when the archive holds it, indexed, at the device's
 * hospital with the same SOP class. Reads dicom_instance only; sending the report is
 * the listener's.
 */
import type { Queryable } from '../db';
import type { NaturalDataset } from './worklist';

/** Failure Reasons (PS3.4 J.3.2.1.1.1 and C.14.1.1). */
const FAILURE = { noSuchInstance: 0x0112, classInstanceConflict: 0x0119 } as const;

/** Event Type IDs of the report: all committed, or some failed (PS3.4 J.3.3.1). */
export const COMMITMENT_EVENT = { allCommitted: 1, someFailed: 2 } as const;

export class CommitmentRequestError extends Error {}

interface Reference {
  ReferencedSOPClassUID: string;
  ReferencedSOPInstanceUID: string;
}

export interface CommitmentRequest {
  transactionUid: string;
  references: Reference[];
}

const text = (v: unknown) => (v === undefined || v === null ? '' : String(Array.isArray(v) ? (v[0] ?? '') : v).trim());

/** The transaction and references of an N-ACTION's dataset; refused when either is missing. */
export function commitmentRequest(attrs: NaturalDataset): CommitmentRequest {
  const transactionUid = text(attrs.TransactionUID);
  const items = Array.isArray(attrs.ReferencedSOPSequence) ? (attrs.ReferencedSOPSequence as NaturalDataset[]) : [];
  const references = items.map((i) => ({ ReferencedSOPClassUID: text(i.ReferencedSOPClassUID), ReferencedSOPInstanceUID: text(i.ReferencedSOPInstanceUID) }));
  if (!transactionUid) throw new CommitmentRequestError('Transaction UID missing');
  if (!references.length || references.some((r) => !r.ReferencedSOPClassUID || !r.ReferencedSOPInstanceUID)) throw new CommitmentRequestError('Referenced SOP Sequence missing or incomplete');
  return { transactionUid, references };
}

/** The event report: its type and dataset (the transaction, the committed references, the failed ones with their reasons). */
export async function commitmentResult(q: Queryable, hospitalId: number, request: CommitmentRequest): Promise<{ eventTypeId: number; dataset: NaturalDataset; failed: number }> {
  const { rows } = await q.query<{ sop_instance_uid: string; sop_class_uid: string }>(
    'SELECT sop_instance_uid, sop_class_uid FROM dicom_instance WHERE hospital_id = $1 AND sop_instance_uid = ANY($2::text[])',
    [hospitalId, request.references.map((r) => r.ReferencedSOPInstanceUID)],
  );
  const held = new Map(rows.map((r) => [r.sop_instance_uid, r.sop_class_uid]));
  const committed: Reference[] = [];
  const failed: Array<Reference & { FailureReason: number }> = [];
  for (const ref of request.references) {
    const sopClass = held.get(ref.ReferencedSOPInstanceUID);
    if (sopClass === ref.ReferencedSOPClassUID) committed.push(ref);
    else failed.push({ ...ref, FailureReason: sopClass ? FAILURE.classInstanceConflict : FAILURE.noSuchInstance });
  }
  const dataset: NaturalDataset = { TransactionUID: request.transactionUid };
  if (committed.length) dataset.ReferencedSOPSequence = committed;
  if (failed.length) dataset.FailedSOPSequence = failed;
  return { eventTypeId: failed.length ? COMMITMENT_EVENT.someFailed : COMMITMENT_EVENT.allCommitted, dataset, failed: failed.length };
}
