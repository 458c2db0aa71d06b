/**
 * The detail page's top bar: back, the patient and exam the report is for (masked as
 * the server sends them), the report's state, print and superior-hospital state, who
 * holds the lock and until when, and previous / next report (Alt+P / Alt+N).
 */
import { ArrowLeftOutlined, LeftOutlined, LockOutlined, QuestionCircleOutlined, RightOutlined, UnlockOutlined } from '@ant-design/icons';
import { Button, Flex, Popover, Space, Tag, Tooltip, Typography } from 'antd';
import { valueWithUnit } from '../../locales';
import { useTranslate } from '../schema/useTranslate';
import { formatTime } from '../shared/format';
import { KeysHelp } from '../viewer/KeysHelp';
import type { ReportDetail } from './api';

/** Tag colours by report state: open work, waiting, refused, done. */
const STATE_COLOR: Record<number, string> = { [-1]: 'default', 1: 'processing', 2: 'gold', 3: 'red', 4: 'green', 5: 'gold', 6: 'red', 7: 'orange', 8: 'purple' };

export interface ReportHeaderProps {
  detail: ReportDetail;
  /** Previous / next are offered (the page was opened from a list). */
  walk: boolean;
  onStep(step: 1 | -1): void;
  onClose(): void;
}

export function ReportHeader({ detail, walk, onStep, onClose }: ReportHeaderProps) {
  const { t } = useTranslate();
  const exam = detail.exam;
  const lockedByOther = Boolean(detail.lockState && !detail.lockMine);
  const age = exam.age !== undefined ? valueWithUnit(t, 'ageUnit', exam.ageUnit, exam.age) : undefined;
  const facts = [
    exam.sex !== undefined ? t(`code.sex.${exam.sex}`) : undefined,
    age,
    exam.examCode,
    [exam.modality, exam.itemNames].filter(Boolean).join(' · ') || undefined,
    exam.examTime ? formatTime(exam.examTime) : undefined,
    exam.hospitalName,
  ].filter(Boolean);

  return (
    <Flex align="center" gap={12} wrap style={{ padding: '6px 12px', borderBottom: '1px solid #f0f0f0', background: '#fff' }} data-testid="report-header">
      <Tooltip title={t('entity.report.detail.close')}>
        <Button type="text" icon={<ArrowLeftOutlined />} onClick={onClose} aria-label={t('entity.report.detail.close')} data-testid="report-close" />
      </Tooltip>
      <Typography.Text strong style={{ fontSize: 16 }} data-testid="report-patient">
        {exam.hisPatientName ?? '-'}
      </Typography.Text>
      <Typography.Text type="secondary" style={{ flex: '1 1 200px', minWidth: 0 }} ellipsis>
        {facts.join(' / ')}
      </Typography.Text>
      <Space size={4} wrap>
        <Tag color={STATE_COLOR[detail.reportState ?? -1]} data-testid="report-state" data-state={String(detail.reportState ?? -1)}>
          {t(`code.reportState.${detail.reportState ?? -1}`)}
        </Tag>
        {detail.reportPrintState === 1 && <Tag>{`${t('code.printState.1')} ×${detail.printNumber ?? 1}`}</Tag>}
        {detail.sentToSuperior && <Tag color="blue">{`${t('entity.report.field.sentToSuperior')} · ${detail.superiorHospitalName ?? ''}`}</Tag>}
        {detail.claimedByName && <Tag color="purple" data-testid="report-claim">{`${t('entity.report.field.claimedByName')}: ${detail.claimedByName}`}</Tag>}
        {detail.assignees?.length ? <Tag>{`${t('entity.report.field.assignees')}: ${detail.assignees.map((a) => a.name).join('、')}`}</Tag> : null}
        <Tag
          icon={detail.lockState ? <LockOutlined /> : <UnlockOutlined />}
          color={lockedByOther ? 'red' : detail.lockMine ? 'green' : undefined}
          data-testid="report-lock"
          data-lock={lockedByOther ? 'other' : detail.lockMine ? 'mine' : 'none'}
        >
          {lockedByOther
            ? t('entity.report.detail.lockedBy', { name: detail.lockedByName ?? '', time: formatTime(detail.lockExpiresAt ?? undefined, '{h}:{i}:{s}') })
            : t(detail.lockMine ? 'entity.report.detail.lockMine' : 'entity.report.detail.unlocked')}
        </Tag>
      </Space>
      <Popover
        content={
          <KeysHelp
            t={t}
            testId="report-keys-help"
            extra={[{ keys: 'Ctrl+S', text: t('entity.report.detail.keys.save') }, ...(walk ? [{ keys: 'Alt+P / Alt+N', text: t('entity.report.detail.keys.report') }] : [])]}
          />
        }
        title={t('entity.viewer.keys.title')}
        trigger={['hover', 'click']}
        placement="bottomRight"
      >
        <Button type="text" icon={<QuestionCircleOutlined />} aria-label={t('entity.viewer.keys.title')} data-testid="report-keys" />
      </Popover>
      {walk && (
        <Space.Compact>
          <Tooltip title="Alt+P">
            <Button icon={<LeftOutlined />} onClick={() => onStep(-1)} data-testid="report-prev">
              {t('entity.report.detail.prev')}
            </Button>
          </Tooltip>
          <Tooltip title="Alt+N">
            <Button onClick={() => onStep(1)} data-testid="report-next">
              {t('entity.report.detail.next')}
              <RightOutlined />
            </Button>
          </Tooltip>
        </Space.Compact>
      )}
    </Flex>
  );
}

