/**
 * "Next report" without leaving the page (shared contract item 4): the list the
 * report was opened from (`from`, `model` of the address) is walked in its own order
 * for the row after (or before) the current one. A report that has just left the
 * list (submitted from "to write") is no longer in it: the neighbour seen when the
 * page opened stands in, else the list's first row.
 */
import { listPage, type ListKind, type Model } from './api';

const LIST_KINDS: readonly ListKind[] = ['write', 'review', 'print', 'done', 'mine', 'all'];
const PAGE_SIZE = 100;
/** Walk at most this many pages: a work list longer than that is worked from its top. */
const MAX_PAGES = 10;

export interface ListOrigin {
  kind: ListKind;
  model?: Model;
}

/** The list of the address (`from`, `model`), or undefined when it names none. */
export function listOrigin(from: string | null, model: string | null): ListOrigin | undefined {
  const kind = LIST_KINDS.find((k) => k === from);
  if (!kind) return undefined;
  return { kind, model: model === 'remote' || model === 'report' ? model : undefined };
}

/** The id `step` rows away from `id` in `ids`; undefined at either end or when `id` is absent. */
export function stepFrom(ids: readonly number[], id: number, step: 1 | -1): number | undefined {
  const at = ids.indexOf(id);
  if (at < 0) return undefined;
  return ids[at + step];
}

export interface Neighbours {
  /** The current report is in the list (else prev/next are the list's first rows). */
  found: boolean;
  prev?: number;
  next?: number;
  first?: number;
}

/** Finds the report's neighbours in its list, page by page. */
export async function findNeighbours(origin: ListOrigin, id: number): Promise<Neighbours> {
  const seen: number[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { ids, total } = await listPage(origin.kind, origin.model, page, PAGE_SIZE);
    seen.push(...ids);
    const at = seen.indexOf(id);
    // Found with its successor known (or at the list's end).
    if (at >= 0 && (at + 1 < seen.length || seen.length >= total)) {
      return { found: true, prev: stepFrom(seen, id, -1), next: stepFrom(seen, id, 1), first: seen[0] };
    }
    if (seen.length >= total || ids.length === 0) break;
  }
  return { found: false, first: seen.find((x) => x !== id) };
}

/** Where "next" (1) or "previous" (-1) goes now, given what was found when the page opened. */
export async function neighbourOf(origin: ListOrigin, id: number, step: 1 | -1, opened?: Neighbours): Promise<number | undefined> {
  const now = await findNeighbours(origin, id);
  if (now.found) return step === 1 ? now.next : now.prev;
  const remembered = step === 1 ? opened?.next : opened?.prev;
  return remembered ?? (step === 1 ? now.first : undefined);
}
