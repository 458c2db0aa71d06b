/**
 * The review panel: who wrote, reviewed and rechecked the report and when, why it was
 * sent back, its print state and last operation, read-only from the report's schema
 * (./RecordView). A rejected report shows its reason above the text as well.
 */
import { Alert, Card } from 'antd';
import { useMemo } from 'react';
import { useTranslate } from '../schema/useTranslate';
import type { ReportDetail } from './api';
import { formView, RecordView } from './RecordView';

/** The panel's fields in pairs (who, when); each shows once it has a value. */
const REVIEW_FIELDS = [
  'firstTrialDoctorName',
  'firstTrialTime',
  'retrialDoctorName',
  'retrialTime',
  'recheckDoctorName',
  'recheckTime',
  'lastOperatorName',
  'lastOperateTime',
  'reportPrintState',
  'printNumber',
  'retrialBackReason',
] as const;

/** States a report is in when the review sent it back (rejected, recheck rejected). */
const SENT_BACK = new Set([3, 6]);

export function RejectReason({ detail }: { detail: ReportDetail }) {
  const { t } = useTranslate();
  if (!detail.retrialBackReason || !SENT_BACK.has(detail.reportState ?? -1)) return null;
  return (
    <Alert
      type="error"
      showIcon
      style={{ marginBottom: 12 }}
      // The rejection is the last operation while the report stays rejected.
      message={t('entity.report.detail.rejectedBy', { name: detail.lastOperatorName ?? '-' })}
      description={<span data-testid="report-reject-reason">{detail.retrialBackReason}</span>}
    />
  );
}

export function ReviewPanel({ detail }: { detail: ReportDetail }) {
  const { t } = useTranslate();
  const record = detail as unknown as Record<string, unknown>;
  const shown = REVIEW_FIELDS.filter((f) => record[f] !== undefined && record[f] !== null && record[f] !== '').join(',');
  // The reason takes a row of its own, after the (who, when) pairs.
  const view = useMemo(() => ({ ...formView('report', 'review', shown.split(','), 2), fields: { retrialBackReason: { span: 2 } } }), [shown]);
  // Nobody has signed it yet: nothing to show but the defaults.
  if (!detail.lastOperateTime) return null;
  return (
    <Card size="small" title={t('entity.report.detail.review')} data-testid="report-review" styles={{ body: { paddingBottom: 0 } }}>
      <RecordView view={view} record={record} />
    </Card>
  );
}
