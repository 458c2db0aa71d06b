/**
 * The layers of README "Architecture" hold (tests/support/layers.ts): code both sides
 * run is src/shared/ (no React, DOM or Node), the server imports nothing else of src/,
 * the client nothing of server/, mock/ nothing of server/, domain code no route or
 * plugin, and neither the server's modules nor the shared ones import each other in a
 * circle. Scenarios:
 * - the repository breaks no rule and has no cycle (a failure names file:line -> import);
 * - the checker catches each rule on small made-up graphs, and names a cycle's path;
 * - the scanner reads every import form (type-only, export-from, dynamic, require) and
 *   resolves umi's `@/` alias.
 */
import path from 'node:path';
import { COMPOSITION_ROOTS, cycleViolations, importCycles, layerViolations, scanRepo, scanSource, type Edge, type Graph } from '../support/layers';

const root = path.resolve(__dirname, '../..');

/** A made-up graph: file → its targets (a package when not a path with a slash and an extension). */
function graphOf(files: Record<string, Array<string | Partial<Edge>>>, globals: Record<string, string[]> = {}): Graph {
  const g: Graph = new Map();
  for (const [file, targets] of Object.entries(files)) {
    const edges = targets.map((t, i): Edge => {
      const e = typeof t === 'string' ? { spec: t, target: /\.(ts|tsx|json)$/.test(t) ? t : undefined } : t;
      return { spec: e.spec ?? e.target ?? '', target: e.target, line: i + 1, typeOnly: e.typeOnly ?? false };
    });
    g.set(file, { edges, globals: (globals[file] ?? []).map((name) => ({ name, line: 1 })) });
  }
  return g;
}

