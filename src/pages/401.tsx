/** Public 401 page: the identity work sends refused sessions here. */
import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'umi';
import { homePath } from '../routes/table';

export default function UnauthorizedPage() {
  const { t } = useTranslation();
  return (
    <div data-testid="page-401" style={{ padding: '10vh 0' }}>
      <Result
        status="403"
        title={t('common.unauthorized.title')}
        subTitle={t('common.unauthorized.description')}
        extra={
          <Link to={homePath}>
            <Button type="primary">{t('common.backHome')}</Button>
          </Link>
        }
      />
    </div>
  );
}
