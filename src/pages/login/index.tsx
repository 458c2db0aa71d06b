/**
 * /login (spec section 2 "Login screen"): password and SMS tabs, the graphic captcha
 * when the server asks for it, 7-day auto login (Remember-Me), forgot password, the
 * hospital chooser for users of several hospitals, then on to `redirect` (or /).
 * Every failure of the login contract is shown in one place (data-testid login-error).
 */
import { Alert, Button, Checkbox, Form, Input, Tabs, Typography, theme } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'umi';
import { renderIcon } from '../../components/icons';
import { LanguageSwitch } from '../../layouts/NavbarActions';
import { RequestError } from '../../services/request';
import { captchaRequired, changeHospital, login, type HospitalRef, type LoginType } from '../../services/uaa';
import { loginPasswordRules, mobileRules } from '../../session/formRules';
import { needsHospitalChoice, safeRedirect } from '../../session/guard';
import HospitalChooser from '../../session/HospitalChooser';
import { isMobile, PASSWORD_MAX } from '../../session/rules';
import { browserStorage, readRememberMe, writeRememberMe } from '../../session/storage';
import { signOut, startSession } from '../../session/store';
import { CAPTCHA_FIELD, CaptchaField } from './CaptchaField';
import { failureDetail, failureText } from './failure';
import styles from './index.less';
import ResetPasswordModal from './ResetPasswordModal';
import { SmsCodeField } from './SmsCodeField';
import { useCaptcha } from './useCaptcha';

interface Values {
  mobile: string;
  password?: string;
  smsCode?: string;
  captchaCode?: string;
  rememberMe?: boolean;
}

/** Codes after which the captcha must show (again): needed, wrong, or the account is now watched. */
const CAPTCHA_CODES = new Set(['UAA107', 'UAA104', 'UAA002']);

function BrandPanel() {
  const { t } = useTranslation();
  const features: Array<[string, string]> = [
    ['exam', 'auth.brand.feature.registration'],
    ['report', 'auth.brand.feature.report'],
    ['teleConsultionPlatform', 'auth.brand.feature.remote'],
    ['stat', 'auth.brand.feature.quality'],
  ];
  return (
    <aside className={styles.brand}>
      <div className={styles.brandTop}>
        <span className={styles.brandLogo}>{renderIcon('logo')}</span>
        <span className={styles.brandName}>{t('common.appName')}</span>
      </div>
      <div className={styles.brandBody}>
        <h1 className={styles.headline}>{t('auth.brand.headline')}</h1>
        <p className={styles.tagline}>{t('auth.brand.tagline')}</p>
        <ul className={styles.features}>
          {features.map(([icon, key]) => (
            <li key={key}>
              <span className={styles.featureIcon}>{renderIcon(icon)}</span>
              {t(key)}
            </li>
          ))}
        </ul>
      </div>
      <div className={styles.brandFoot}>{t('auth.brand.footer', { year: new Date().getFullYear(), appName: t('common.appName') })}</div>
    </aside>
  );
}