describe('the repository', () => {
  const graph = scanRepo(root);

  it('scans the client, the shared code, the server and mock/', () => {
    for (const file of ['src/app.tsx', 'src/shared/schema/model.ts', 'server/app.ts', 'server/exam/domain.ts', 'mock/exams.ts']) expect(graph.has(file)).toBe(true);
    // The server reaches the shared code (so the resolution works).
    expect(graph.get('server/lib/tableResource.ts')!.edges.some((e) => e.target === 'src/shared/schema/model.ts')).toBe(true);
  });

  it('breaks no layer rule', () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('has no import cycle among server, shared or client modules, type imports included', () => {
    expect(cycleViolations(graph)).toEqual([]);
  });
});

describe('the checker', () => {
  it('refuses React, UI, Node and DOM in shared code, and shared code importing outside shared and the declared data', () => {
    const g = graphOf(
      {
        'src/shared/a.ts': ['react', 'antd/es/button', 'node:fs', 'path', 'src/schema/SchemaForm.tsx', 'config/routes.json', 'locales/index.ts', 'src/shared/b.ts', 'dayjs'],
        'src/shared/b.ts': [],
        'src/shared/c.tsx': [],
        'locales/index.ts': ['fs'],
      },
      { 'src/shared/b.ts': ['window', 'process'] },
    );
    expect(layerViolations(g)).toEqual([
      'src/shared/a.ts:1 -> react (shared code imports no React, UI kit or DOM library)',
      'src/shared/a.ts:2 -> antd/es/button (shared code imports no React, UI kit or DOM library)',
      'src/shared/a.ts:3 -> node:fs (shared code uses no Node API)',
      'src/shared/a.ts:4 -> path (shared code uses no Node API)',
      'src/shared/a.ts:5 -> src/schema/SchemaForm.tsx (shared code imports only src/shared/, config/, locales/, schemas/; this is src/schema/SchemaForm.tsx)',
      'src/shared/b.ts:1 uses window (shared code touches no DOM or Node global)',
      'src/shared/b.ts:1 uses process (shared code touches no DOM or Node global)',
      'src/shared/c.tsx (shared code has no JSX: it renders nothing)',
      'locales/index.ts:1 -> fs (shared code uses no Node API)',
    ]);
  });

  it('refuses the server importing client code, the client or mock/ importing the server, and domain code importing a route or plugin', () => {
    const g = graphOf({
      'server/report/engine.ts': ['src/schema/model.ts', 'src/shared/schema/model.ts', 'server/routes/exam.ts', { target: 'server/plugins/audit.ts', typeOnly: true }, 'server/exam/domain.ts'],
      'server/routes/report.ts': ['server/plugins/auth.ts', 'server/report/engine.ts'],
      'src/pages/x.tsx': ['server/lib/png.ts', 'src/shared/format.ts'],
      'mock/images.ts': ['server/lib/png.ts'],
      [[...COMPOSITION_ROOTS][0]]: ['server/plugins/auth.ts', 'server/routes/services.ts'],
    });
    expect(layerViolations(g)).toEqual([
      'server/report/engine.ts:1 -> src/schema/model.ts (the server imports nothing of src/ but src/shared/)',
      'server/report/engine.ts:3 -> server/routes/exam.ts (domain code imports no route or plugin; move what it needs out of server/routes/exam.ts)',
      // A type import is an import too: the domain would still depend on the plugin's module.
      'server/report/engine.ts:4 -> server/plugins/audit.ts (domain code imports no route or plugin; move what it needs out of server/plugins/audit.ts)',
      'src/pages/x.tsx:1 -> server/lib/png.ts (the client imports nothing of server/)',
      'mock/images.ts:1 -> server/lib/png.ts (mock/ imports nothing of server/)',
    ]);
  });

  it('names the path of each cycle, type-only imports included, in every layer', () => {
    const g = graphOf({
      'server/a.ts': ['server/b.ts'],
      'server/b.ts': ['server/c.ts', 'server/d.ts'],
      'server/c.ts': ['server/a.ts'],
      'server/d.ts': [{ target: 'server/b.ts', typeOnly: true }],
      'server/e.ts': ['server/e.ts'],
      // A cycle closed by a type import alone.
      'server/f.ts': ['server/g.ts'],
      'server/g.ts': [{ target: 'server/f.ts', typeOnly: true }],
      'src/shared/x.ts': ['src/shared/y.ts'],
      'src/shared/y.ts': ['src/shared/x.ts'],
      'src/p.ts': ['src/q.ts'],
      'src/q.ts': ['src/p.ts'],
    });
    // d joins a's component through its type import; the path shown stays a shortest one through its first file.
    expect(cycleViolations(g).sort()).toEqual([
      'import cycle: server/a.ts -> server/b.ts -> server/c.ts -> server/a.ts',
      'import cycle: server/e.ts -> server/e.ts',
      'import cycle: server/f.ts -> server/g.ts -> server/f.ts',
      'import cycle: src/p.ts -> src/q.ts -> src/p.ts',
      'import cycle: src/shared/x.ts -> src/shared/y.ts -> src/shared/x.ts',
    ]);
    // Runtime imports alone (importCycles' default): the type-closed cycle is not one.
    expect(importCycles(g, (f) => f.startsWith('server/')).map((c) => c[0])).toEqual(['server/a.ts', 'server/e.ts']);
  });
});

describe('the scanner', () => {
  it('reads every import form and resolves relative paths and the @/ alias', () => {
    const files = new Set(['src/shared/format.ts', 'src/shared/schema/types.ts', 'src/session/access.ts', 'config/routes.json', 'src/schema/index.ts']);
    const text = [
      "import { formatTime } from '@/shared/format';",
      "import type { View } from '../shared/schema/types';",
      "import { type PermissionMap } from './access';",
      "import routes from '../../config/routes.json';",
      "export { can } from './access';",
      "export type { View as V } from '../shared/schema/types';",
      "const lazy = () => import('../schema');",
      "const fs = require('node:fs');",
      "type T = import('react').FC;",
      "const w = window.innerWidth; const o = { window: 1 }; o.window;",
    ].join('\n');
    const facts = scanSource('src/session/x.ts', text, (f) => files.has(f));
    expect(facts.edges.map((e) => [e.line, e.spec, e.target, e.typeOnly])).toEqual([
      [1, '@/shared/format', 'src/shared/format.ts', false],
      [2, '../shared/schema/types', 'src/shared/schema/types.ts', true],
      [3, './access', 'src/session/access.ts', true],
      [4, '../../config/routes.json', 'config/routes.json', false],
      [5, './access', 'src/session/access.ts', false],
      [6, '../shared/schema/types', 'src/shared/schema/types.ts', true],
      [7, '../schema', 'src/schema/index.ts', false],
      [8, 'node:fs', undefined, false],
      [9, 'react', undefined, true],
    ]);
    // window read as a global once; the property names are not globals.
    expect(facts.globals).toEqual([{ name: 'window', line: 10 }]);
  });
});
