/**
 * Where select options come from (a view's `options`): a code table (translated, no
 * call), a data dictionary's items (GET /api/bdt/v1/dictionary/options?code=, cached
 * like the dictionary resource's options, built-in ones labelled in the user's language) or GET {resource}/options with parameters. Resource options are cached per
 * resource and parameters for the page's life and dropped when that resource is saved
 * or deleted, so ten selects of hospitals cost one call.
 */
import type { RequestFn } from '../services/request';
import { resourceApi } from './resource';
import { codeOptions } from '../shared/schema/schemas';
import type { Option, OptionSource, Scalar, Translate } from '../shared/schema/types';

const cache = new Map<string, Promise<Option[]>>();

function cacheKey(resource: string, params: Record<string, Scalar | undefined>): string {
  const sorted = Object.keys(params)
    .sort()
    .filter((k) => params[k] !== undefined && params[k] !== '')
    .map((k) => `${k}=${String(params[k])}`);
  return `${resource}?${sorted.join('&')}`;
}

export function loadResourceOptions(resource: string, params: Record<string, Scalar | undefined> = {}, req?: RequestFn): Promise<Option[]> {
  const key = cacheKey(resource, params);
  let hit = cache.get(key);
  if (!hit) {
    hit = resourceApi(resource, req).options(params);
    cache.set(key, hit);
    // A failed call is not remembered: the next select tries again.
    hit.catch(() => cache.delete(key));
  }
  return hit;
}

/** Resource whose options call (?code=) serves a dictionary option source. */
export const DICTIONARY_RESOURCE = 'dictionary';

/**
 * Resources whose options are made of another one's rows: a dictionary's options are
 * its items, so saving or deleting an item drops them too.
 */
const DERIVED: Readonly<Record<string, string[]>> = { dictionaryItem: [DICTIONARY_RESOURCE] };

export function invalidateOptions(resource: string): void {
  const prefixes = [resource, ...(DERIVED[resource] ?? [])].map((r) => `${r}?`);
  for (const key of [...cache.keys()]) if (prefixes.some((p) => key.startsWith(p))) cache.delete(key);
}

/**
 * A dictionary item's label in the user's language. A built-in item (migration 0006)
 * has a text per language: `dictionary.<code>.<value>` (modalities, body parts, payment
 * states), else the code table of the dictionary's name (`code.<code>.<value>`: sex,
 * patient source, …, already translated). An item a user added shows its stored label,
 * as does a built-in one no language names.
 */
export function dictionaryLabel(t: Translate, code: string, item: Option): string {
  if (item.builtin !== true) return item.label;
  for (const key of [`dictionary.${code}.${String(item.value)}`, `code.${code}.${String(item.value)}`]) {
    const text = t(key);
    if (text !== key) return text;
  }
  return item.label;
}

/**
 * Options for a source. `depends` holds the values of the fields named by dependsOn;
 * while one of them is empty there is nothing to choose from.
 */
export async function loadOptions(
  source: OptionSource,
  t: Translate,
  depends: Record<string, Scalar | undefined> = {},
  req?: RequestFn,
): Promise<Option[]> {
  if ('code' in source) return codeOptions(source.code, t) as Option[];
  if ('dictionary' in source) {
    const items = await loadResourceOptions(DICTIONARY_RESOURCE, { code: source.dictionary }, req);
    return items.map((item) => ({ ...item, label: dictionaryLabel(t, source.dictionary, item) }));
  }
  const params: Record<string, Scalar | undefined> = { ...source.params };
  for (const param of Object.keys(source.dependsOn ?? {})) {
    const v = depends[param];
    if (v === undefined || v === null || v === '') return [];
    params[param] = v;
  }
  return loadResourceOptions(source.resource, params, req);
}
