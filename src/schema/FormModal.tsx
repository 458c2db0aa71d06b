/** A view's form over its list (form.mode "modal"): create, edit or read one record. */
import { App, Modal, Result, Spin } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SchemaForm } from './SchemaForm';
import type { View } from './types';
import { useEntityForm } from './useEntityForm';
import type { FormMode } from './views';

export interface FormModalProps {
  view: View;
  mode: FormMode;
  id?: string;
  /** `saved`: the list should reload. */
  onClose: (saved: boolean) => void;
}

export function FormModal({ view, mode, id, onClose }: FormModalProps) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const { form, loading, loadError, save } = useEntityForm(view, mode, id);
  const [saving, setSaving] = useState(false);
  const title = t(`entity.page.${mode}`, { name: t(`entity.${view.entity}.title`) });

  const onOk = async () => {
    setSaving(true);
    try {
      await save();
      message.success(t('entity.action.saved'));
      onClose(true);
    } catch {
      // Invalid fields show their messages; a refusal was shown by the request wrapper.
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      open
      title={title}
      width={view.form.columns && view.form.columns > 1 ? 880 : 600}
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
          <Spin spinning={loading}>
            <SchemaForm view={view} form={form} mode={mode} />
          </Spin>
        )}
      </div>
    </Modal>
  );
}

export default FormModal;
