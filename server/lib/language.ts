/** The request's language: `lang` cookie, else Accept-Language, else the default (zh-CN). */
import { defaultLanguage, matchLanguage } from '../../locales';

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export function requestLanguage(cookieHeader: string | undefined, acceptLanguage: string | undefined, cookieName: string): string {
  return matchLanguage([cookieValue(cookieHeader, cookieName), acceptLanguage]) ?? defaultLanguage;
}