export default function LoginPage() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const navigate = useNavigate();
  const { search } = useLocation();
  const redirect = safeRedirect(new URLSearchParams(search).get('redirect'));
  const [form] = Form.useForm<Values>();
  const [tab, setTab] = useState<LoginType>('password');
  const captcha = useCaptcha();
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [hospitals, setHospitals] = useState<HospitalRef[] | null>(null);
  const [resetFor, setResetFor] = useState<string | null>(null);
  const checkedMobile = useRef<string | null>(null);

  const goOn = () => navigate(redirect, { replace: true });

  /**
   * After the mobile is typed: does the server want the captcha for it? Shown when it
   * does, hidden again for a mobile that does not need it (checked once per mobile).
   */
  const checkCaptcha = async (value?: string) => {
    const mobile = (value ?? form.getFieldValue('mobile'))?.trim();
    if (!mobile || !isMobile(mobile) || checkedMobile.current === mobile) return;
    checkedMobile.current = mobile;
    const reply = await captchaRequired(mobile).catch(() => null);
    if (!reply || checkedMobile.current !== mobile) return;
    if (reply.required && !captcha.visible) await captcha.refresh();
    else if (!reply.required && captcha.visible) {
      captcha.hide();
      form.setFieldValue(CAPTCHA_FIELD, undefined);
    }
  };

  const submit = async (values: Values) => {
    setSubmitting(true);
    setError(null);
    const rememberMe = !!values.rememberMe;
    // The request wrapper sends Remember-Me on the login call from storage.
    writeRememberMe(browserStorage(), rememberMe);
    try {
      const result = await login({
        loginType: tab,
        mobile: values.mobile.trim(),
        password: tab === 'password' ? values.password : undefined,
        smsCode: tab === 'sms' ? values.smsCode?.trim() : undefined,
        ...captcha.answer(values.captchaCode),
        rememberMe,
      });
      startSession(result.token, { rememberMe });
      // An expired password comes first (the guard forces the change, which ends the
      // session); the server refuses a hospital change until then.
      if (!result.passwordExpired && needsHospitalChoice(result)) {
        setHospitals(result.hospitals ?? []);
      } else {
        goOn();
      }
    } catch (e) {
      const err = e as RequestError;
      setError(failureText(err, t));
      checkedMobile.current = values.mobile.trim();
      if (captcha.visible || CAPTCHA_CODES.has(err.code) || failureDetail(err).captchaRequired) {
        form.setFieldValue(CAPTCHA_FIELD, undefined);
        void captcha.refresh();
      }
      if (err.code === 'UAA002') form.setFieldValue('password', undefined);
    } finally {
      setSubmitting(false);
    }
  };

  const switchTab = (key: string) => {
    setTab(key as LoginType);
    setError(null);
  };

  const mobileLabel = t('auth.field.mobile');
  const passwordLabel = t('auth.field.password');

  return (
    <div className={styles.page} style={{ background: token.colorBgLayout }} data-testid="login-page">
      <BrandPanel />
      <main className={styles.main}>
        <div className={styles.toolbar}>
          <LanguageSwitch />
        </div>
        <div className={styles.center}>
          <section className={styles.card} style={{ background: token.colorBgContainer, boxShadow: token.boxShadowTertiary }}>
            <div className={styles.mobileBrand}>
              <span style={{ color: token.colorPrimary }}>{renderIcon('logo')}</span>
              {t('common.appName')}
            </div>
            <Typography.Title level={3} className={styles.title}>
              {t('auth.login.title')}
            </Typography.Title>
            <Typography.Text type="secondary">{t('auth.login.subtitle')}</Typography.Text>
            <Tabs
              className={styles.tabs}
              activeKey={tab}
              onChange={switchTab}
              items={[
                { key: 'password', label: <span data-testid="login-tab-password">{t('auth.login.tabPassword')}</span> },
                { key: 'sms', label: <span data-testid="login-tab-sms">{t('auth.login.tabSms')}</span> },
              ]}
            />
            <Form
              form={form}
              onFinish={(v) => void submit(v)}
              initialValues={{ rememberMe: readRememberMe(browserStorage()) }}
              autoComplete="on"
              disabled={submitting}
            >
              <Form.Item name="mobile" rules={mobileRules(t)}>
                <Input
                  size="large"
                  prefix={renderIcon('mobile')}
                  placeholder={mobileLabel}
                  aria-label={mobileLabel}
                  maxLength={14}
                  autoComplete="username"
                  inputMode="tel"
                  onBlur={() => void checkCaptcha()}
                  data-testid="login-mobile"
                />
              </Form.Item>
              {tab === 'password' ? (
                <Form.Item name="password" rules={loginPasswordRules(t)}>
                  <Input.Password
                    size="large"
                    prefix={renderIcon('lock')}
                    placeholder={passwordLabel}
                    aria-label={passwordLabel}
                    maxLength={PASSWORD_MAX}
                    autoComplete="current-password"
                    data-testid="login-password"
                  />
                </Form.Item>
              ) : (
                <SmsCodeField form={form} purpose="login" captcha={captcha} testIdPrefix="login" onError={setError} />
              )}
              <CaptchaField captcha={captcha} testIdPrefix="login" />
              <div className={styles.row}>
                <Form.Item name="rememberMe" valuePropName="checked" noStyle>
                  <Checkbox data-testid="login-remember">{t('auth.login.remember')}</Checkbox>
                </Form.Item>
                <Typography.Link onClick={() => setResetFor(form.getFieldValue('mobile') ?? '')} data-testid="reset-password">
                  {t('auth.login.forgot')}
                </Typography.Link>
              </div>
              {error && (
                <Alert type="error" showIcon message={<span data-testid="login-error">{error}</span>} className={styles.error} />
              )}
              <Button type="primary" htmlType="submit" size="large" block loading={submitting} data-testid="login-submit">
                {t('auth.login.submit')}
              </Button>
            </Form>
          </section>
        </div>
        <div className={styles.legal}>{t('auth.login.notice')}</div>
      </main>
      <HospitalChooser
        open={!!hospitals}
        hospitals={hospitals ?? []}
        testIdPrefix="hospital-choice-"
        onCancel={() => {
          setHospitals(null);
          void signOut();
        }}
        onChoose={async (id) => {
          await changeHospital(id);
          goOn();
        }}
      />
      <ResetPasswordModal
        open={resetFor !== null}
        initialMobile={resetFor ?? undefined}
        onClose={() => setResetFor(null)}
        onDone={(mobile) => {
          setResetFor(null);
          setTab('password');
          form.setFieldsValue({ mobile, password: undefined });
          setError(null);
          void checkCaptcha(mobile);
        }}
      />
    </div>
  );
}
