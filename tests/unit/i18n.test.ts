/**
 * Locale completeness:
 * - every key written as a literal in src/, server/ or config/ exists in zh-CN and en-US
 * - every catalogue code and every route name has its text
 * - zh-CN, en-US and ru-RU have the same keys (all complete); es-ES is a subset (partial)
 * - placeholders ({{name}}) agree across languages
 * - plural forms (i18next's `_one/_few/_many/_other` with `count`): a counted text has
 *   exactly the forms its language's plural rules name (zh-CN other; en-US one, other;
 *   ru-RU one, few, many, other), and the same texts are counted in every language;
 *   every text with {{count}} is counted; translate() picks the form as i18next does
 *   (1 год, 2 года, 5 лет, 21 год; 1 year, 2 years); valueWithUnit says an age in the
 *   language's counted form and falls back to value and unit label
 * - language matching: cookie before Accept-Language, primary subtags, zh-CN default
 */
import fs from 'node:fs';
import path from 'node:path';
import i18next from 'i18next';
import { fallbackChain, matchLanguage, PLURAL_SUFFIX, pluralCategory, resources, translate, valueWithUnit } from '../../locales';
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

/** A key without its plural suffix. */
const baseKey = (k: string) => k.replace(PLURAL_SUFFIX, '');
/** The keys of a language, plural forms counted once by their base key. */
const baseKeys = (lang: string) => [...new Set(Object.keys(resources[lang]).map(baseKey))].sort();
/** Does the language have the text, as a plain or a counted key? */
const hasText = (lang: string, k: string) => resources[lang][k] !== undefined || resources[lang][`${k}_other`] !== undefined;

const placeholders = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

describe('locales', () => {
  const used = usedKeys();

  test('finds the keys the code uses (sanity: the scan is not empty)', () => {
    expect(used.size).toBeGreaterThan(50);
    expect(used.has('error.UAA008')).toBe(true);
  });

  test.each(['zh-CN', 'en-US'])('every used key exists in %s', (lang) => {
    const missing = [...used].filter(([k]) => !hasText(lang, k)).map(([k, where]) => `${k} (${where})`);
    expect(missing).toEqual([]);
  });

  test.each(['en-US', 'ru-RU'])('%s has exactly the keys of zh-CN (a counted text once)', (lang) => {
    expect(baseKeys(lang)).toEqual(baseKeys('zh-CN'));
  });

  test('es-ES is partial: only keys zh-CN has, and missing ones fall back to en-US', () => {
    const extra = Object.keys(resources['es-ES']).filter((k) => !hasText('zh-CN', baseKey(k)));
    expect(extra).toEqual([]);
    const missing = Object.keys(resources['en-US']).find((k) => resources['es-ES'][k] === undefined);
    if (missing) expect(translate('es-ES', missing)).toBe(resources['en-US'][missing]);
    expect(fallbackChain('es-ES')[1]).toBe('en-US');
  });

  test('placeholders agree across languages', () => {
    const wrong: string[] = [];
    for (const lang of Object.keys(resources)) {
      for (const [k, text] of Object.entries(resources[lang])) {
        const zh = resources['zh-CN'][k] ?? resources['zh-CN'][`${baseKey(k)}_other`];
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

describe('plural forms', () => {
  const categories = (lang: string) => new Intl.PluralRules(lang).resolvedOptions().pluralCategories.slice().sort();
  /** Base keys of the counted texts of a language, with the forms it has. */
  const counted = (lang: string) => {
    const out = new Map<string, string[]>();
    for (const k of Object.keys(resources[lang])) {
      const m = PLURAL_SUFFIX.exec(k);
      if (m) out.set(baseKey(k), [...(out.get(baseKey(k)) ?? []), m[1]].sort());
    }
    return out;
  };

  test.each(['zh-CN', 'en-US', 'ru-RU'])('%s: every counted text has exactly the forms of its plural rules, and no plain key beside them', (lang) => {
    const wrong = [...counted(lang)].filter(([k, forms]) => forms.join() !== categories(lang).join() || resources[lang][k] !== undefined);
    expect(wrong).toEqual([]);
    expect(categories('ru-RU')).toEqual(['few', 'many', 'one', 'other']);
  });

  test('es-ES (partial): a counted text has forms of its rules only, one and other at least', () => {
    for (const [, forms] of counted('es-ES')) {
      expect(forms.filter((f) => !categories('es-ES').includes(f))).toEqual([]);
      expect(forms).toEqual(expect.arrayContaining(['one', 'other']));
    }
  });

  test('the same texts are counted in every language, and every text with {{count}} is counted', () => {
    const zh = [...counted('zh-CN').keys()].sort();
    expect(zh.length).toBeGreaterThan(10);
    for (const lang of ['en-US', 'ru-RU']) expect([...counted(lang).keys()].sort()).toEqual(zh);
    for (const lang of Object.keys(resources)) {
      const plain = Object.entries(resources[lang]).filter(([k, text]) => text.includes('{{count}}') && !PLURAL_SUFFIX.test(k));
      expect(plain).toEqual([]);
    }
  });

  test('translate picks the form as i18next does: 1 год, 2 года, 5 лет, 21 год; 1 year, 2 years', () => {
    const age = (lang: string, n: number) => translate(lang, 'entity.value.count.ageUnit.4', { count: n });
    expect([1, 2, 5, 11, 21, 22, 78].map((n) => age('ru-RU', n))).toEqual(['1 год', '2 года', '5 лет', '11 лет', '21 год', '22 года', '78 лет']);
    expect([1, 2].map((n) => age('en-US', n))).toEqual(['1 year', '2 years']);
    expect(age('zh-CN', 78)).toBe('78岁');
    expect(age('es-ES', 1)).toBe('1 año');
    // es-ES's "many" (a million) has no form of its own: the other form.
    expect(pluralCategory('es-ES', 1_000_000)).toBe('many');
    expect(age('es-ES', 1_000_000)).toBe('1000000 años');
    // i18next, which the client uses, reads the same keys the same way.
    const i18n = i18next.createInstance();
    void i18n.init({
      resources: Object.fromEntries(Object.entries(resources).map(([lang, dict]) => [lang, { translation: dict }])),
      lng: 'ru-RU',
      keySeparator: false,
      nsSeparator: false,
      interpolation: { escapeValue: false },
      initAsync: false,
    });
    for (const n of [1, 2, 5, 21, 78]) expect(i18n.t('entity.value.count.ageUnit.4', { count: n })).toBe(age('ru-RU', n));
    expect(i18n.t('entity.viewer.images', { count: 3 })).toBe(translate('ru-RU', 'entity.viewer.images', { count: 3 }));
  });

  test('valueWithUnit: the counted form, else value and unit label', () => {
    const ru = (key: string, params?: Record<string, unknown>) => translate('ru-RU', key, params);
    expect(valueWithUnit(ru, 'ageUnit', 4, 78)).toBe('78 лет');
    expect(valueWithUnit(ru, 'ageUnit', 3, '2')).toBe('2 месяца');
    expect(valueWithUnit((k, p) => translate('en-US', k, p), 'ageUnit', 1, 1)).toBe('1 day');
    // A unit with no counted text: value and the unit's label; no unit: the value alone.
    expect(valueWithUnit(ru, 'sex', 1, 5)).toBe(`5 ${translate('ru-RU', 'code.sex.1')}`);
    expect(valueWithUnit(ru, 'ageUnit', undefined, 5).trim()).toBe('5');
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
