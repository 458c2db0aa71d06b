/**
 * The query-options dialog of a list (spec section 2, "list-column and query option
 * settings"): the view's query fields with a checkbox (shown in the query bar) and up /
 * down buttons (their order). The caller stores the rows as the user's setting.
 */
import { Checkbox, Flex } from 'antd';
import { useState } from 'react';
import { moveItem, querySettingRows, type QuerySetting } from './layout';
import { MoveButtons, SettingsDialog } from './SettingsDialog';
import { fieldLabelKey } from './toFormily';
import type { View } from '../shared/schema/types';
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
  return (
    <SettingsDialog
      testId="query-options"
      title={t('entity.settings.queryOptions')}
      hint={t('entity.settings.queryOptionsHint')}
      width={480}
      onReset={() => setRows(querySettingRows(view, undefined))}
      onSave={() => onSave(rows)}
      onClose={onClose}
    >
      {rows.map((row, i) => (
        <Flex key={row.key} align="center" justify="space-between" style={{ padding: '4px 0' }} data-testid={`query-option-${row.key}`}>
          <Checkbox
            checked={row.show}
            onChange={(e) => setRows((current) => current.map((r) => (r.key === row.key ? { ...r, show: e.target.checked } : r)))}
          >
            {t(fieldLabelKey(view.entity, row.key))}
          </Checkbox>
          <MoveButtons
            prefix="query-option"
            item={row.key}
            first={i === 0}
            last={i === rows.length - 1}
            onMove={(by) => setRows((current) => moveItem(current, i, by))}
          />
        </Flex>
      ))}
    </SettingsDialog>
  );
}

export default QueryOptionsDialog;
