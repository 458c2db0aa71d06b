/**
 * Choosing the hospital to work in (spec section 6: a user belonging to several chooses
 * one after login; the navbar's "change hospital"). A modal listing the hospitals; the
 * current one is marked. `onChoose` does the server call; failures stay in the modal.
 */
import { CheckCircleFilled } from '@ant-design/icons';
import { Alert, List, Modal, Typography, theme } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { renderIcon } from '../components/icons';
import type { HospitalRef } from '../services/uaa';

export interface HospitalChooserProps {
  open: boolean;
  hospitals: HospitalRef[];
  currentId?: number | null;
  /** data-testid of each option is `${testIdPrefix}${id}`. */
  testIdPrefix: string;
  /** Without it the modal cannot be dismissed (a choice is required). */
  onCancel?: () => void;
  cancelText?: string;
  onChoose: (id: number) => Promise<void>;
}

export function HospitalChooser({ open, hospitals, currentId, testIdPrefix, onCancel, cancelText, onChoose }: HospitalChooserProps) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const [busy, setBusy] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const choose = async (id: number) => {
    if (busy !== null) return;
    setBusy(id);
    setError(null);
    try {
      await onChoose(id);
    } catch (e) {
      setError((e as Error)?.message || t('error.common'));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Modal
      open={open}
      title={t('auth.hospital.title')}
      closable={!!onCancel}
      maskClosable={false}
      keyboard={!!onCancel}
      onCancel={onCancel}
      footer={null}
      destroyOnHidden
      width={480}
    >
      <div data-testid="hospital-chooser">
      <Typography.Paragraph type="secondary">{t('auth.hospital.hint')}</Typography.Paragraph>
      {error && <Alert type="error" showIcon message={error} style={{ marginBottom: 12 }} />}
      <List
        bordered
        dataSource={hospitals}
        style={{ maxHeight: 360, overflowY: 'auto' }}
        renderItem={(h) => {
          const current = h.id === currentId;
          return (
            <List.Item
              data-testid={`${testIdPrefix}${h.id}`}
              onClick={() => void choose(h.id)}
              role="button"
              tabIndex={0}
              onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && void choose(h.id)}
              style={{
                cursor: busy === null ? 'pointer' : 'wait',
                background: current ? token.colorPrimaryBg : undefined,
                opacity: busy !== null && busy !== h.id ? 0.5 : 1,
              }}
              extra={current ? <CheckCircleFilled style={{ color: token.colorPrimary }} /> : null}
            >
              <List.Item.Meta
                avatar={<span style={{ fontSize: 20, color: token.colorPrimary }}>{renderIcon('hospital')}</span>}
                title={h.name}
                description={current ? t('auth.hospital.current') : busy === h.id ? t('auth.hospital.switching') : null}
              />
            </List.Item>
          );
        }}
      />
      {onCancel && cancelText && (
        <div style={{ textAlign: 'right', marginTop: 12 }}>
          <Typography.Link onClick={onCancel}>{cancelText}</Typography.Link>
        </div>
      )}
      </div>
    </Modal>
  );
}

export default HospitalChooser;
