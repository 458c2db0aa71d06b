/**
 * Reading together (issue #20 item 7): the presenter's viewer state as data, and
 * bringing a follower's viewer to it. The follower reconciles: each time its viewer
 * changes or a new state comes, it takes the next step toward the target (load the
 * series, then go to the image, then match window, zoom and pan), so a state that
 * arrives while a series is still loading is reached once it has loaded.
 */
import type { ViewerApi, ViewerSnapshot } from '../viewer';
import type { VoiRange } from '../viewer/presets';
import { viewportId } from '../viewer/layout';

/** The first viewport is the one read together. */
export const SHARED_VIEWPORT = viewportId(0);

export interface ViewState {
  studyUid: string;
  seriesUid: string;
  index: number;
  voi?: VoiRange;
  zoom?: number;
  pan?: [number, number];
}

export function viewStateOf(snapshot: ViewerSnapshot): ViewState | undefined {
  const vp = snapshot.viewports.find((v) => v.id === SHARED_VIEWPORT) ?? snapshot.viewports[0];
  if (!vp?.studyUid || !vp.seriesUid || !vp.rendered) return undefined;
  return { studyUid: vp.studyUid, seriesUid: vp.seriesUid, index: vp.index, voi: vp.voi, zoom: vp.zoom, pan: vp.pan };
}

const close = (a: number | undefined, b: number | undefined, eps: number) => (a === undefined || b === undefined ? a === b : Math.abs(a - b) <= eps);

/** Equal as a viewer shows it (rounding of window, zoom and pan is not a change worth sending). */
export function sameView(a: ViewState | undefined, b: ViewState | undefined): boolean {
  if (!a || !b) return a === b;
  return (
    a.studyUid === b.studyUid &&
    a.seriesUid === b.seriesUid &&
    a.index === b.index &&
    close(a.voi?.lower, b.voi?.lower, 0.01) &&
    close(a.voi?.upper, b.voi?.upper, 0.01) &&
    close(a.zoom, b.zoom, 1e-3) &&
    close(a.pan?.[0], b.pan?.[0], 1e-3) &&
    close(a.pan?.[1], b.pan?.[1], 1e-3)
  );
}

/** Takes the follower's viewer one step toward `target`; `loading` remembers the series asked for. */
export function reconcile(session: ViewerApi, target: ViewState, loading: { seriesUid?: string }): void {
  const vp = session.snapshot().viewports.find((v) => v.id === SHARED_VIEWPORT);
  if (!vp) return;
  if (vp.seriesUid !== target.seriesUid) {
    if (loading.seriesUid === target.seriesUid) return;
    loading.seriesUid = target.seriesUid;
    void session.loadSeries(SHARED_VIEWPORT, target.studyUid, target.seriesUid);
    return;
  }
  loading.seriesUid = undefined;
  if (!vp.rendered) return;
  if (vp.index !== target.index && target.index < vp.total) session.scrollTo(SHARED_VIEWPORT, target.index);
  session.setView(SHARED_VIEWPORT, { voi: target.voi, zoom: target.zoom, pan: target.pan });
}
