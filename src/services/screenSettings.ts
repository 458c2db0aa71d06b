/**
 * Screen settings of the user centre (/api/ucenter/v1) through the generated calls:
 * a user's list settings and a hospital's form layouts, by module (a view name).
 * Reads are quiet: a screen whose setting cannot be read shows its view's defaults,
 * which is no reason to interrupt the user. `request` is injectable for tests.
 */
import { getOrgConfigByModule, getUserConfigByModule, postOrgConfig, postUserConfig } from './generated/ucenter';
import type { FormLayout } from '../shared/generated/entities/formLayout';
import type { ScreenSetting } from '../shared/generated/entities/screenSetting';
import type { RequestFn } from './request';

export interface ScreenSettingsApi {
  userSetting(module: string): Promise<ScreenSetting | null>;
  saveUserSetting(module: string, value: ScreenSetting): Promise<ScreenSetting>;
  formLayout(module: string): Promise<FormLayout | null>;
  saveFormLayout(module: string, value: FormLayout): Promise<FormLayout>;
}

export function screenSettingsApi(request?: RequestFn): ScreenSettingsApi {
  return {
    userSetting: async (module) => (await getUserConfigByModule(module, { quiet: true, request })) ?? null,
    saveUserSetting: (module, value) => postUserConfig({ module, value }, { request }),
    formLayout: async (module) => (await getOrgConfigByModule(module, { quiet: true, request })) ?? null,
    saveFormLayout: (module, value) => postOrgConfig({ module, value }, { request }),
  };
}

export const screenSettings = screenSettingsApi();
