/**
 * /checkDateDetail: what is booked when. A hospital's appointments over a date range
 * (today and the next six days unless chosen), optionally only those not checked in.
 */
import { Card, DatePicker, Space, Switch, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { bookings, type Booking } from '../../services/schedule';
import BookingTable from './BookingTable';
import HospitalPicker, { useHospital } from './HospitalPicker';

export default function ScheduleDateDetail() {
  const { t } = useTranslation();
  const [hospitalId, setHospitalId] = useHospital();
  const [range, setRange] = useState<[Dayjs, Dayjs]>(() => [dayjs(), dayjs().add(6, 'day')]);
  const [pending, setPending] = useState(false);
  const [rows, setRows] = useState<Booking[]>([]);
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    if (!hospitalId) return;
    const c = new AbortController();
    setLoading(true);
    bookings(hospitalId, range[0].format('YYYY-MM-DD'), range[1].format('YYYY-MM-DD'), pending, c.signal)
      .then((r) => setRows(r.list))
      .catch(() => undefined)
      .finally(() => !c.signal.aborted && setLoading(false));
    return () => c.abort();
  }, [hospitalId, range, pending]);

  return (
    <Card data-testid="schedule-date-detail" title={t('entity.schedule.dateDetail')}>
      <Space wrap style={{ marginBottom: 16 }}>
        <HospitalPicker value={hospitalId} onChange={setHospitalId} />
        <Typography.Text>{t('entity.schedule.range')}</Typography.Text>
        <DatePicker.RangePicker value={range} allowClear={false} onChange={(v) => v?.[0] && v[1] && setRange([v[0], v[1]])} />
        <Switch checked={pending} onChange={setPending} data-testid="schedule-pending-only" />
        <Typography.Text>{t('entity.schedule.pendingOnly')}</Typography.Text>
      </Space>
      <BookingTable rows={rows} loading={loading} />
    </Card>
  );
}
