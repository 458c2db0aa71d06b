/**
 * The background workers' loop (server/lib/queueWorker.ts): stopping ends the wait for
 * the next poll at once, also when stop() comes while a claim is under way (the loop
 * then waited out a whole poll interval, 30 s for the overdue sweep, before the app
 * could close), and a job under way is waited for.
 */
import { QueueWorker } from '../../server/lib/queueWorker';

class Probe extends QueueWorker<number> {
  claims = 0;
  executed: number[] = [];
  private release?: () => void;
  constructor(private readonly jobs: number[], private readonly holdClaim = false) {
    super('probe', 60_000);
  }
  async claim(): Promise<number | undefined> {
    this.claims++;
    if (this.holdClaim) await new Promise<void>((resolve) => (this.release = resolve));
    return this.jobs.shift();
  }
  protected async execute(job: number): Promise<void> {
    this.executed.push(job);
  }
  finishClaim() {
    this.release?.();
  }
}

describe('QueueWorker', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const settles = async (p: Promise<void>) => {
    let done = false;
    void p.then(() => (done = true));
    // Microtasks only: no fake time passes, so a poll wait would still be pending.
    await jest.advanceTimersByTimeAsync(0);
    return done;
  };

  test('runs the queued jobs, then waits for the poll; stop ends the wait', async () => {
    const w = new Probe([1, 2]);
    w.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(w.executed).toEqual([1, 2]);
    expect(jest.getTimerCount()).toBe(1);
    expect(await settles(w.stop())).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  test('stopped while claiming, it stops without waiting out a poll interval', async () => {
    const w = new Probe([], true);
    w.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(w.claims).toBe(1);
    const stopped = w.stop();
    w.finishClaim();
    expect(await settles(stopped)).toBe(true);
    expect([w.claims, jest.getTimerCount()]).toEqual([1, 0]);
  });

  test('a kick looks at once rather than at the next poll', async () => {
    const w = new Probe([]);
    w.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(w.claims).toBe(1);
    w.kick();
    await jest.advanceTimersByTimeAsync(0);
    expect(w.claims).toBe(2);
    await w.stop();
  });
});
