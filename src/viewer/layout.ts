/**
 * Viewport grids: 1x1 up to 4x4 (issue #7), the grid a comparison of n studies opens
 * in, and the viewport ids of a grid. Pure.
 */

export interface Grid {
  rows: number;
  columns: number;
}

export const GRID_MAX = 4;

export function clampGrid(g: Grid): Grid {
  const clamp = (n: number) => Math.min(GRID_MAX, Math.max(1, Math.round(n)));
  return { rows: clamp(g.rows), columns: clamp(g.columns) };
}

/** The grid n viewports open in (n up to 16): side by side up to 3, then rows of at most 4, wider than tall. */
export function gridFor(n: number): Grid {
  const count = Math.min(GRID_MAX * GRID_MAX, Math.max(1, Math.round(n)));
  const rows = count <= 3 ? 1 : count <= 8 ? 2 : count <= 12 ? 3 : 4;
  return clampGrid({ rows, columns: Math.ceil(count / rows) });
}

export function cellCount(g: Grid): number {
  return g.rows * g.columns;
}

export function gridText(g: Grid): string {
  return `${g.rows}x${g.columns}`;
}

/** Viewport ids are positions in the grid, so a series stays in its cell when the grid grows. */
export function viewportId(index: number): string {
  return `vp-${index}`;
}
