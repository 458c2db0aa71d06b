/**
 * One open viewer (the ViewerApi of ./types.ts) on Cornerstone3D: a rendering engine
 * with one stack viewport per grid cell, a tool group (left button: the chosen tool;
 * middle: pan; right: zoom; wheel: scroll), series loaded from WADO-RS metadata with
 * every image fetched and decoded ahead (the whole series cached), window presets,
 * rotate, flip, invert, cine, measurements, and the comparison's synchronised scrolling
 * and window/level between viewports of one modality. `dispose` gives everything back:
 * the engine and the WebGL contexts it drew with (lost at once, not left to garbage
 * collection), the tool group, listeners, this session's images, metadata and
 * annotations (once images under way have landed); the last session also the workers
 * and caches (./cornerstone.ts).
 *
 * User Timing marks time the first series shown (the bench reads them): viewer:open
 * (its first image or its WADO-RS metadata asked for: the viewer knows what to show),
 * viewer:metadata (the series' metadata in; after the first image when the server named
 * the instance the series opens on), viewer:first-decoded, viewer:first-image (drawn on the viewport's
 * canvas), viewer:series-loaded (every image fetched and decoded).
 */
import {
  Enums as CoreEnums,
  RenderingEngine,
  cache,
  eventTarget,
  imageLoadPoolManager,
  imageLoader,
  metaData,
  type Types,
} from '@cornerstonejs/core';
import dicomImageLoader from '@cornerstonejs/dicom-image-loader';
import { Enums as ToolEnums, ToolGroupManager, annotation, utilities as toolUtilities } from '@cornerstonejs/tools';
import { SCROLL_TOOL, TOOLS, acquireCornerstone, handOver, releaseCornerstone, renderBackend } from './cornerstone';
import { fetchFrame, fetchInstance, fetchSeriesInstances, firstImageId, instanceInfo, stackFromInstances, undecodableSyntaxes, type DicomJson, type InstanceInfo, type SeriesStack } from './dicomweb';
import { gridFor, viewportId as cellId, type Grid } from './layout';
import { CT_PRESETS, toVoiRange, type PresetKey, type VoiRange } from './presets';
import { MEASURING_TOOLS, type ToolKey } from './tools';
import type { Measurement, SharedAnnotation, ViewerApi, ViewerSnapshot, ViewerStudy, ViewportError, ViewportInfo } from './types';

type StackViewport = Types.IStackViewport;
type Listener = (e: Event) => void;

interface Cell {
  id: string;
  element?: HTMLDivElement;
  /** Watches the element's size: Cornerstone sizes its canvas only when told to (resize). */
  sizer?: ResizeObserver;
  listeners: Array<[string, Listener]>;
  studyUid?: string;
  seriesUid?: string;
  stack?: SeriesStack;
  /** Bumped by each load: an answer for an older load is dropped. */
  load: number;
  index: number;
  loaded: number;
  rendered: boolean;
  voi?: VoiRange;
  zoom?: number;
  pan?: [number, number];
  rotation: number;
  flipHorizontal: boolean;
  flipVertical: boolean;
  invert: boolean;
  playing: boolean;
  error?: ViewportError;
}

let sessions = 0;
/** Longest wait, at dispose, for images under way before their metadata and the workers go anyway. */
const INFLIGHT_WAIT_MS = 10_000;
/** Images of a series fetched at once ahead of the reader (the browser's connections per host). */
const PREFETCH_STREAMS = 6;
/** Longest wait for the instance a series opens on (named by the server) before the series' metadata is asked for. */
const HEAD_START_MS = 300;
/** Longest wait for the frame that draws a series' first image before the rest of it is fetched. */
const PREFETCH_WAIT_MS = 500;

const ANNOTATION_EVENTS = [ToolEnums.Events.ANNOTATION_COMPLETED, ToolEnums.Events.ANNOTATION_MODIFIED, ToolEnums.Events.ANNOTATION_REMOVED];
const TOOL_OF = new Map<string, ToolKey>(Object.entries(TOOLS).map(([key, tool]) => [tool.toolName, key as ToolKey]));

export interface SessionOptions {
  /** The studies it may show (more may come with setStudies). */
  studies: ViewerStudy[];
  /** Origin of DICOMweb (the page's own unless the build says otherwise). */
  base: string;
}

export class ViewerSession implements ViewerApi {
  private readonly id = `rcloud-viewer-${Date.now().toString(36)}-${++sessions}`;
  /** Made when the first series is asked for, once its metadata request is under way (Cornerstone starts then). */
  private engine?: RenderingEngine;
  private readonly registered = new WeakSet<SeriesStack>();
  private readonly cells = new Map<string, Cell>();
  private readonly stacks = new Map<string, Promise<SeriesStack>>();
  /** A series' head: the stack of the instance it opens on alone, while its metadata loads (stackOf). */
  private readonly heads = new Map<string, Promise<SeriesStack>>();
  /** Image ids whose frame the session fetches itself (preload): asked for once. */
  private readonly preloading = new Set<string>();
  private readonly contexts = new Set<WebGLRenderingContext | WebGL2RenderingContext>();
  private readonly subscribers = new Set<() => void>();
  private readonly global: Array<[string, Listener]> = [];
  /** Index or window a synchronised viewport was just told to take: its own event for it is not passed on. */
  private readonly expectedIndex = new Map<string, number[]>();
  private readonly expectedVoi = new Map<string, string>();
  private current: ViewerSnapshot = { viewports: [], measurements: [], tool: 'windowLevel', sync: false };
  private tool: ToolKey = 'windowLevel';
  private sync = false;
  private layout: Grid = { rows: 1, columns: 1 };
  private frame = 0;
  private readonly timed = new Set<string>();
  private disposed = false;
  private studies: ViewerStudy[];

