/**
 * The one page for routes that have no screen yet (config/routes.json entries without
 * a component): says so honestly with the route's name and path, never fake data.
 */
import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'umi';
import { renderIcon } from '../components/icons';
import { menuKey } from '../i18n';
import { findRoute, homePath } from '../routes/table';

export default function NotYetAvailable() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const route = findRoute(pathname);
  const name = route ? t(menuKey(route.name)) : pathname;
  return (
    <div data-testid="not-yet-available" data-path={pathname} style={{ padding: '48px 0' }}>
      <Result
        icon={renderIcon(route?.icon ?? 'setting')}
        title={t('common.notYetAvailable.title', { name })}
        subTitle={t('common.notYetAvailable.description', { name, path: pathname })}
        extra={
          pathname !== homePath && (
            <Link to={homePath}>
              <Button type="primary">{t('common.backHome')}</Button>
            </Link>
          )
        }
      />
    </div>
  );
}
