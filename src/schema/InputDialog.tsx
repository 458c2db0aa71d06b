/**
 * A row action's input dialog (view rowActions[].input): asks for a reason (limits of
 * the workflow table, ./inputs) and/or a choice among the rows a call answers for the
 * row, then makes the action's call with them in the body. A refusal was shown by the
 * request wrapper (a field error lands on its field) and the dialog stays open.
 */
import { App, Form, Input, Modal, Select } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { RequestError } from '../services/request';
import { useBusy } from './useBusy';
import { VALIDATION_FAILED } from './useEntityForm';
import { loadChoices, reasonLimits, textRule, type Choice } from './inputs';
import { rowActionTextKey, runRowAction } from './rowActions';
import type { InputSpec, RowAction, View } from '../shared/schema/types';
import { useTranslate } from './useTranslate';

export interface InputDialogProps {
  view: View;
  action: RowAction & { input: InputSpec };
  row: Record<string, unknown>;
  onClose(changed: boolean): void;
}

const REASON = 'reason';

export function InputDialog({ view, action, row, onClose }: InputDialogProps) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const [form] = Form.useForm<Record<string, unknown>>();
  const [choices, setChoices] = useState<Choice[]>();
  const { reason, choose } = action.input;
  const limits = useMemo(() => (reason ? reasonLimits(reason) : undefined), [reason]);
  const reasonLabel = t(rowActionTextKey(view, action, 'Reason'));
  const chooseLabel = t(rowActionTextKey(view, action, 'Choose'));

  useEffect(() => {
    if (!choose) return undefined;
    let live = true;
    loadChoices(action, row).then(
      (list) => live && setChoices(list),
      () => live && setChoices([]),
    );
    return () => {
      live = false;
    };
    // Once per opening (see RowListDialog).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const [ok, busy] = useBusy(async () => {
    const values = await form.validateFields();
    const input: Record<string, unknown> = {};
    if (reason) input[REASON] = String(values[REASON]).trim();
    if (choose) input[choose.field] = values[choose.field];
    try {
      await runRowAction(action, row, undefined, input);
    } catch (e) {
      // The server words a refused field as the form would: put it there too.
      if (e instanceof RequestError && e.code === VALIDATION_FAILED) {
        const field = (e.data as { field?: unknown } | undefined)?.field;
        const name = field === REASON ? REASON : choose && field === choose.field ? choose.field : undefined;
        const detail = (e.data as { detail?: unknown } | undefined)?.detail;
        if (name) form.setFields([{ name, errors: [typeof detail === 'string' && detail ? detail : e.message] }]);
      }
      throw e;
    }
    message.success(t(rowActionTextKey(view, action, 'Done'), { name: '' }));
    onClose(true);
  });

  const testId = `input-${action.key}`;
  return (
    <Modal
      open
      title={t(rowActionTextKey(view, action))}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      okButtonProps={{ loading: busy, 'data-testid': `${testId}-ok` }}
      onOk={ok}
      onCancel={() => onClose(false)}
      destroyOnClose
      maskClosable={false}
    >
      <div data-testid={testId}>
        <Form form={form} layout="vertical" preserve={false}>
          {choose && (
            <div data-testid={`${testId}-choose`}>
              <Form.Item name={choose.field} label={chooseLabel} rules={[{ required: true, message: t('validation.select', { field: chooseLabel }) }]}>
                <Select mode={choose.multiple ? 'multiple' : undefined} loading={choices === undefined} options={choices} showSearch optionFilterProp="label" />
              </Form.Item>
            </div>
          )}
          {reason && limits && (
            <div data-testid={`${testId}-reason`}>
              <Form.Item name={REASON} label={reasonLabel} rules={[textRule(limits, reasonLabel, t)]}>
                <Input.TextArea rows={4} showCount maxLength={limits.maxLength} />
              </Form.Item>
            </div>
          )}
        </Form>
      </div>
    </Modal>
  );
}

export default InputDialog;
