/**
 * The organisation hierarchy (region → central hospitals → subordinate hospitals): the
 * superiors of a hospital, as SQL other queries embed. Reads org only.
 */

/**
 * SQL selecting `id` and `depth` (1 the parent, 2 its parent, …) of every organisation
 * above the one whose id is the parameter `param` ("$1"), never that one itself.
 */
export function superiorsSql(param: string): string {
  return `WITH RECURSIVE up (id, depth) AS (
            SELECT parent_id, 1 FROM org WHERE id = ${param} AND parent_id IS NOT NULL
            UNION ALL SELECT o.parent_id, up.depth + 1 FROM org o JOIN up ON o.id = up.id WHERE o.parent_id IS NOT NULL AND up.depth < 16)
          SELECT id, depth FROM up`;
}
