/**
 * API paths with `{field}` placeholders, as views write them ("/api/ucenter/v1/user/unlock/{id}"),
 * filled from a record. Pure: the server reads them too (views.ts, viewRowFields).
 */

/** The placeholder names of a path, in order. */
export function pathFields(template: string): string[] {
  return [...template.matchAll(/\{([A-Za-z][A-Za-z0-9]*)\}/g)].map((m) => m[1]);
}

/**
 * Values of the screen a path may name as `{$name}` (not a record's): the list kind
 * shown (`{$kind}`, view list.kinds).
 */
export type PathContext = Record<string, string | undefined>;

/**
 * The path with each `{field}` replaced by the record's value and each `{$name}` by the
 * context's, URL-encoded; undefined while one of them has no value (a record not saved
 * yet has no id).
 */
export function fillPath(template: string, record: Record<string, unknown> | null | undefined, context: PathContext = {}): string | undefined {
  let missing = false;
  const path = template.replace(/\{(\$?)([A-Za-z][A-Za-z0-9]*)\}/g, (_m, ctx: string, name: string) => {
    const v = ctx ? context[name] : record?.[name];
    if (v === undefined || v === null || v === '' || typeof v === 'object') {
      missing = true;
      return '';
    }
    return encodeURIComponent(String(v));
  });
  return missing ? undefined : path;
}
