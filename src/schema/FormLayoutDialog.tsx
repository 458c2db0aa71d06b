/**
 * The page-configuration dialog (spec section 2): the form's groups with their fields;
 * a field moves to another group (a select) or up and down within its group. Saving
 * stores the layout for the current hospital, for everyone of it (the server checks
 * reportPage:edit). The moves are ./layout.ts's, so what the dialog shows is what the
 * form will render.
 */
import { ArrowDownOutlined, ArrowUpOutlined } from '@ant-design/icons';
import { App, Button, Flex, Modal, Select, Space, Typography } from 'antd';
import { useState } from 'react';
import { screenSettings } from '../services/screenSettings';
import { mergeFormLayout, moveFieldToGroup, moveFieldWithin, toFormLayout, type FormLayout } from './layout';
import { fieldLabelKey, groupLabelKey } from './toFormily';
import type { View } from './types';
import { useTranslate } from './useTranslate';
import { viewName } from './views';

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
  const [saving, setSaving] = useState(false);
  const groupOptions = view.form.groups.map((g) => ({ value: g.key, label: t(groupLabelKey(g.key)) }));

  const save = async () => {
    setSaving(true);
    try {
      const saved = await screenSettings.saveFormLayout(viewName(view), toFormLayout(groups));
      message.success(t('entity.settings.saved'));
      onSaved(saved);
    } catch {
      // The request wrapper has already told the user.
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      open
      title={t('entity.settings.pageConfig')}
      width={640}
      onCancel={onClose}
      maskClosable={false}
      footer={[
        <Button key="reset" onClick={() => setGroups(mergeFormLayout(view, null))} data-testid="page-config-reset">
          {t('entity.settings.reset')}
        </Button>,
        <Button key="cancel" onClick={onClose}>
          {t('common.cancel')}
        </Button>,
        <Button key="save" type="primary" loading={saving} onClick={save} data-testid="page-config-save">
          {t('entity.action.save')}
        </Button>,
      ]}
    >
      <div data-testid="page-config-dialog">
        <Typography.Paragraph type="secondary">{t('entity.settings.pageConfigHint')}</Typography.Paragraph>
        {groups.map((g) => (
          <section key={g.key} data-testid={`layout-group-${g.key}`} style={{ marginBottom: 16 }}>
            <Typography.Title level={5}>{t(groupLabelKey(g.key))}</Typography.Title>
            {g.fields.length === 0 && <Typography.Text type="secondary">{t('entity.settings.emptyGroup')}</Typography.Text>}
            {g.fields.map((f, i) => (
              <Flex key={f} align="center" justify="space-between" gap={8} style={{ padding: '4px 0' }} data-testid={`layout-field-${f}`}>
                <Typography.Text>{t(fieldLabelKey(view.entity, f))}</Typography.Text>
                <Space size={4}>
                  <Select
                    size="small"
                    style={{ width: 180 }}
                    value={g.key}
                    options={groupOptions}
                    aria-label={t('entity.settings.group')}
                    onChange={(to: string) => setGroups((current) => moveFieldToGroup(current, f, to))}
                  />
                  <Button
                    size="small"
                    icon={<ArrowUpOutlined />}
                    disabled={i === 0}
                    aria-label={t('entity.settings.moveUp')}
                    title={t('entity.settings.moveUp')}
                    onClick={() => setGroups((current) => moveFieldWithin(current, f, -1))}
                    data-testid={`layout-up-${f}`}
                  />
                  <Button
                    size="small"
                    icon={<ArrowDownOutlined />}
                    disabled={i === g.fields.length - 1}
                    aria-label={t('entity.settings.moveDown')}
                    title={t('entity.settings.moveDown')}
                    onClick={() => setGroups((current) => moveFieldWithin(current, f, 1))}
                    data-testid={`layout-down-${f}`}
                  />
                </Space>
              </Flex>
            ))}
          </section>
        ))}
      </div>
    </Modal>
  );
}

export default FormLayoutDialog;
