/**
 * Whether a pop-up is shown again after the page is reloaded. The spec's cycle asks for
 * the counts and repeats every `interval` minutes; a reload (or a link opened in the
 * same tab) restarts the poller, and without a memory each one would pop the same
 * counts up again over the menu for `duration` seconds. So the last pop-up of each
 * module is remembered for the tab (sessionStorage): the same counts under the same
 * settings within one interval are not shown again; different counts, changed
 * settings or a lapsed interval are. Pure apart from the injected store.
 */
import type { NoticeCounts, NoticeModel } from './counts';

export interface ShownStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

interface Shown {
  cycle: string;
  counts: string;
  at: number;
}

const storeKey = (model: NoticeModel) => `rcloud-notice-shown:${model}`;

/** The counts as one string independent of key order. */
const countsKey = (counts: NoticeCounts) =>
  JSON.stringify(
    Object.keys(counts)
      .sort()
      .map((k) => [k, counts[k as keyof NoticeCounts] ?? 0]),
  );

function read(store: ShownStore, model: NoticeModel): Shown | undefined {
  try {
    const raw = store.getItem(storeKey(model));
    return raw ? (JSON.parse(raw) as Shown) : undefined;
  } catch {
    // A store that refuses (privacy mode) or holds garbage: behave as if nothing was shown.
    return undefined;
  }
}

/** True when these counts were already shown under this cycle less than an interval ago. */
export function shownRecently(store: ShownStore, model: NoticeModel, cycle: string, counts: NoticeCounts, now: number, intervalMs: number): boolean {
  const last = read(store, model);
  return !!last && last.cycle === cycle && last.counts === countsKey(counts) && now - last.at >= 0 && now - last.at < intervalMs;
}

export function rememberShown(store: ShownStore, model: NoticeModel, cycle: string, counts: NoticeCounts, now: number): void {
  try {
    store.setItem(storeKey(model), JSON.stringify({ cycle, counts: countsKey(counts), at: now } satisfies Shown));
  } catch {
    // Full or refused storage: the pop-up simply shows again after a reload.
  }
}
