/** The captcha row of a form: the code input and the image (click to refresh). */
import { Form, Input, Skeleton, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { renderIcon } from '../../components/icons';
import { captchaRules } from '../../session/formRules';
import type { Captcha } from './useCaptcha';

export const CAPTCHA_FIELD = 'captchaCode';

export function CaptchaField({ captcha, testIdPrefix }: { captcha: Captcha; testIdPrefix: string }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  if (!captcha.visible) return null;
  const label = t('auth.field.captcha');
  return (
    <div style={{ display: 'flex', gap: 8, alignItems: 'flex-start' }}>
      <Form.Item name={CAPTCHA_FIELD} rules={captchaRules(t)} style={{ flex: 1 }}>
        <Input
          size="large"
          prefix={renderIcon('captcha')}
          placeholder={label}
          aria-label={label}
          maxLength={8}
          autoComplete="off"
          data-testid={`${testIdPrefix}-captcha-input`}
        />
      </Form.Item>
      <button
        type="button"
        onClick={() => void captcha.refresh()}
        title={t('auth.captcha.refresh')}
        aria-label={t('auth.captcha.refresh')}
        data-testid={`${testIdPrefix}-captcha-image`}
        // Which captcha the image on screen is (a test answers that one, not the newest issued).
        data-captcha-key={captcha.image && !captcha.loading ? captcha.captchaKey : undefined}
        style={{
          width: 120,
          height: 40,
          padding: 0,
          flex: 'none',
          border: `1px solid ${token.colorBorder}`,
          borderRadius: token.borderRadiusLG,
          background: '#fff',
          cursor: 'pointer',
          overflow: 'hidden',
          display: 'grid',
          placeItems: 'center',
          color: token.colorTextSecondary,
          fontSize: 12,
        }}
      >
        {captcha.image && !captcha.loading ? (
          <img src={captcha.image} alt={t('auth.captcha.alt')} style={{ width: '100%', height: '100%', objectFit: 'contain' }} />
        ) : captcha.failed ? (
          t('auth.captcha.failed')
        ) : (
          <Skeleton.Button active size="small" style={{ width: 100 }} />
        )}
      </button>
    </div>
  );
}