  constructor(private readonly options: SessionOptions) {
    this.studies = options.studies;
    this.on(eventTarget, CoreEnums.Events.IMAGE_LOADED, () => this.timing('viewer:first-decoded'));
    this.on(eventTarget, CoreEnums.Events.IMAGE_LOAD_FAILED, (e) => this.loadFailed(e as CustomEvent));
    for (const name of ANNOTATION_EVENTS) this.on(eventTarget, name, () => this.changed());
    this.snapshotNow();
  }

  /** Cornerstone, the rendering engine and the tool group: at the first series asked for, or the first viewport attached. */
  private ensureEngine(): RenderingEngine {
    if (this.engine) return this.engine;
    acquireCornerstone();
    this.engine = new RenderingEngine(this.id);
    const group = ToolGroupManager.createToolGroup(this.id);
    if (!group) throw new Error(`tool group ${this.id} exists`);
    for (const tool of [...Object.values(TOOLS), SCROLL_TOOL]) group.addTool(tool.toolName);
    group.setToolActive(TOOLS.windowLevel.toolName, { bindings: [{ mouseButton: ToolEnums.MouseBindings.Primary }] });
    group.setToolActive(TOOLS.pan.toolName, { bindings: [{ mouseButton: ToolEnums.MouseBindings.Auxiliary }] });
    group.setToolActive(TOOLS.zoom.toolName, { bindings: [{ mouseButton: ToolEnums.MouseBindings.Secondary }] });
    group.setToolActive(SCROLL_TOOL.toolName, { bindings: [{ mouseButton: ToolEnums.MouseBindings.Wheel }] });
    // Drawn measurements stay movable and editable whatever the left button does.
    for (const key of MEASURING_TOOLS) group.setToolPassive(TOOLS[key].toolName);
    if (this.tool !== 'windowLevel') {
      group.setToolPassive(TOOLS.windowLevel.toolName);
      group.setToolActive(TOOLS[this.tool].toolName, { bindings: [{ mouseButton: ToolEnums.MouseBindings.Primary }] });
    }
    return this.engine;
  }

  // ----- the host's calls -----

  async openStudy(studyUid: string, options: { seriesUid?: string; viewportId?: string } = {}): Promise<void> {
    const study = this.study(studyUid);
    const seriesUid = options.seriesUid ?? study.series[0]?.seriesUid;
    if (!seriesUid) return;
    await this.loadSeries(options.viewportId ?? cellId(0), studyUid, seriesUid);
  }

  async openComparison(studyUids: string[]): Promise<void> {
    this.layout = gridFor(studyUids.length);
    this.sync = true;
    this.changed();
    await Promise.all(studyUids.map((uid, k) => this.openStudy(uid, { viewportId: cellId(k) })));
  }

  grid(): Grid {
    return this.layout;
  }

  setStudies(studies: ViewerStudy[]): void {
    this.studies = studies;
  }

  attach(viewportId: string, element: HTMLDivElement): void {
    if (this.disposed) return;
    const cell = this.cell(viewportId);
    if (cell.element === element) return;
    if (cell.element) this.detach(viewportId);
    this.ensureEngine().enableElement({ viewportId, type: CoreEnums.ViewportType.STACK, element, defaultOptions: { background: [0, 0, 0] } });
    ToolGroupManager.getToolGroup(this.id)?.addViewport(viewportId, this.id);
    cell.element = element;
    // The canvas stays hidden until it shows an image (rendered): Cornerstone fills it
    // black at once, and committing that black canvas took the page's main thread for
    // tens of ms (more than 100 in a trace, headless Chromium without a GPU) just when
    // the series' metadata was coming in.
    const canvas = this.engine?.getViewport(viewportId)?.canvas;
    if (canvas) canvas.style.visibility = 'hidden';
    const E = CoreEnums.Events;
    this.listen(cell, E.STACK_NEW_IMAGE, (e) => this.newImage(cell, (e as CustomEvent<{ imageIdIndex: number }>).detail.imageIdIndex));
    this.listen(cell, E.VOI_MODIFIED, (e) => this.voiModified(cell, (e as CustomEvent<{ range: VoiRange; invert?: boolean }>).detail));
    this.listen(cell, E.CAMERA_MODIFIED, () => this.cameraModified(cell));
    this.listen(cell, E.IMAGE_RENDERED, () => this.rendered(cell));
    let size = `${element.clientWidth}x${element.clientHeight}`;
    cell.sizer = new ResizeObserver(() => {
      const now = `${element.clientWidth}x${element.clientHeight}`;
      if (now === size || this.disposed) return;
      size = now;
      // The canvas takes the element's new size; the images keep their place and zoom.
      this.engine?.resize(true, true);
    });
    cell.sizer.observe(element);
    this.holdContext(viewportId);
    if (cell.studyUid && cell.seriesUid) void this.show(cell);
    this.changed();
  }

