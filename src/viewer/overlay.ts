/**
 * The four corners of a viewport's overlay (issue #7): patient (top left), study (top
 * right), series and slice (bottom left), window and zoom (bottom right). Values come
 * from the shown image's DICOM metadata; when the user sees patients masked (grade
 * safety), name and ID come from the server's masked study row instead, because DICOM
 * metadata reaches the browser unmasked. Pure: texts through `t`. fitOverlay keeps the
 * corners apart in a small viewport.
 */
import { dicomDateText } from '../utils/dicom';
import { TAG, number, text, type DicomJson } from './dicomweb';
import { windowText } from './presets';
import type { ViewerStudy, ViewportInfo } from './types';

export type Translate = (key: string, params?: Record<string, unknown>) => string;

export interface OverlayLine {
  /** data-testid suffix: overlay-<key>. */
  key: string;
  text: string;
}

export interface Overlay {
  topLeft: OverlayLine[];
  topRight: OverlayLine[];
  bottomLeft: OverlayLine[];
  bottomRight: OverlayLine[];
}

const k = (key: string) => `entity.viewer.overlay.${key}`;

function timeText(v: string): string {
  const m = /^(\d{2})(\d{2})(\d{2})?/.exec(v);
  return m ? `${m[1]}:${m[2]}${m[3] ? `:${m[3]}` : ''}` : v;
}

const line = (key: string, value: string | undefined): OverlayLine[] => (value ? [{ key, text: value }] : []);

export function overlayOf(info: ViewportInfo, study: ViewerStudy | undefined, masked: boolean, t: Translate): Overlay {
  const json: DicomJson = info.instance?.metadata ?? {};
  const name = masked ? study?.patientName : text(json, TAG.PatientName) || study?.patientName;
  const id = masked ? study?.patientId : text(json, TAG.PatientID) || study?.patientId;
  const sex = text(json, TAG.PatientSex);
  const age = text(json, TAG.PatientAge);
  const slice = info.total ? t(k('image'), { index: info.index + 1, total: info.total }) : '';
  const location = number(json, TAG.SliceLocation) ?? info.instance?.position?.[2];
  const thickness = number(json, TAG.SliceThickness);
  const series = [text(json, TAG.SeriesNumber) && t(k('series'), { number: text(json, TAG.SeriesNumber) }), text(json, TAG.SeriesDescription)].filter(Boolean).join(' ');
  const win = windowText(info.voi);
  return {
    topLeft: [...line('patientName', name), ...line('patientId', id), ...line('patientSex', [sex, age].filter(Boolean).join(' '))],
    topRight: [
      ...line('institution', text(json, TAG.InstitutionName)),
      ...line('studyDate', [dicomDateText(text(json, TAG.StudyDate) || study?.studyDate), timeText(text(json, TAG.StudyTime))].filter(Boolean).join(' ')),
      ...line('studyDescription', text(json, TAG.StudyDescription) || study?.studyDescription),
      ...line('accession', text(json, TAG.AccessionNumber) && t(k('accession'), { value: text(json, TAG.AccessionNumber) })),
    ],
    bottomLeft: [
      ...line('modality', text(json, TAG.Modality)),
      ...line('series', series),
      ...line('slice', slice),
      ...line('location', location !== undefined ? t(k('location'), { value: location.toFixed(1) }) : ''),
      ...line('thickness', thickness !== undefined ? t(k('thickness'), { value: thickness.toFixed(1) }) : ''),
    ],
    bottomRight: [
      ...line('window', win ? t(k('window'), win) : ''),
      ...line('zoom', info.zoom ? t(k('zoom'), { value: info.zoom.toFixed(2) }) : ''),
      ...line('transform', [info.rotation ? `${info.rotation}°` : '', info.flipHorizontal ? t(k('flipH')) : '', info.flipVertical ? t(k('flipV')) : '', info.invert ? t(k('inverted')) : ''].filter(Boolean).join(' ')),
    ],
  };
}

/** Height of an overlay line (px) and the room kept at the viewport's edges. */
export const OVERLAY_LINE = 16;
const EDGE = 4;

/**
 * The overlay as it fits a viewport of this size: top and bottom corners never share a
 * line, so when the viewport is too low for every line each corner keeps its first
 * (most important) ones: the top and the bottom get half the lines each, and a side
 * that needs fewer leaves the rest to the other. Left and right share a line each at
 * most half the width (the cell cuts a longer text with an ellipsis).
 */
export function fitOverlay(overlay: Overlay, height: number): Overlay {
  const rows = Math.max(0, Math.floor((height - 2 * EDGE) / OVERLAY_LINE));
  const topNeed = Math.max(overlay.topLeft.length, overlay.topRight.length);
  const bottomNeed = Math.max(overlay.bottomLeft.length, overlay.bottomRight.length);
  let top = Math.min(topNeed, Math.ceil(rows / 2));
  const bottom = Math.min(bottomNeed, rows - top);
  top = Math.min(topNeed, rows - bottom);
  return {
    topLeft: overlay.topLeft.slice(0, top),
    topRight: overlay.topRight.slice(0, top),
    bottomLeft: overlay.bottomLeft.slice(0, bottom),
    bottomRight: overlay.bottomRight.slice(0, bottom),
  };
}
