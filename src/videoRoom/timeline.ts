/**
 * The replay of a video consultation (issue #20 item 7) as data: what the room showed
 * at a step of its kept events (server/video/rooms.ts). Pure, no viewer here: the
 * replay screen (./Replay.tsx) brings its viewer to the view state as a follower does
 * (./sync.ts reconcile).
 */
import type { RoomEvent } from '../consult/api';
import type { SharedAnnotation } from '../viewer/types';
import type { ViewState } from './sync';

export interface ReplayFrame {
  /** The last view state at or before the step (undefined before the presenter's first). */
  view?: ViewState;
  /** The id of the event that gave the annotations (applied again only when it changes). */
  annotationsFrom?: number;
  annotations: SharedAnnotation[];
  presenterId: number | null;
  /** The chat lines said up to the step, oldest first. */
  chat: RoomEvent[];
}

/** The room at step `step` (an index into `events`, clamped): each kind's last event at or before it. */
export function replayFrame(events: RoomEvent[], step: number): ReplayFrame {
  const frame: ReplayFrame = { annotations: [], presenterId: null, chat: [] };
  const last = Math.min(step, events.length - 1);
  for (let i = 0; i <= last; i++) {
    const e = events[i];
    if (e.kind === 'view') frame.view = e.state as unknown as ViewState;
    else if (e.kind === 'annotations') {
      frame.annotationsFrom = e.id;
      frame.annotations = Array.isArray(e.state.annotations) ? (e.state.annotations as SharedAnnotation[]) : [];
    } else if (e.kind === 'presenter') frame.presenterId = typeof e.state.presenterId === 'number' ? e.state.presenterId : null;
    else if (e.kind === 'chat') frame.chat.push(e);
  }
  return frame;
}

/**
 * Names of the room's participants as the events carry them (a chat line keeps its
 * author's name), so the presenter is shown by name where the session said it.
 */
export function namesOf(events: RoomEvent[]): Map<number, string> {
  const names = new Map<number, string>();
  for (const e of events) if (e.kind === 'chat' && typeof e.state.name === 'string') names.set(e.userId, e.state.name);
  return names;
}