  detach(viewportId: string): void {
    const cell = this.cells.get(viewportId);
    if (!cell?.element) return;
    this.stopClip(cell);
    for (const [name, fn] of cell.listeners) cell.element.removeEventListener(name, fn);
    cell.listeners = [];
    cell.sizer?.disconnect();
    cell.sizer = undefined;
    this.holdContext(viewportId);
    ToolGroupManager.getToolGroup(this.id)?.removeViewports(this.id, viewportId);
    if (!this.disposed) this.engine?.disableElement(viewportId);
    cell.element = undefined;
    cell.rendered = false;
    this.changed();
  }

  async loadSeries(viewportId: string, studyUid: string, seriesUid: string): Promise<void> {
    const cell = this.cell(viewportId);
    cell.studyUid = studyUid;
    cell.seriesUid = seriesUid;
    // The metadata is on its way while Cornerstone starts and the viewport is laid out.
    this.stackOf(studyUid, seriesUid).catch(() => undefined);
    if (!this.disposed) this.ensureEngine();
    if (cell.element) await this.show(cell);
  }

  setTool(tool: ToolKey): void {
    const group = ToolGroupManager.getToolGroup(this.id);
    if (tool === this.tool) return;
    if (!group) {
      this.tool = tool;
      this.changed();
      return;
    }
    group.setToolPassive(TOOLS[this.tool].toolName);
    group.setToolActive(TOOLS[tool].toolName, { bindings: [{ mouseButton: ToolEnums.MouseBindings.Primary }] });
    this.tool = tool;
    this.changed();
  }

  applyPreset(viewportId: string, preset: PresetKey): void {
    const vp = this.viewport(viewportId);
    if (!vp) return;
    const range = preset === 'default' ? this.dicomWindow(vp) : toVoiRange(CT_PRESETS[preset]);
    if (range) vp.setProperties({ voiRange: range });
    else vp.resetProperties();
    vp.render();
  }

  rotate(viewportId: string): void {
    const vp = this.viewport(viewportId);
    if (!vp) return;
    vp.setViewPresentation({ rotation: ((vp.getViewPresentation().rotation ?? 0) + 90) % 360 });
    vp.render();
  }

  flip(viewportId: string, direction: 'horizontal' | 'vertical'): void {
    const vp = this.viewport(viewportId);
    if (!vp) return;
    const camera = vp.getCamera();
    vp.setCamera(direction === 'horizontal' ? { flipHorizontal: !camera.flipHorizontal } : { flipVertical: !camera.flipVertical });
    vp.render();
  }

  invert(viewportId: string): void {
    const vp = this.viewport(viewportId);
    if (!vp) return;
    vp.setProperties({ invert: !vp.getProperties().invert });
    vp.render();
    this.cell(viewportId).invert = !!vp.getProperties().invert;
    this.changed();
  }

  reset(viewportId: string): void {
    const vp = this.viewport(viewportId);
    if (!vp) return;
    vp.resetCamera();
    // Drawing on the CPU, Cornerstone's reset keeps the rotation and the flips it reports: both put back here.
    vp.setCamera({ flipHorizontal: false, flipVertical: false });
    vp.setViewPresentation({ rotation: 0 });
    vp.resetProperties();
    vp.render();
    const cell = this.cell(viewportId);
    cell.invert = !!vp.getProperties().invert;
    this.cameraModified(cell);
  }

  scrollTo(viewportId: string, index: number): void {
    const cell = this.cells.get(viewportId);
    const vp = this.viewport(viewportId);
    if (!cell?.stack || !vp) return;
    const target = Math.min(cell.stack.imageIds.length - 1, Math.max(0, Math.round(index)));
    if (target !== vp.getCurrentImageIdIndex()) void vp.setImageIdIndex(target);
  }

  setView(viewportId: string, view: { voi?: VoiRange; zoom?: number; pan?: [number, number] }): void {
    const vp = this.viewport(viewportId);
    const cell = this.cells.get(viewportId);
    if (!vp || !cell?.rendered) return;
    if (view.voi && (!cell.voi || voiKey(cell.voi) !== voiKey(view.voi))) vp.setProperties({ voiRange: { ...view.voi } });
    if (view.zoom !== undefined && Math.abs((cell.zoom ?? 1) - view.zoom) > 1e-3) vp.setZoom(view.zoom);
    if (view.pan && (!cell.pan || Math.hypot(cell.pan[0] - view.pan[0], cell.pan[1] - view.pan[1]) > 1e-3)) vp.setPan(view.pan);
    vp.render();
  }

