/**
 * Screen settings of the user centre (/api/ucenter/v1) over the one request wrapper:
 * a user's list settings and a hospital's form layouts, by module (a view name).
 * Reads are quiet: a screen whose setting cannot be read shows its view's defaults,
 * which is no reason to interrupt the user. `req` is injectable for tests.
 */
import type { FormLayout } from '../shared/generated/entities/formLayout';
import type { ScreenSetting } from '../shared/generated/entities/screenSetting';
import { request as defaultRequest, type RequestFn } from './request';

export const UCENTER = '/api/ucenter/v1';

export interface ScreenSettingsApi {
  userSetting(module: string): Promise<ScreenSetting | null>;
  saveUserSetting(module: string, value: ScreenSetting): Promise<ScreenSetting>;
  formLayout(module: string): Promise<FormLayout | null>;
  saveFormLayout(module: string, value: FormLayout): Promise<FormLayout>;
}

export function screenSettingsApi(req: RequestFn = defaultRequest): ScreenSettingsApi {
  const path = (kind: 'user' | 'org', module?: string) =>
    `${UCENTER}/${kind}/config${module === undefined ? '' : `/${encodeURIComponent(module)}`}`;
  return {
    userSetting: async (module) => (await req<ScreenSetting | null>(path('user', module), { quiet: true })) ?? null,
    saveUserSetting: (module, value) => req<ScreenSetting>(path('user'), { method: 'POST', body: { module, value } }),
    formLayout: async (module) => (await req<FormLayout | null>(path('org', module), { quiet: true })) ?? null,
    saveFormLayout: (module, value) => req<FormLayout>(path('org'), { method: 'POST', body: { module, value } }),
  };
}

export const screenSettings = screenSettingsApi();
