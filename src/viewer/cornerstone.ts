/**
 * Cornerstone3D for the page, once: the core (WebGL rendering, or the CPU's where WebGL
 * has no GPU behind it: ./backend.ts), the DICOM image loader
 * (WADO-RS with the session's token, decoding in web workers with Cornerstone's codecs)
 * and the tools. Sessions (./session.ts) come and go on top of it; when the last one
 * closes, what the page still holds for images is let go here: the decode workers are
 * terminated, the image cache and the loader's metadata are emptied, pending requests
 * dropped. Only this folder imports Cornerstone, and only the viewer route loads it.
 */
import {
  Enums as CoreEnums,
  cache,
  getRenderingCapabilities,
  getWebWorkerManager,
  imageLoadPoolManager,
  imageRetrievalPoolManager,
  init as initCore,
  metaData,
} from '@cornerstonejs/core';
import dicomImageLoader, { decodeImageFrame } from '@cornerstonejs/dicom-image-loader';
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
import { chooseBackend, RENDER_OVERRIDE_KEY, type RenderBackend } from './backend';
import type { FrameBytes } from './dicomweb';
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
/** Frames the viewer fetched itself, until the loader has read them (handOver). */
const handed = new Map<string, FrameBytes>();
/** Before the loader's own metadata: asked for every image and every module, it answers only for handed frames. */
const HANDED_PRIORITY = 10_000;
/** A loader option (passed on to the decode task) asking for the frame to be decoded on the page rather than in a worker. */
const ON_PAGE = 'rcloudDecodeOnPage';
/**
 * Uncompressed syntaxes: decoding is a copy, a rescale and a min/max (a few ms for a
 * 512x512 slice), less than a worker's round trip with the frame's bytes both ways.
 */
const NATIVE_SYNTAXES: ReadonlySet<string> = new Set(['1.2.840.10008.1.2', '1.2.840.10008.1.2.1', '1.2.840.10008.1.2.2']);

/** The way this page draws (./backend.ts), from what its WebGL is. */
export function renderBackend(): RenderBackend {
  let override: string | null = null;
  try {
    override = localStorage.getItem(RENDER_OVERRIDE_KEY);
  } catch {
    // Storage may be denied: the capabilities decide.
  }
  return chooseBackend(getRenderingCapabilities(), override);
}

/** Starts Cornerstone for this page, once (the first viewport attached, or the first series asked for). */
function startCornerstone(): void {
  if (initialized) return;
  // One WebGL context per rendering engine: a 4x4 grid shares it (the default keeps 7 per engine).
  initCore({ rendering: { webGlContextCount: 1, useCPURendering: renderBackend() === 'cpu' } } as Parameters<typeof initCore>[0]);
  dicomImageLoader.init({
    // Half the cores, at least one: decoding must not starve the page.
    maxWebWorkers: Math.max(1, Math.floor((navigator.hardwareConcurrency || 2) / 2)),
    // DICOMweb takes the same token as the API; the loader's own Accept stays.
    beforeSend: (): Record<string, string> => {
      const token = getSession().token;
      return token ? { 'X-Auth-Token': token } : {};
    },
  });
  // The loader starts its decode workers here, each loading and compiling some 200 KB of
  // codecs: on a 2-core machine that took a core from the server while it worked on the
  // series' metadata. Let go at once, they start again with the first frame the loader
  // hands them (the manager restarts a terminated worker on demand, as for the next
  // session after releaseCornerstone): the series' prefetch, after the first image,
  // which decodes on the page.
  getWebWorkerManager().terminate(DECODE_WORKERS);
  decodeOnPage();
  // The loader looks a frame's bytes up here before it fetches them (its "compressed frame registry").
  metaData.addProvider((type: string, imageId: unknown) => (type === CoreEnums.MetadataModules.COMPRESSED_FRAME_DATA ? handed.get(String(imageId)) : undefined), HANDED_PRIORITY);
  initTools();
  for (const tool of [...Object.values(TOOLS), SCROLL_TOOL]) addTool(tool as Parameters<typeof addTool>[0]);
  initialized = true;
}

