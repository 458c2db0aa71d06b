/**
 * The notification cycle's schedule and what a pop-up shows (src/report/notice/poller.ts,
 * counts.ts), with fake timers and a stub request (no timing asserts: the order of
 * calls at fake instants). Scenarios:
 * - report is asked at once, remote 0.5 s later; each again `interval` after its
 *   previous answer
 * - a slow answer never overlaps the next request of the same module
 * - hidden: nothing is asked; shown again: the missed ones are asked at once, then the
 *   cycle goes on
 * - stop: no more requests, a late answer is dropped, the request under way aborted
 * - a failed request waits for the next round
 * - counts by permission: write → unwritten, rejected-back, returned; verify → first
 *   trial; the right to acknowledge → critical values (report only); nothing when
 *   every shown count is 0; modules polled are the modelList's the user may view
 * - after a reload the same counts within one interval are not popped up again
 */
import { noticeLines, noticeModels, type NoticeModel } from '@/report/notice/counts';
import { startPoller } from '@/report/notice/poller';
import { rememberShown, shownRecently } from '@/report/notice/shown';

const MINUTE = 60_000;

/** A poll that answers when the test says so; remembers every call. */
function stubPoll() {
  const calls: Array<{ key: NoticeModel; signal: AbortSignal; resolve(v: number): void; reject(e: Error): void }> = [];
  const poll = (key: NoticeModel, signal: AbortSignal) => new Promise<number>((resolve, reject) => calls.push({ key, signal, resolve, reject }));
  return { calls, poll };
}

/** Lets the poller's promise chain run after an answer. */
const settle = async () => {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
};

describe('the notice poller', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('report at once, remote after 0.5 s, each again an interval after its answer, never overlapping', async () => {
    const { calls, poll } = stubPoll();
    const results: string[] = [];
    const p = startPoller({
      targets: [{ key: 'report', delayMs: 0 }, { key: 'remote', delayMs: 500 }],
      intervalMs: 5 * MINUTE,
      poll,
      onResult: (key, r) => results.push(`${key}:${r}`),
      isHidden: () => false,
    });
    jest.advanceTimersByTime(0);
    expect(calls.map((c) => c.key)).toEqual(['report']);
    jest.advanceTimersByTime(499);
    expect(calls.map((c) => c.key)).toEqual(['report']);
    jest.advanceTimersByTime(1);
    expect(calls.map((c) => c.key)).toEqual(['report', 'remote']);

    // The report answer is slow: no second report request while it is out, however long.
    jest.advanceTimersByTime(20 * MINUTE);
    expect(calls.map((c) => c.key)).toEqual(['report', 'remote']);
    calls[0].resolve(3);
    calls[1].resolve(1);
    await settle();
    expect(results).toEqual(['report:3', 'remote:1']);
    jest.advanceTimersByTime(5 * MINUTE - 1);
    expect(calls.length).toBe(2);
    jest.advanceTimersByTime(1);
    expect(calls.map((c) => c.key)).toEqual(['report', 'remote', 'report', 'remote']);
    p.stop();
  });

  test('hidden: nothing is asked; shown: the missed modules are asked at once, then every interval', async () => {
    const { calls, poll } = stubPoll();
    let hidden = true;
    const p = startPoller({ targets: [{ key: 'report', delayMs: 0 }, { key: 'remote', delayMs: 500 }], intervalMs: MINUTE, poll, onResult: () => undefined, isHidden: () => hidden });
    jest.advanceTimersByTime(10 * MINUTE);
    expect(calls).toEqual([]);
    hidden = false;
    p.visibilityChanged();
    jest.advanceTimersByTime(0);
    expect(calls.map((c) => c.key)).toEqual(['report']);
    jest.advanceTimersByTime(500);
    expect(calls.map((c) => c.key)).toEqual(['report', 'remote']);
    // Shown twice in a row: no second catch-up while the first is out.
    p.visibilityChanged();
    jest.advanceTimersByTime(500);
    expect(calls.length).toBe(2);
    calls[0].resolve(0);
    await settle();
    jest.advanceTimersByTime(MINUTE);
    expect(calls.map((c) => c.key)).toEqual(['report', 'remote', 'report']);
    p.stop();
  });

  test('stop: no further requests, the one under way aborted and its answer dropped', async () => {
    const { calls, poll } = stubPoll();
    const results: number[] = [];
    const p = startPoller({ targets: [{ key: 'report', delayMs: 0 }], intervalMs: MINUTE, poll, onResult: (_k, r) => results.push(r), isHidden: () => false });
    jest.advanceTimersByTime(0);
    p.stop();
    expect(calls[0].signal.aborted).toBe(true);
    calls[0].resolve(7);
    await settle();
    jest.advanceTimersByTime(10 * MINUTE);
    expect(results).toEqual([]);
    expect(calls.length).toBe(1);
  });

  test('a failed request waits for the next round', async () => {
    const { calls, poll } = stubPoll();
    const results: number[] = [];
    const p = startPoller({ targets: [{ key: 'report', delayMs: 0 }], intervalMs: MINUTE, poll, onResult: (_k, r) => results.push(r), isHidden: () => false });
    jest.advanceTimersByTime(0);
    calls[0].reject(new Error('network'));
    await settle();
    jest.advanceTimersByTime(MINUTE);
    calls[1].resolve(2);
    await settle();
    expect(results).toEqual([2]);
    p.stop();
  });
});

