/**
 * /examScheduleMatch: today's appointments whose patient has not arrived yet, each with
 * a check-in button (the exam's own check-in call), which puts the exam on the
 * worklist. A checked-in appointment leaves this list.
 */
import { App, Button, Card, Space } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { allows, usePermissionMap } from '../../schema/permissions';
import { bookings, checkIn, type Booking } from '../../services/schedule';
import BookingTable from './BookingTable';
import HospitalPicker, { useHospital } from './HospitalPicker';

export default function ScheduleMatch() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const map = usePermissionMap();
  const [hospitalId, setHospitalId] = useHospital();
  const [rows, setRows] = useState<Booking[]>([]);
  const [loading, setLoading] = useState(false);
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((v) => v + 1), []);

  useEffect(() => {
    if (!hospitalId) return;
    const c = new AbortController();
    setLoading(true);
    // No dates: the server's today is the region's, whatever the browser's zone.
    bookings(hospitalId, undefined, undefined, true, c.signal)
      .then((r) => setRows(r.list))
      .catch(() => undefined)
      .finally(() => !c.signal.aborted && setLoading(false));
    return () => c.abort();
  }, [hospitalId, version]);

  const canCheckIn = allows(map, 'registration', 'checkin');
  return (
    <Card data-testid="schedule-match" title={t('entity.schedule.todayPending')}>
      <Space wrap style={{ marginBottom: 16 }}>
        <HospitalPicker value={hospitalId} onChange={setHospitalId} />
        <Button onClick={reload}>{t('entity.schedule.refresh')}</Button>
      </Space>
      <BookingTable
        rows={rows}
        loading={loading}
        action={(b) =>
          canCheckIn && (
            <Button
              size="small"
              type="primary"
              data-testid={`checkin-${b.examCode}`}
              onClick={() =>
                checkIn(b.examId)
                  .then(() => {
                    message.success(t('entity.schedule.checkinDone'));
                    reload();
                  })
                  .catch(() => undefined)
              }
            >
              {t('entity.schedule.checkin')}
            </Button>
          )
        }
      />
    </Card>
  );
}
