/**
 * The SMS code input with its send button and the resend countdown (60 s, or what
 * the server says in resendAfter). Before sending it asks the server whether this
 * mobile needs the graphic captcha and, if so, shows it and waits for the user.
 */
import { App, Button, Form, Input } from 'antd';
import type { FormInstance } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { renderIcon } from '../../components/icons';
import { RequestError } from '../../services/request';
import { captchaRequired, sendSmsCode, type SmsPurpose } from '../../services/uaa';
import { smsCodeRules } from '../../session/formRules';
import { CAPTCHA_FIELD } from './CaptchaField';
import { failureText } from './failure';
import type { Captcha } from './useCaptcha';

export const DEFAULT_RESEND_SECONDS = 60;

/** Seconds left before another send, ticking down once a second. */
function useCountdown(): [number, (seconds: number) => void] {
  const [until, setUntil] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until <= now) return undefined;
    const id = window.setInterval(() => setNow(Date.now()), 250);
    return () => window.clearInterval(id);
  }, [until, now]);
  const left = Math.max(0, Math.ceil((until - now) / 1000));
  return [left, (seconds: number) => {
    const t0 = Date.now();
    setNow(t0);
    setUntil(t0 + seconds * 1000);
  }];
}

export interface SmsCodeFieldProps {
  form: FormInstance;
  purpose: SmsPurpose;
  captcha: Captcha;
  testIdPrefix: string;
  /** Shows a failure (or clears it with null) where the form shows its errors. */
  onError: (text: string | null) => void;
}

export function SmsCodeField({ form, purpose, captcha, testIdPrefix, onError }: SmsCodeFieldProps) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [left, start] = useCountdown();
  const [sending, setSending] = useState(false);

  const send = async () => {
    onError(null);
    let mobile: string;
    try {
      mobile = (await form.validateFields(['mobile'])).mobile;
    } catch {
      return;
    }
    if (!captcha.visible) {
      const needed = await captchaRequired(mobile).catch(() => ({ required: false }));
      if (needed.required) {
        await captcha.refresh();
        onError(t('auth.captcha.needed'));
        return;
      }
    } else if (!form.getFieldValue(CAPTCHA_FIELD)?.trim()) {
      onError(t('auth.captcha.needed'));
      return;
    }
    setSending(true);
    try {
      const reply = await sendSmsCode(mobile, purpose, captcha.answer(form.getFieldValue(CAPTCHA_FIELD)));
      start(reply?.resendAfter ?? DEFAULT_RESEND_SECONDS);
      message.success(t('auth.sms.sent'));
      if (captcha.visible) {
        form.setFieldValue(CAPTCHA_FIELD, undefined);
        void captcha.refresh();
      }
    } catch (e) {
      const err = e as RequestError;
      onError(failureText(err, t));
      if (err.code === 'UAA107' || err.code === 'UAA104' || captcha.visible) {
        form.setFieldValue(CAPTCHA_FIELD, undefined);
        void captcha.refresh();
      }
    } finally {
      setSending(false);
    }
  };

  const label = t('auth.field.smsCode');
  return (
    <div style={{ display: 'flex', gap: 8, alignItems: 'flex-start' }}>
      <Form.Item name="smsCode" rules={smsCodeRules(t)} style={{ flex: 1 }}>
        <Input
          size="large"
          prefix={renderIcon('smsCode')}
          placeholder={label}
          aria-label={label}
          maxLength={6}
          inputMode="numeric"
          autoComplete="one-time-code"
          data-testid={`${testIdPrefix}-sms-code`}
        />
      </Form.Item>
      <Button
        size="large"
        style={{ width: 120, flex: 'none' }}
        disabled={left > 0}
        loading={sending}
        onClick={() => void send()}
        data-testid={`${testIdPrefix}-send-sms`}
      >
        {left > 0 ? t('auth.sms.resendIn', { seconds: left }) : t('auth.sms.send')}
      </Button>
    </div>
  );
}
