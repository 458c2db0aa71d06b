/**
 * Which language the client starts in (spec section 1): the `lang` cookie, else the
 * browser's languages, else the default (zh-CN). Pure functions over strings so they
 * run in unit tests; the browser glue is in ./index.ts.
 */
import app from '../../config/app.json';
import { defaultLanguage, matchLanguage } from '../../locales';

export const languageCookie: string = app.languageCookie;
export const LANGUAGE_COOKIE_MAX_AGE_S = 365 * 24 * 3600;

/** Value of one cookie from a `document.cookie` string. */
export function readCookie(cookieString: string, name: string): string | undefined {
  for (const part of cookieString.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const raw = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(raw);
      } catch {
        return raw;
      }
    }
  }
  return undefined;
}

export function languageCookieString(code: string): string {
  return `${languageCookie}=${encodeURIComponent(code)}; path=/; max-age=${LANGUAGE_COOKIE_MAX_AGE_S}; SameSite=Lax`;
}

export function detectLanguage(input: { cookie?: string; navigatorLanguages?: readonly string[] }): string {
  const fromCookie = matchLanguage([readCookie(input.cookie ?? '', languageCookie)]);
  if (fromCookie) return fromCookie;
  const fromBrowser = matchLanguage([...(input.navigatorLanguages ?? [])]);
  return fromBrowser ?? defaultLanguage;
}

/** Only the text keys from config go through here, so every literal key stays greppable. */
export const menuKey = (name: string): string => `menu.${name}`;
