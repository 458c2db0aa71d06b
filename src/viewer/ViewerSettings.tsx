/**
 * The image-viewer settings (spec sections 2 and 3, commonSetting.viewConfig): one or
 * two screens, and for two screens whether the viewer opens in a new window and loads
 * images at once. Saved for the user (POST /api/pacs/v1/viewer/config); the user info is
 * fetched again so the exam list opens the next viewer the new way. With two screens the
 * browser can be asked, from this click, to let the viewer use the other screens.
 */
import { App, Button, Checkbox, Form, Modal, Radio, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslate } from '../schema/useTranslate';
import { loadUserInfo, useCommonSetting } from '../session/store';
import { saveViewConfig, type ViewConfig } from './api';
import { requestScreens } from './launch';

const MODELS = ['single', 'double'] as const;
const OPTIONS = ['newWindow', 'auto'] as const;

export function ViewerSettings({ onClose }: { onClose(): void }) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const stored = useCommonSetting()?.viewConfig;
  const [value, setValue] = useState<ViewConfig>({ openModel: stored?.openModel ?? 'double', doubleConfig: stored?.doubleConfig ?? ['newWindow', 'auto'] });
  const [busy, setBusy] = useState(false);
  const [screens, setScreens] = useState<boolean>();
  const canAsk = typeof (window as { getScreenDetails?: unknown }).getScreenDetails === 'function';

  const save = async () => {
    setBusy(true);
    try {
      await saveViewConfig(value);
      await loadUserInfo({ force: true });
      message.success(t('entity.viewer.settings.saved'));
      onClose();
    } catch {
      // The request wrapper has told the user.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      title={t('entity.viewer.settings.title')}
      onOk={save}
      onCancel={onClose}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      okButtonProps={{ loading: busy, 'data-testid': 'viewer-settings-save' }}
    >
      <Form layout="vertical" data-testid="viewer-settings">
        <Form.Item label={t('entity.viewer.settings.openModel')}>
          <Radio.Group value={value.openModel} onChange={(e) => setValue({ ...value, openModel: e.target.value })}>
            {MODELS.map((m) => (
              <Radio key={m} value={m} data-testid={`viewer-settings-${m}`}>
                {t(`code.screenMode.${m}`)}
              </Radio>
            ))}
          </Radio.Group>
        </Form.Item>
        <Form.Item label={t('entity.viewer.settings.doubleConfig')}>
          <Checkbox.Group
            value={value.doubleConfig}
            disabled={value.openModel !== 'double'}
            onChange={(v) => setValue({ ...value, doubleConfig: v as string[] as ViewConfig['doubleConfig'] })}
            options={OPTIONS.map((o) => ({ value: o, label: t(`code.viewerOption.${o}`) }))}
          />
        </Form.Item>
        {value.openModel === 'double' && canAsk && (
          <Space direction="vertical">
            <Button size="small" onClick={async () => setScreens(await requestScreens())} data-testid="viewer-settings-screens">
              {t('entity.viewer.settings.allowScreens')}
            </Button>
            {screens !== undefined && (
              <Typography.Text type={screens ? 'success' : 'warning'}>{t(screens ? 'entity.viewer.settings.screensAllowed' : 'entity.viewer.settings.screensRefused')}</Typography.Text>
            )}
          </Space>
        )}
      </Form>
    </Modal>
  );
}