  annotations(): SharedAnnotation[] {
    const out: SharedAnnotation[] = [];
    for (const a of annotation.state.getAllAnnotations()) {
      const toolName = a.metadata?.toolName;
      if (!a.annotationUID || !toolName || !TOOL_OF.has(toolName) || !a.metadata?.referencedImageId) continue;
      // Only what draws it again: the handles and where; statistics are recomputed by the tool.
      out.push({
        annotationUID: a.annotationUID,
        metadata: { toolName, referencedImageId: a.metadata.referencedImageId, FrameOfReferenceUID: a.metadata.FrameOfReferenceUID },
        data: { handles: { points: (a.data?.handles?.points ?? []).map((p) => [p[0], p[1], p[2]]) }, label: a.data?.label },
      });
    }
    return out;
  }

  setAnnotations(list: SharedAnnotation[]): void {
    const wanted = new Map(list.map((a) => [a.annotationUID, a]));
    for (const a of annotation.state.getAllAnnotations()) {
      if (a.annotationUID && TOOL_OF.has(a.metadata?.toolName ?? '') && !wanted.has(a.annotationUID)) annotation.state.removeAnnotation(a.annotationUID);
    }
    for (const a of list) {
      const held = a.annotationUID ? annotation.state.getAnnotation(a.annotationUID) : undefined;
      if (held) {
        held.data.handles = { ...held.data.handles, points: a.data.handles.points.map((p) => [p[0], p[1], p[2]]) };
        held.invalidated = true;
      } else {
        annotation.state.addAnnotation(
          {
            annotationUID: a.annotationUID,
            highlighted: false,
            invalidated: true,
            metadata: { ...a.metadata },
            data: { handles: { points: a.data.handles.points.map((p) => [p[0], p[1], p[2]]), textBox: { hasMoved: false } }, label: a.data.label, cachedStats: {} },
          } as never,
          a.metadata.FrameOfReferenceUID ?? '',
        );
      }
    }
    for (const c of this.cells.values()) this.viewport(c.id)?.render();
    this.changed();
  }

  scrollBy(viewportId: string, delta: number): void {
    const vp = this.viewport(viewportId);
    if (vp) this.scrollTo(viewportId, vp.getCurrentImageIdIndex() + delta);
  }

  play(viewportId: string, framesPerSecond: number): void {
    const cell = this.cells.get(viewportId);
    if (!cell?.element || !cell.stack || cell.stack.imageIds.length < 2) return;
    toolUtilities.cine.playClip(cell.element, { framesPerSecond, loop: true });
    cell.playing = true;
    this.changed();
  }

  stop(viewportId: string): void {
    const cell = this.cells.get(viewportId);
    if (cell) this.stopClip(cell);
    this.changed();
  }

  setSync(on: boolean): void {
    this.sync = on;
    this.changed();
  }

  removeMeasurement(uid: string): void {
    annotation.state.removeAnnotation(uid);
    this.engine?.render();
    this.changed();
  }

