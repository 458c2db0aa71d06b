/**
 * The one registry of translated texts, read by both the server and the client.
 *
 * Layout: locales/<language>/<namespace>.json holds keys without their namespace;
 * the full key is `<namespace>.<key>` (e.g. error.json's "UAA008" is `error.UAA008`).
 * A namespace per feature keeps files small and lets features be translated apart.
 * Adding a namespace means adding one import line per language below.
 */
import app from '../config/app.json';

import zhAuth from './zh-CN/auth.json';
import zhCode from './zh-CN/code.json';
import zhCommon from './zh-CN/common.json';
import zhDictionary from './zh-CN/dictionary.json';
import zhEntity from './zh-CN/entity.json';
import zhError from './zh-CN/error.json';
import zhMenu from './zh-CN/menu.json';
import zhPermission from './zh-CN/permission.json';
import zhSms from './zh-CN/sms.json';
import zhStats from './zh-CN/stats.json';
import zhValidation from './zh-CN/validation.json';
import enAuth from './en-US/auth.json';
import enCode from './en-US/code.json';
import enCommon from './en-US/common.json';
import enDictionary from './en-US/dictionary.json';
import enEntity from './en-US/entity.json';
import enError from './en-US/error.json';
import enMenu from './en-US/menu.json';
import enPermission from './en-US/permission.json';
import enSms from './en-US/sms.json';
import enStats from './en-US/stats.json';
import enValidation from './en-US/validation.json';
import ruAuth from './ru-RU/auth.json';
import ruCode from './ru-RU/code.json';
import ruCommon from './ru-RU/common.json';
import ruDictionary from './ru-RU/dictionary.json';
import ruEntity from './ru-RU/entity.json';
import ruError from './ru-RU/error.json';
import ruMenu from './ru-RU/menu.json';
import ruPermission from './ru-RU/permission.json';
import ruSms from './ru-RU/sms.json';
import ruStats from './ru-RU/stats.json';
import ruValidation from './ru-RU/validation.json';
import esAuth from './es-ES/auth.json';
import esCode from './es-ES/code.json';
import esCommon from './es-ES/common.json';
import esDictionary from './es-ES/dictionary.json';
import esEntity from './es-ES/entity.json';
import esError from './es-ES/error.json';
import esMenu from './es-ES/menu.json';
import esPermission from './es-ES/permission.json';
import esSms from './es-ES/sms.json';
import esStats from './es-ES/stats.json';
import esValidation from './es-ES/validation.json';

export type Dictionary = Record<string, string>;
export type LanguageCode = (typeof app.languages)[number]['code'];

const namespaces: Record<string, Record<string, Record<string, string>>> = {
  'zh-CN': { auth: zhAuth, code: zhCode, common: zhCommon, dictionary: zhDictionary, entity: zhEntity, error: zhError, menu: zhMenu, permission: zhPermission, sms: zhSms, stats: zhStats, validation: zhValidation },
  'en-US': { auth: enAuth, code: enCode, common: enCommon, dictionary: enDictionary, entity: enEntity, error: enError, menu: enMenu, permission: enPermission, sms: enSms, stats: enStats, validation: enValidation },
  'ru-RU': { auth: ruAuth, code: ruCode, common: ruCommon, dictionary: ruDictionary, entity: ruEntity, error: ruError, menu: ruMenu, permission: ruPermission, sms: ruSms, stats: ruStats, validation: ruValidation },
  'es-ES': { auth: esAuth, code: esCode, common: esCommon, dictionary: esDictionary, entity: esEntity, error: esError, menu: esMenu, permission: esPermission, sms: esSms, stats: esStats, validation: esValidation },
};

function flatten(byNamespace: Record<string, Record<string, string>>): Dictionary {
  const out: Dictionary = {};
  for (const [ns, entries] of Object.entries(byNamespace)) {
    for (const [key, text] of Object.entries(entries)) {
      if (key.startsWith('$')) continue; // "$comment" and similar annotations
      out[`${ns}.${key}`] = text;
    }
  }
  return out;
}

