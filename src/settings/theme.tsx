/**
 * Light or dark theme for the whole app (navbar "theme change"), remembered in
 * localStorage. Applied through antd ConfigProvider's theme.algorithm at the root.
 */
import React, { createContext, useCallback, useContext, useMemo, useState } from 'react';

export type ThemeMode = 'light' | 'dark';
export const THEME_STORAGE_KEY = 'rcloud-theme';

function storedMode(): ThemeMode {
  try {
    return localStorage.getItem(THEME_STORAGE_KEY) === 'dark' ? 'dark' : 'light';
  } catch {
    return 'light';
  }
}

interface ThemeState {
  mode: ThemeMode;
  toggle: () => void;
}

const ThemeContext = createContext<ThemeState>({ mode: 'light', toggle: () => undefined });

export function ThemeModeProvider({ children }: { children: React.ReactNode }) {
  const [mode, setMode] = useState<ThemeMode>(storedMode);
  const toggle = useCallback(() => {
    setMode((m) => {
      const next: ThemeMode = m === 'dark' ? 'light' : 'dark';
      try {
        localStorage.setItem(THEME_STORAGE_KEY, next);
      } catch {
        // Private mode: the choice lasts for this page only.
      }
      return next;
    });
  }, []);
  const value = useMemo(() => ({ mode, toggle }), [mode, toggle]);
  return <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>;
}

export function useThemeMode(): ThemeState {
  return useContext(ThemeContext);
}