  subscribe(listener: () => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  snapshot(): ViewerSnapshot {
    return this.current;
  }

  dispose(): void {
    if (this.disposed) return;
    // Each release stands alone: one that fails (logged) must not keep the others from happening.
    const release = (what: string, fn: () => void) => {
      try {
        fn();
      } catch (e) {
        console.error(`viewer: releasing ${what} failed`, e);
      }
    };
    for (const cell of this.cells.values()) {
      release('cine', () => this.stopClip(cell));
      this.holdContext(cell.id);
      if (cell.element) for (const [name, fn] of cell.listeners) cell.element.removeEventListener(name, fn);
      cell.listeners = [];
      cell.sizer?.disconnect();
      cell.load += 1;
    }
    this.disposed = true;
    cancelAnimationFrame(this.frame);
    for (const [name, fn] of this.global) eventTarget.removeEventListener(name, fn);
    this.global.length = 0;
    const ids = this.imageIds();
    const engine = this.engine;
    this.cells.clear();
    this.subscribers.clear();
    // Nothing of Cornerstone was taken before a series was asked for or a viewport attached.
    if (!engine) return;
    release('tool group', () => ToolGroupManager.destroyToolGroup(this.id));
    release('annotations', () => {
      for (const a of annotation.state.getAllAnnotations()) {
        if (a.annotationUID && a.metadata?.referencedImageId && ids.has(a.metadata.referencedImageId)) annotation.state.removeAnnotation(a.annotationUID);
      }
    });
    // Queued requests for this session's images are dropped (the prefetch streams stop by themselves).
    release('requests', () => imageLoadPoolManager.filterRequests((r) => !ids.has(String(r.additionalDetails?.imageId))));
    release('rendering engine', () => engine.destroy());
    // vtk.js leaves a deleted context to garbage collection; the browser allows only a few live ones.
    for (const gl of this.contexts) release('WebGL context', () => gl.getExtension('WEBGL_lose_context')?.loseContext());
    this.contexts.clear();
    // Images still being fetched or decoded keep their metadata and the workers until they
    // land (the loader reads both when a frame arrives); then this session's images go.
    const inflight: Array<Promise<unknown>> = [];
    for (const id of ids) {
      const pending = cache.isLoaded(id) ? undefined : cache.getImageLoadObject(id)?.promise;
      if (pending) inflight.push(pending.catch(() => undefined));
    }
    this.stacks.clear();
    this.heads.clear();
    const landed = Promise.race([Promise.allSettled(inflight), new Promise((resolve) => setTimeout(resolve, INFLIGHT_WAIT_MS))]);
    void landed.then(() => {
      release('images', () => {
        for (const id of ids) {
          if (cache.getImageLoadObject(id)) cache.removeImageLoadObject(id, { force: true });
          dicomImageLoader.wadors.metaDataManager.remove(id);
        }
      });
      release('workers and caches', () => releaseCornerstone());
    });
  }

  // ----- loading -----

  private study(studyUid: string): ViewerStudy {
    const study = this.studies.find((s) => s.studyUid === studyUid);
    if (!study) throw new Error(`study ${studyUid} is not open in this viewer`);
    return study;
  }

  private stackOf(studyUid: string, seriesUid: string): Promise<SeriesStack> {
    const key = `${studyUid}/${seriesUid}`;
    let p = this.stacks.get(key);
    if (!p) {
      // Which way the images are drawn goes with it (the bench prints it).
      this.timing('viewer:open', { render: renderBackend() });
      const imageId = (uid: string) => firstImageId(this.options.base, studyUid, seriesUid, uid);
      // The instance the series opens on, when the server named it: its frame and its own
      // metadata first, a stack of its own (head) drawn before the rest of the series is
      // known; the series' metadata once they are in (the server answers one request at
      // a time faster than three), or after HEAD_START_MS.
      const listed = this.study(studyUid).series.find((se) => se.seriesUid === seriesUid);
      const known = listed?.firstInstanceUid;
      let headStart: Promise<unknown> = Promise.resolve();
      if (known) {
        const instance = fetchInstance(studyUid, seriesUid, known);
        const frame = this.preload(imageId(known), instance);
        const head = instance.then((info) => {
          const stack = stackFromInstances(this.options.base, studyUid, seriesUid, [info]);
          // A multi-frame head knows its own frames; a single frame stands for the series' instances.
          if (stack.imageIds.length === 1 && listed?.instanceCount) stack.expected = listed.instanceCount;
          return stack;
        });
        head.catch(() => undefined);
        this.heads.set(key, head);
        headStart = Promise.race([Promise.allSettled([instance, frame]), new Promise((resolve) => setTimeout(resolve, HEAD_START_MS))]);
      }
      // Else the server lists the series in display order: its first instance, in before the rest, is the one the stack opens on.
      const onFirst = (first: DicomJson) => {
        const instance = instanceInfo(first);
        this.preload(imageId(instance.sopInstanceUid), instance);
      };
      p = headStart
        .then(() => fetchSeriesInstances(studyUid, seriesUid, { onFirst }))
        .then((instances) => {
          this.timing('viewer:metadata');
          // The first image's request goes out before the rest of the stack is built (unless it is under way already).
          if (instances[0]) this.preload(imageId(instances[0].sopInstanceUid), instances[0]);
          return stackFromInstances(this.options.base, studyUid, seriesUid, instances);
        })
        .finally(() => this.heads.delete(key));
      this.stacks.set(key, p);
      p.catch(() => this.stacks.delete(key));
    }
    return p;
  }

  private async show(cell: Cell): Promise<void> {
    const load = ++cell.load;
    this.stopClip(cell);
    Object.assign(cell, { stack: undefined, index: 0, loaded: 0, rendered: false, error: undefined, voi: undefined });
    this.changed();
    const full = this.stackOf(cell.studyUid!, cell.seriesUid!);
    // The image the series opens on first, alone, while the series' metadata is on its way.
    const head = await this.heads.get(`${cell.studyUid}/${cell.seriesUid}`)?.catch(() => undefined);
    if (head) await this.display(cell, load, head);
    if (load !== cell.load || this.disposed) return;
    let stack: SeriesStack;
    try {
      stack = await full;
    } catch {
      if (load === cell.load) cell.error = { kind: 'metadata' };
      this.changed();
      return;
    }
    if (!(await this.display(cell, load, stack))) return;
    // The rest of the series once the first image is drawn (the frame it is drawn in comes
    // first: starting six requests takes the page's main thread too), or after
    // PREFETCH_WAIT_MS where no frame comes (a window in the background draws nothing).
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      this.prefetch(cell, stack, load);
    };
    requestAnimationFrame(start);
    setTimeout(start, PREFETCH_WAIT_MS);
  }

