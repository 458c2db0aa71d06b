/**
 * Spec section 5: "a weak password triggers a change reminder", once per login, with a
 * button that opens the change-password dialog.
 */
import { Button, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import ChangePasswordDialog from './ChangePasswordDialog';
import { rememberWeakReminderShown } from './store';

export function WeakPasswordReminder() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(true);
  const [changing, setChanging] = useState(false);

  const later = () => {
    setOpen(false);
    rememberWeakReminderShown();
  };
  const changeNow = () => {
    setOpen(false);
    setChanging(true);
  };

  return (
    <>
      <Modal
        open={open}
        title={t('auth.weak.title')}
        onCancel={later}
        maskClosable={false}
        width={420}
        footer={[
          <Button key="later" onClick={later} data-testid="weak-later">
            {t('auth.weak.later')}
          </Button>,
          <Button key="change" type="primary" onClick={changeNow} data-testid="weak-change-now">
            {t('auth.weak.changeNow')}
          </Button>,
        ]}
      >
        <Typography.Paragraph data-testid="weak-password-reminder">{t('auth.weak.content')}</Typography.Paragraph>
      </Modal>
      <ChangePasswordDialog
        open={changing}
        onClose={() => {
          setChanging(false);
          rememberWeakReminderShown();
        }}
      />
    </>
  );
}

export default WeakPasswordReminder;
