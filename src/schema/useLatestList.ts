/**
 * The `request` of a ProTable whose answers must not overtake each other. ProTable shows
 * whichever answer comes last and ends its loading state whenever a call ends; so a call
 * replaced by a newer one (a query asked while a reload after a save is under way) is
 * abandoned: its request is aborted and it answers `success: false`, on which ProTable
 * keeps what it shows. It answers only once the newest call has: ending earlier would
 * take the table's loading mask away while the newest query is still on its way, over
 * the rows of the query before.
 */
import { useState } from 'react';

export interface ListAnswer<T> {
  data: T[];
  total: number;
  success: boolean;
}

interface Call {
  controller: AbortController;
  answer: Promise<unknown>;
}

/** Nothing to show: ProTable keeps the rows it has. */
const KEEP = { data: [], total: 0, success: false };

export type LatestList<T> = (run: (signal: AbortSignal) => Promise<ListAnswer<T>>) => Promise<ListAnswer<T>>;

/** One table's calls (see above); plain so it runs in unit tests. */
export function latestList<T>(): LatestList<T> {
  let latest: Call | undefined;
  return async (run) => {
    latest?.controller.abort();
    const controller = new AbortController();
    // A failure was shown by the request wrapper (which says nothing of an abandoned call).
    const answer = run(controller.signal).catch((): ListAnswer<T> => KEEP);
    const mine: Call = { controller, answer };
    latest = mine;
    const result = await answer;
    if (!controller.signal.aborted) return result;
    // Abandoned: wait for the newest call, and for any that replaced it meanwhile.
    let waited: Call = mine;
    while (latest !== waited) {
      waited = latest;
      await waited.answer;
    }
    return KEEP;
  };
}

export function useLatestList<T>(): LatestList<T> {
  return useState(() => latestList<T>())[0];
}
