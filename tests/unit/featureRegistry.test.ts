/**
 * Open registries: features plug their dialogs, form asides and controls into the
 * schema engine through manifests (src/features), and the engine names no feature.
 * Scenarios:
 * - no module under src/schema imports (statically, dynamically or by require) code
 *   outside the engine's own folder and the shared infrastructure it may use
 * - once the app's features are registered, every dialog and aside a view names resolves
 * - a feature, a dialog, an aside or a control registered twice throws, naming it;
 *   a fresh control registered by a feature resolves in forms
 */
import fs from 'node:fs';
import path from 'node:path';


import { features } from '@/features';
import { dialogNames } from '@/schema/dialogs';
import { registerFeatures } from '@/schema/features';
import { formAsideNames } from '@/schema/formAsides';
import { hasComponent } from '@/schema/registry';
import { views } from '@/shared/schema/views';

const ROOT = path.resolve(__dirname, '../..');
const ENGINE = path.join(ROOT, 'src/schema');
/** What the engine may import besides itself and packages: infrastructure and declared data, no feature. */
const ALLOWED = ['src/schema', 'src/shared', 'src/services', 'src/session', 'src/utils', 'src/i18n', 'src/types', 'src/routes', 'config', 'locales', 'schemas'];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** Every module specifier of a source: import … from, export … from, import(), require(), bare import. */
export function specifiers(code: string): string[] {
  const out: string[] = [];
  const patterns = [/\bfrom\s+['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /^\s*import\s+['"]([^'"]+)['"]/gm];
  for (const re of patterns) for (const m of code.matchAll(re)) out.push(m[1]);
  return out;
}

describe('the engine imports no feature', () => {
  test('the import parser sees every kind of import', () => {
    const code = "import a from './a';\nexport { b } from '../b';\nimport './c';\nconst d = () => import('../viewer/D');\nconst e = require('@/report/E');";
    expect(specifiers(code).sort()).toEqual(['../b', '../viewer/D', './a', './c', '@/report/E'].sort());
  });

  test.each(sources(ENGINE).map((f) => [path.relative(ROOT, f), f]))('%s', (_rel, file) => {
    const outside = specifiers(fs.readFileSync(file, 'utf8'))
      .filter((s) => s.startsWith('.') || s.startsWith('@/'))
      .map((s) => path.relative(ROOT, s.startsWith('@/') ? path.join(ROOT, 'src', s.slice(2)) : path.resolve(path.dirname(file), s)))
      .filter((target) => !ALLOWED.some((dir) => target === dir || target.startsWith(`${dir}/`)));
    expect(outside).toEqual([]);
  });
});

describe('features register through their manifests', () => {
  test('every dialog and form aside a view names is registered by some feature', () => {
    const dialogs = new Set(dialogNames());
    const asides = new Set(formAsideNames());
    for (const view of Object.values(views)) {
      for (const a of [...(view.rowActions ?? []), ...(view.toolbarActions ?? [])]) if (a.dialog) expect(dialogs).toContain(a.dialog.component);
      if (view.form?.aside) expect(asides).toContain(view.form.aside.component);
    }
    // What the manifests declare is what the registries hold.
    expect([...dialogs].sort()).toEqual(features.flatMap((f) => Object.keys(f.dialogs ?? {})).sort());
    expect([...asides].sort()).toEqual(features.flatMap((f) => Object.keys(f.formAsides ?? {})).sort());
  });

  test('a name registered twice throws', () => {
    const stub = async () => ({ default: () => null });
    expect(() => registerFeatures([features[0]])).toThrow(`feature ${features[0].name} registered twice`);
    expect(() => registerFeatures([{ name: 'dup1', dialogs: { DicomUpload: stub } }])).toThrow('dialog DicomUpload registered twice');
    expect(() => registerFeatures([{ name: 'dup2', formAsides: { PrintLayoutPreview: stub } }])).toThrow('form aside PrintLayoutPreview registered twice');
    expect(() => registerFeatures([{ name: 'dup3', controls: { Input: () => null } }])).toThrow('schema component "Input" is registered twice');
  });

  test("a feature's control resolves in forms once registered, and only once", () => {
    const Gauge = () => null;
    expect(hasComponent('TestGauge')).toBe(false);
    registerFeatures([{ name: 'gauge', controls: { TestGauge: Gauge } }]);
    expect(hasComponent('TestGauge')).toBe(true);
    expect(() => registerFeatures([{ name: 'gauge2', controls: { TestGauge: Gauge } }])).toThrow('"TestGauge" is registered twice');
  });
});
