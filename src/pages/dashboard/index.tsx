/**
 * Home page for now: the platform name and the server's health as the server reports
 * it. No statistics until the statistics services exist.
 */
import { Alert, Card, Descriptions, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { renderIcon } from '../../components/icons';
import { getHealth, type Health } from '../../services/health';
import { RequestError } from '../../services/request';

type State = { kind: 'loading' } | { kind: 'ok'; health: Health } | { kind: 'error'; detail: string };

function formatUptime(seconds: number): { d: number; h: number; m: number; s: number } {
  const total = Math.max(0, Math.floor(seconds));
  return { d: Math.floor(total / 86400), h: Math.floor((total % 86400) / 3600), m: Math.floor((total % 3600) / 60), s: total % 60 };
}

export default function Dashboard() {
  const { t } = useTranslation();
  const [state, setState] = useState<State>({ kind: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    getHealth(controller.signal)
      .then((health) => setState({ kind: 'ok', health }))
      .catch((e: unknown) => {
        if (controller.signal.aborted) return;
        const detail = e instanceof RequestError ? `${e.code} (HTTP ${e.httpStatus})` : String(e);
        setState({ kind: 'error', detail });
      });
    return () => controller.abort();
  }, []);

  return (
    <div data-testid="dashboard" style={{ display: 'grid', gap: 16, maxWidth: 960 }}>
      <Card>
        <Typography.Title level={3} style={{ marginTop: 0 }}>
          <span style={{ marginInlineEnd: 12 }}>{renderIcon('logo')}</span>
          {t('common.dashboard.welcome', { appName: t('common.appName') })}
        </Typography.Title>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
          {t('common.dashboard.intro')}
        </Typography.Paragraph>
      </Card>
      <Card title={t('common.health.title')} loading={state.kind === 'loading'} data-testid="server-health">
        {state.kind === 'ok' && (
          <Descriptions column={1} size="small" bordered>
            <Descriptions.Item label={t('common.health.status')}>
              <Typography.Text type="success">{t('common.health.ok')}</Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('common.health.db')}>
              <span data-testid="health-db">{state.health.db}</span>
            </Descriptions.Item>
            <Descriptions.Item label={t('common.health.version')}>{state.health.version}</Descriptions.Item>
            <Descriptions.Item label={t('common.health.uptime')}>
              {t('common.health.uptimeValue', formatUptime(state.health.uptime))}
            </Descriptions.Item>
          </Descriptions>
        )}
        {state.kind === 'error' && (
          <Alert type="warning" showIcon message={t('common.health.unavailable')} description={state.detail} />
        )}
      </Card>
    </div>
  );
}
