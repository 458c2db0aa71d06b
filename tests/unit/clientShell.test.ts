/**
 * Client shell logic that runs without a browser:
 * - language choice: cookie, then navigator.languages, then zh-CN; the cookie string
 * - the error list: newest first, capped at 100, clear, entries from anything thrown
 * - chunk-load errors are recognised and reload each route once per window
 */
import { claimChunkReload, CHUNK_RELOAD_WINDOW_MS, isChunkLoadError } from '@/components/chunkReload';
import { appendErrorLog, clearErrorLog, ERROR_LOG_CAP, readErrorLog, toEntry } from '@/errorLog/store';
import { detectLanguage, languageCookieString, menuKey, readCookie } from '@/i18n/detect';

function memoryStorage() {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => (m.has(k) ? (m.get(k) as string) : null),
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  };
}

describe('language detection', () => {
  test('the lang cookie wins over the browser', () => {
    expect(detectLanguage({ cookie: 'a=1; lang=ru-RU; b=2', navigatorLanguages: ['en-US'] })).toBe('ru-RU');
  });
  test('without a cookie, the first supported browser language (by primary subtag)', () => {
    expect(detectLanguage({ cookie: '', navigatorLanguages: ['de-DE', 'en-GB', 'ru'] })).toBe('en-US');
    expect(detectLanguage({ cookie: 'lang=xx', navigatorLanguages: ['es'] })).toBe('es-ES');
  });
  test('otherwise zh-CN', () => {
    expect(detectLanguage({ cookie: '', navigatorLanguages: ['de-DE'] })).toBe('zh-CN');
    expect(detectLanguage({})).toBe('zh-CN');
  });
  test('cookie parsing and the cookie written on switch (path=/, one year)', () => {
    expect(readCookie(' x=1;lang=en-US ', 'lang')).toBe('en-US');
    expect(readCookie('language=en-US', 'lang')).toBeUndefined();
    expect(languageCookieString('en-US')).toBe('lang=en-US; path=/; max-age=31536000; SameSite=Lax');
  });
  test('menu names map to menu.* keys', () => {
    expect(menuKey('dashboard')).toBe('menu.dashboard');
  });
});

describe('error list', () => {
  test('newest first, capped at 100', () => {
    const s = memoryStorage();
    for (let i = 0; i < ERROR_LOG_CAP + 5; i++) appendErrorLog(s, { time: `t${i}`, message: `m${i}`, url: '/x' });
    const list = readErrorLog(s);
    expect(ERROR_LOG_CAP).toBe(100);
    expect(list).toHaveLength(100);
    expect(list[0].message).toBe(`m${ERROR_LOG_CAP + 4}`);
    expect(list[99].message).toBe('m5');
    clearErrorLog(s);
    expect(readErrorLog(s)).toEqual([]);
  });
  test('a corrupt stored list reads as empty', () => {
    const s = memoryStorage();
    s.setItem('rcloud-error-log', '{not json');
    expect(readErrorLog(s)).toEqual([]);
  });
  test('entries from errors, strings and other values', () => {
    const now = new Date('2025-01-02T03:04:05Z');
    const e = toEntry(new TypeError('boom'), 'http://h/p', now);
    expect(e).toMatchObject({ time: '2025-01-02T03:04:05.000Z', message: 'boom', url: 'http://h/p' });
    expect(e.stack).toContain('TypeError: boom');
    expect(toEntry('plain', '/', now).message).toBe('plain');
    expect(toEntry({ code: 1 }, '/', now).message).toBe('{"code":1}');
  });
});

describe('chunk load errors', () => {
  test.each([
    [{ name: 'ChunkLoadError', message: 'Loading chunk 42 failed.' }],
    [new Error('Loading CSS chunk 7 failed')],
    [new TypeError('Failed to fetch dynamically imported module: http://h/p__x.js')],
  ])('recognised: %p', (e) => {
    expect(isChunkLoadError(e)).toBe(true);
  });
  test('other errors are not', () => {
    expect(isChunkLoadError(new Error('Cannot read properties of undefined'))).toBe(false);
    expect(isChunkLoadError(null)).toBe(false);
  });
  test('once per route within the window, again after it or on another route', () => {
    const s = memoryStorage();
    expect(claimChunkReload(s, '/report', 1000)).toBe(true);
    expect(claimChunkReload(s, '/report', 2000)).toBe(false);
    expect(claimChunkReload(s, '/report', 1000 + CHUNK_RELOAD_WINDOW_MS + 1)).toBe(true);
    expect(claimChunkReload(s, '/user', 1000 + CHUNK_RELOAD_WINDOW_MS + 2)).toBe(true);
  });
});
