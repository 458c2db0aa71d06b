/**
 * Locale completeness:
 * - every key written as a literal in src/, server/ or config/ exists in zh-CN and en-US
 * - every catalogue code and every route name has its text
 * - zh-CN, en-US and ru-RU have the same keys (all complete); es-ES is a subset (partial)
 * - placeholders ({{name}}) agree across languages
 * - language matching: cookie before Accept-Language, primary subtags, zh-CN default
 */
import fs from 'node:fs';
import path from 'node:path';
import { fallbackChain, matchLanguage, resources, translate } from '../../locales';
import { allErrorCodes, errorTextKey } from '../../server/lib/errors';
import { requestLanguage } from '../../server/lib/language';
import { allRoutes, buildMenuTree, type MenuNode } from '../../src/routes/table';
import { menuKey } from '../../src/i18n/detect';

const root = path.resolve(__dirname, '..', '..');
const namespaces = fs.readdirSync(path.join(root, 'locales', 'zh-CN')).map((f) => f.replace(/\.json$/, ''));
const keyPattern = new RegExp(`^(${namespaces.join('|')})\\.[A-Za-z0-9_][\\w.-]*$`);

function files(dir: string, exts: string[]): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.umi') || e.name === 'node_modules') continue;
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (exts.some((x) => e.name.endsWith(x))) out.push(full);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

/** Every string literal in code, and every string value in config, that has the shape of a locale key. */
function usedKeys(): Map<string, string> {
  const used = new Map<string, string>();
  for (const file of [...files(path.join(root, 'src'), ['.ts', '.tsx']), ...files(path.join(root, 'server'), ['.ts'])]) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/['"`]([A-Za-z][\w.-]*)['"`]/g)) {
      if (keyPattern.test(m[1])) used.set(m[1], path.relative(root, file));
    }
  }
  for (const file of files(path.join(root, 'config'), ['.json'])) {
    const visit = (v: unknown) => {
      if (typeof v === 'string' && keyPattern.test(v)) used.set(v, path.relative(root, file));
      else if (Array.isArray(v)) v.forEach(visit);
      else if (v && typeof v === 'object') Object.values(v).forEach(visit);
    };
    visit(JSON.parse(fs.readFileSync(file, 'utf8')));
  }
  for (const code of allErrorCodes()) used.set(errorTextKey(code), 'config/errors.json');
  // Route and sidebar-group texts are derived from config/routes.json by the client.
  const visitMenu = (nodes: MenuNode[]) => {
    for (const n of nodes) {
      used.set(menuKey(n.name), 'config/routes.json');
      if (n.children) visitMenu(n.children);
    }
  };
  visitMenu(buildMenuTree());
  for (const r of allRoutes()) used.set(menuKey(r.name), 'config/routes.json');
  return used;
}

const placeholders = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

describe('locales', () => {
  const used = usedKeys();

  test('finds the keys the code uses (sanity: the scan is not empty)', () => {
    expect(used.size).toBeGreaterThan(50);
    expect(used.has('error.UAA008')).toBe(true);
  });

  test.each(['zh-CN', 'en-US'])('every used key exists in %s', (lang) => {
    const missing = [...used].filter(([k]) => resources[lang][k] === undefined).map(([k, where]) => `${k} (${where})`);
    expect(missing).toEqual([]);
  });

  test.each(['en-US', 'ru-RU'])('%s has exactly the keys of zh-CN', (lang) => {
    const zh = Object.keys(resources['zh-CN']).sort();
    expect(Object.keys(resources[lang]).sort()).toEqual(zh);
  });

  test('es-ES is partial: only keys zh-CN has, and missing ones fall back to en-US', () => {
    const extra = Object.keys(resources['es-ES']).filter((k) => resources['zh-CN'][k] === undefined);
    expect(extra).toEqual([]);
    const missing = Object.keys(resources['en-US']).find((k) => resources['es-ES'][k] === undefined);
    if (missing) expect(translate('es-ES', missing)).toBe(resources['en-US'][missing]);
    expect(fallbackChain('es-ES')[1]).toBe('en-US');
  });

  test('placeholders agree across languages', () => {
    const wrong: string[] = [];
    for (const lang of Object.keys(resources)) {
      for (const [k, text] of Object.entries(resources[lang])) {
        const zh = resources['zh-CN'][k];
        if (zh !== undefined && placeholders(zh).join() !== placeholders(text).join()) wrong.push(`${lang} ${k}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('translate interpolates and returns the key when unknown', () => {
    expect(translate('en-US', 'validation.required', { field: 'mobile' })).toContain('mobile');
    expect(translate('zh-CN', 'no.such.key')).toBe('no.such.key');
  });
});

describe('language selection', () => {
  test('cookie wins, then Accept-Language by quality order, then zh-CN', () => {
    expect(requestLanguage('lang=en-US', 'ru', 'lang')).toBe('en-US');
    expect(requestLanguage(undefined, 'ru-RU,ru;q=0.9,en;q=0.8', 'lang')).toBe('ru-RU');
    expect(requestLanguage('other=1', 'en-GB', 'lang')).toBe('en-US');
    expect(requestLanguage('lang=xx', 'fr', 'lang')).toBe('zh-CN');
    expect(requestLanguage(undefined, undefined, 'lang')).toBe('zh-CN');
    expect(matchLanguage(['zh', 'en'])).toBe('zh-CN');
    expect(matchLanguage(['es'])).toBe('es-ES');
  });
});
