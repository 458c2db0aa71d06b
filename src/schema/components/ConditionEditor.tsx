/**
 * A custom data scope: AND/OR over rows of field, operator, value (operators from the
 * dataScopeOperator code table). With `withMode` (the user's data scope) a switch
 * between all data and custom conditions comes first; "all" keeps no conditions.
 * Checks its own rows (none empty) as a field validator. Read-pretty is one line per
 * condition.
 */
import { PreviewText } from '@formily/antd-v5';
import type { Field } from '@formily/core';
import { connect, mapProps, mapReadPretty, useField } from '@formily/react';
import { Button, Input, Radio, Select, Space, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { codeOptions } from '../../shared/schema/schemas';

export interface Condition {
  field: string;
  op: string;
  value: string;
}

export interface ConditionValue {
  mode?: 'all' | 'custom';
  logic?: 'and' | 'or';
  conditions?: Condition[];
}

interface Props {
  value?: ConditionValue | null;
  onChange?: (value: ConditionValue) => void;
  withMode?: boolean;
  disabled?: boolean;
}

const EMPTY_ROW: Condition = { field: '', op: 'eq', value: '' };

/** Rows with a blank field, operator or value. */
export function incompleteRows(value: ConditionValue | null | undefined): number[] {
  if (!value || value.mode === 'all') return [];
  return (value.conditions ?? [])
    .map((c, i) => (!c.field?.trim() || !c.op || !String(c.value ?? '').trim() ? i : -1))
    .filter((i) => i >= 0);
}

function ConditionEditorInput({ value, onChange, withMode, disabled }: Props) {
  const { t } = useTranslation();
  const field = useField<Field>();
  const v: ConditionValue = value ?? {};
  const custom = !withMode || v.mode === 'custom';
  const rows = v.conditions ?? [];
  const bad = new Set(incompleteRows(custom ? v : { mode: 'all' }));

  useEffect(() => {
    if (!field || typeof field.setValidatorRule !== 'function') return;
    field.setValidatorRule('validator', (current: ConditionValue) =>
      incompleteRows(current).length ? t('entity.condition.incomplete') : '',
    );
  }, [field, t]);

  const emit = (next: ConditionValue) => onChange?.(next);
  const setRows = (next: Condition[]) => emit({ ...v, logic: v.logic ?? 'and', conditions: next });
  const setRow = (i: number, patch: Partial<Condition>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  return (
    <div data-testid="condition-editor" style={{ display: 'flex', flexDirection: 'column', gap: 8, width: '100%' }}>
      {withMode && (
        <Radio.Group
          disabled={disabled}
          value={v.mode ?? 'all'}
          onChange={(e) =>
            emit(
              e.target.value === 'all'
                ? { mode: 'all' }
                : { mode: 'custom', logic: v.logic ?? 'and', conditions: rows.length ? rows : [EMPTY_ROW] },
            )
          }
          options={codeOptions('roleDataScope', t)
            .filter((o) => o.value !== 'own')
            .map((o) => ({ value: o.value as string, label: o.label }))}
        />
      )}
      {custom && (
        <>
          <Space>
            <Typography.Text type="secondary">{t('entity.condition.logic')}</Typography.Text>
            <Radio.Group
              disabled={disabled}
              optionType="button"
              size="small"
              value={v.logic ?? 'and'}
              onChange={(e) => emit({ ...v, logic: e.target.value, conditions: rows })}
              options={codeOptions('dataScopeLogic', t).map((o) => ({ value: o.value as string, label: o.label }))}
            />
          </Space>
          {rows.map((row, i) => (
            <Space key={i} align="start" wrap data-testid="condition-row">
              <Input
                disabled={disabled}
                status={bad.has(i) && !row.field?.trim() ? 'error' : undefined}
                style={{ width: 180 }}
                maxLength={32}
                placeholder={t('entity.condition.field')}
                value={row.field}
                onChange={(e) => setRow(i, { field: e.target.value })}
              />
              <Select
                disabled={disabled}
                style={{ width: 140 }}
                value={row.op}
                onChange={(op: string) => setRow(i, { op })}
                options={codeOptions('dataScopeOperator', t).map((o) => ({ value: o.value as string, label: o.label }))}
              />
              <Input
                disabled={disabled}
                status={bad.has(i) && !String(row.value ?? '').trim() ? 'error' : undefined}
                style={{ width: 220 }}
                maxLength={200}
                placeholder={t('entity.condition.value')}
                value={row.value}
                onChange={(e) => setRow(i, { value: e.target.value })}
              />
              <Button disabled={disabled} onClick={() => setRows(rows.filter((_, j) => j !== i))}>
                {t('entity.action.delete')}
              </Button>
            </Space>
          ))}
          <div>
            <Button type="dashed" disabled={disabled} onClick={() => setRows([...rows, EMPTY_ROW])}>
              {t('entity.condition.add')}
            </Button>
          </div>
        </>
      )}
    </div>
  );
}

function ConditionEditorText({ value, withMode }: Props) {
  const { t } = useTranslation();
  const v = value ?? {};
  if (withMode && v.mode !== 'custom') return <PreviewText.Input value={t('code.roleDataScope.all')} />;
  const rows = v.conditions ?? [];
  if (!rows.length) return <PreviewText.Input value={undefined} />;
  const logic = t(`code.dataScopeLogic.${v.logic ?? 'and'}`);
  return (
    <div data-testid="condition-editor">
      {rows.map((c, i) => (
        <div key={i}>
          {i > 0 && <Typography.Text type="secondary">{logic} </Typography.Text>}
          {c.field} {t(`code.dataScopeOperator.${c.op}`)} {c.value}
        </div>
      ))}
    </div>
  );
}

export const ConditionEditor = connect(
  ConditionEditorInput,
  mapProps((props: Props) => ({ ...props, value: props.value ?? {} })),
  mapReadPretty(ConditionEditorText),
);

export default ConditionEditor;
