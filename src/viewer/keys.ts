/**
 * Reading with the keyboard (issue #17): which key does what in the viewer, and the
 * series a "next series" key goes to. Pure, so the keys are tested as a table and the
 * help the toolbar shows is this same table. Plain keys work outside text fields; the
 * Alt keys also while typing a report beside the images (the report page).
 */
import type { ViewerStudy } from './types';

export type ReadingCommand = { kind: 'image'; delta: number } | { kind: 'imageAt'; at: 'first' | 'last' } | { kind: 'series'; delta: 1 | -1 };

export interface KeyInput {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey?: boolean;
  /** The key was pressed in a text field (a report being written). */
  inField: boolean;
}

/** The keys as the help lists them: what is pressed, and the text key of what it does (entity.viewer.keys.<does>). */
export const READING_KEYS: ReadonlyArray<{ keys: string; does: string }> = [
  { keys: '↑ / ↓', does: 'image' },
  { keys: 'Alt+↑ / Alt+↓', does: 'imageAnywhere' },
  { keys: 'PageUp / PageDown', does: 'imageTen' },
  { keys: 'Home / End', does: 'imageEnds' },
  { keys: 'Alt+PageUp / Alt+PageDown', does: 'series' },
];

const STEPS: Readonly<Record<string, number>> = { ArrowUp: -1, ArrowLeft: -1, ArrowDown: 1, ArrowRight: 1, PageUp: -10, PageDown: 10 };

/** What a key press asks of the viewer, or nothing (a key for someone else: Ctrl+S, Alt+N, typing). */
export function readingCommand(e: KeyInput): ReadingCommand | undefined {
  if (e.ctrlKey || e.metaKey || e.shiftKey) return undefined;
  if (e.altKey) {
    if (e.key === 'ArrowUp') return { kind: 'image', delta: -1 };
    if (e.key === 'ArrowDown') return { kind: 'image', delta: 1 };
    if (e.key === 'PageUp') return { kind: 'series', delta: -1 };
    if (e.key === 'PageDown') return { kind: 'series', delta: 1 };
    return undefined;
  }
  if (e.inField) return undefined;
  if (e.key in STEPS) return { kind: 'image', delta: STEPS[e.key] };
  if (e.key === 'Home') return { kind: 'imageAt', at: 'first' };
  if (e.key === 'End') return { kind: 'imageAt', at: 'last' };
  return undefined;
}

/**
 * The series `delta` away from the shown one, through every study's series in the
 * order the series panel lists them; none past either end. With none shown, the first.
 */
export function stepSeries(studies: readonly ViewerStudy[], seriesUid: string | undefined, delta: 1 | -1): { studyUid: string; seriesUid: string } | undefined {
  const all = studies.flatMap((s) => s.series.map((se) => ({ studyUid: s.studyUid, seriesUid: se.seriesUid })));
  const at = all.findIndex((x) => x.seriesUid === seriesUid);
  if (at < 0) return all[0];
  return all[at + delta];
}
