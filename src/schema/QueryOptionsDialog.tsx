/**
 * The query-options dialog of a list (spec section 2, "list-column and query option
 * settings"): the view's query fields with a checkbox (shown in the query bar) and up /
 * down buttons (their order). The caller stores the rows as the user's setting.
 */
import { ArrowDownOutlined, ArrowUpOutlined } from '@ant-design/icons';
import { Button, Checkbox, Flex, Modal, Space, Typography } from 'antd';
import { useState } from 'react';
import { moveItem, querySettingRows, type QuerySetting } from './layout';
import { fieldLabelKey } from './toFormily';
import type { View } from './types';
import { useTranslate } from './useTranslate';

export interface QueryOptionsDialogProps {
  view: View;
  setting: QuerySetting[] | undefined;
  onClose: () => void;
  /** Resolves when stored; the dialog stays open (and busy) until then. */
  onSave: (rows: QuerySetting[]) => Promise<void>;
}

export function QueryOptionsDialog({ view, setting, onClose, onSave }: QueryOptionsDialogProps) {
  const { t } = useTranslate();
  const [rows, setRows] = useState(() => querySettingRows(view, setting));
  const [saving, setSaving] = useState(false);

  const save = async () => {
    setSaving(true);
    try {
      await onSave(rows);
    } catch {
      // The request wrapper has already told the user; the dialog keeps the choice.
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      open
      title={t('entity.settings.queryOptions')}
      width={480}
      onCancel={onClose}
      maskClosable={false}
      footer={[
        <Button key="reset" onClick={() => setRows(querySettingRows(view, undefined))} data-testid="query-options-reset">
          {t('entity.settings.reset')}
        </Button>,
        <Button key="cancel" onClick={onClose}>
          {t('common.cancel')}
        </Button>,
        <Button key="save" type="primary" loading={saving} onClick={save} data-testid="query-options-save">
          {t('entity.action.save')}
        </Button>,
      ]}
    >
      <div data-testid="query-options-dialog">
        <Typography.Paragraph type="secondary">{t('entity.settings.queryOptionsHint')}</Typography.Paragraph>
        {rows.map((row, i) => (
          <Flex key={row.key} align="center" justify="space-between" style={{ padding: '4px 0' }} data-testid={`query-option-${row.key}`}>
            <Checkbox
              checked={row.show}
              onChange={(e) => setRows((current) => current.map((r) => (r.key === row.key ? { ...r, show: e.target.checked } : r)))}
            >
              {t(fieldLabelKey(view.entity, row.key))}
            </Checkbox>
            <Space size={4}>
              <Button
                size="small"
                icon={<ArrowUpOutlined />}
                disabled={i === 0}
                aria-label={t('entity.settings.moveUp')}
                title={t('entity.settings.moveUp')}
                onClick={() => setRows((current) => moveItem(current, i, -1))}
                data-testid={`query-option-up-${row.key}`}
              />
              <Button
                size="small"
                icon={<ArrowDownOutlined />}
                disabled={i === rows.length - 1}
                aria-label={t('entity.settings.moveDown')}
                title={t('entity.settings.moveDown')}
                onClick={() => setRows((current) => moveItem(current, i, 1))}
                data-testid={`query-option-down-${row.key}`}
              />
            </Space>
          </Flex>
        ))}
      </div>
    </Modal>
  );
}

export default QueryOptionsDialog;
