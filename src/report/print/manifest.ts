/**
 * Report printing's dialogs (a report's, or the ticked reports', A4 sheets; the
 * doctors' signatures of the print layouts) and the print layout form's live A4 preview.
 */
import type { FeatureManifest } from '../../schema/features';

export const manifest: FeatureManifest = {
  name: 'reportPrint',
  dialogs: {
    ReportPrint: () => import('./PrintDialog'),
    PrintSignatures: () => import('./SignatureDialog'),
  },
  formAsides: {
    PrintLayoutPreview: () => import('./LayoutPreview'),
  },
};