  /**
   * Puts a stack in the cell's viewport, on the image it shows already if the stack has
   * it (a series' head, then the whole series), else on its first; the reader's window,
   * zoom and pan stay. false when the cell moved on, or the stack cannot be shown (the
   * cell says why).
   */
  private async display(cell: Cell, load: number, stack: SeriesStack): Promise<boolean> {
    const vp = this.viewport(cell.id);
    if (load !== cell.load || !vp || this.disposed) return false;
    const before = cell.stack && cell.rendered ? { imageId: cell.stack.imageIds[cell.index], properties: vp.getProperties(), camera: vp.getCamera() } : undefined;
    cell.stack = stack;
    cell.error = undefined;
    if (stack.undecodable.length) {
      cell.error = { kind: 'undecodable', syntaxes: stack.undecodable };
      this.changed();
      return false;
    }
    if (!stack.imageIds.length) {
      cell.error = { kind: 'loadFailed' };
      this.changed();
      return false;
    }
    // No news until the first image is drawn (rendered): its frame is under way, and the main thread is better left to it.
    this.registerFirst(stack);
    try {
      await vp.setStack(stack.imageIds, Math.max(0, before ? stack.imageIds.indexOf(before.imageId) : 0));
    } catch (e) {
      this.register(stack);
      if (load === cell.load && !this.disposed) cell.error = { kind: 'loadFailed', detail: describe(e) };
      this.changed();
      return false;
    }
    // The others' metadata while the first image waits for its frame to be drawn in.
    this.register(stack);
    if (load !== cell.load || this.disposed) return false;
    if (before) {
      vp.setProperties({ voiRange: before.properties.voiRange, invert: before.properties.invert });
      vp.setCamera(before.camera);
    }
    vp.render();
    this.cameraModified(cell);
    if (before) this.changed();
    return true;
  }

  /**
   * Fetches and decodes every image of the stack, PREFETCH_STREAMS at a time from the
   * shown one on (the viewport asks for the shown one itself): no more than that is in
   * flight when the reader switches series or closes, and the shown image is not queued
   * behind the whole series at the network.
   */
  private prefetch(cell: Cell, stack: SeriesStack, load: number) {
    const ids = stack.imageIds;
    const live = () => load === cell.load && !this.disposed;
    let next = 0;
    let settled = 0;
    const done = (ok: boolean) => {
      if (!live()) return;
      settled += 1;
      if (ok) cell.loaded += 1;
      if (settled === ids.length) this.timing('viewer:series-loaded');
      this.changed();
    };
    const stream = async () => {
      while (live() && next < ids.length) {
        const imageId = ids[next++];
        if (cache.isLoaded(imageId)) {
          done(true);
          continue;
        }
        try {
          await imageLoader.loadAndCacheImage(imageId, { priority: -5, requestType: CoreEnums.RequestType.Prefetch });
          done(true);
        } catch {
          done(false);
        }
      }
    };
    for (let k = 0; k < PREFETCH_STREAMS; k++) void stream();
  }

  /**
   * The stack's first image (the one a viewport opens on) is fetched by the session
   * itself as soon as it is known: named by the server with the studies (its instance's
   * metadata fetched beside it), else from the series' metadata's first instance (the
   * server lists a series in display order; once the whole metadata is in and sorted,
   * the stack's true first image is asked for here if it is another). A plain fetch, its
   * multipart body opened without reading the frame through (./dicomweb.ts); once the
   * instance's metadata is in too, the frame goes to the loader, which decodes it at the
   * viewport's own priority: fetch and decode overlap the series' metadata, the screen's
   * first render and the viewport's set-up, and the viewport finds the image in the
   * cache. Not for a syntax the browser cannot decode (the viewport says so instead).
   */
  private preload(imageId: string, instance: InstanceInfo | Promise<InstanceInfo>): Promise<unknown> | undefined {
    if (this.disposed || this.preloading.has(imageId) || cache.getImageLoadObject(imageId)) return undefined;
    this.preloading.add(imageId);
    const frame = fetchFrame(imageId.slice(imageId.indexOf(':') + 1));
    frame.catch(() => undefined);
    void Promise.resolve(instance).then(
      (info) => {
        if (this.disposed || undecodableSyntaxes([info]).length || cache.getImageLoadObject(imageId)) return;
        // Its instance's attributes (registerFirst's, before the stack exists).
        dicomImageLoader.wadors.metaDataManager.add(imageId, info.metadata as never);
        handOver(imageId, frame, { priority: -5, requestType: CoreEnums.RequestType.Interaction }).catch(() => undefined);
      },
      // Without its metadata the viewport's own request loads the image.
      () => undefined,
    );
    return frame;
  }

  /**
   * Hands the stack's metadata to the image loader (after Cornerstone started: starting
   * empties it), the first image's alone first (registerFirst): the loader reads an
   * instance's attributes from its first frame's entry (multi-frame ones too).
   */
  private register(stack: SeriesStack) {
    if (this.registered.has(stack)) return;
    for (const [imageId, instance] of stack.instanceOf) {
      if (imageId.endsWith('/frames/1')) dicomImageLoader.wadors.metaDataManager.add(imageId, instance.metadata as never);
    }
    this.registered.add(stack);
  }

