/**
 * The diagnostic viewer extension (issue #7): its own folder, a small API, and a
 * lifecycle. A host either renders <Viewer> (the /viewer route, the report page) or
 * drives a session itself: openViewer({studies, base}) → ViewerApi (attach viewports,
 * openStudy, openComparison, …, dispose). This module pulls in Cornerstone3D: load it
 * lazily (a route, or ./lazy.tsx), never from a page that does not show images.
 * What opens the viewer from lists (./launch.ts, ./ViewerLauncher.tsx, ./CompareDialog.tsx)
 * and the server calls (./api.ts) do not import Cornerstone.
 */
export { Viewer, type ViewerProps } from './Viewer';
export { openViewer, type SessionOptions } from './session';
export type { Measurement, ViewerApi, ViewerPanels, ViewerSeries, SharedAnnotation, ViewerSnapshot, ViewerStudy, ViewportError, ViewportInfo } from './types';
