/**
 * What the listener offers at association: the services (verification, modality
 * worklist, query/retrieve, MPPS, storage commitment, storage of the SOP classes
 * modalities send, also as a C-GET's storage SCU) and, per presentation context,
 * which of the proposed transfer syntaxes it takes. Received data is stored as it
 * arrives (no transcoding), so the choice only decides what the sender must encode.
 */
import { constants, type association } from 'dcmjs-dimse';
import { QUERY_RETRIEVE } from './query';

const { PresentationContextResult } = constants;
type Association = association.Association;

export const VERIFICATION = '1.2.840.10008.1.1';
export const MODALITY_WORKLIST_FIND = '1.2.840.10008.5.1.4.31';
/** Modality Performed Procedure Step (PS3.4 F.7). */
export const MPPS = '1.2.840.10008.3.1.2.3.3';
/** Storage Commitment Push Model (PS3.4 J.3), and its well-known SOP instance. */
export const STORAGE_COMMITMENT = '1.2.840.10008.1.20.1';
export const STORAGE_COMMITMENT_INSTANCE = '1.2.840.10008.1.20.1.1';

/** Storage SOP classes (PS3.4 B.5) of the modalities a regional platform receives from. */
export const STORAGE_SOP_CLASSES: Record<string, string> = {
  '1.2.840.10008.5.1.4.1.1.2': 'CT Image',
  '1.2.840.10008.5.1.4.1.1.2.1': 'Enhanced CT Image',
  '1.2.840.10008.5.1.4.1.1.4': 'MR Image',
  '1.2.840.10008.5.1.4.1.1.4.1': 'Enhanced MR Image',
  '1.2.840.10008.5.1.4.1.1.1': 'Computed Radiography Image',
  '1.2.840.10008.5.1.4.1.1.1.1': 'Digital X-Ray Image - For Presentation',
  '1.2.840.10008.5.1.4.1.1.1.1.1': 'Digital X-Ray Image - For Processing',
  '1.2.840.10008.5.1.4.1.1.1.2': 'Digital Mammography X-Ray Image - For Presentation',
  '1.2.840.10008.5.1.4.1.1.1.2.1': 'Digital Mammography X-Ray Image - For Processing',
  '1.2.840.10008.5.1.4.1.1.6.1': 'Ultrasound Image',
  '1.2.840.10008.5.1.4.1.1.3.1': 'Ultrasound Multi-frame Image',
  '1.2.840.10008.5.1.4.1.1.12.1': 'X-Ray Angiographic Image',
  '1.2.840.10008.5.1.4.1.1.12.2': 'X-Ray Radiofluoroscopic Image',
  '1.2.840.10008.5.1.4.1.1.20': 'Nuclear Medicine Image',
  '1.2.840.10008.5.1.4.1.1.128': 'Positron Emission Tomography Image',
  '1.2.840.10008.5.1.4.1.1.7': 'Secondary Capture Image',
  '1.2.840.10008.5.1.4.1.1.7.1': 'Multi-frame Single Bit Secondary Capture Image',
  '1.2.840.10008.5.1.4.1.1.7.2': 'Multi-frame Grayscale Byte Secondary Capture Image',
  '1.2.840.10008.5.1.4.1.1.7.3': 'Multi-frame Grayscale Word Secondary Capture Image',
  '1.2.840.10008.5.1.4.1.1.7.4': 'Multi-frame True Color Secondary Capture Image',
  '1.2.840.10008.5.1.4.1.1.88.11': 'Basic Text SR',
  '1.2.840.10008.5.1.4.1.1.88.22': 'Enhanced SR',
  '1.2.840.10008.5.1.4.1.1.88.33': 'Comprehensive SR',
  '1.2.840.10008.5.1.4.1.1.104.1': 'Encapsulated PDF',
};

export const IMPLICIT_VR_LE = '1.2.840.10008.1.2';
export const EXPLICIT_VR_LE = '1.2.840.10008.1.2.1';

/**
 * Storage transfer syntaxes in order of preference when one context proposes several:
 * uncompressed first, then lossless compression, lossy last, so choosing never makes
 * a sender compress lossily an image it holds uncompressed. An image the sender holds
 * compressed is proposed in its own syntax and taken as it is.
 */
export const STORAGE_TRANSFER_SYNTAXES = [
  EXPLICIT_VR_LE,
  IMPLICIT_VR_LE,
  '1.2.840.10008.1.2.4.80', // JPEG-LS lossless
  '1.2.840.10008.1.2.4.90', // JPEG 2000 lossless
  '1.2.840.10008.1.2.4.70', // JPEG lossless, first-order prediction
  '1.2.840.10008.1.2.4.57', // JPEG lossless
  '1.2.840.10008.1.2.5', // RLE lossless
  '1.2.840.10008.1.2.4.81', // JPEG-LS near-lossless
  '1.2.840.10008.1.2.4.91', // JPEG 2000
  '1.2.840.10008.1.2.4.51', // JPEG extended
  '1.2.840.10008.1.2.4.50', // JPEG baseline
];

/** Commands and queries carry small datasets: the two uncompressed syntaxes every peer has. */
const SERVICE_TRANSFER_SYNTAXES = [EXPLICIT_VR_LE, IMPLICIT_VR_LE];

/** The services other than storage the listener answers. */
const SERVICES = new Set<string>([VERIFICATION, MODALITY_WORKLIST_FIND, MPPS, STORAGE_COMMITMENT, ...Object.values(QUERY_RETRIEVE)]);

function syntaxesFor(abstractSyntax: string): string[] | undefined {
  if (SERVICES.has(abstractSyntax)) return SERVICE_TRANSFER_SYNTAXES;
  if (STORAGE_SOP_CLASSES[abstractSyntax]) return STORAGE_TRANSFER_SYNTAXES;
  return undefined;
}

/** Sets the result of every proposed presentation context; returns how many were accepted. */
export function negotiate(association: Association): number {
  let accepted = 0;
  for (const { id } of association.getPresentationContexts()) {
    const context = association.getPresentationContext(id);
    const ours = syntaxesFor(context.getAbstractSyntaxUid().trim());
    if (!ours) {
      context.setResult(PresentationContextResult.RejectAbstractSyntaxNotSupported);
      continue;
    }
    const proposed = new Set(context.getTransferSyntaxUids().map((uid) => uid.trim()));
    const chosen = ours.find((uid) => proposed.has(uid));
    if (chosen) {
      context.setResult(PresentationContextResult.Accept, chosen);
      accepted++;
    } else {
      context.setResult(PresentationContextResult.RejectTransferSyntaxesNotSupported);
    }
  }
  return accepted;
}