  /** The first image's metadata (a stack opens on its first frame, its first instance's). */
  private registerFirst(stack: SeriesStack) {
    const imageId = stack.imageIds[0];
    if (this.registered.has(stack) || !imageId) return;
    dicomImageLoader.wadors.metaDataManager.add(imageId, stack.instanceOf.get(imageId)!.metadata as never);
  }

  private loadFailed(e: CustomEvent<{ imageId?: string; error?: unknown }>) {
    const { imageId, error } = e.detail ?? {};
    for (const cell of this.cells.values()) {
      if (!cell.stack || !imageId || cell.stack.imageIds[cell.index] !== imageId) continue;
      cell.error = { kind: 'loadFailed', detail: describe(error) };
      this.changed();
    }
  }

  // ----- viewport events -----

  private newImage(cell: Cell, index: number) {
    const before = cell.index;
    cell.index = index;
    // Indexes this viewport was told to take by a partner, oldest first: its own events
    // for them are not passed on. A quick wheel sends several before the first arrives.
    const pending = this.expectedIndex.get(cell.id) ?? [];
    const told = pending.indexOf(index);
    if (told >= 0) pending.splice(0, told + 1);
    if (!pending.length) this.expectedIndex.delete(cell.id);
    if (cell.error?.kind === 'loadFailed') cell.error = undefined;
    // Before its first image is drawn, the viewport's news wait for the draw (rendered): the screen's update does not go first.
    if (cell.rendered) this.changed();
    if (!this.sync || told >= 0 || index === before) return;
    const delta = index - before;
    for (const other of this.partners(cell)) {
      const vp = this.viewport(other.id);
      if (!vp || !other.stack) continue;
      // From where the partner was last sent, not where it has got to yet: no step is lost.
      const queue = this.expectedIndex.get(other.id) ?? [];
      const from = queue.length ? queue[queue.length - 1] : other.index;
      const target = Math.min(other.stack.imageIds.length - 1, Math.max(0, from + delta));
      if (target === from) continue;
      queue.push(target);
      this.expectedIndex.set(other.id, queue);
      void vp.setImageIdIndex(target);
    }
  }

  private voiModified(cell: Cell, detail: { range: VoiRange; invert?: boolean }) {
    if (!detail?.range) return;
    cell.voi = { lower: detail.range.lower, upper: detail.range.upper };
    if (detail.invert !== undefined) cell.invert = detail.invert;
    const key = voiKey(cell.voi);
    const expected = this.expectedVoi.get(cell.id);
    this.expectedVoi.delete(cell.id);
    if (cell.rendered) this.changed();
    if (!this.sync || expected === key) return;
    for (const other of this.partners(cell)) {
      const vp = this.viewport(other.id);
      if (!vp || !other.voi || voiKey(other.voi) === key) continue;
      this.expectedVoi.set(other.id, key);
      vp.setProperties({ voiRange: { ...cell.voi } });
      vp.render();
    }
  }

  private cameraModified(cell: Cell) {
    const vp = this.viewport(cell.id);
    if (!vp || !cell.stack) return;
    try {
      const presentation = vp.getViewPresentation();
      const camera = vp.getCamera();
      cell.zoom = vp.getZoom();
      const pan = vp.getPan();
      cell.pan = [pan[0], pan[1]];
      cell.rotation = presentation.rotation ?? 0;
      cell.flipHorizontal = !!camera.flipHorizontal;
      cell.flipVertical = !!camera.flipVertical;
    } catch {
      // No image yet: nothing to report.
    }
    this.changed();
  }

  private rendered(cell: Cell) {
    const vp = this.viewport(cell.id);
    if (cell.rendered || !cell.stack || !vp?.getCornerstoneImage()) return;
    cell.rendered = true;
    vp.canvas.style.visibility = '';
    this.holdContext(cell.id);
    this.timing('viewer:first-image');
    const props = vp.getProperties();
    if (props.voiRange) cell.voi = { lower: props.voiRange.lower, upper: props.voiRange.upper };
    cell.invert = !!props.invert;
    this.cameraModified(cell);
  }

  /** Viewports showing a series of the same modality (matching series of a comparison). */
  private partners(cell: Cell): Cell[] {
    return [...this.cells.values()].filter((c) => c !== cell && c.element && c.stack && c.stack.modality === cell.stack?.modality);
  }

  // ----- helpers -----

  private cell(id: string): Cell {
    let cell = this.cells.get(id);
    if (!cell) {
      cell = { id, listeners: [], load: 0, index: 0, loaded: 0, rendered: false, rotation: 0, flipHorizontal: false, flipVertical: false, invert: false, playing: false };
      this.cells.set(id, cell);
    }
    return cell;
  }

  private viewport(id: string): StackViewport | undefined {
    if (this.disposed || !this.cells.get(id)?.element) return undefined;
    return this.engine?.getViewport(id) as StackViewport | undefined;
  }

  /** The study's own window (DICOM WindowCenter/Width of the shown image). */
  private dicomWindow(vp: StackViewport): VoiRange | undefined {
    const voi = metaData.get('voiLutModule', vp.getCurrentImageId()) as { windowCenter?: number | number[]; windowWidth?: number | number[] } | undefined;
    const center = [voi?.windowCenter].flat()[0];
    const width = [voi?.windowWidth].flat()[0];
    return typeof center === 'number' && typeof width === 'number' && width > 0 ? toVoiRange({ center, width }) : undefined;
  }

