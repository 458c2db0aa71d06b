/**
 * i18next for the client, fed from locales/index.ts (the registry shared with the
 * server). Keys are flat ("menu.dashboard"): no key or namespace separators.
 * Switching language writes the cookie the server localizes by, re-renders, no reload.
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { defaultLanguage, fallbackChain, languageCodes, resources } from '../../locales';
import { detectLanguage, languageCookieString } from './detect';

export { menuKey } from './detect';

function initialLanguage(): string {
  if (typeof document === 'undefined') return defaultLanguage;
  return detectLanguage({ cookie: document.cookie, navigatorLanguages: navigator.languages });
}

const fallbackLng: Record<string, string[]> = { default: [defaultLanguage] };
for (const code of languageCodes) fallbackLng[code] = fallbackChain(code).slice(1);

i18n.use(initReactI18next).init({
  resources: Object.fromEntries(Object.entries(resources).map(([lang, dict]) => [lang, { translation: dict }])),
  lng: initialLanguage(),
  fallbackLng,
  supportedLngs: languageCodes,
  load: 'currentOnly',
  keySeparator: false,
  nsSeparator: false,
  interpolation: { escapeValue: false, prefix: '{{', suffix: '}}' },
  returnNull: false,
  initAsync: false,
});

if (typeof document !== 'undefined') document.documentElement.lang = i18n.language;

export function currentLanguage(): string {
  return i18n.language;
}

export async function switchLanguage(code: string): Promise<void> {
  if (!languageCodes.includes(code)) return;
  document.cookie = languageCookieString(code);
  await i18n.changeLanguage(code);
  document.documentElement.lang = code;
}

/** Text for a key, or `fallback` when no language in the chain has it. */
export function translateOr(key: string, fallback: string): string {
  return i18n.exists(key) ? i18n.t(key) : fallback;
}

export default i18n;
