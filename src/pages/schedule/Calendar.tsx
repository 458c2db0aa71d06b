/**
 * /examSchedule: the month of one device (or modality) as a calendar with booked /
 * capacity per day, and the chosen day's slots with their bookings. From here an
 * unbooked registered exam is booked into a slot, a booking moved to another slot or
 * cancelled. The server decides (full slot, past time, state); the screen only reloads
 * and shows its answer.
 */
import { Alert, App, Button, Calendar, Card, Empty, Modal, Select, Space, Tag, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'umi';
import { resourceApi } from '../../schema/resource';
import { allows, usePermissionMap } from '../../schema/permissions';
import {
  book,
  cancelBooking,
  daySlots,
  monthCalendar,
  unbookedExams,
  type Booking,
  type CalendarDay,
  type ExamPick,
  type Slot,
  type Target,
} from '../../services/schedule';
import HospitalPicker, { useHospital } from './HospitalPicker';

/** A target as one select value: "device:<id>" or "modality:<code>". */
function parseTarget(value: string | undefined): Target | undefined {
  if (!value) return undefined;
  const [kind, rest] = value.split(':');
  return kind === 'device' ? { deviceId: Number(rest) } : { modality: rest };
}

/** Devices of the hospital, then the modalities its rules book without a device. */
function useTargets(hospitalId: number | undefined) {
  const { t } = useTranslation();
  const [options, setOptions] = useState<Array<{ value: string; label: string }>>([]);
  useEffect(() => {
    if (!hospitalId) return;
    let live = true;
    Promise.all([
      resourceApi('device').options({ hospitalId }),
      resourceApi('scheduleRule').list({ page: 1, pageSize: 100, filters: { hospitalId, enabled: true } }),
    ])
      .then(([devices, rules]) => {
        if (!live) return;
        const modalities = [...new Set(rules.list.filter((r) => !r.deviceId && r.modality).map((r) => String(r.modality)))];
        setOptions([
          ...devices.map((d) => ({ value: `device:${d.value}`, label: d.label })),
          ...modalities.map((m) => ({ value: `modality:${m}`, label: t('entity.schedule.modalityTarget', { modality: m }) })),
        ]);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [hospitalId, t]);
  return options;
}

export default function ScheduleCalendar() {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const map = usePermissionMap();
  const [hospitalId, setHospitalId] = useHospital();
  const targets = useTargets(hospitalId);
  const [targetValue, setTargetValue] = useState<string>();
  const target = useMemo(() => parseTarget(targetValue), [targetValue]);
  const [date, setDate] = useState<Dayjs>(() => dayjs());
  const [days, setDays] = useState<Record<string, CalendarDay>>({});
  const [slots, setSlots] = useState<Slot[] | null>(null);
  const [moving, setMoving] = useState<Booking | null>(null);
  const [bookInto, setBookInto] = useState<Slot | null>(null);
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  const month = date.format('YYYY-MM');
  const day = date.format('YYYY-MM-DD');

  // A hospital's first target is chosen for the user; a choice of another hospital resets it.
  useEffect(() => {
    setTargetValue((v) => (v && targets.some((o) => o.value === v) ? v : targets[0]?.value));
  }, [targets]);

  useEffect(() => {
    if (!hospitalId || !target) return;
    const c = new AbortController();
    monthCalendar(hospitalId, month, target, c.signal)
      .then((r) => setDays(Object.fromEntries(r.days.map((d) => [d.date, d]))))
      .catch(() => undefined);
    return () => c.abort();
  }, [hospitalId, target, month, version]);

  useEffect(() => {
    if (!hospitalId || !target) return;
    const c = new AbortController();
    setSlots(null);
    daySlots(hospitalId, day, target, c.signal)
      .then((r) => setSlots(r.slots))
      .catch(() => undefined);
    return () => c.abort();
  }, [hospitalId, target, day, version]);

  const canBook = allows(map, 'schedule', 'book');
  const canModify = allows(map, 'schedule', 'modify');

  const moveTo = async (slot: Slot) => {
    if (!moving || !target) return;
    await book(moving.examId, slot.start, target);
    message.success(t('entity.schedule.moved.done'));
    setMoving(null);
    reload();
  };

  const cancel = (b: Booking) =>
    modal.confirm({
      title: t('entity.schedule.cancel'),
      content: t('entity.schedule.cancelConfirm', { name: b.hisPatientName }),
      onOk: async () => {
        await cancelBooking(b.examId);
        message.success(t('entity.schedule.cancelled.done'));
        reload();
      },
    });

  const dayCell = (current: Dayjs) => {
    const d = days[current.format('YYYY-MM-DD')];
    if (!d || !d.capacity) return null;
    const full = d.booked >= d.capacity;
    return (
      <div data-testid={`day-${current.format('YYYY-MM-DD')}`}>
        <Tag color={full ? 'red' : d.booked ? 'blue' : 'default'}>{t('entity.schedule.month', { booked: d.booked, capacity: d.capacity })}</Tag>
      </div>
    );
  };

  return (
    <div data-testid="schedule-calendar" style={{ display: 'grid', gap: 16 }}>
      <Card size="small">
        <Space wrap>
          <HospitalPicker value={hospitalId} onChange={setHospitalId} />
          <Select
            data-testid="schedule-target"
            style={{ minWidth: 220 }}
            placeholder={t('entity.schedule.target')}
            value={targetValue}
            onChange={setTargetValue}
            options={targets}
          />
          <Link to="/checkDateDetail">{t('entity.schedule.dateDetail')}</Link>
          <Link to="/examScheduleMatch">{t('entity.schedule.match')}</Link>
        </Space>
      </Card>
      {!target ? (
        <Alert type="info" message={t('entity.schedule.chooseTarget')} />
      ) : (
        <div style={{ display: 'grid', gridTemplateColumns: 'minmax(420px, 3fr) minmax(360px, 2fr)', gap: 16, alignItems: 'start' }}>
          <Card size="small">
            <Calendar value={date} onChange={setDate} cellRender={(current, info) => (info.type === 'date' ? dayCell(current) : info.originNode)} />
          </Card>
          <Card size="small" title={t('entity.schedule.dayTitle', { date: day })} data-testid="schedule-day">
            {moving && (
              <Alert
                style={{ marginBottom: 12 }}
                type="warning"
                data-testid="schedule-moving"
                message={t('entity.schedule.moving', { name: moving.hisPatientName, time: moving.appointAt })}
                action={
                  <Button size="small" onClick={() => setMoving(null)}>
                    {t('entity.schedule.stopMoving')}
                  </Button>
                }
              />
            )}
            {slots && !slots.length && <Empty description={t('entity.schedule.noSlots')} />}
            {/* A day of short slots is long: it scrolls inside its card so the month stays in view. */}
            <div style={{ display: 'grid', gap: 8, maxHeight: '70vh', overflowY: 'auto' }}>
              {slots?.map((s) => {
                const full = s.booked >= s.capacity;
                const here = moving && s.bookings.some((b) => b.examId === moving.examId);
                return (
                  <div key={s.start} data-testid={`slot-${s.time}`} style={{ borderBottom: '1px solid #f0f0f0', paddingBottom: 8 }}>
                    <Space wrap>
                      <Typography.Text strong>
                        {s.time}–{s.endTime}
                      </Typography.Text>
                      <Tag color={full ? 'red' : s.booked ? 'blue' : 'green'}>{t('entity.schedule.booked', { booked: s.booked, capacity: s.capacity })}</Tag>
                      {s.past && <Tag>{t('entity.schedule.past')}</Tag>}
                      {!s.past && !full && !moving && canBook && (
                        <Button size="small" type="primary" data-testid={`slot-book-${s.time}`} onClick={() => setBookInto(s)}>
                          {t('entity.schedule.book')}
                        </Button>
                      )}
                      {!s.past && !full && moving && !here && (
                        <Button size="small" type="primary" data-testid={`slot-move-${s.time}`} onClick={() => moveTo(s).catch(() => undefined)}>
                          {t('entity.schedule.moveHere')}
                        </Button>
                      )}
                    </Space>
                    {s.bookings.map((b) => (
                      <div key={b.examId} data-testid={`booking-${b.examCode}`} style={{ marginTop: 4, marginInlineStart: 16 }}>
                        <Space wrap>
                          <span>{b.examCode}</span>
                          <span>{b.hisPatientName}</span>
                          <Typography.Text type="secondary">{b.itemNames}</Typography.Text>
                          {b.arrivedAt ? <Tag color="green">{t('entity.schedule.status.arrived')}</Tag> : null}
                          {!b.arrivedAt && canModify && !moving && (
                            <>
                              <a data-testid={`booking-move-${b.examCode}`} onClick={() => setMoving(b)}>
                                {t('entity.schedule.move')}
                              </a>
                              <a data-testid={`booking-cancel-${b.examCode}`} onClick={() => cancel(b)}>
                                {t('entity.schedule.cancel')}
                              </a>
                            </>
                          )}
                        </Space>
                      </div>
                    ))}
                  </div>
                );
              })}
            </div>
          </Card>
        </div>
      )}
      {bookInto && hospitalId && target && (
        <BookDialog
          hospitalId={hospitalId}
          slot={bookInto}
          day={day}
          onClose={() => setBookInto(null)}
          onBook={async (examId) => {
            await book(examId, bookInto.start, target);
            message.success(t('entity.schedule.booked.done'));
            setBookInto(null);
            reload();
          }}
        />
      )}
    </div>
  );
}

/** Picks a registered, unbooked exam of the hospital by exam number or patient name. */
function BookDialog(props: { hospitalId: number; slot: Slot; day: string; onClose: () => void; onBook: (examId: number) => Promise<void> }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [exams, setExams] = useState<ExamPick[]>([]);
  const [examId, setExamId] = useState<number>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    // A short pause so typing a name is one search, not one per character.
    const timer = setTimeout(() => {
      unbookedExams(props.hospitalId, text)
        .then((list) => live && setExams(list))
        .catch(() => undefined);
    }, 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [props.hospitalId, text]);
  return (
    <Modal
      open
      title={t('entity.schedule.bookTitle', { date: props.day, time: props.slot.time })}
      onCancel={props.onClose}
      okButtonProps={{ disabled: !examId, loading: busy, 'data-testid': 'book-ok' } as never}
      onOk={async () => {
        if (!examId) return;
        setBusy(true);
        try {
          await props.onBook(examId);
        } catch {
          // The request wrapper has shown the server's reason; the dialog stays for another choice.
        } finally {
          setBusy(false);
        }
      }}
    >
      <div data-testid="book-exam">
        <Select
          style={{ width: '100%' }}
          showSearch
          filterOption={false}
          placeholder={t('entity.schedule.pickExamHint')}
          onSearch={setText}
          value={examId}
          onChange={setExamId}
          options={exams.map((e) => ({ value: e.id, label: `${e.examCode} ${e.hisPatientName} ${e.itemNames ?? ''}` }))}
        />
      </div>
    </Modal>
  );
}
