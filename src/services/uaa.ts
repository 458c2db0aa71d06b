/**
 * The identity service (/api/uaa/v1) as typed calls over the one request wrapper.
 * Passwords and codes travel base64-encoded (UTF-8 text), as the server expects.
 * `quiet` calls show no toast: the login and password screens show the failure
 * themselves, next to the field it concerns.
 */
import { request } from './request';

export const UAA = '/api/uaa/v1';

export type SmsPurpose = 'login' | 'reset' | 'password';
export type LoginType = 'password' | 'sms';

export interface HospitalRef {
  id: number;
  name: string;
}

export interface CommonSetting {
  examNotice?: { noticeOpen?: boolean; modelList?: string[]; interval?: number; duration?: number; audioUrl?: string };
  viewConfig?: { openModel?: string; doubleConfig?: string[] };
  refresh?: { duration?: number };
  autoExamRemind?: { auto?: boolean };
}

export interface UserInfo {
  userId: number | string;
  name: string;
  details?: { name: string; userId: number | string };
  mobile?: string;
  roles: Array<{ id: number | string; name: string }>;
  hospitalId: number | null;
  hospitalName?: string | null;
  hospitals: HospitalRef[];
  permissionMap: Record<string, string[]>;
  menuList: string[];
  dataScopes?: unknown;
  setting?: CommonSetting;
  passwordWeak?: boolean;
  passwordExpired?: boolean;
}

export interface LoginResult {
  token: string;
  rememberMe: boolean;
  passwordWeak: boolean;
  passwordExpired: boolean;
  hospitalId: number | null;
  hospitals?: HospitalRef[];
}

/** Extra fields the server puts on a failed login reply (UAA002, UAA009). */
export interface LoginFailureDetail {
  remainingAttempts?: number;
  captchaRequired?: boolean;
  lockedUntil?: string;
}

/** base64 of the UTF-8 bytes of a text (what the server decodes for passwords and codes). */
export function encodeSecret(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function captchaRequired(mobile: string): Promise<{ required: boolean }> {
  return request(`${UAA}/captcha/required`, { query: { mobile }, quiet: true });
}

export function fetchCaptcha(): Promise<{ captchaKey: string; image: string }> {
  return request(`${UAA}/captcha`, { quiet: true });
}

export interface CaptchaAnswer {
  captchaKey?: string;
  captchaCode?: string;
}

export function sendSmsCode(
  mobile: string,
  purpose: SmsPurpose,
  captcha: CaptchaAnswer = {},
): Promise<{ expiresIn: number; resendAfter: number }> {
  return request(`${UAA}/business-code/sms/${encodeURIComponent(mobile)}`, {
    method: 'POST',
    body: { purpose, ...captcha },
    quiet: true,
  });
}

export interface LoginInput extends CaptchaAnswer {
  loginType: LoginType;
  mobile: string;
  password?: string;
  smsCode?: string;
  hospitalId?: number;
  rememberMe: boolean;
}

export function login(input: LoginInput): Promise<LoginResult> {
  return request(`${UAA}/login`, {
    form: {
      loginType: input.loginType,
      mobile: input.mobile,
      password: input.password !== undefined ? encodeSecret(input.password) : undefined,
      smsCode: input.smsCode !== undefined ? encodeSecret(input.smsCode) : undefined,
      captchaKey: input.captchaKey,
      captchaCode: input.captchaCode,
      hospitalId: input.hospitalId,
      rememberMe: input.rememberMe ? 'true' : 'false',
    },
    quiet: true,
  });
}

export function changeHospital(hospitalId: number): Promise<{ hospitalId: number; hospitalName: string }> {
  return request(`${UAA}/hospital/change`, { method: 'POST', body: { hospitalId } });
}

export function fetchUserInfo(): Promise<UserInfo> {
  return request(`${UAA}/user/info`);
}

export function logout(): Promise<void> {
  return request(`${UAA}/logout`, { method: 'POST', quiet: true });
}

export interface PasswordChange {
  oldPassword: string;
  newPassword: string;
  confirmPassword: string;
}

export function updatePassword(input: PasswordChange): Promise<null> {
  return request(`${UAA}/password/update`, {
    method: 'POST',
    body: {
      oldPassword: encodeSecret(input.oldPassword),
      newPassword: encodeSecret(input.newPassword),
      confirmPassword: encodeSecret(input.confirmPassword),
    },
    quiet: true,
  });
}

export interface PasswordReset {
  mobile: string;
  smsCode: string;
  newPassword: string;
  confirmPassword: string;
}

export function resetPassword(input: PasswordReset): Promise<null> {
  return request(`${UAA}/password/reset`, {
    method: 'POST',
    body: {
      mobile: input.mobile,
      smsCode: encodeSecret(input.smsCode),
      newPassword: encodeSecret(input.newPassword),
      confirmPassword: encodeSecret(input.confirmPassword),
    },
    quiet: true,
  });
}

export function passwordExpiry(): Promise<{ expired: boolean; weak: boolean; expiresAt: string | null; daysLeft: number | null }> {
  return request(`${UAA}/password/expiry`);
}
