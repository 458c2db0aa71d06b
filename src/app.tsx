/**
 * umi runtime configuration: wraps the router in the app providers and keeps the
 * document title in step with the route and the language.
 */
import React from 'react';
import { AppRoot } from './components/AppRoot';
// The features' dialogs, form asides and controls, registered before any screen renders.
import './features';
import i18n from './i18n';
import { documentTitle } from './routes/title';

export function rootContainer(container: React.ReactElement) {
  return <AppRoot>{container}</AppRoot>;
}

// Pages outside the main layout; inside it ProLayout sets the same title.
function updateTitle(pathname: string) {
  document.title = documentTitle(pathname, (key) => i18n.t(key));
}

let lastPath = '/';

export function onRouteChange({ location }: { location: { pathname: string } }) {
  lastPath = location.pathname;
  updateTitle(lastPath);
}

i18n.on('languageChanged', () => updateTitle(lastPath));
