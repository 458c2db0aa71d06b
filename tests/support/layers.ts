/**
 * The layer rules of README "Architecture", as a checker the unit test runs over the
 * real code (tests/unit/layers.test.ts) and over small made-up graphs (to show it
 * fails). Imports are read with the TypeScript parser: import and export … from, type
 * imports, import('…') and require('…'); relative paths and umi's `@/` alias resolve to
 * repository files, anything else is a package.
 *
 * The layers:
 * - shared (src/shared/**): code both sides run. No React, antd, umi, no DOM and no
 *   Node APIs; imports only shared code and the declared data both sides read
 *   (config/, locales/, schemas/), which obeys the same rules.
 * - client (the rest of src/): never imports server/.
 * - server (server/**): imports nothing of src/ but src/shared/.
 * - HTTP (server/routes/**, server/plugins/**, and the composition root): the rest
 *   of the server is domain code and never imports it.
 * - mock/ (demo generators the seed runs): never imports server/.
 * - no import cycle among server modules, shared ones or the client's, type imports
 *   included.
 */
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import ts from 'typescript';

export interface Edge {
  /** The specifier as written. */
  spec: string;
  /** The repository file it resolves to (posix, repo-relative); undefined for a package. */
  target?: string;
  line: number;
  /** `import type`, `export type`, or every named binding type-only: no runtime edge. */
  typeOnly: boolean;
}

export interface FileFacts {
  edges: Edge[];
  /** DOM and Node globals the file uses (window, document, process, Buffer…), with lines. */
  globals: Array<{ name: string; line: number }>;
}

/** file (repo-relative, posix) → what it imports and which host globals it touches. */
export type Graph = Map<string, FileFacts>;

/** Directories whose .ts/.tsx files the rules judge. */
export const SCANNED = ['src', 'server', 'mock', 'config', 'locales'];

/**
 * The one server file allowed to import routes and plugins: it builds the app from
 * them (server/main.ts and server/start.ts reach them only through it).
 */
export const COMPOSITION_ROOTS = new Set(['server/app.ts']);

/** Declared data both sides read: shared code may import it. */
const DATA_ROOTS = ['config/', 'locales/', 'schemas/'];

