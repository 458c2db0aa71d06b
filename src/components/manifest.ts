/** The exam images feature's dialogs: an exam's images, the DICOM upload and the regional send. */
import type { FeatureManifest } from '../schema/features';

export const manifest: FeatureManifest = {
  name: 'examImages',
  dialogs: {
    ExamImages: () => import('./ExamImages'),
    DicomUpload: () => import('./DicomUpload'),
    // Regional send: pick a destination, then the sends' progress.
    ExamSend: () => import('./ExamSend'),
  },
};
