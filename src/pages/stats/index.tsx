/**
 * A statistics screen: the route's declared statistics view (config/routes.json
 * `stats`, a schemas/stats entry) through the generic renderer.
 */
import { Result, Typography } from 'antd';
import { useLocation } from 'umi';
import { findRoute } from '../../routes/table';
import { useTranslate } from '../../schema/useTranslate';
import { StatsView } from '../../stats/StatsView';
import { getStatsView } from '../../stats/model';

export default function StatsPage() {
  const { t } = useTranslate();
  const { pathname } = useLocation();
  const name = findRoute(pathname)?.stats;
  const view = getStatsView(name);
  if (!name || !view) return <Result status="warning" title={t('entity.page.noView')} subTitle={pathname} />;
  return (
    <div style={{ display: 'grid', gap: 12 }}>
      <Typography.Title level={4} style={{ margin: 0 }}>
        {t(`stats.${name}.title`)}
      </Typography.Title>
      <StatsView key={name} name={name} view={view} />
    </div>
  );
}