/**
 * The loader decodes every frame in its workers; a frame handed over with ON_PAGE in
 * uncompressed syntax is decoded here instead, by the same code the worker runs (the
 * loader exports it), so that the first image does not wait for a worker's turn.
 */
function decodeOnPage(): void {
  const manager = getWebWorkerManager();
  const inWorker = manager.executeTask.bind(manager);
  type Task = { imageFrame: unknown; transferSyntax: string; pixelData: unknown; decodeConfig: unknown; options?: Record<string, unknown> };
  manager.executeTask = ((workerName: string, methodName: string, args: Task, options?: Parameters<typeof inWorker>[3]) => {
    if (workerName === DECODE_WORKERS && methodName === 'decodeTask' && args?.options?.[ON_PAGE] && NATIVE_SYNTAXES.has(args.transferSyntax)) {
      pageDecoded = true;
      return decodeImageFrame(args.imageFrame, args.transferSyntax, args.pixelData, args.decodeConfig, args.options, undefined);
    }
    const task = inWorker(workerName, methodName, args, options);
    // A frame under way when the last viewer closed lands after releaseCornerstone and the
    // manager starts a worker again to decode it: let that worker go once the frame is done
    // (otherwise it stayed until the next viewer closed).
    if (workerName === DECODE_WORKERS) void task.then(releaseIfClosed, releaseIfClosed);
    return task;
  }) as typeof manager.executeTask;
  const releaseIfClosed = () => {
    if (open === 0) manager.terminate(DECODE_WORKERS);
  };
}

/**
 * Caches the image of a 'wadors:' image id from a frame the viewer is fetching itself,
 * decoded by the loader as any other (its codecs, its scaling; on the page when
 * uncompressed, decodeOnPage): the cache
 * holds the image id from now on, so a viewport that asks for it waits for this one
 * rather than fetching it again. If the fetch fails, the loader fetches the frame itself.
 */
export function handOver(imageId: string, frame: Promise<FrameBytes>, options: { priority: number; requestType: CoreEnums.RequestType }): Promise<unknown> {
  const load = (bytes?: FrameBytes) => {
    if (bytes) handed.set(imageId, bytes);
    try {
      // Read at once: the loader looks the bytes up before its first await.
      return dicomImageLoader.wadors.loadImage(imageId, { ...options, [ON_PAGE]: true } as typeof options).promise;
    } finally {
      handed.delete(imageId);
    }
  };
  const promise = frame.then(load, () => load());
  cache.putImageLoadObject(imageId, { promise, cancelFn: undefined }).catch(() => undefined);
  return promise;
}

/** Starts Cornerstone for this page if need be and counts a session in. */
export function acquireCornerstone(): void {
  startCornerstone();
  if (open === 0) warmPageDecode();
  open += 1;
}

/** A frame was decoded on the page: warming its code up is of no use any more. */
let pageDecoded = false;
/** Pixels of the frame that warms the page's decode: enough for the JIT to compile its per-pixel loops. */
const WARM_PIXELS = 128 * 128;

/**
 * Decodes a blank CT-like frame on the page (decodeOnPage's code: byte order, min/max,
 * rescale) while the page waits for the series' metadata: run cold, those loops took
 * ~10 ms of the first 512x512 image's path in a profile (headless Chromium, 2 cores).
 * In the next task rather than when the page is idle: an idle callback could come only
 * once the metadata is in, on the first image's path.
 */
function warmPageDecode(): void {
  const run = () => {
    if (pageDecoded) return;
    const imageFrame = { bitsAllocated: 16, bitsStored: 12, pixelRepresentation: 0, rows: 128, columns: 128, samplesPerPixel: 1, photometricInterpretation: 'MONOCHROME2' };
    const options = { preScale: { enabled: true, scalingParameters: { rescaleSlope: 1, rescaleIntercept: -1024, modality: 'CT' } } };
    Promise.resolve()
      .then(() => decodeImageFrame(imageFrame, '1.2.840.10008.1.2.1', new Uint8Array(2 * WARM_PIXELS), {}, options, undefined))
      .catch(() => undefined);
  };
  setTimeout(run, 0);
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
