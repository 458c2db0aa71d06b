/**
 * Everything around the router: i18n, antd ConfigProvider (locale follows the
 * language, algorithm follows the theme), antd App (context for toasts/modals, handed
 * to the request wrapper), the root error boundary and the notification pop-ups.
 */
import { App as AntdApp, ConfigProvider, theme as antdTheme } from 'antd';
import React, { useEffect } from 'react';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { installErrorCollection } from '../errorLog/collect';
import i18n from '../i18n';
import { antdLocale } from '../i18n/antdLocale';
import { NoticeCenter } from '../report/notice/NoticeCenter';
import { setRequestUi } from '../services/request';
import { bindAntdApp, browserUi } from '../services/requestUi';
import { ThemeModeProvider, useThemeMode } from '../settings/theme';
import { ErrorBoundary } from './ErrorBoundary';

installErrorCollection();
setRequestUi(browserUi);

/** Hands antd's context-aware message/modal to the request wrapper. */
function RequestUiBridge() {
  const { message, modal } = AntdApp.useApp();
  useEffect(() => bindAntdApp({ message, modal }), [message, modal]);
  return null;
}

/** Pages outside the main layout (login, 404, full-screen) sit on the body: theme it. */
function BodyTheme({ dark }: { dark: boolean }) {
  const { token } = antdTheme.useToken();
  useEffect(() => {
    document.body.style.backgroundColor = token.colorBgLayout;
    document.body.style.color = token.colorText;
    document.documentElement.style.colorScheme = dark ? 'dark' : 'light';
  }, [token.colorBgLayout, token.colorText, dark]);
  return null;
}

/**
 * The system's "reduce motion" setting turns antd's motion off: a dialog or dropdown
 * then opens and closes at once, and a clicked button shows no wave (the wave is not
 * part of the theme's motion token). Read once per page load, like the theme's first
 * mode. The browser tests ask for it (tests/support/browser.ts), so a click never
 * lands mid-animation.
 */
const REDUCED_MOTION = typeof window !== 'undefined' && window.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true;

function Themed({ children }: { children: React.ReactNode }) {
  const { i18n: instance } = useTranslation();
  const { mode } = useThemeMode();
  return (
    <ConfigProvider
      locale={antdLocale(instance.language)}
      wave={{ disabled: REDUCED_MOTION }}
      theme={{ algorithm: mode === 'dark' ? antdTheme.darkAlgorithm : antdTheme.defaultAlgorithm, token: { motion: !REDUCED_MOTION } }}
    >
      <AntdApp>
        <RequestUiBridge />
        <BodyTheme dark={mode === 'dark'} />
        <NoticeCenter />
        <ErrorBoundary>{children}</ErrorBoundary>
      </AntdApp>
    </ConfigProvider>
  );
}

export function AppRoot({ children }: { children: React.ReactNode }) {
  return (
    <I18nextProvider i18n={i18n}>
      <ThemeModeProvider>
        <Themed>{children}</Themed>
      </ThemeModeProvider>
    </I18nextProvider>
  );
}