describe('what a pop-up shows', () => {
  const counts = { unwritten: 4, firstTrial: 2, retrialBack: 0, reportReturn: 1, crisis: 3 };

  test('write: unwritten, rejected back and returned; verify: first trial; acknowledge: critical values (report only)', () => {
    expect(noticeLines('report', counts, { report: ['view', 'write'] })).toEqual([
      { kind: 'unwritten', count: 4 },
      { kind: 'retrialBack', count: 0 },
      { kind: 'reportReturn', count: 1 },
    ]);
    expect(noticeLines('report', counts, { report: ['view', 'verify'] })).toEqual([{ kind: 'firstTrial', count: 2 }]);
    expect(noticeLines('report', counts, { report: ['view', 'crisisAcknowledge'] })).toEqual([{ kind: 'crisis', count: 3 }]);
    expect(noticeLines('remote', counts, { remote: ['view', 'verify'], report: ['crisisAcknowledge'] })).toEqual([{ kind: 'firstTrial', count: 2 }]);
    // The module's own rights count, not another's.
    expect(noticeLines('remote', counts, { report: ['view', 'write', 'verify'] })).toEqual([]);
  });

  test('no pop-up when every count shown is 0, even if others are not', () => {
    expect(noticeLines('report', { unwritten: 0, retrialBack: 0, reportReturn: 0, firstTrial: 9 }, { report: ['view', 'write'] })).toEqual([]);
    expect(noticeLines('report', {}, { report: ['view', 'write', 'verify'] })).toEqual([]);
  });

  test("modules polled: the modelList's, viewable, with some count to show, in the spec's order", () => {
    const map = { report: ['view', 'write'], remote: ['view', 'verify'] };
    expect(noticeModels(['remote', 'report'], map)).toEqual(['report', 'remote']);
    expect(noticeModels(['remote'], { report: ['view', 'write'] })).toEqual([]);
    expect(noticeModels(['report', 'other'], { report: ['view'] })).toEqual([]);
    expect(noticeModels(undefined, map)).toEqual([]);
  });
});

describe('a pop-up after a reload', () => {
  const memory = () => {
    const m = new Map<string, string>();
    return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
  };
  const cycle = JSON.stringify({ models: ['report'], intervalMinutes: 5 });

  test('the same counts under the same settings within one interval are not shown again', () => {
    const store = memory();
    expect(shownRecently(store, 'report', cycle, { unwritten: 2, firstTrial: 1 }, 1000, 5 * MINUTE)).toBe(false);
    rememberShown(store, 'report', cycle, { unwritten: 2, firstTrial: 1 }, 1000);
    // Key order does not matter; the other module has its own memory.
    expect(shownRecently(store, 'report', cycle, { firstTrial: 1, unwritten: 2 }, 1000 + MINUTE, 5 * MINUTE)).toBe(true);
    expect(shownRecently(store, 'remote', cycle, { unwritten: 2, firstTrial: 1 }, 1000 + MINUTE, 5 * MINUTE)).toBe(false);
  });

  test('changed counts, changed settings or a lapsed interval show it again', () => {
    const store = memory();
    rememberShown(store, 'report', cycle, { unwritten: 2 }, 1000);
    expect(shownRecently(store, 'report', cycle, { unwritten: 3 }, 2000, 5 * MINUTE)).toBe(false);
    expect(shownRecently(store, 'report', JSON.stringify({ models: ['report'], intervalMinutes: 1 }), { unwritten: 2 }, 2000, 5 * MINUTE)).toBe(false);
    expect(shownRecently(store, 'report', cycle, { unwritten: 2 }, 1000 + 5 * MINUTE, 5 * MINUTE)).toBe(false);
  });

  test('a store holding garbage or refusing writes never hides a pop-up', () => {
    const broken = { getItem: () => '{not json', setItem: () => { throw new Error('quota'); } };
    expect(() => rememberShown(broken, 'report', cycle, { unwritten: 1 }, 0)).not.toThrow();
    expect(shownRecently(broken, 'report', cycle, { unwritten: 1 }, 1, MINUTE)).toBe(false);
  });
});
