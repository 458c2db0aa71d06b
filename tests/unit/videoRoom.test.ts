/**
 * The video room's pure parts: the spec's three webcam errors told apart from the
 * browsers' DOMException names (each a locale key in every language), and when two
 * viewer states are the same image as a follower sees it (rounding is not a change),
 * and what the replay shows at a step of the kept events: each kind's last at or before
 * it, the chat up to it, the presenter's name where a chat line gave it.
 */
import { translate } from '../../locales';
import { sameView, type ViewState } from '@/videoRoom/sync';
import { webcamProblem, WEBCAM_PROBLEM_TEXT } from '@/videoRoom/media';
import { namesOf, replayFrame } from '@/videoRoom/timeline';
import type { RoomEvent } from '@/consult/api';

describe('webcam problems', () => {
  test.each([
    ['NotAllowedError', 'denied'],
    ['PermissionDeniedError', 'denied'],
    ['SecurityError', 'denied'],
    ['NotFoundError', 'notFound'],
    ['DevicesNotFoundError', 'notFound'],
    ['OverconstrainedError', 'notFound'],
    ['NotReadableError', 'notFound'],
    ['TypeError', 'unsupported'],
    ['', 'unsupported'],
  ])('%s is %s', (name, problem) => {
    expect(webcamProblem(Object.assign(new Error('x'), { name }))).toBe(problem);
  });

  test('each problem has its text in Chinese and English', () => {
    for (const key of Object.values(WEBCAM_PROBLEM_TEXT)) {
      for (const lang of ['zh-CN', 'en-US']) expect(translate(lang, key)).not.toBe(key);
    }
  });
});

describe('the same view', () => {
  const a: ViewState = { studyUid: '1.2', seriesUid: '1.2.1', index: 4, voi: { lower: -160, upper: 240 }, zoom: 1.25, pan: [2, 3] };
  test('rounding is no change; another image, window, zoom or pan is', () => {
    expect(sameView(a, { ...a, voi: { lower: -160.001, upper: 240.004 }, zoom: 1.2500001 })).toBe(true);
    expect(sameView(a, { ...a, index: 5 })).toBe(false);
    expect(sameView(a, { ...a, seriesUid: '1.2.2' })).toBe(false);
    expect(sameView(a, { ...a, voi: { lower: -600, upper: 900 } })).toBe(false);
    expect(sameView(a, { ...a, zoom: 2 })).toBe(false);
    expect(sameView(a, { ...a, pan: [2, 10] })).toBe(false);
    expect(sameView(a, undefined)).toBe(false);
  });
});

describe('the replay at a step', () => {
  const at = '2026-01-01T00:00:00.000Z';
  const view = (id: number, index: number): RoomEvent => ({ id, userId: 7, kind: 'view', state: { studyUid: '1.2', seriesUid: '1.2.1', index }, at });
  const notes = [{ annotationUID: 'n1', metadata: { toolName: 'Length', referencedImageId: 'x' }, data: { handles: { points: [[0, 0, 0]] } } }];
  const events: RoomEvent[] = [
    { id: 1, userId: 7, kind: 'presenter', state: { presenterId: 7 }, at },
    { id: 2, userId: 7, kind: 'chat', state: { text: 'first', name: '林主任' }, at },
    view(3, 4),
    { id: 4, userId: 7, kind: 'annotations', state: { annotations: notes }, at },
    { id: 5, userId: 7, kind: 'presenter', state: { presenterId: 9 }, at },
    view(6, 11),
    { id: 7, userId: 9, kind: 'annotations', state: { annotations: [] }, at },
  ];

  test('each kind is its last at or before the step; the chat is every line up to it', () => {
    expect(replayFrame(events, 0)).toEqual({ annotations: [], presenterId: 7, chat: [] });
    const second = replayFrame(events, 3);
    expect(second).toMatchObject({ view: { index: 4 }, annotationsFrom: 4, annotations: notes, presenterId: 7 });
    expect(second.chat.map((c) => c.id)).toEqual([2]);
    // Annotations cleared later are cleared at that step, and the viewer moves on.
    expect(replayFrame(events, 6)).toMatchObject({ view: { index: 11 }, annotationsFrom: 7, annotations: [], presenterId: 9 });
    // Past the end is the end; no events, an empty room.
    expect(replayFrame(events, 99)).toEqual(replayFrame(events, 6));
    expect(replayFrame([], 0)).toEqual({ annotations: [], presenterId: null, chat: [] });
  });

  test('names come from the chat lines their authors said', () => {
    expect([...namesOf(events)]).toEqual([[7, '林主任']]);
  });
});