/** Flat dictionaries by language code: `resources['en-US']['error.UAA008']`. */
export const resources: Record<string, Dictionary> = Object.fromEntries(
  Object.entries(namespaces).map(([lang, byNs]) => [lang, flatten(byNs)]),
);

export const languageCodes: string[] = app.languages.map((l) => l.code);
export const defaultLanguage: string = app.defaultLanguage;

/** Languages to try, in order, for a text missing in `lang` (es-ES is partial). */
export function fallbackChain(lang: string): string[] {
  const fb = (app.fallbackLanguages as Record<string, string[]>)[lang] ?? app.fallbackLanguages.default;
  return [lang, ...fb.filter((l) => l !== lang)];
}

/**
 * Picks a supported language from a cookie value or an Accept-Language header
 * ("en", "en-GB;q=0.8", "ru"): exact match first, then by primary subtag.
 */
export function matchLanguage(candidates: Array<string | undefined | null>): string | undefined {
  for (const raw of candidates) {
    if (!raw) continue;
    for (const part of raw.split(',')) {
      const tag = part.split(';')[0].trim();
      if (!tag) continue;
      const exact = languageCodes.find((c) => c.toLowerCase() === tag.toLowerCase());
      if (exact) return exact;
      const primary = tag.split('-')[0].toLowerCase();
      const byPrimary = languageCodes.find((c) => c.split('-')[0].toLowerCase() === primary);
      if (byPrimary) return byPrimary;
    }
  }
  return undefined;
}

const pluralRules = new Map<string, Intl.PluralRules>();

/** The language's plural category of a count ("one", "few", "many", "other", …), as i18next picks it. */
export function pluralCategory(lang: string, count: number): Intl.LDMLPluralRule {
  let rules = pluralRules.get(lang);
  if (!rules) {
    rules = new Intl.PluralRules(lang);
    pluralRules.set(lang, rules);
  }
  return rules.select(count);
}

/** The plural suffixes i18next reads: `<key>_one`, `<key>_few`, … */
export const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;

/**
 * Translates with fallback and {name} interpolation; an unknown key returns itself. A
 * numeric `count` picks the plural form as i18next does: in each language of the chain
 * `<key>_<category>`, then `<key>`, then `<key>_other`.
 */
export function translate(lang: string, key: string, params?: Record<string, unknown>): string {
  let text: string | undefined;
  const count = params?.count;
  for (const l of fallbackChain(lang)) {
    const keys = typeof count === 'number' ? [`${key}_${pluralCategory(l, count)}`, key, `${key}_other`] : [key];
    text = keys.map((k) => resources[l]?.[k]).find((x) => x !== undefined);
    if (text !== undefined) break;
  }
  if (text === undefined) return key;
  if (!params) return text;
  return text.replace(/\{\{?(\w+)\}?\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/**
 * A number with its unit from a code table, as the language says it ("45岁", "1 year",
 * "78 лет"): the unit's counted text `entity.value.count.<table>.<unit>` in its plural
 * form (`_one`, `_few`, `_many`, `_other` with `count`), else the value and the unit's
 * label (`entity.value.withUnit`). `t` is the caller's translate (i18next on the client,
 * translate() on the server); an unknown key comes back as itself.
 */
export function valueWithUnit(t: (key: string, params?: Record<string, unknown>) => string, table: string | undefined, unit: unknown, value: unknown): string {
  const hasUnit = table !== undefined && unit !== undefined && unit !== null && unit !== '';
  const n = typeof value === 'number' ? value : Number(value);
  if (hasUnit && value !== '' && Number.isFinite(n)) {
    const key = `entity.value.count.${table}.${String(unit)}`;
    const counted = t(key, { count: n });
    if (counted !== key) return counted;
  }
  return t('entity.value.withUnit', { value, unit: hasUnit ? t(`code.${table}.${String(unit)}`) : '' });
}
