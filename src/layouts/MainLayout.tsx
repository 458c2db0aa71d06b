/**
 * The main layout (every route of config/routes.json's "layout" list): ProLayout with
 * the grouped sidebar built from the same list, filtered by the user's menuList (the
 * route guard has loaded it before this renders), the navbar actions on the right and
 * the page in an error boundary. Sidebar collapsed state is remembered.
 */
import { ProLayout } from '@ant-design/pro-components';
import type { MenuDataItem } from '@ant-design/pro-components';
import React, { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation } from 'umi';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { renderIcon } from '../components/icons';
import { menuKey } from '../i18n';
import { buildMenuTree, homePath, type MenuNode } from '../routes/table';
import { menuFilter } from '../session/access';
import { useSession } from '../session/store';
import { documentTitle } from '../routes/title';
import { useThemeMode } from '../settings/theme';
import { navbarActions } from './NavbarActions';

export const SIDEBAR_COLLAPSED_KEY = 'rcloud-sidebar-collapsed';

function useRememberedCollapse(): [boolean, (c: boolean) => void] {
  const [collapsed, setCollapsed] = useState<boolean>(() => {
    try {
      return localStorage.getItem(SIDEBAR_COLLAPSED_KEY) === '1';
    } catch {
      return false;
    }
  });
  const update = useCallback((c: boolean) => {
    setCollapsed(c);
    try {
      localStorage.setItem(SIDEBAR_COLLAPSED_KEY, c ? '1' : '0');
    } catch {
      // Private mode: remembered for this page only.
    }
  }, []);
  return [collapsed, update];
}

function toMenuData(nodes: MenuNode[], t: (key: string) => string): MenuDataItem[] {
  return nodes.map((n) => ({
    key: n.key,
    path: n.path,
    name: t(menuKey(n.name)),
    icon: renderIcon(n.icon),
    hideInMenu: n.hideInMenu,
    children: n.children ? toMenuData(n.children, t) : undefined,
  }));
}

export default function MainLayout() {
  const { t, i18n } = useTranslation();
  const { pathname } = useLocation();
  const { mode } = useThemeMode();
  const [collapsed, setCollapsed] = useRememberedCollapse();
  const menuList = useSession().user?.menuList;
  // Rebuilt when the language or the menus change (hospital switch) so the sidebar follows without a reload.
  const menuData = useMemo(() => toMenuData(buildMenuTree(menuFilter(menuList)), t), [t, i18n.language, menuList]);

  return (
    <ProLayout
      layout="mix"
      splitMenus={false}
      fixSiderbar
      siderWidth={240}
      fixedHeader
      navTheme={mode === 'dark' ? 'realDark' : 'light'}
      title={t('common.appName')}
      logo={renderIcon('logo')}
      location={{ pathname }}
      route={{ path: '/', children: menuData }}
      menu={{ locale: false }}
      collapsed={collapsed}
      onCollapse={setCollapsed}
      // The user's choice wins: antd's responsive breakpoint would reset it on every load.
      breakpoint={false}
      collapsedButtonRender={(_c, dom) =>
        React.isValidElement(dom)
          ? React.cloneElement(dom as React.ReactElement<Record<string, unknown>>, { 'data-testid': 'sidebar-toggle' })
          : dom
      }
      menuItemRender={(item, dom) => (item.path ? <Link to={item.path}>{dom}</Link> : dom)}
      headerTitleRender={(logo, title) => (
        <Link to={homePath} style={{ display: 'flex', alignItems: 'center', gap: 8 }}>
          {logo}
          {title}
        </Link>
      )}
      actionsRender={() => navbarActions()}
      pageTitleRender={() => documentTitle(pathname, t)}
      breadcrumbRender={false}
      footerRender={false}
      ErrorBoundary={false}
    >
      <ErrorBoundary key={pathname}>
        <Outlet />
      </ErrorBoundary>
    </ProLayout>
  );
}
