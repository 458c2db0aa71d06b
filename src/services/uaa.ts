/**
 * The identity service (/api/uaa/v1): the generated calls (./generated/uaa.ts) as the
 * screens use them, with their types named once here.
 * Passwords and codes travel base64-encoded (UTF-8 text), as the server expects.
 * `quiet` calls show no toast: the login and password screens show the failure
 * themselves, next to the field it concerns.
 */
import {
  getCaptcha,
  getCaptchaRequired,
  getPasswordExpiry,
  getUserInfo,
  postBusinessCodeSmsByMobile,
  postHospitalChange,
  postLogin,
  postLogout,
  postPasswordReset,
  postPasswordUpdate,
  type PostBusinessCodeSmsByMobileBody,
  type GetUserInfoData,
  type PostLoginData,
  type PostLoginForm,
} from './generated/uaa';
import type { CommonSetting } from '../shared/generated/entities/commonSetting';

export type SmsPurpose = Exclude<NonNullable<PostBusinessCodeSmsByMobileBody>['purpose'], undefined>;
export type LoginType = PostLoginForm['loginType'];

export type HospitalRef = GetUserInfoData['hospitals'][number];
export type { CommonSetting };
/** GET user/info: the session's user as the server declares it (entities/userSession.json). */
export type UserInfo = GetUserInfoData;
export type LoginResult = PostLoginData;

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

export function captchaRequired(mobile: string) {
  return getCaptchaRequired({ mobile }, { quiet: true });
}

export function fetchCaptcha() {
  return getCaptcha({ quiet: true });
}

export interface CaptchaAnswer {
  captchaKey?: string;
  captchaCode?: string;
}

export function sendSmsCode(
  mobile: string,
  purpose: SmsPurpose,
  captcha: CaptchaAnswer = {},
) {
  return postBusinessCodeSmsByMobile(mobile, { purpose, ...captcha }, { quiet: true });
}

export interface LoginInput extends CaptchaAnswer {
  loginType: LoginType;
  mobile: string;
  password?: string;
  smsCode?: string;
  hospitalId?: number;
  rememberMe: boolean;
}

export function login(input: LoginInput) {
  return postLogin(
    {
      loginType: input.loginType,
      mobile: input.mobile,
      password: input.password !== undefined ? encodeSecret(input.password) : undefined,
      smsCode: input.smsCode !== undefined ? encodeSecret(input.smsCode) : undefined,
      captchaKey: input.captchaKey,
      captchaCode: input.captchaCode,
      hospitalId: input.hospitalId,
      rememberMe: input.rememberMe,
    },
    { quiet: true },
  );
}

export function changeHospital(hospitalId: number) {
  return postHospitalChange({ hospitalId });
}

export function fetchUserInfo() {
  return getUserInfo();
}

export async function logout(): Promise<void> {
  await postLogout({ quiet: true });
}

export interface PasswordChange {
  oldPassword: string;
  newPassword: string;
  confirmPassword: string;
}

export function updatePassword(input: PasswordChange) {
  return postPasswordUpdate(
    { oldPassword: encodeSecret(input.oldPassword), newPassword: encodeSecret(input.newPassword), confirmPassword: encodeSecret(input.confirmPassword) },
    { quiet: true },
  );
}

export interface PasswordReset {
  mobile: string;
  smsCode: string;
  newPassword: string;
  confirmPassword: string;
}

export function resetPassword(input: PasswordReset) {
  return postPasswordReset(
    { mobile: input.mobile, smsCode: encodeSecret(input.smsCode), newPassword: encodeSecret(input.newPassword), confirmPassword: encodeSecret(input.confirmPassword) },
    { quiet: true },
  );
}

export function passwordExpiry() {
  return getPasswordExpiry();
}
