/**
 * Appointments as a table (time in the region's clock, exam, patient, device, items,
 * status), with an optional last column of per-row actions. Shared by /checkDateDetail
 * and /examScheduleMatch.
 */
import { Table, Tag } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Booking } from '../../services/schedule';

/** Exam state 3 is terminated (schemas/codes/examState.json). */
const TERMINATED = 3;

export default function BookingTable({ rows, loading, action }: { rows: Booking[]; loading: boolean; action?: (b: Booking) => ReactNode }) {
  const { t } = useTranslation();
  const status = (b: Booking) => {
    if (b.examState === TERMINATED) return <Tag>{t('entity.schedule.status.terminated')}</Tag>;
    return b.arrivedAt ? <Tag color="green">{t('entity.schedule.status.arrived')}</Tag> : <Tag color="orange">{t('entity.schedule.status.pending')}</Tag>;
  };
  return (
    <Table<Booking>
      data-testid="booking-table"
      rowKey="examId"
      size="small"
      loading={loading}
      dataSource={rows}
      pagination={{ pageSize: 50, hideOnSinglePage: true }}
      locale={{ emptyText: t('entity.schedule.empty') }}
      onRow={(b) => ({ 'data-testid': `booking-row-${b.examCode}` }) as never}
      columns={[
        { key: 'appointAt', title: t('entity.exam.field.appointTime'), dataIndex: 'appointAt' },
        { key: 'examCode', title: t('entity.exam.field.examCode'), dataIndex: 'examCode' },
        { key: 'hisPatientName', title: t('entity.exam.field.hisPatientName'), dataIndex: 'hisPatientName' },
        { key: 'modality', title: t('entity.exam.field.modality'), dataIndex: 'modality' },
        { key: 'deviceName', title: t('entity.exam.field.deviceId'), dataIndex: 'deviceName' },
        { key: 'itemNames', title: t('entity.exam.field.itemNames'), dataIndex: 'itemNames' },
        { key: 'status', title: t('entity.schedule.status'), render: (_: unknown, b: Booking) => status(b) },
        ...(action ? [{ key: 'action', title: '', render: (_: unknown, b: Booking) => action(b) }] : []),
      ]}
    />
  );
}
