/** antd's own texts (pagination, pickers, empty states) per platform language. */
import type { Locale } from 'antd/es/locale';
import enUS from 'antd/locale/en_US';
import esES from 'antd/locale/es_ES';
import ruRU from 'antd/locale/ru_RU';
import zhCN from 'antd/locale/zh_CN';

const byLanguage: Record<string, Locale> = {
  'zh-CN': zhCN,
  'en-US': enUS,
  'ru-RU': ruRU,
  'es-ES': esES,
};

export function antdLocale(code: string): Locale {
  return byLanguage[code] ?? zhCN;
}
