/** Public 404 page: unknown paths redirect here (config/routes.json catch-all). */
import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'umi';
import { homePath } from '../routes/table';

export default function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <div data-testid="page-404" style={{ padding: '10vh 0' }}>
      <Result
        status="404"
        title={t('common.notFound.title')}
        subTitle={t('common.notFound.description')}
        extra={
          <Link to={homePath}>
            <Button type="primary">{t('common.backHome')}</Button>
          </Link>
        }
      />
    </div>
  );
}
