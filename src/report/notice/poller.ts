/**
 * When the notice counts are fetched (spec section 4, "Notification cycle"), apart
 * from what is done with them: each target (a module of the user's modelList) is
 * polled first after its own delay (report at once, remote 0.5 s later), then again
 * `intervalMs` after its previous poll finished, so one target never has two requests
 * out. While the page is hidden a due poll waits; when it is shown again the waiting
 * targets are polled at once (after their delays), and the cycle goes on from there.
 * Pure: timers and visibility are injected (tests use fake timers).
 */
export interface PollTarget<K extends string> {
  key: K;
  /** Before the first poll (and a catch-up poll), in ms. */
  delayMs: number;
}

export interface Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface PollerOptions<K extends string, R> {
  targets: ReadonlyArray<PollTarget<K>>;
  intervalMs: number;
  /** One request; aborted when the poller stops. */
  poll(key: K, signal: AbortSignal): Promise<R>;
  /** A finished poll's answer (never after stop). */
  onResult(key: K, result: R): void;
  isHidden(): boolean;
  clock?: Clock;
}

export interface Poller {
  /** Call on document visibilitychange: catches up on polls that fell due while hidden. */
  visibilityChanged(): void;
  /** No further polls; a request under way is aborted and its answer dropped. */
  stop(): void;
}

const realClock: Clock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export function startPoller<K extends string, R>(options: PollerOptions<K, R>): Poller {
  const clock = options.clock ?? realClock;
  const controller = new AbortController();
  let stopped = false;
  const state = new Map(options.targets.map((t) => [t.key, { delayMs: t.delayMs, timer: undefined as unknown, missed: false }]));

  const schedule = (key: K, ms: number) => {
    const s = state.get(key)!;
    s.timer = clock.setTimeout(() => void fire(key), ms);
  };

  const fire = async (key: K) => {
    const s = state.get(key)!;
    s.timer = undefined;
    if (stopped) return;
    if (options.isHidden()) {
      // Paused: nothing is asked for a page nobody looks at; visibilityChanged catches up.
      s.missed = true;
      return;
    }
    try {
      const result = await options.poll(key, controller.signal);
      if (!stopped) options.onResult(key, result);
    } catch {
      // A failed poll (network, refused) waits for the next round.
    }
    if (!stopped) schedule(key, options.intervalMs);
  };

  for (const t of options.targets) schedule(t.key, t.delayMs);

  return {
    visibilityChanged() {
      if (stopped || options.isHidden()) return;
      for (const [key, s] of state) {
        if (!s.missed) continue;
        s.missed = false;
        schedule(key, s.delayMs);
      }
    },
    stop() {
      stopped = true;
      controller.abort();
      for (const s of state.values()) if (s.timer !== undefined) clock.clearTimeout(s.timer);
    },
  };
}
