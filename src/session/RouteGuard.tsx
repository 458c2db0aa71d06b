/**
 * umi route wrapper (see ROUTE_GUARD in src/routes/table.ts) around the main layout,
 * each full-screen page and /login: carries out decideNavigation (./guard.ts) before
 * the page renders. While the user info loads, the navigation progress bar runs and
 * nothing else shows (spec section 2: a progress bar, no spinner).
 */
import { App, Button, Result } from 'antd';
import NProgress from 'nprogress';
import { useEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Outlet, useLocation, useNavigate } from 'umi';
import { renderIcon } from '../components/icons';
import { changeHospital } from '../services/uaa';
import ChangePasswordDialog from './ChangePasswordDialog';
import { decideNavigation, LOGIN_PATH } from './guard';
import HospitalChooser from './HospitalChooser';
import { clearSession, loadUserInfo, signOut, useSession } from './store';
import WeakPasswordReminder from './WeakPasswordReminder';

/** The plain page behind a dialog that must be answered before anything else. */
function Backdrop({ children }: { children?: React.ReactNode }) {
  const { t } = useTranslation();
  return (
    <div style={{ minHeight: '100vh', display: 'grid', placeItems: 'center' }} data-testid="session-backdrop">
      <div style={{ fontSize: 20, opacity: 0.45, display: 'flex', alignItems: 'center', gap: 10 }}>
        {renderIcon('logo')}
        {t('common.appName')}
      </div>
      {children}
    </div>
  );
}

function useProgress(active: boolean) {
  useEffect(() => {
    if (!active) return undefined;
    NProgress.start();
    return () => {
      NProgress.done();
    };
  }, [active]);
}

export default function RouteGuard() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const location = useLocation();
  const navigate = useNavigate();
  const session = useSession();
  // /login is judged when it is opened: the login page itself stores the token before
  // the user picks a hospital, and must not be sent away in the middle of that.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const tokenOnEntry = useMemo(() => session.token, [location.key]);
  const onLogin = location.pathname === LOGIN_PATH;

  const decision = decideNavigation({
    pathname: location.pathname,
    search: location.search,
    token: onLogin ? tokenOnEntry : session.token,
    user: session.user,
    weakReminded: session.weakReminded,
  });

  const loading = decision.action === 'loadUser' && session.status !== 'error';
  useProgress(loading);

  useEffect(() => {
    if (decision.action === 'loadUser' && session.status === 'idle') loadUserInfo().catch(() => undefined);
  }, [decision.action, session.status]);

  const refused = useRef(false);
  useEffect(() => {
    if (decision.action !== 'noMenu' || refused.current) return;
    refused.current = true;
    message.error(t('error.noMenu'));
    clearSession();
    navigate('/', { replace: true });
  }, [decision.action, message, navigate, t]);

  switch (decision.action) {
    case 'redirect':
      return <Navigate to={decision.to} replace />;
    case 'loadUser':
      if (session.status !== 'error') return null;
      return (
        <Result
          status="warning"
          title={t('auth.session.loadFailed')}
          subTitle={session.error?.message}
          extra={[
            <Button key="retry" type="primary" onClick={() => void loadUserInfo({ force: true }).catch(() => undefined)}>
              {t('common.reload')}
            </Button>,
            <Button key="login" onClick={() => void signOut()}>
              {t('auth.backToLogin')}
            </Button>,
          ]}
        />
      );
    case 'noMenu':
      return null;
    case 'changePassword':
      return (
        <Backdrop>
          <ChangePasswordDialog open forced />
        </Backdrop>
      );
    case 'chooseHospital':
      return (
        <Backdrop>
          <HospitalChooser
            open
            hospitals={session.user?.hospitals ?? []}
            testIdPrefix="hospital-choice-"
            onCancel={() => void signOut()}
            cancelText={t('auth.logout')}
            onChoose={async (id) => {
              await changeHospital(id);
              await loadUserInfo({ force: true });
            }}
          />
        </Backdrop>
      );
    case 'render':
    default:
      return (
        <>
          <Outlet />
          {decision.action === 'render' && decision.remindWeakPassword && <WeakPasswordReminder />}
        </>
      );
  }
}
