/** react-i18next's `t` as the engine's plain Translate, changing identity with the language. */
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { Translate } from '../shared/schema/types';

export function useTranslate(): { t: Translate; language: string } {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const translate = useMemo<Translate>(() => (key, params) => String(t(key, params as never)), [t, language]);
  return { t: translate, language };
}
