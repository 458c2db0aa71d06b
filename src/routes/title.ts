/** The browser tab title for a path: "<route name> - <app name>". */
import { menuKey } from '../i18n/detect';
import { findRoute } from './table';

export function documentTitle(pathname: string, t: (key: string) => string): string {
  const route = findRoute(pathname);
  const app = t('common.appName');
  return route ? `${t(menuKey(route.name))} - ${app}` : app;
}
