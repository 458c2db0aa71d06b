/**
 * Login and account field rules of spec sections 5 and 9, mirrored on the client so a
 * mistake shows before the round trip (the server is the authority). Mobile and
 * password come from the shared primitives the server validates with
 * (schemas/common.json); antd Form rules are built from these checks (./formRules.ts).
 */
import common from '../../schemas/common.json';

export const MOBILE_PATTERN = new RegExp(common.definitions.mobile.pattern);
/** 8-16 characters: digits, letters and common symbols. */
export const PASSWORD_PATTERN = new RegExp(common.definitions.password.pattern);
export const PASSWORD_MIN: number = common.definitions.password.minLength;
export const PASSWORD_MAX: number = common.definitions.password.maxLength;
/** The server sends 6-digit SMS codes. */
export const SMS_CODE_PATTERN = /^\d{6}$/;

export const isMobile = (v: string | undefined | null): boolean => !!v && MOBILE_PATTERN.test(v);
export const isPasswordShape = (v: string | undefined | null): boolean => !!v && PASSWORD_PATTERN.test(v);
export const isSmsCode = (v: string | undefined | null): boolean => !!v && SMS_CODE_PATTERN.test(v);
