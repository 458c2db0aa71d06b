/**
 * The write panel: findings and diagnosis with their counters, positive or negative,
 * the critical value (switch; recorder, record time, description) and the remark.
 * Limits come from entities/report.json (./workflow contentLimits); a counter over
 * its limit turns red and the page refuses to send. Read-only unless the server
 * offers an action that carries content and nobody else holds the lock.
 */
import { DatePicker, Flex, Form, Input, Radio, Switch, Typography } from 'antd';
import dayjs from 'dayjs';
import type { ReactNode } from 'react';
import { useTranslate } from '../schema/useTranslate';
import type { Draft, DraftField } from './content';
import { FIELD_LABEL, type FieldErrors } from './useReportPage';
import type { contentLimits } from './workflow';

export interface WritePanelProps {
  draft: Draft;
  limits: ReturnType<typeof contentLimits>;
  errors: FieldErrors;
  editable: boolean;
  /** Findings and diagnosis are marked required (the state's next step needs them). */
  required: boolean;
  onEdit(patch: Partial<Draft>): void;
}

export function WritePanel({ draft, limits, errors, editable, required, onEdit }: WritePanelProps) {
  const { t } = useTranslate();
  const item = (field: DraftField, control: ReactNode, isRequired = false) => (
    <Form.Item
      label={t(FIELD_LABEL[field])}
      required={isRequired}
      validateStatus={errors[field] ? 'error' : undefined}
      help={errors[field]}
      style={{ marginBottom: 12 }}
      data-testid={`report-field-${field}`}
    >
      {control}
    </Form.Item>
  );
  const text = (field: 'see' | 'diagnosis', rows: number) =>
    item(
      field,
      <Input.TextArea
        value={draft[field]}
        onChange={(e) => onEdit({ [field]: e.target.value })}
        readOnly={!editable}
        autoSize={{ minRows: rows, maxRows: rows * 3 }}
        count={{ show: true, max: limits[field].maxLength }}
        status={errors[field] ? 'error' : undefined}
        aria-label={t(FIELD_LABEL[field])}
        data-testid={`report-${field}`}
      />,
      required,
    );

  return (
    <Form layout="vertical" data-testid="report-write" data-editable={editable ? 'true' : 'false'}>
      {text('see', 6)}
      {text('diagnosis', 3)}
      <Flex gap={24} wrap align="center" style={{ marginBottom: 12 }}>
        <Radio.Group
          value={draft.positive}
          onChange={(e) => onEdit({ positive: e.target.value as boolean })}
          optionType="button"
          buttonStyle="solid"
          size="small"
          disabled={!editable}
          data-testid="report-positive"
          options={[
            { value: true, label: t('entity.report.field.positive') },
            { value: false, label: t('entity.report.detail.negative') },
          ]}
        />
        <Flex gap={8} align="center">
          <Switch
            checked={draft.enableCrisisValue}
            onChange={(on) => onEdit({ enableCrisisValue: on, recordTime: on && !draft.recordTime ? new Date().toISOString() : draft.recordTime })}
            size="small"
            disabled={!editable}
            data-testid="report-crisis"
          />
          <Typography.Text type={draft.enableCrisisValue ? 'danger' : undefined}>{t('entity.report.field.enableCrisisValue')}</Typography.Text>
        </Flex>
      </Flex>
      {draft.enableCrisisValue && (
        <div data-testid="report-crisis-value">
          <Flex gap={12} wrap>
            <div style={{ flex: '1 1 160px' }}>
              {item(
                'recorder',
                <Input value={draft.recorder} onChange={(e) => onEdit({ recorder: e.target.value })} readOnly={!editable} count={{ show: true, max: limits.recorder.maxLength }} data-testid="report-recorder" />,
              )}
            </div>
            <Form.Item label={t('entity.report.field.crisisValue.recordTime')} style={{ flex: '1 1 200px', marginBottom: 12 }}>
              <DatePicker
                showTime
                value={draft.recordTime ? dayjs(draft.recordTime) : null}
                onChange={(v) => onEdit({ recordTime: v ? v.toISOString() : undefined })}
                style={{ width: '100%' }}
                disabled={!editable}
                data-testid="report-record-time"
              />
            </Form.Item>
          </Flex>
          {item(
            'description',
            <Input.TextArea
              value={draft.description}
              onChange={(e) => onEdit({ description: e.target.value })}
              readOnly={!editable}
              autoSize={{ minRows: 2, maxRows: 6 }}
              count={{ show: true, max: limits.description.maxLength }}
              data-testid="report-crisis-description"
            />,
            true,
          )}
        </div>
      )}
      {item(
        'remark',
        <Input value={draft.remark} onChange={(e) => onEdit({ remark: e.target.value })} readOnly={!editable} count={{ show: true, max: limits.remark.maxLength }} data-testid="report-remark" />,
      )}
    </Form>
  );
}
