/**
 * A view's filter tree (view list.tree), pure: the nodes a call answers ({name,
 * children}) as tree data under one "all" root, down to the view's levels, and the
 * list filters a chosen node stands for (its name and its ancestors' on their levels).
 */
import type { TreeSpec } from '../shared/schema/types';

export interface TreeNodeIn {
  name?: unknown;
  children?: TreeNodeIn[];
}

export interface FilterTreeNode {
  /** The names from the top down to this node, as JSON ("" for the root). */
  key: string;
  title: string;
  children?: FilterTreeNode[];
}

/** The root's key: no filter. */
export const TREE_ROOT = '';

function nodesAt(nodes: TreeNodeIn[] | undefined, path: string[], depth: number): FilterTreeNode[] | undefined {
  if (depth <= 0 || !nodes?.length) return undefined;
  return nodes
    .filter((n) => typeof n.name === 'string' && n.name !== '')
    .map((n) => {
      const names = [...path, n.name as string];
      const children = nodesAt(n.children, names, depth - 1);
      return { key: JSON.stringify(names), title: n.name as string, ...(children?.length ? { children } : {}) };
    });
}

/** The tree shown: the root (`allText`) over the answered nodes, as deep as the view has levels (deeper nodes, e.g. the templates themselves, are left out). */
export function filterTreeData(spec: TreeSpec, nodes: TreeNodeIn[] | undefined, allText: string): FilterTreeNode[] {
  const children = nodesAt(nodes, [], spec.levels.length);
  return [{ key: TREE_ROOT, title: allText, ...(children?.length ? { children } : {}) }];
}

/** The names from the top down to the node with this key ([] for the root or a broken key). */
export function nodeNames(key: string | undefined): string[] {
  if (!key) return [];
  let names: unknown;
  try {
    names = JSON.parse(key);
  } catch {
    return [];
  }
  return Array.isArray(names) && names.every((n) => typeof n === 'string') ? (names as string[]) : [];
}

/** The filters of the node with this key ({} for the root or an unknown key). */
export function treeFilters(spec: TreeSpec, key: string | undefined): Record<string, string> {
  const names = nodeNames(key);
  return Object.fromEntries(spec.levels.slice(0, names.length).map((field, i) => [field, names[i]]));
}

/** The body renaming the node with this key: the tree call's query, the node's filters, and the new name. */
export function renameBody(spec: TreeSpec, key: string, name: string): Record<string, unknown> {
  return { ...spec.call.query, ...treeFilters(spec, key), name };
}
