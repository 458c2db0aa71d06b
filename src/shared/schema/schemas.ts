/**
 * The JSON Schemas under schemas/ the client renders from, imported statically by the
 * generated catalogue (the bundle holds them; no fetch; `npm run schemas` lists them).
 * Relative $refs are made absolute once, so the rest of the engine looks up
 * "common.json#/definitions/id" without knowing where a schema came from.
 */
import { schemaFiles } from '../generated/catalog';
import type { JsonSchema, Scalar } from './types';

const files = schemaFiles as JsonSchema[];

const BASE = 'http://schemas.invalid/';

/** `ref` as seen from the schema whose $id is `baseId`, made absolute ("common.json#/definitions/id"). */
export function resolveRef(ref: string, baseId: string): string {
  const url = new URL(ref, BASE + baseId);
  return decodeURIComponent(url.pathname.slice(1)) + url.hash;
}

function absolutize<T>(node: T, baseId: string): T {
  if (Array.isArray(node)) return node.map((n) => absolutize(n, baseId)) as T;
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = k === '$ref' && typeof v === 'string' ? resolveRef(v, baseId) : absolutize(v, baseId);
  }
  return out as T;
}

const byId = new Map<string, JsonSchema>(files.map((s) => [String(s.$id), absolutize(s, String(s.$id))]));

export const schemaIds: string[] = [...byId.keys()];
export const entityNames: string[] = schemaIds.filter((id) => id.startsWith('entities/')).map((id) => id.slice(9, -5));
export const codeTableNames: string[] = schemaIds.filter((id) => id.startsWith('codes/')).map((id) => id.slice(6, -5));

/** A schema or a part of one by absolute ref ("codes/sex.json", "common.json#/definitions/id"). */
export function schemaAt(ref: string): JsonSchema {
  const [id, pointer = ''] = ref.split('#');
  let node: unknown = byId.get(id);
  if (!node) throw new Error(`unknown schema ${id}`);
  for (const part of pointer.split('/').filter(Boolean)) {
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`no ${ref}`);
  }
  return node as JsonSchema;
}

export function entitySchema(name: string): JsonSchema {
  return schemaAt(`entities/${name}.json`);
}

/** The values of a code table, in the order the file lists them. */
export function codeValues(table: string): Scalar[] {
  return (schemaAt(`codes/${table}.json`).enum ?? []).filter((v): v is Scalar => v !== null);
}

/** Locale key of a code value's text. */
export function codeLabelKey(table: string, value: Scalar): string {
  return `code.${table}.${String(value)}`;
}

/** A code table as select options, labels translated (`code.<table>.<value>`). */
export function codeOptions(table: string, t: (key: string) => string): Array<{ value: Scalar; label: string }> {
  return codeValues(table).map((value) => ({ value, label: t(codeLabelKey(table, value)) }));
}
