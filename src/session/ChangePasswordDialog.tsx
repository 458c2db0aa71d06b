/**
 * The change-password dialog (spec section 2): old, new and confirmation, checked on
 * the client first (8-16 allowed characters, differs from the old one, confirmation
 * matches). On success the session ends and the user logs in again with the new
 * password. `forced` (password expired) cannot be dismissed, only left by logging out.
 */
import { Alert, App, Button, Form, Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'umi';
import { NETWORK_ERROR, RequestError } from '../services/request';
import { updatePassword } from '../services/uaa';
import { confirmPasswordRules, newPasswordRules, requiredRule } from './formRules';
import { LOGIN_PATH } from './guard';
import { PASSWORD_MAX } from './rules';
import { signOut } from './store';

interface Values {
  oldPassword: string;
  newPassword: string;
  confirmPassword: string;
}

/** Which field a server refusal belongs to. */
const FIELD_OF_CODE: Record<string, keyof Values> = {
  UAA006: 'oldPassword',
  UAA007: 'newPassword',
  UAA011: 'newPassword',
};

export function ChangePasswordDialog({ open, forced = false, onClose }: { open: boolean; forced?: boolean; onClose?: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const leave = async () => {
    await signOut();
    navigate(LOGIN_PATH, { replace: true });
  };

  const submit = async (values: Values) => {
    setSubmitting(true);
    setError(null);
    try {
      await updatePassword(values);
      await leave();
      message.success(t('auth.password.changed'));
    } catch (e) {
      const err = e as RequestError;
      const field = err instanceof RequestError ? FIELD_OF_CODE[err.code] : undefined;
      if (field) form.setFields([{ name: field, errors: [err.message] }]);
      else setError(err instanceof RequestError && err.code === NETWORK_ERROR ? t('error.network') : err.message || t('error.common'));
    } finally {
      setSubmitting(false);
    }
  };

  const passwordInput = (testId: string, autoComplete: string) => (
    <Input.Password data-testid={testId} maxLength={PASSWORD_MAX} autoComplete={autoComplete} />
  );

  return (
    <Modal
      open={open}
      title={t(forced ? 'auth.password.expiredTitle' : 'auth.password.title')}
      closable={!forced}
      maskClosable={false}
      keyboard={!forced}
      onCancel={forced ? undefined : onClose}
      destroyOnHidden
      width={440}
      footer={[
        forced ? (
          <Button key="logout" onClick={() => void leave()} data-testid="pwd-logout">
            {t('auth.logout')}
          </Button>
        ) : (
          <Button key="cancel" onClick={onClose}>
            {t('common.cancel')}
          </Button>
        ),
        <Button key="submit" type="primary" loading={submitting} onClick={() => form.submit()} data-testid="pwd-submit">
          {t('auth.password.submit')}
        </Button>,
      ]}
    >
      <div data-testid="change-password-dialog">
        {forced && <Alert type="warning" showIcon message={t('auth.password.expiredHint')} style={{ marginBottom: 16 }} />}
        {error && <Alert type="error" showIcon message={error} style={{ marginBottom: 16 }} data-testid="pwd-error" />}
        <Form form={form} layout="vertical" requiredMark={false} onFinish={(v) => void submit(v)} preserve={false}>
          <Form.Item name="oldPassword" label={t('auth.field.oldPassword')} rules={[requiredRule(t, 'auth.field.oldPassword')]}>
            {passwordInput('pwd-old', 'current-password')}
          </Form.Item>
          <Form.Item
            name="newPassword"
            label={t('auth.field.newPassword')}
            rules={newPasswordRules(t, 'oldPassword')}
            dependencies={['oldPassword']}
            extra={<Typography.Text type="secondary">{t('auth.rule.password')}</Typography.Text>}
          >
            {passwordInput('pwd-new', 'new-password')}
          </Form.Item>
          <Form.Item name="confirmPassword" label={t('auth.field.confirmPassword')} rules={confirmPasswordRules(t, 'newPassword')} dependencies={['newPassword']}>
            {passwordInput('pwd-confirm', 'new-password')}
          </Form.Item>
          {/* Enter submits. */}
          <button type="submit" hidden />
        </Form>
      </div>
    </Modal>
  );
}

export default ChangePasswordDialog;
