/**
 * The exam-upload notification settings (spec section 2 "Settings", section 3
 * commonSetting.examNotice): report and remote centre, frequency in minutes, duration
 * in seconds, the remote pop-up's sound and its address. The form is the schema form
 * of entities/commonSetting.json's examNotice part (its limits and texts); saving
 * posts the module to the user centre, which validates it again, then fetches user
 * info afresh so the pop-ups (./NoticeCenter) follow at once. Loaded on first use.
 */
import { createForm } from '@formily/core';
import { App } from 'antd';
import { useMemo } from 'react';
import { settingDefaults } from '../../../config/settings';
import { toPayload } from '../../schema/formData';
import { entityModel, field } from '../../shared/schema/model';
import { usePermissionMap } from '../../schema/permissions';
import { SchemaForm } from '../../schema/SchemaForm';
import { SettingsDialog } from '../../schema/SettingsDialog';
import type { View } from '../../shared/schema/types';
import { showServerError } from '../../schema/useEntityForm';
import { useTranslate } from '../../schema/useTranslate';
import { loadUserInfo, useCommonSetting } from '../../session/store';
import { saveExamNotice, type ExamNotice } from './api';

const MODULE = 'examNotice';
const PROPERTIES = field(entityModel('commonSetting'), MODULE).properties ?? [];

/**
 * The form as a view of the commonSetting entity: one group, the module's fields in the
 * schema's order. Only what the schema form reads of a view is meaningful (no list, no
 * resource: the setting is saved by its own call).
 */
const SETTINGS_VIEW = {
  $id: `settings/${MODULE}`,
  entity: 'commonSetting',
  resource: '',
  permission: '',
  list: { columns: [] },
  routes: { list: '' },
  form: { columns: 1, groups: [{ key: MODULE, fields: PROPERTIES.map((p) => p.name) }] },
  fields: {
    // An address, not prose: one line; asked for only while the sound is on.
    [`${MODULE}.audioUrl`]: { component: 'Input', visibleWhen: { [`${MODULE}.sound`]: true } },
  },
} satisfies View;

/**
 * What "restore defaults" puts back: the user's own defaults (on for those who write or
 * review, config/settings.ts, as the server has them) over the schema's.
 */
const SCHEMA_DEFAULTS = Object.fromEntries(PROPERTIES.map((p) => [p.name.slice(MODULE.length + 1), p.default]));

export function NoticeSettings({ onClose }: { onClose(): void }) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const stored = useCommonSetting()?.examNotice;
  const rights = usePermissionMap();
  const form = useMemo(() => createForm({ initialValues: { [MODULE]: stored } }), []); // eslint-disable-line react-hooks/exhaustive-deps

  // Invalid fields and a refusal are shown where they happen; the dialog then stays open.
  const save = () =>
    form.submit(async (values: Record<string, unknown>) => {
      const value = toPayload(SETTINGS_VIEW, values)[MODULE] as ExamNotice;
      try {
        await saveExamNotice(value);
      } catch (e) {
        showServerError(form, e);
        throw e;
      }
      await loadUserInfo({ force: true });
      message.success(t('entity.notice.settings.saved'));
      onClose();
    });

  return (
    <SettingsDialog
      testId="notice-settings"
      title={t('entity.notice.settings.title')}
      hint={t('entity.notice.settings.hint')}
      width={520}
      onReset={() => form.setValues({ [MODULE]: { ...SCHEMA_DEFAULTS, ...settingDefaults(rights)[MODULE] } }, 'overwrite')}
      onSave={save}
      onClose={onClose}
    >
      <SchemaForm view={SETTINGS_VIEW} form={form} mode="edit" />
    </SettingsDialog>
  );
}

export default NoticeSettings;
