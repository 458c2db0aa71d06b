/**
 * The viewer's launchers as dialogs: small, without Cornerstone (the viewer itself is
 * the /viewer route's chunk), so registering them loads nothing of the viewer.
 */
import type { FeatureManifest } from '../schema/features';

export const manifest: FeatureManifest = {
  name: 'viewer',
  dialogs: {
    ViewerLauncher: () => import('./ViewerLauncher'),
    CompareStudies: () => import('./CompareDialog'),
  },
};
