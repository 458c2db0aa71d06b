/**
 * The generic wizard screen: the route's view (form.steps) as steps (src/schema/Wizard),
 * with its draft. Submitting validates every step and saves the values through the
 * view's resource (POST {base}/save: the consultation application is saved and sent
 * for review); the server's refusal shows as any other, and the success says so.
 */
import { ArrowLeftOutlined } from '@ant-design/icons';
import { App, Button, Card, Result, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useSearchParams } from 'umi';
import { useActions } from '../../schema/permissions';
import { resourceApi } from '../../schema/resource';
import { Wizard } from '../../schema/Wizard';
import type { View } from '../../shared/schema/types';
import { resolveView, viewName } from '../../shared/schema/views';

function WizardScreen({ view }: { view: View }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const can = useActions(view);
  const [done, setDone] = useState(false);
  if (!can.view) return <Result status="403" title={t('entity.page.forbidden')} />;
  const back = () => navigate(view.routes.list);
  return (
    <div data-testid="resource-wizard" data-view={viewName(view)}>
      <Card
        title={
          <Space>
            <Button type="text" icon={<ArrowLeftOutlined />} onClick={back} aria-label={t('entity.action.back')} />
            {t(`entity.${view.entity}.title`)}
          </Space>
        }
      >
        {done ? (
          // antd's Result does not pass data-* attributes on: the test id sits on a wrapper.
          <div data-testid="wizard-done">
            <Result status="success" title={t('entity.wizard.done')} extra={<Button onClick={back}>{t('entity.action.back')}</Button>} />
          </div>
        ) : (
          <Wizard
            view={view}
            onSubmit={async (values) => {
              await resourceApi(view.resource).save(values);
              message.success(t('entity.wizard.done'));
              setDone(true);
            }}
          />
        )}
      </Card>
    </div>
  );
}

export default function ResourceWizard() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const [params] = useSearchParams();
  const view = resolveView(pathname, params.get('view'));
  if (!view) return <Result status="warning" title={t('entity.page.noView')} subTitle={pathname} />;
  return <WizardScreen key={viewName(view)} view={view} />;
}
