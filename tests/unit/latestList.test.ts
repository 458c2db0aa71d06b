/**
 * A ProTable's list calls that must not overtake each other (src/schema/useLatestList.ts),
 * with calls that answer when the test says (no React, no server). Scenarios:
 * - a call replaced by a newer one has its signal aborted, answers success false (the
 *   table keeps what it shows), and only once the newest call has answered, so the
 *   table's loading state is not ended while the newest query is on its way
 * - a chain of three: the first waits for the third, not just the second
 * - a call left alone answers its own rows; a failing one answers success false
 */
import { latestList, type ListAnswer } from '@/schema/useLatestList';

type Row = { id: number };

/** A call whose answer the test gives, and the signal it was handed. */
function pending() {
  let give!: (a: ListAnswer<Row>) => void;
  const answer = new Promise<ListAnswer<Row>>((r) => (give = r));
  const call = { signal: undefined as AbortSignal | undefined, give, run: (signal: AbortSignal) => ((call.signal = signal), answer) };
  return call;
}

const rows = (...ids: number[]): ListAnswer<Row> => ({ data: ids.map((id) => ({ id })), total: ids.length, success: true });
const flush = () => new Promise((r) => setImmediate(r));

describe('latestList', () => {
  test('an abandoned call answers success false once the call that replaced it has', async () => {
    const list = latestList<Row>();
    const a = pending();
    const b = pending();
    const settled: string[] = [];
    const first = list(a.run).then((r) => (settled.push('a'), r));
    const second = list(b.run).then((r) => (settled.push('b'), r));
    expect(a.signal!.aborted).toBe(true);
    expect(b.signal!.aborted).toBe(false);
    // The abandoned request ends (its fetch was aborted): still no answer to the table.
    a.give(rows(1, 2, 3));
    await flush();
    expect(settled).toEqual([]);
    b.give(rows(9));
    await expect(second).resolves.toEqual(rows(9));
    await expect(first).resolves.toEqual({ data: [], total: 0, success: false });
    expect(settled).toEqual(['b', 'a']);
  });

  test('a chain of three: the first answers after the third', async () => {
    const list = latestList<Row>();
    const [a, b, c] = [pending(), pending(), pending()];
    const settled: string[] = [];
    const all = [list(a.run), list(b.run), list(c.run)].map((p, i) => p.then((r) => (settled.push('abc'[i]), r)));
    a.give(rows(1));
    b.give(rows(2));
    await flush();
    expect(settled).toEqual([]);
    c.give(rows(3));
    const [ra, rb, rc] = await Promise.all(all);
    expect([ra.success, rb.success, rc]).toEqual([false, false, rows(3)]);
    expect(settled[0]).toBe('c');
  });

  test('a call alone answers its rows; a failing one answers success false', async () => {
    const list = latestList<Row>();
    await expect(list(async () => rows(4, 5))).resolves.toEqual(rows(4, 5));
    await expect(list(async () => Promise.reject(new Error('refused')))).resolves.toEqual({ data: [], total: 0, success: false });
  });
});
