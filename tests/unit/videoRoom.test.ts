/**
 * The video room's pure parts: the spec's three webcam errors told apart from the
 * browsers' DOMException names (each a locale key in every language), and when two
 * viewer states are the same image as a follower sees it (rounding is not a change).
 */
import { translate } from '../../locales';
import { sameView, type ViewState } from '@/videoRoom/sync';
import { webcamProblem, WEBCAM_PROBLEM_TEXT } from '@/videoRoom/media';

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
