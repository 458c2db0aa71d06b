/**
 * Right side of the navbar: language, full screen, theme, notification settings, then
 * the identity slot.
 * Every control carries the data-testid the browser tests use.
 */
import { useFullscreen } from 'ahooks';
import { Button, Dropdown, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import app from '../../config/app.json';
import { renderIcon } from '../components/icons';
import { switchLanguage } from '../i18n';
import { NoticeSettingsButton } from '../report/notice/NoticeSettingsButton';
import { useThemeMode } from '../settings/theme';
import IdentityActions from './IdentityActions';

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const current = app.languages.find((l) => l.code === i18n.language) ?? app.languages[0];
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [current.code],
        // Language names are autonyms from config/app.json, the same in every language.
        items: app.languages.map((l) => ({
          key: l.code,
          label: <span data-testid={`lang-${l.code}`}>{l.label}</span>,
        })),
        onClick: ({ key }) => void switchLanguage(key),
      }}
    >
      <Button type="text" icon={renderIcon('language')} data-testid="lang-switch" aria-label={t('common.language')}>
        {current.label}
      </Button>
    </Dropdown>
  );
}

function FullscreenToggle() {
  const { t } = useTranslation();
  const [isFullscreen, { toggleFullscreen }] = useFullscreen(() => document.documentElement);
  const label = isFullscreen ? t('common.fullscreen.exit') : t('common.fullscreen.enter');
  return (
    <Tooltip title={label}>
      <Button
        type="text"
        icon={renderIcon(isFullscreen ? 'fullscreenExit' : 'fullscreen')}
        onClick={toggleFullscreen}
        data-testid="fullscreen-toggle"
        aria-label={label}
      />
    </Tooltip>
  );
}

function ThemeToggle() {
  const { t } = useTranslation();
  const { mode, toggle } = useThemeMode();
  const label = mode === 'dark' ? t('common.theme.toLight') : t('common.theme.toDark');
  return (
    <Tooltip title={label}>
      <Button
        type="text"
        icon={renderIcon(mode === 'dark' ? 'themeDark' : 'themeLight')}
        onClick={toggle}
        data-testid="theme-toggle"
        data-theme={mode}
        aria-label={label}
      />
    </Tooltip>
  );
}

export function navbarActions() {
  return [
    <LanguageSwitch key="lang" />,
    <FullscreenToggle key="fullscreen" />,
    <ThemeToggle key="theme" />,
    <NoticeSettingsButton key="notice" />,
    <IdentityActions key="identity" />,
  ];
}
