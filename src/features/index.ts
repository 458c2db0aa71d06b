/**
 * The one list of features that plug into the schema engine (their dialogs, form
 * asides and controls, declared in each feature's manifest next to its code). Imported
 * once by the app (src/app.tsx) and by tests that render views; the engine itself
 * (src/schema) imports no feature. A new feature adds its manifest here.
 */
import { manifest as examImages } from '../components/manifest';
import { manifest as reportPrint } from '../report/print/manifest';
import { registerFeatures, type FeatureManifest } from '../schema/features';
import { manifest as viewer } from '../viewer/manifest';

export const features: readonly FeatureManifest[] = [examImages, viewer, reportPrint];

registerFeatures(features);