  /** Remembers the WebGL context a viewport draws with, to lose it at dispose. */
  private holdContext(viewportId: string) {
    try {
      const gl = this.engine?.getOffscreenMultiRenderWindow(viewportId)?.getOpenGLRenderWindow()?.getContext();
      if (gl) this.contexts.add(gl as WebGL2RenderingContext);
    } catch {
      // The viewport has no context (yet, or any more).
    }
  }

  /** A User Timing mark, the first time only in this session (the bench reads them). */
  private timing(name: string, detail?: Record<string, string>) {
    if (this.timed.has(name)) return;
    this.timed.add(name);
    performance.mark(name, { detail });
  }

  private stopClip(cell: Cell) {
    if (cell.playing && cell.element) toolUtilities.cine.stopClip(cell.element);
    cell.playing = false;
  }

  private imageIds(): Set<string> {
    const ids = new Set<string>();
    for (const cell of this.cells.values()) for (const id of cell.stack?.imageIds ?? []) ids.add(id);
    return ids;
  }

  private on(target: EventTarget, name: string, fn: Listener) {
    target.addEventListener(name, fn);
    this.global.push([name, fn]);
  }

  private listen(cell: Cell, name: string, fn: Listener) {
    cell.element!.addEventListener(name, fn);
    cell.listeners.push([name, fn]);
  }

  /** Listeners hear of changes once per frame: loading 300 images is 300 changes. */
  private changed() {
    if (this.disposed || this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (this.disposed) return;
      this.snapshotNow();
      for (const s of this.subscribers) s();
    });
  }

  private snapshotNow() {
    const viewports: ViewportInfo[] = [...this.cells.values()]
      .filter((c) => c.element)
      .map((c) => ({
        id: c.id,
        studyUid: c.studyUid,
        seriesUid: c.seriesUid,
        modality: c.stack?.modality,
        index: c.index,
        total: c.stack ? (c.stack.expected ?? c.stack.imageIds.length) : 0,
        loaded: c.loaded,
        rendered: c.rendered,
        voi: c.voi,
        zoom: c.zoom,
        pan: c.pan,
        rotation: c.rotation,
        flipHorizontal: c.flipHorizontal,
        flipVertical: c.flipVertical,
        invert: c.invert,
        playing: c.playing,
        frameRate: c.stack?.frameRate,
        multiFrame: !!c.stack?.multiFrame,
        instance: c.stack ? c.stack.instanceOf.get(c.stack.imageIds[c.index]) : undefined,
        error: c.error,
      }));
    this.current = { viewports, measurements: this.measurements(), tool: this.tool, sync: this.sync };
  }

  private measurements(): Measurement[] {
    const out: Measurement[] = [];
    const owner = new Map<string, string>();
    for (const c of this.cells.values()) for (const id of c.stack?.imageIds ?? []) owner.set(id, c.id);
    for (const a of annotation.state.getAllAnnotations()) {
      const tool = TOOL_OF.get(a.metadata?.toolName ?? '');
      const imageId = a.metadata?.referencedImageId;
      if (!tool || !a.annotationUID || !imageId || !owner.has(imageId)) continue;
      const stats = Object.values((a.data?.cachedStats ?? {}) as Record<string, Record<string, unknown>>)[0] ?? {};
      const values: Measurement['values'] = [];
      const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
      if (tool === 'length' && num(stats.length) !== undefined) values.push({ label: 'length', value: num(stats.length)!, unit: String(stats.unit ?? '') });
      if (tool === 'angle' && num(stats.angle) !== undefined) values.push({ label: 'angle', value: num(stats.angle)!, unit: '°' });
      if (tool === 'rectangleRoi' || tool === 'ellipseRoi') {
        const unit = String(stats.modalityUnit ?? '');
        if (num(stats.mean) !== undefined) values.push({ label: 'mean', value: num(stats.mean)!, unit });
        if (num(stats.stdDev) !== undefined) values.push({ label: 'stdDev', value: num(stats.stdDev)!, unit });
        if (num(stats.area) !== undefined) values.push({ label: 'area', value: num(stats.area)!, unit: String(stats.areaUnit ?? '') });
      }
      out.push({ uid: a.annotationUID, tool, viewportId: owner.get(imageId), values });
    }
    return out;
  }
}

function voiKey(r: VoiRange): string {
  return `${Math.round(r.lower * 100)}:${Math.round(r.upper * 100)}`;
}

function describe(e: unknown): string | undefined {
  if (!e) return undefined;
  if (e instanceof Error) return e.message;
  const status = (e as { status?: number }).status;
  return status ? `HTTP ${status}` : String(e);
}

/** Opens a viewer on the given studies (nothing shown until the host attaches viewports and opens a study). */
export function openViewer(options: SessionOptions): ViewerApi {
  return new ViewerSession(options);
}
