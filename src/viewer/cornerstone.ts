/**
 * Cornerstone3D for the page, once: the core (WebGL rendering), the DICOM image loader
 * (WADO-RS with the session's token, decoding in web workers with Cornerstone's codecs)
 * and the tools. Sessions (./session.ts) come and go on top of it; when the last one
 * closes, what the page still holds for images is let go here: the decode workers are
 * terminated, the image cache and the loader's metadata are emptied, pending requests
 * dropped. Only this folder imports Cornerstone, and only the viewer route loads it.
 */
import {
  Enums as CoreEnums,
  cache,
  getWebWorkerManager,
  imageLoadPoolManager,
  imageRetrievalPoolManager,
  init as initCore,
} from '@cornerstonejs/core';
import dicomImageLoader from '@cornerstonejs/dicom-image-loader';
import {
  AngleTool,
  EllipticalROITool,
  LengthTool,
  PanTool,
  RectangleROITool,
  StackScrollTool,
  WindowLevelTool,
  ZoomTool,
  addTool,
  annotation,
  init as initTools,
} from '@cornerstonejs/tools';
import { getSession } from '../session/store';
import type { ToolKey } from './tools';

/** Cornerstone's tool of each key of ./tools.ts, and the wheel's stack scrolling. */
export const TOOLS: Readonly<Record<ToolKey, { toolName: string }>> = {
  windowLevel: WindowLevelTool,
  pan: PanTool,
  zoom: ZoomTool,
  length: LengthTool,
  angle: AngleTool,
  rectangleRoi: RectangleROITool,
  ellipseRoi: EllipticalROITool,
};
export const SCROLL_TOOL = StackScrollTool;

/** The loader's worker pool name (dicom-image-loader registers it under this name). */
const DECODE_WORKERS = 'dicomImageLoader';

let initialized = false;
let open = 0;

/** Starts Cornerstone for this page (first session only) and counts the session in. */
export function acquireCornerstone(): void {
  if (!initialized) {
    // One WebGL context per rendering engine: a 4x4 grid shares it (the default keeps 7 per engine).
    initCore({ rendering: { webGlContextCount: 1 } } as Parameters<typeof initCore>[0]);
    dicomImageLoader.init({
      // Half the cores, at least one: decoding must not starve the page.
      maxWebWorkers: Math.max(1, Math.floor((navigator.hardwareConcurrency || 2) / 2)),
      // DICOMweb takes the same token as the API; the loader's own Accept stays.
      beforeSend: (): Record<string, string> => {
        const token = getSession().token;
        return token ? { 'X-Auth-Token': token } : {};
      },
    });
    initTools();
    for (const tool of [...Object.values(TOOLS), SCROLL_TOOL]) addTool(tool as Parameters<typeof addTool>[0]);
    initialized = true;
  }
  if (open === 0) warmDecoder();
  open += 1;
}

/**
 * Starts a decode worker now, with a one-pixel frame, rather than with the first image:
 * loading the worker and its codecs then overlaps the series' metadata request.
 */
function warmDecoder(): void {
  const pixel = {
    imageFrame: { bitsAllocated: 16, bitsStored: 16, pixelRepresentation: 0, rows: 1, columns: 1, samplesPerPixel: 1, photometricInterpretation: 'MONOCHROME2' },
    transferSyntax: '1.2.840.10008.1.2.1',
    pixelData: new Uint8Array(2),
    decodeConfig: {},
    options: { preScale: { enabled: false } },
  };
  getWebWorkerManager()
    ?.executeTask(DECODE_WORKERS, 'decodeTask', pixel)
    .catch(() => undefined);
}

/** Counts a session out; the last one out releases workers, caches and queued requests. */
export function releaseCornerstone(): void {
  open = Math.max(0, open - 1);
  if (open > 0 || !initialized) return;
  const steps: Array<() => void> = [
    () => {
      for (const type of [CoreEnums.RequestType.Interaction, CoreEnums.RequestType.Thumbnail, CoreEnums.RequestType.Prefetch]) {
        imageLoadPoolManager.clearRequestStack(type);
        imageRetrievalPoolManager.clearRequestStack(type);
      }
    },
    () => getWebWorkerManager()?.terminate(DECODE_WORKERS),
    () => annotation.state.removeAllAnnotations(),
    () => cache.purgeCache(),
    () => dicomImageLoader.wadors.metaDataManager.purge(),
  ];
  for (const step of steps) {
    try {
      step();
    } catch (e) {
      console.error('viewer: releasing Cornerstone state failed', e);
    }
  }
}

export function openSessions(): number {
  return open;
}
