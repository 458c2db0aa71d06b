/**
 * Between a form and the resource API, pure: the values a new record starts with, the
 * payload a save sends (only fields the client may write: no readOnly ones, empty
 * inputs and untouched structured objects dropped, an empty password means
 * "unchanged"), and which form field a server validation failure (UAA421 with
 * `field`) belongs to.
 */
import { entityModel, type FieldInfo } from '../shared/schema/model';
import type { Entity } from './resource';
import type { View } from '../shared/schema/types';
import { viewForm } from '../shared/schema/views';

/**
 * A new record: the entity's defaults for the fields the form shows, one empty row
 * for a list of rows that must not be empty, and the view's fixed values (e.g. kind).
 */
export function initialValues(view: View): Entity {
  const model = entityModel(view.entity);
  const out: Entity = {};
  for (const name of viewForm(view).groups.flatMap((g) => g.fields)) {
    const f = model.byName.get(name);
    if (!f || f.readOnly) continue;
    if (f.default !== undefined) out[name] = f.default;
    else if (f.type === 'array' && f.items?.type === 'object' && (f.minItems ?? 0) >= 1) out[name] = [{}];
  }
  return { ...out, ...view.fixedFilters };
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === '' || (typeof v === 'string' && v.trim() === '');
}

function cleanValue(f: FieldInfo | undefined, v: unknown): unknown {
  if (typeof v === 'string') return v.trim();
  if (Array.isArray(v)) {
    return v.filter((x) => !isEmpty(x)).map((x) => cleanValue(f?.items, x));
  }
  if (v && typeof v === 'object') {
    const declared = f?.properties ?? f?.items?.properties;
    const props = new Map((declared ?? []).map((p) => [p.name.slice(p.name.lastIndexOf('.') + 1), p]));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const p = props.get(k);
      // Declared properties only (array widgets tag rows with keys of their own); a map keeps all.
      if (declared && !p) continue;
      if (isEmpty(x) || (x === null && p && !p.nullable)) continue;
      out[k] = cleanValue(p, x);
    }
    return out;
  }
  return v;
}

/**
 * What POST save gets: the entity's writable fields present in `values`, cleaned; with
 * `id` when editing. Fields the schema does not know are never sent.
 */
export function toPayload(view: View, values: Record<string, unknown>, id?: number | string): Entity {
  const model = entityModel(view.entity);
  const out: Entity = {};
  for (const f of model.fields) {
    if (f.readOnly || !(f.name in values)) continue;
    const v = values[f.name];
    if (isEmpty(v) || (v === null && !f.nullable)) continue;
    const clean = cleanValue(f, v);
    // Formily starts an object field as {}: a structured object with nothing in it is no
    // value (a user's data scope never touched). A map ({} = none granted) is kept.
    if (f.properties && clean && typeof clean === 'object' && !Array.isArray(clean) && !Object.keys(clean).length) continue;
    out[f.name] = clean;
  }
  for (const [k, v] of Object.entries(view.fixedFilters ?? {})) if (model.byName.has(k)) out[k] = v;
  if (id !== undefined && id !== null && id !== '') out.id = Number(id);
  return out;
}

/**
 * The form path to show a server's field error on: the reported path if the form has
 * that field, else its nearest ancestor that it has ("dataScope.conditions.0.value" →
 * "dataScope"), else undefined.
 */
export function errorFieldPath(reported: string, exists: (path: string) => boolean): string | undefined {
  const parts = reported.split(/[./]/).filter(Boolean);
  for (let n = parts.length; n > 0; n--) {
    const path = parts.slice(0, n).join('.');
    if (exists(path)) return path;
  }
  return undefined;
}
