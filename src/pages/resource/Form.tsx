/**
 * The generic form screen: `?id=` edits (absent: create), `&mode=detail` reads
 * (read-pretty), `?view=` picks one of the views this route serves. Which buttons show
 * follows the permission map; saving goes back to the view's list. The form follows the
 * current hospital's layout, which holders of reportPage:edit change here.
 */
import { ArrowLeftOutlined } from '@ant-design/icons';
import { App, Button, Card, Result, Space, Spin } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useSearchParams } from 'umi';
import { PageConfigButton } from '../../schema/PageConfigButton';
import { useActions } from '../../schema/permissions';
import { SchemaForm } from '../../schema/SchemaForm';
import type { View } from '../../shared/schema/types';
import { useEntityForm } from '../../schema/useEntityForm';
import { useFormLayout } from '../../schema/useScreenSettings';
import { formUrl, resolveView, viewName, type FormMode } from '../../shared/schema/views';

function FormScreen({ view, mode, id }: { view: View; mode: FormMode; id?: string }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const can = useActions(view);
  const { form, loading, loadError, save } = useEntityForm(view, mode, id);
  const layout = useFormLayout(view);
  const [saving, setSaving] = useState(false);
  const allowed = mode === 'create' ? can.add : mode === 'edit' ? can.edit : can.view;
  const title = t(`entity.page.${mode}`, { name: t(`entity.${view.entity}.title`) });
  const back = () => navigate(view.routes.list);

  if (!allowed)
    return <Result status="403" title={t('entity.page.forbidden')} extra={<Button onClick={back}>{t('entity.action.back')}</Button>} />;

  const onSave = async () => {
    setSaving(true);
    try {
      await save();
      message.success(t('entity.action.saved'));
      back();
    } catch {
      // Invalid fields show their messages; a refusal was shown by the request wrapper.
    } finally {
      setSaving(false);
    }
  };

  return (
    <div data-testid="resource-form" data-view={viewName(view)} data-mode={mode}>
      <Card
        title={
          <Space>
            <Button type="text" icon={<ArrowLeftOutlined />} onClick={back} aria-label={t('entity.action.back')} />
            {title}
          </Space>
        }
        extra={
          <Space>
            <PageConfigButton view={view} layout={layout.layout} onSaved={layout.setLayout} />
            <Button onClick={back}>{t('entity.action.back')}</Button>
            {mode === 'detail' && can.edit && id && (
              <Button onClick={() => navigate(formUrl(view, 'edit', id) as string)} data-testid="form-edit">
                {t('entity.action.edit')}
              </Button>
            )}
            {mode !== 'detail' && (
              <Button type="primary" loading={saving} disabled={loading || Boolean(loadError)} onClick={onSave} data-testid="form-save">
                {t('entity.action.save')}
              </Button>
            )}
          </Space>
        }
        styles={{ body: { paddingBottom: 8 } }}
      >
        {loadError ? (
          <Result status="warning" title={t('entity.page.loadFailed')} />
        ) : (
          <Spin spinning={loading || !layout.loaded}>{layout.loaded && <SchemaForm view={layout.view} form={form} mode={mode} />}</Spin>
        )}
      </Card>
    </div>
  );
}

export default function ResourceForm() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const [params] = useSearchParams();
  const view = resolveView(pathname, params.get('view'));
  if (!view) return <Result status="warning" title={t('entity.page.noView')} subTitle={pathname} />;
  const id = params.get('id') || undefined;
  const mode: FormMode = id ? (params.get('mode') === 'detail' ? 'detail' : 'edit') : 'create';
  return <FormScreen key={`${viewName(view)}:${mode}:${id ?? ''}`} view={view} mode={mode} id={id} />;
}
