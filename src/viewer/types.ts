/**
 * The viewer extension's public shapes (no Cornerstone types leak out): the studies it
 * is given (POST /api/pacs/v1/study/viewer|compare rows), what each viewport shows,
 * and the small API a host drives: open a study, open a comparison, dispose.
 */
import type { PostStudyViewerData } from '../services/generated/pacs';
import type { InstanceInfo } from './dicomweb';
import type { Grid } from './layout';
import type { PresetKey, VoiRange } from './presets';
import type { ToolKey } from './tools';

/** A study the viewer is given, with its series (the studies reply of server/routes/viewer.ts, typed from its schema). */
export type ViewerStudy = PostStudyViewerData['list'][number];
export type ViewerSeries = ViewerStudy['series'][number];

export type ViewportError =
  | { kind: 'undecodable'; syntaxes: string[] }
  | { kind: 'loadFailed'; detail?: string }
  | { kind: 'metadata' };

export interface ViewportInfo {
  id: string;
  studyUid?: string;
  seriesUid?: string;
  modality?: string;
  /** Shown image, 0-based, and how many the stack has. */
  index: number;
  total: number;
  /** Images of the stack decoded and cached so far. */
  loaded: number;
  /** The first image of the stack has been drawn. */
  rendered: boolean;
  voi?: VoiRange;
  zoom?: number;
  /** Camera pan (Cornerstone's canvas offset), mirrored when reading together. */
  pan?: [number, number];
  rotation: number;
  flipHorizontal: boolean;
  flipVertical: boolean;
  invert: boolean;
  playing: boolean;
  /** Cine rate suggested by the series (multi-frame), frames per second. */
  frameRate?: number;
  multiFrame: boolean;
  /** The instance of the shown image (overlay values). */
  instance?: InstanceInfo;
  error?: ViewportError;
}

export interface Measurement {
  uid: string;
  tool: ToolKey;
  viewportId?: string;
  /** What the measurement says, with its units ("52.50 mm", "45.0°", "mean 40.2 HU ± 3.1"). */
  values: Array<{ label: 'length' | 'angle' | 'mean' | 'stdDev' | 'area'; value: number; unit: string }>;
}

export interface ViewerSnapshot {
  viewports: ViewportInfo[];
  measurements: Measurement[];
  tool: ToolKey;
  sync: boolean;
}

/** A measurement as another viewer needs it to draw the same (Cornerstone's own shape, trimmed). */
export interface SharedAnnotation {
  annotationUID: string;
  metadata: { toolName: string; referencedImageId: string; FrameOfReferenceUID?: string };
  data: { handles: { points: Array<[number, number, number]> }; label?: string };
}

/** What a host (the /viewer page, the report page) drives. */
export interface ViewerApi {
  /** Puts the study's first series (or the given one) in a viewport (the first by default). */
  openStudy(studyUid: string, options?: { seriesUid?: string; viewportId?: string }): Promise<void>;
  /** One study per viewport in order, first series of each, with scrolling and window/level synchronised. */
  openComparison(studyUids: string[]): Promise<void>;
  /** The grid the host should lay out (a comparison sets it). */
  grid(): Grid;
  /** The studies it may show, when they come after it opened (a page that asks the server while the screen starts). */
  setStudies(studies: ViewerStudy[]): void;
  attach(viewportId: string, element: HTMLDivElement): void;
  detach(viewportId: string): void;
  loadSeries(viewportId: string, studyUid: string, seriesUid: string): Promise<void>;
  setTool(tool: ToolKey): void;
  applyPreset(viewportId: string, preset: PresetKey): void;
  rotate(viewportId: string): void;
  flip(viewportId: string, direction: 'horizontal' | 'vertical'): void;
  invert(viewportId: string): void;
  reset(viewportId: string): void;
  scrollTo(viewportId: string, index: number): void;
  scrollBy(viewportId: string, delta: number): void;
  /** Puts a shown image's window, zoom and pan where another viewer has them (reading together). */
  setView(viewportId: string, view: { voi?: VoiRange; zoom?: number; pan?: [number, number] }): void;
  /** The measurements as plain data another viewer can draw (reading together; the consultation's saved annotations). */
  annotations(): SharedAnnotation[];
  /** Shows exactly these measurements: others are removed, known ones moved, new ones drawn. */
  setAnnotations(list: SharedAnnotation[]): void;
  play(viewportId: string, framesPerSecond: number): void;
  stop(viewportId: string): void;
  setSync(on: boolean): void;
  removeMeasurement(uid: string): void;
  subscribe(listener: () => void): () => void;
  snapshot(): ViewerSnapshot;
  /** Releases everything: rendering engine, WebGL contexts, tool group, listeners; the last session also the decode workers and caches. */
  dispose(): void;
}

/** The viewer's side panels that show: the series list (left) and the measurements (right). */
export interface ViewerPanels {
  series: boolean;
  measurements: boolean;
}
