/**
 * The page-configuration dialog (spec section 2): the form's groups with their fields;
 * a field moves to another group (a select) or up and down within its group. Saving
 * stores the layout for the current hospital, for everyone of it (the server checks
 * reportPage:edit). The moves are ./layout.ts's, so what the dialog shows is what the
 * form will render.
 */
import { App, Flex, Select, Typography } from 'antd';
import { useState } from 'react';
import { screenSettings } from '../services/screenSettings';
import { mergeFormLayout, moveFieldToGroup, moveFieldWithin, toFormLayout, type FormLayout } from './layout';
import { MoveButtons, SettingsDialog } from './SettingsDialog';
import { fieldLabelKey, groupLabelKey } from './toFormily';
import type { View } from '../shared/schema/types';
import { useTranslate } from './useTranslate';
import { viewForm, viewName } from '../shared/schema/views';

export interface FormLayoutDialogProps {
  /** The view as its file has it (not laid out): its groups are the ones offered. */
  view: View;
  layout: FormLayout | null;
  onClose: () => void;
  onSaved: (layout: FormLayout) => void;
}

export function FormLayoutDialog({ view, layout, onClose, onSaved }: FormLayoutDialogProps) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const [groups, setGroups] = useState(() => mergeFormLayout(view, layout));
  const groupOptions = viewForm(view).groups.map((g) => ({ value: g.key, label: t(groupLabelKey(g.key)) }));

  const save = async () => {
    const saved = await screenSettings.saveFormLayout(viewName(view), toFormLayout(groups));
    message.success(t('entity.settings.saved'));
    onSaved(saved);
  };

  return (
    <SettingsDialog
      testId="page-config"
      title={t('entity.settings.pageConfig')}
      hint={t('entity.settings.pageConfigHint')}
      width={640}
      onReset={() => setGroups(mergeFormLayout(view, null))}
      onSave={save}
      onClose={onClose}
    >
      {groups.map((g) => (
        <section key={g.key} data-testid={`layout-group-${g.key}`} style={{ marginBottom: 16 }}>
          <Typography.Title level={5}>{t(groupLabelKey(g.key))}</Typography.Title>
          {g.fields.length === 0 && <Typography.Text type="secondary">{t('entity.settings.emptyGroup')}</Typography.Text>}
          {g.fields.map((f, i) => (
            <Flex key={f} align="center" justify="space-between" gap={8} style={{ padding: '4px 0' }} data-testid={`layout-field-${f}`}>
              <Typography.Text>{t(fieldLabelKey(view.entity, f))}</Typography.Text>
              <MoveButtons
                prefix="layout"
                item={f}
                first={i === 0}
                last={i === g.fields.length - 1}
                onMove={(by) => setGroups((current) => moveFieldWithin(current, f, by))}
                extra={
                  <Select
                    size="small"
                    style={{ width: 180 }}
                    value={g.key}
                    options={groupOptions}
                    aria-label={t('entity.settings.group')}
                    onChange={(to: string) => setGroups((current) => moveFieldToGroup(current, f, to))}
                  />
                }
              />
            </Flex>
          ))}
        </section>
      ))}
    </SettingsDialog>
  );
}

export default FormLayoutDialog;
