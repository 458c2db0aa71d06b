/**
 * SSO hand-off (spec section 2, public route): /authredirect?token=…&redirect=… stores
 * the token it is handed and goes on; the route guard then loads the user info as on
 * any first entry. Without a token it goes to /login. The redirect is kept only when it
 * is a path on this site.
 */
import { useEffect } from 'react';
import { useLocation, useNavigate } from 'umi';
import { LOGIN_PATH, safeRedirect } from '../../session/guard';
import { startSession } from '../../session/store';

export default function AuthRedirect() {
  const { search } = useLocation();
  const navigate = useNavigate();

  useEffect(() => {
    const params = new URLSearchParams(search);
    const token = params.get('token');
    const redirect = safeRedirect(params.get('redirect'));
    if (!token) {
      navigate(redirect === '/' ? LOGIN_PATH : `${LOGIN_PATH}?redirect=${encodeURIComponent(redirect)}`, { replace: true });
      return;
    }
    startSession(token);
    navigate(redirect, { replace: true });
  }, [search, navigate]);

  return <div data-testid="auth-redirect" />;
}
