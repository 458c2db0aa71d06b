/**
 * A view's form over its list (form.mode "modal"): create, edit or read one record, in
 * the current hospital's layout; holders of reportPage:edit may change that layout here.
 * A view's form.aside shows beside the form, following it as the user types.
 */
import { App, Flex, Modal, Result, Spin, type ButtonProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { FormAside } from './formAsides';
import { PageConfigButton } from './PageConfigButton';
import { SchemaForm } from './SchemaForm';
import type { View } from '../shared/schema/types';
import { useBusy } from './useBusy';
import { overwriteOffer, useEntityForm } from './useEntityForm';
import { useFormLayout } from './useScreenSettings';
import { viewForm, type FormMode } from '../shared/schema/views';

export interface FormModalProps {
  view: View;
  mode: FormMode;
  id?: string;
  /** `saved`: the list should reload. */
  onClose: (saved: boolean) => void;
}

export function FormModal({ view, mode, id, onClose }: FormModalProps) {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const { form, loading, loadError, save } = useEntityForm(view, mode, id);
  const layout = useFormLayout(view);
  const title = t(`entity.page.${mode}`, { name: t(`entity.${view.entity}.title`) });
  const aside = viewForm(view).aside;

  const askOverwrite = (text: string) =>
    new Promise<boolean>((resolve) => {
      modal.confirm({
        title: t('entity.action.overwriteTitle'),
        content: t('entity.action.overwriteConfirm', { message: text }),
        okText: t('entity.action.overwrite'),
        cancelText: t('common.cancel'),
        okButtonProps: { 'data-testid': 'overwrite-ok' } as ButtonProps,
        onOk: () => resolve(true),
        onCancel: () => resolve(false),
      });
    });

  const [onOk, saving] = useBusy(async () => {
    await save().catch(async (e: unknown) => {
      // A duplicate that names the row in the way: overwrite it if the user says so.
      if (overwriteOffer(e) === undefined || !(await askOverwrite((e as Error).message))) throw e;
      return save({ overwrite: true });
    });
    message.success(t('entity.action.saved'));
    onClose(true);
  });

  return (
    <Modal
      open
      title={
        // Room on the right for the close button.
        <Flex justify="space-between" align="center" gap={8} style={{ paddingRight: 32 }}>
          <span>{title}</span>
          <PageConfigButton view={view} layout={layout.layout} onSaved={layout.setLayout} size="small" />
        </Flex>
      }
      width={aside ? 'min(1440px, 96vw)' : (viewForm(view).columns ?? 1) > 1 ? 880 : 600}
      onCancel={() => onClose(false)}
      onOk={onOk}
      okText={t('entity.action.save')}
      cancelText={t(mode === 'detail' ? 'entity.action.close' : 'common.cancel')}
      okButtonProps={{ style: mode === 'detail' ? { display: 'none' } : undefined, 'data-testid': 'form-modal-save' }}
      confirmLoading={saving}
      destroyOnClose
      maskClosable={false}
    >
      <div data-testid="form-modal">
        {loadError ? (
          <Result status="warning" title={t('entity.page.loadFailed')} />
        ) : (
          <Spin spinning={loading || !layout.loaded}>
            {layout.loaded &&
              (aside ? (
                <Flex gap={16} align="flex-start">
                  <div style={{ flex: 1, minWidth: 0 }}>
                    <SchemaForm view={layout.view} form={form} mode={mode} />
                  </div>
                  {/* Stays in sight while the form scrolls under it. */}
                  <div style={{ flex: 'none', position: 'sticky', top: 0 }}>
                    <FormAside component={aside.component} props={aside.props ?? {}} form={form} mode={mode} />
                  </div>
                </Flex>
              ) : (
                <SchemaForm view={layout.view} form={form} mode={mode} />
              ))}
          </Spin>
        )}
      </div>
    </Modal>
  );
}

export default FormModal;
