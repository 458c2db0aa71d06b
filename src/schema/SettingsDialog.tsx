/**
 * The frame the screen-settings dialogs share (query options of a list, page
 * configuration of a form): a hint, the dialog's own rows, and restore-defaults /
 * cancel / save, save busy until the setting is stored. A refused save was already
 * shown by the request wrapper, so the dialog stays open with the user's choice.
 * Also the up / down buttons their rows use.
 */
import { ArrowDownOutlined, ArrowUpOutlined } from '@ant-design/icons';
import { Button, Modal, Space, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useBusy } from './useBusy';
import { useTranslate } from './useTranslate';

export interface SettingsDialogProps {
  /** data-testid prefix: <prefix>-dialog, <prefix>-reset, <prefix>-save. */
  testId: string;
  title: string;
  hint: string;
  width: number;
  onReset: () => void;
  onSave: () => Promise<void>;
  onClose: () => void;
  children: ReactNode;
}

export function SettingsDialog({ testId, title, hint, width, onReset, onSave, onClose, children }: SettingsDialogProps) {
  const { t } = useTranslate();
  const [save, saving] = useBusy(onSave);
  return (
    <Modal
      open
      title={title}
      width={width}
      onCancel={onClose}
      maskClosable={false}
      footer={[
        <Button key="reset" onClick={onReset} data-testid={`${testId}-reset`}>
          {t('entity.settings.reset')}
        </Button>,
        <Button key="cancel" onClick={onClose}>
          {t('common.cancel')}
        </Button>,
        <Button key="save" type="primary" loading={saving} onClick={save} data-testid={`${testId}-save`}>
          {t('entity.action.save')}
        </Button>,
      ]}
    >
      <div data-testid={`${testId}-dialog`}>
        <Typography.Paragraph type="secondary">{hint}</Typography.Paragraph>
        {children}
      </div>
    </Modal>
  );
}

/** Up and down for one row of a list; data-testids <prefix>-up-<item> and <prefix>-down-<item>. */
export function MoveButtons({ prefix, item, first, last, onMove, extra }: { prefix: string; item: string; first: boolean; last: boolean; onMove: (by: -1 | 1) => void; extra?: ReactNode }) {
  const { t } = useTranslate();
  return (
    <Space size={4}>
      {extra}
      <Button
        size="small"
        icon={<ArrowUpOutlined />}
        disabled={first}
        aria-label={t('entity.settings.moveUp')}
        title={t('entity.settings.moveUp')}
        onClick={() => onMove(-1)}
        data-testid={`${prefix}-up-${item}`}
      />
      <Button
        size="small"
        icon={<ArrowDownOutlined />}
        disabled={last}
        aria-label={t('entity.settings.moveDown')}
        title={t('entity.settings.moveDown')}
        onClick={() => onMove(1)}
        data-testid={`${prefix}-down-${item}`}
      />
    </Space>
  );
}
