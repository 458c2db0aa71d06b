/**
 * antd Form rules for the identity forms (login, reset, change password), built from
 * the pure checks in ./rules.ts so one rule has one source. Texts come from the
 * shared validation namespace and auth.field.* labels.
 */
import type { FormInstance, FormRule } from 'antd';
import type { TFunction } from 'i18next';
import { isMobile, isPasswordShape, isSmsCode } from './rules';

type T = TFunction;

export function mobileRules(t: T): FormRule[] {
  const field = t('auth.field.mobile');
  return [
    { required: true, message: t('validation.required', { field }) },
    { validator: async (_r, v?: string) => (!v || isMobile(v) ? undefined : Promise.reject(new Error(t('auth.rule.mobile')))) },
  ];
}

/** "Not empty", with the field's label (a locale key) in the message. */
export function requiredRule(t: T, labelKey: string): FormRule {
  return { required: true, message: t('validation.required', { field: t(labelKey) }) };
}

/** A password typed to log in: only "not empty" (spec section 5). */
export function loginPasswordRules(t: T): FormRule[] {
  return [requiredRule(t, 'auth.field.password')];
}

export function smsCodeRules(t: T): FormRule[] {
  const field = t('auth.field.smsCode');
  return [
    { required: true, message: t('validation.required', { field }) },
    { validator: async (_r, v?: string) => (!v || isSmsCode(v) ? undefined : Promise.reject(new Error(t('auth.rule.smsCode')))) },
  ];
}

export function captchaRules(t: T): FormRule[] {
  return [requiredRule(t, 'auth.field.captcha')];
}

/** New password: 8-16 allowed characters and, when `oldField` is given, not the old one. */
export function newPasswordRules(t: T, oldField?: string): FormRule[] {
  const rules: FormRule[] = [
    { required: true, message: t('validation.required', { field: t('auth.field.newPassword') }) },
    { validator: async (_r, v?: string) => (!v || isPasswordShape(v) ? undefined : Promise.reject(new Error(t('auth.rule.password')))) },
  ];
  if (oldField) {
    rules.push((form: Pick<FormInstance, 'getFieldValue'>) => ({
      validator: async (_r, v?: string) =>
        v && v === form.getFieldValue(oldField) ? Promise.reject(new Error(t('auth.rule.sameAsOld'))) : undefined,
    }));
  }
  return rules;
}

export function confirmPasswordRules(t: T, newField: string): FormRule[] {
  return [
    { required: true, message: t('validation.required', { field: t('auth.field.confirmPassword') }) },
    (form: Pick<FormInstance, 'getFieldValue'>) => ({
      validator: async (_r, v?: string) =>
        v && v !== form.getFieldValue(newField) ? Promise.reject(new Error(t('auth.rule.mismatch'))) : undefined,
    }),
  ];
}
