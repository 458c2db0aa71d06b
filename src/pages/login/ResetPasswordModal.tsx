/**
 * "Forgot password": reset by SMS (purpose "reset") — mobile, captcha when the server
 * asks, SMS code, new password and its confirmation. On success the login form gets
 * the mobile back and the user logs in with the new password.
 */
import { Alert, App, Button, Form, Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { renderIcon } from '../../components/icons';
import { RequestError } from '../../services/request';
import { resetPassword } from '../../services/uaa';
import { confirmPasswordRules, mobileRules, newPasswordRules } from '../../session/formRules';
import { PASSWORD_MAX } from '../../session/rules';
import { CaptchaField } from './CaptchaField';
import { failureText } from './failure';
import { SmsCodeField } from './SmsCodeField';
import { useCaptcha } from './useCaptcha';

interface Values {
  mobile: string;
  smsCode: string;
  newPassword: string;
  confirmPassword: string;
  captchaCode?: string;
}

/** Which field a server refusal belongs to. */
const FIELD_OF_CODE: Record<string, keyof Values> = {
  UAA101: 'smsCode',
  UAA007: 'newPassword',
  UAA011: 'newPassword',
};

export function ResetPasswordModal({
  open,
  initialMobile,
  onClose,
  onDone,
}: {
  open: boolean;
  initialMobile?: string;
  onClose: () => void;
  onDone: (mobile: string) => void;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  const captcha = useCaptcha();
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const submit = async (values: Values) => {
    setSubmitting(true);
    setError(null);
    try {
      await resetPassword(values);
      message.success(t('auth.reset.done'));
      onDone(values.mobile);
    } catch (e) {
      const err = e as RequestError;
      const field = FIELD_OF_CODE[err.code];
      if (field) form.setFields([{ name: field, errors: [err.message] }]);
      else setError(failureText(err, t));
    } finally {
      setSubmitting(false);
    }
  };

  const close = () => {
    setError(null);
    captcha.hide();
    onClose();
  };

  return (
    <Modal
      open={open}
      title={t('auth.reset.title')}
      onCancel={close}
      maskClosable={false}
      destroyOnHidden
      width={440}
      footer={[
        <Button key="cancel" onClick={close}>
          {t('common.cancel')}
        </Button>,
        <Button key="submit" type="primary" loading={submitting} onClick={() => form.submit()} data-testid="reset-submit">
          {t('auth.reset.submit')}
        </Button>,
      ]}
    >
      <div data-testid="reset-password-dialog">
        <Typography.Paragraph type="secondary">{t('auth.reset.hint')}</Typography.Paragraph>
        {error && <Alert type="error" showIcon message={error} style={{ marginBottom: 16 }} data-testid="reset-error" />}
        <Form form={form} onFinish={(v) => void submit(v)} preserve={false} initialValues={{ mobile: initialMobile }}>
          <Form.Item name="mobile" rules={mobileRules(t)}>
            <Input
              size="large"
              prefix={renderIcon('mobile')}
              placeholder={t('auth.field.mobile')}
              aria-label={t('auth.field.mobile')}
              maxLength={14}
              autoComplete="username"
              data-testid="reset-mobile"
            />
          </Form.Item>
          <CaptchaField captcha={captcha} testIdPrefix="reset" />
          <SmsCodeField form={form} purpose="reset" captcha={captcha} testIdPrefix="reset" onError={setError} />
          <Form.Item name="newPassword" rules={newPasswordRules(t)} extra={t('auth.rule.password')}>
            <Input.Password
              size="large"
              prefix={renderIcon('lock')}
              placeholder={t('auth.field.newPassword')}
              aria-label={t('auth.field.newPassword')}
              maxLength={PASSWORD_MAX}
              autoComplete="new-password"
              data-testid="reset-new"
            />
          </Form.Item>
          <Form.Item name="confirmPassword" rules={confirmPasswordRules(t, 'newPassword')} dependencies={['newPassword']}>
            <Input.Password
              size="large"
              prefix={renderIcon('lock')}
              placeholder={t('auth.field.confirmPassword')}
              aria-label={t('auth.field.confirmPassword')}
              maxLength={PASSWORD_MAX}
              autoComplete="new-password"
              data-testid="reset-confirm"
            />
          </Form.Item>
          <button type="submit" hidden />
        </Form>
      </div>
    </Modal>
  );
}

export default ResetPasswordModal;
