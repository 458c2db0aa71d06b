/**
 * What some actions ask before they are sent (read from the workflow table by
 * ./workflow needsOf): a reason within the action's limit (reject and withdraw 200,
 * return, recall and modify 3000), the doctors to assign (the server's list of those
 * who may take the report's next step), or the higher-level hospital to send to (the
 * exam's registered superior chosen first). The dialog stays open when the server
 * refuses, so the user can correct and send again.
 */
import { Form, Input, Modal, Select } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslate } from '../schema/useTranslate';
import type { ReportAction } from '../shared/generated/entities/reportAction';
import { assigneeChoices, superiorChoices, type Choice } from './api';
import type { Needs } from './workflow';

export interface AskProps {
  /** The workflow action (its title text entity.report.action.<name>). */
  action: string;
  needs: Exclude<Needs, { kind: 'none' }>;
  reportId: number;
  /** Sends the action with what was asked; resolves whether it was applied. */
  send(extra: Partial<ReportAction>): Promise<boolean>;
  onClose(): void;
}

type Values = { reason?: string; doctorIds?: number[]; hospitalId?: number };

export function AskDialog({ action, needs, reportId, send, onClose }: AskProps) {
  const { t } = useTranslate();
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);
  const [choices, setChoices] = useState<Choice[]>();

  useEffect(() => {
    let live = true;
    const load =
      needs.kind === 'assign'
        ? assigneeChoices(reportId, action).then((list) => ({ list, chosen: undefined as number | undefined }))
        : needs.kind === 'superior'
          ? superiorChoices(reportId)
          : undefined;
    load?.then(
      ({ list, chosen }) => {
        if (!live) return;
        setChoices(list);
        // The exam's registered superior, else the only one there is.
        const preset = chosen ?? (list.length === 1 ? list[0].id : undefined);
        if (needs.kind === 'superior' && preset !== undefined) form.setFieldValue('hospitalId', preset);
      },
      () => live && setChoices([]),
    );
    return () => {
      live = false;
    };
  }, [needs.kind, reportId, form, action]);

  const onOk = async () => {
    const values = await form.validateFields().catch(() => undefined);
    if (!values) return;
    setBusy(true);
    try {
      // doctorIds is at most maxDoctors long (the select's maxCount): the generated tuple type's bound.
      if (await send(values as Partial<ReportAction>)) onClose();
    } finally {
      setBusy(false);
    }
  };

  const options = (choices ?? []).map((c) => ({ value: c.id, label: c.name }));
  // Doctors (several) or a hospital (one), picked from the server's choices.
  const pick =
    needs.kind === 'assign'
      ? { name: 'doctorIds', label: 'entity.report.field.assignees', multiple: true, max: needs.maxDoctors, testId: 'report-assignees' }
      : needs.kind === 'superior'
        ? { name: 'hospitalId', label: 'entity.report.field.superiorHospitalId', multiple: false, max: undefined, testId: 'report-superior' }
        : undefined;
  return (
    <Modal
      open
      title={t(`entity.report.action.${action}`)}
      onOk={onOk}
      onCancel={onClose}
      confirmLoading={busy}
      destroyOnClose
      maskClosable={false}
      okButtonProps={{ 'data-testid': 'report-ask-ok' } as never}
    >
      <Form form={form} layout="vertical" data-testid={`report-ask-${action}`} preserve={false}>
        {needs.kind === 'reason' && (
          <Form.Item
            name="reason"
            label={t('entity.reportOperationLog.field.reason')}
            rules={[
              { required: true, whitespace: true, message: t('validation.required', { field: t('entity.reportOperationLog.field.reason') }) },
              { min: needs.limit.minLength, message: t('validation.minLength', { field: t('entity.reportOperationLog.field.reason'), limit: needs.limit.minLength }) },
              { max: needs.limit.maxLength, message: t('validation.maxLength', { field: t('entity.reportOperationLog.field.reason'), limit: needs.limit.maxLength }) },
            ]}
          >
            <Input.TextArea autoSize={{ minRows: 3, maxRows: 10 }} count={{ show: true, max: needs.limit.maxLength }} autoFocus data-testid="report-reason" />
          </Form.Item>
        )}
        {pick && (
          <Form.Item name={pick.name} label={t(pick.label)} rules={[{ required: true, message: t('validation.select', { field: t(pick.label) }) }]}>
            <Select
              mode={pick.multiple ? 'multiple' : undefined}
              maxCount={pick.max}
              options={options}
              loading={choices === undefined}
              optionFilterProp="label"
              notFoundContent={t('entity.report.detail.noChoices')}
              data-testid={pick.testId}
            />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}
