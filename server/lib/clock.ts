/**
 * The server's business clock: what "now" is for workflow actions, turnaround limits and
 * the overdue sweep. It runs with the wall clock, shifted by CLOCK_OFFSET_SECONDS (a
 * trial of the limits on a training instance: "as if it were tomorrow morning"), and
 * `shift` moves it on at run time (the tests that watch a report run late, without
 * waiting an hour). One per process: every request and worker of the process agrees on
 * "now". The database's now() is left alone (session expiry, locks): it is not business time.
 */
let offsetMs = 0;

export const clock = {
  now(): Date {
    return new Date(Date.now() + offsetMs);
  },
  /** Sets the offset from the wall clock (config at start). */
  setOffset(ms: number): void {
    offsetMs = ms;
  },
  /** Moves the clock on by `ms` from where it is. */
  shift(ms: number): void {
    offsetMs += ms;
  },
  get offsetMs(): number {
    return offsetMs;
  },
};