const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
/** Packages that tie code to React, the DOM or the UI kit. */
const UI_PACKAGES = [/^react($|\/|-dom)/, /^antd($|\/)/, /^@ant-design\//, /^umi($|\/)/, /^@umijs\//, /^@formily\/(react|antd)/, /^ahooks$/, /^@cornerstonejs\//];
const HOST_GLOBALS = new Set(['window', 'document', 'navigator', 'localStorage', 'sessionStorage', 'location', 'process', 'Buffer', '__dirname', '__filename', 'require']);

const isShared = (f: string) => f.startsWith('src/shared/');
const isData = (f: string) => DATA_ROOTS.some((r) => f.startsWith(r));
const isClient = (f: string) => f.startsWith('src/') && !isShared(f);
const isServer = (f: string) => f.startsWith('server/');
const isHttp = (f: string) => f.startsWith('server/routes/') || f.startsWith('server/plugins/');
const isDomain = (f: string) => isServer(f) && !isHttp(f) && !COMPOSITION_ROOTS.has(f);

const RESOLVE_SUFFIXES = ['', '.ts', '.tsx', '.d.ts', '.js', '.mjs', '.json', '/index.ts', '/index.tsx'];

/** Resolves a relative or `@/` specifier to a repository file (`exists` says which are files); undefined for a package. */
export function resolveSpec(from: string, spec: string, exists: (file: string) => boolean): string | undefined {
  let base: string;
  if (spec.startsWith('@/')) base = path.posix.join('src', spec.slice(2));
  else if (spec.startsWith('@@/')) base = path.posix.join('src/.umi', spec.slice(3));
  else if (spec.startsWith('./') || spec.startsWith('../')) base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  else return undefined;
  for (const suffix of RESOLVE_SUFFIXES) if (exists(base + suffix)) return base + suffix;
  // Not found: still name where it points, so a rule can judge the place.
  return base;
}

const lineOf = (sf: ts.SourceFile, pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;

/** The imports and host globals of one source text. */
export function scanSource(file: string, text: string, exists: (file: string) => boolean): FileFacts {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const edges: Edge[] = [];
  const globals: FileFacts['globals'] = [];
  const add = (lit: ts.Node, typeOnly: boolean) => {
    if (!ts.isStringLiteralLike(lit)) return;
    edges.push({ spec: lit.text, target: resolveSpec(file, lit.text, exists), line: lineOf(sf, lit.getStart(sf)), typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allTypeElements = !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier, !!clause && (clause.isTypeOnly || (!clause.name && allTypeElements)));
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const clause = node.exportClause;
      const allTypeElements = !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier, node.isTypeOnly || allTypeElements);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    } else if (ts.isIdentifier(node) && HOST_GLOBALS.has(node.text) && usedAsGlobal(node)) {
      globals.push({ name: node.text, line: lineOf(sf, node.getStart(sf)) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { edges, globals };
}

/** An identifier that reads a global: not a property name, a declared name or a `require(…)` call's callee (counted as an import). */
function usedAsGlobal(node: ts.Identifier): boolean {
  const parent = node.parent;
  if ((ts.isPropertyAccessExpression(parent) || ts.isQualifiedName(parent)) && parent.name === node) return false;
  if (ts.isCallExpression(parent) && parent.expression === node && node.text === 'require') return false;
  const named = parent as ts.Node & { name?: ts.Node };
  if (named.name === node && !ts.isShorthandPropertyAssignment(parent)) return false;
  return true;
}

/** Every .ts/.tsx file under the scanned directories of `root`, parsed. */
export function scanRepo(root: string): Graph {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        // umi's generated directories are the framework's, not ours.
        if (entry.name === 'node_modules' || entry.name.startsWith('.umi')) continue;
        walk(rel);
      } else if (/\.tsx?$/.test(entry.name)) files.push(rel);
    }
  };
  for (const dir of SCANNED) if (fs.existsSync(path.join(root, dir))) walk(dir);
  const existsCache = new Map<string, boolean>();
  const exists = (file: string) => {
    let hit = existsCache.get(file);
    if (hit === undefined) {
      const full = path.join(root, file);
      hit = fs.existsSync(full) && fs.statSync(full).isFile();
      existsCache.set(file, hit);
    }
    return hit;
  };
  const graph: Graph = new Map();
  for (const file of files) graph.set(file, scanSource(file, fs.readFileSync(path.join(root, file), 'utf8'), exists));
  return graph;
}

const packageName = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

/** One line per broken layer rule: `file:line -> import (why)`. */
export function layerViolations(graph: Graph): string[] {
  const out: string[] = [];
  for (const [file, { edges, globals }] of graph) {
    const pure = isShared(file) || isData(file);
    if (pure && file.endsWith('.tsx')) out.push(`${file} (shared code has no JSX: it renders nothing)`);
    for (const e of edges) {
      const at = `${file}:${e.line} -> ${e.spec}`;
      if (pure) {
        if (!e.target) {
          if (NODE_BUILTINS.has(e.spec) || NODE_BUILTINS.has(packageName(e.spec))) out.push(`${at} (shared code uses no Node API)`);
          else if (UI_PACKAGES.some((p) => p.test(e.spec))) out.push(`${at} (shared code imports no React, UI kit or DOM library)`);
        } else if (!isShared(e.target) && !isData(e.target)) out.push(`${at} (shared code imports only src/shared/, config/, locales/, schemas/; this is ${e.target})`);
      }
      if (!e.target) continue;
      if (isServer(file) && isClient(e.target)) out.push(`${at} (the server imports nothing of src/ but src/shared/)`);
      if (isClient(file) && isServer(e.target)) out.push(`${at} (the client imports nothing of server/)`);
      if (file.startsWith('mock/') && isServer(e.target)) out.push(`${at} (mock/ imports nothing of server/)`);
      if (isDomain(file) && isHttp(e.target)) out.push(`${at} (domain code imports no route or plugin; move what it needs out of ${e.target})`);
    }
    if (pure) for (const g of globals) out.push(`${file}:${g.line} uses ${g.name} (shared code touches no DOM or Node global)`);
  }
  return out;
}

/**
 * Import cycles among the files `inScope` picks, each as a path that returns to its
 * start (a -> b -> a), one per strongly connected component (the shortest through its
 * first file). Type-only imports are left out unless `types` is set: they are erased
 * when compiled, so they cannot make a module run before what it needs is loaded.
 */
export function importCycles(graph: Graph, inScope: (file: string) => boolean, types = false): string[][] {
  const nodes = [...graph.keys()].filter(inScope).sort();
  const targets = (n: string) => graph.get(n)!.edges.filter((e) => types || !e.typeOnly).map((e) => e.target);
  const next = new Map(nodes.map((n) => [n, [...new Set(targets(n).filter((t): t is string => !!t && graph.has(t) && inScope(t)))].sort()]));
  // Tarjan's strongly connected components.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1 || next.get(v)!.includes(v)) components.push(c.sort());
    }
  };
  for (const n of nodes) if (!idx.has(n)) strong(n);
  // A shortest cycle through each component's first file (breadth-first within the component).
  return components.map((c) => {
    const members = new Set(c);
    const start = c[0];
    const prev = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
      const v = queue.shift()!;
      for (const w of next.get(v)!) {
        if (!members.has(w)) continue;
        if (w === start) {
          const back = [];
          for (let u = v; u !== start; u = prev.get(u)!) back.push(u);
          return [start, ...back.reverse(), start];
        }
        if (!prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    return [...c, c[0]];
  });
}

/**
 * The cycle rules of README "Architecture": among server modules, shared ones and the
 * client's, type imports counted. A type-only cycle cannot break loading, but it is
 * the same tangle: two modules that can only be understood together.
 */
export function cycleViolations(graph: Graph): string[] {
  return [isServer, isShared, isClient].flatMap((layer) => importCycles(graph, layer, true)).map((c) => `import cycle: ${c.join(' -> ')}`);
}
