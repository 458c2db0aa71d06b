/**
 * The text a login or password form shows for a failed call (spec section 8 and the
 * identity contract): the localized catalogue text, plus what the reply carries —
 * attempts left after a wrong password or SMS code (UAA002, UAA101), the time a locked account opens
 * again (UAA009).
 */
import type { TFunction } from 'i18next';
import { NETWORK_ERROR, type RequestError } from '../../services/request';
import type { LoginFailureDetail } from '../../services/uaa';
import { formatTime } from '../../shared/format';

type T = TFunction;

export function failureDetail(err: Pick<RequestError, 'data'>): LoginFailureDetail {
  const d = (err.data && typeof err.data === 'object' ? err.data : {}) as Record<string, unknown>;
  return {
    remainingAttempts: typeof d.remainingAttempts === 'number' ? d.remainingAttempts : undefined,
    captchaRequired: d.captchaRequired === true,
    lockedUntil: typeof d.lockedUntil === 'string' ? d.lockedUntil : undefined,
  };
}

export function failureText(err: Pick<RequestError, 'code' | 'message' | 'data'>, t: T): string {
  if (err.code === NETWORK_ERROR) return t('error.network');
  const detail = failureDetail(err);
  if (err.code === 'UAA009' && detail.lockedUntil) return t('auth.login.lockedUntil', { time: formatTime(detail.lockedUntil) });
  // Wrong password (UAA002) or SMS code (UAA101): the server counts both towards the lock.
  if (detail.remainingAttempts !== undefined) {
    return detail.remainingAttempts > 0
      ? t('auth.login.remainingAttempts', { message: err.message, attempts: detail.remainingAttempts })
      : t('auth.login.noAttemptsLeft', { message: err.message });
  }
  return err.message || t('error.common');
}
