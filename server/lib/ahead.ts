/**
 * Read-ahead over a list: each item with the promise of its opened value, in order,
 * the opening started up to `depth` items before the caller reaches it (a WADO-RS
 * series' files read while earlier ones are sent, a retrieve's next file read while
 * the destination stores this one). The caller awaits each promise in its turn, so a
 * failure lands where the caller handles that item. A caller that stops early (break,
 * return, a throw) starts nothing more; what was opened and not handed out goes to
 * `dispose` (a stream to close) once it settles.
 */
export function* ahead<T, R>(items: readonly T[], open: (item: T) => Promise<R>, depth: number, dispose?: (value: R) => void): Generator<[T, Promise<R>]> {
  const started: Array<Promise<R>> = [];
  let next = 0;
  const fill = () => {
    for (; next < items.length && started.length < Math.max(1, depth); next++) {
      const opening = open(items[next]);
      // Awaited in its turn; a failure before then must not count as unhandled.
      opening.catch(() => undefined);
      started.push(opening);
    }
  };
  try {
    for (const item of items) {
      fill();
      const opening = started.shift()!;
      // The next ones start while the caller works on this one.
      fill();
      yield [item, opening];
    }
  } finally {
    if (dispose) for (const left of started) left.then(dispose, () => undefined);
  }
}
