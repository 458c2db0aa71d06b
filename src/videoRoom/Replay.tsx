/**
 * The replay of a video consultation (issue #20 item 7), also after it ended: the
 * viewer on the room's studies, and the room's kept events (server/video/rooms.ts) to
 * step through or play. At step i the viewer is brought to the last view state at or
 * before i as a follower's is (./sync.ts reconcile), shows the last annotations, and the
 * side shows who presented and the chat said up to i (./replay.ts). It owns the viewer
 * session from mount to unmount; no socket, no media: nothing is sent anywhere.
 */
import { CaretRightOutlined, LeftOutlined, LogoutOutlined, PauseOutlined, RightOutlined, StepBackwardOutlined, StepForwardOutlined } from '@ant-design/icons';
import { Button, ConfigProvider, Empty, List, Result, Slider, Space, Spin, Tag, Tooltip, Typography, theme } from 'antd';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { roomEvents, videoRoom, type RoomEvent } from '../consult/api';
import { useTranslate } from '../schema/useTranslate';
import { formatTime } from '../shared/format';
import { viewerStudies, type ViewerStudies } from '../viewer/api';
import type { ViewerApi } from '../viewer/types';
import { showStudies, startViewer, Viewer } from '../viewer/Viewer';
import { namesOf, replayFrame } from './timeline';
import { reconcile, type ViewState } from './sync';

const k = (key: string) => `entity.videoRoom.${key}`;
const VIEW_OPTIONS = { sideBySide: false, autoLoad: true };
/** One event a second while playing: a session's steps are seconds or minutes apart, seen at a glance. */
const PLAY_MS = 1000;

export function ConsultationReplay({ consultationId, onLeave }: { consultationId: number; onLeave(): void }) {
  const { t } = useTranslate();
  const [phase, setPhase] = useState<'loading' | 'ready' | 'refused'>('loading');
  const [events, setEvents] = useState<RoomEvent[]>([]);
  const [viewer, setViewer] = useState<{ session: ViewerApi; data?: ViewerStudies }>();
  const [step, setStep] = useState(0);
  const [playing, setPlaying] = useState(false);
  /** Where the viewer is to go, read by the viewer's change listener; the series asked for on the way. */
  const target = useRef<{ view?: ViewState; loading: { seriesUid?: string }; shown: boolean; annotationsFrom?: number }>({ loading: {}, shown: false });

  useEffect(() => {
    let gone = false;
    const session = startViewer([], VIEW_OPTIONS);
    const follow = () => {
      const to = target.current;
      if (to.shown && to.view) reconcile(session, to.view, to.loading);
    };
    const unsubscribe = session.subscribe(follow);
    setViewer({ session });
    (async () => {
      const [room, list] = await Promise.all([videoRoom(consultationId), roomEvents(consultationId)]);
      if (gone) return;
      setEvents(list);
      setStep(Math.max(0, list.length - 1));
      setPhase('ready');
      if (!room.studyUids.length) return;
      const data = await viewerStudies({ studyUids: room.studyUids });
      if (gone) return;
      showStudies(session, data.list, VIEW_OPTIONS);
      // Only once the studies are the viewer's does a view state find its series.
      target.current.shown = true;
      setViewer({ session, data });
      follow();
    })().catch(() => !gone && setPhase('refused'));
    return () => {
      gone = true;
      unsubscribe();
      session.dispose();
    };
  }, [consultationId]);

  const frame = useMemo(() => replayFrame(events, step), [events, step]);
  const names = useMemo(() => namesOf(events), [events]);

  // A new step: the viewer goes to its view state, and shows its annotations when they changed.
  useEffect(() => {
    const session = viewer?.session;
    const to = target.current;
    to.view = frame.view;
    if (!session) return;
    if (to.annotationsFrom !== frame.annotationsFrom) {
      to.annotationsFrom = frame.annotationsFrom;
      session.setAnnotations(frame.annotations);
    }
    if (to.shown && to.view) reconcile(session, to.view, to.loading);
  }, [frame, viewer]);

  // Playing: the next step after a while, until the last.
  useEffect(() => {
    if (!playing) return;
    if (step >= events.length - 1) {
      setPlaying(false);
      return;
    }
    const timer = window.setTimeout(() => setStep((s) => Math.min(s + 1, events.length - 1)), PLAY_MS);
    return () => window.clearTimeout(timer);
  }, [playing, step, events.length]);

  if (phase === 'refused') return <Result status="404" title={t('error.CONSULT002')} extra={<Button onClick={onLeave}>{t(k('replayClose'))}</Button>} />;
  if (phase === 'loading' || !viewer) return <Spin size="large" style={{ display: 'block', margin: '30vh auto' }} data-testid="replay-loading" />;

  const lastStep = Math.max(0, events.length - 1);
  const go = (to: number) => {
    setPlaying(false);
    setStep(Math.max(0, Math.min(lastStep, to)));
  };
  const current = events[step];
  const presenter = frame.presenterId === null ? t(k('nobody')) : (names.get(frame.presenterId) ?? t(k('participant'), { id: frame.presenterId }));
  const stepButton = (testId: string, to: number, icon: ReactNode, label: string) => (
    <Tooltip title={t(k(label))}>
      <Button icon={icon} onClick={() => go(to)} disabled={!events.length || to === step || to < 0 || to > lastStep} data-testid={testId} data-step={to} aria-label={t(k(label))} />
    </Tooltip>
  );

  return (
    <div data-testid="replay" data-step={step} data-total={events.length} data-annotations={frame.annotations.length} style={{ display: 'flex', height: '100vh', background: '#141414' }}>
      {/* The viewer lays itself over the whole window (position: fixed); a transform makes this box its window instead. */}
      <div style={{ flex: 1, minWidth: 0, position: 'relative', transform: 'translateZ(0)' }}>
        <Viewer studies={viewer.data?.list ?? []} masked={viewer.data?.masked ?? true} {...VIEW_OPTIONS} session={viewer.session} onClose={onLeave} />
      </div>
      {/* Dark like the viewer beside it. */}
      <ConfigProvider theme={{ algorithm: theme.darkAlgorithm }}>
        <div style={{ width: 320, display: 'flex', flexDirection: 'column', gap: 8, padding: 8, background: '#1f1f1f', color: '#e8e8e8' }}>
          <Space style={{ justifyContent: 'space-between' }}>
            <Typography.Text strong>{t(k('replay'))}</Typography.Text>
            <Button icon={<LogoutOutlined />} onClick={onLeave} data-testid="replay-close">
              {t(k('replayClose'))}
            </Button>
          </Space>
          {events.length === 0 ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t(k('replayEmpty'))} data-testid="replay-empty" />
          ) : (
            <>
              <div data-testid="replay-slider" data-step={step}>
                <Slider min={0} max={lastStep} value={step} onChange={(v: number) => go(v)} tooltip={{ formatter: (v) => `${(v ?? 0) + 1}` }} />
              </div>
              <Space wrap>
                {stepButton('replay-first', 0, <StepBackwardOutlined />, 'replayFirst')}
                {stepButton('replay-prev', step - 1, <LeftOutlined />, 'replayPrevious')}
                <Tooltip title={t(k(playing ? 'replayPause' : 'replayPlay'))}>
                  <Button
                    type="primary"
                    icon={playing ? <PauseOutlined /> : <CaretRightOutlined />}
                    onClick={() => {
                      // Play from the start when at the end.
                      if (!playing && step >= lastStep) setStep(0);
                      setPlaying(!playing);
                    }}
                    data-testid="replay-play"
                    data-playing={String(playing)}
                    aria-label={t(k(playing ? 'replayPause' : 'replayPlay'))}
                  />
                </Tooltip>
                {stepButton('replay-next', step + 1, <RightOutlined />, 'replayNext')}
                {stepButton('replay-last', lastStep, <StepForwardOutlined />, 'replayLast')}
              </Space>
              <div data-testid="replay-position">
                <Typography.Text type="secondary">{t(k('replayStep'), { step: step + 1, total: events.length })}</Typography.Text>{' '}
                {current && (
                  <>
                    <Tag data-testid="replay-kind" data-kind={current.kind}>
                      {t(k(`event.${current.kind}`))}
                    </Tag>
                    <Typography.Text type="secondary">{formatTime(current.at)}</Typography.Text>
                  </>
                )}
              </div>
            </>
          )}
          <div data-testid="replay-presenter" data-presenter-id={frame.presenterId ?? ''}>
            <Typography.Text type="secondary">{t(k('presenter'))}: </Typography.Text>
            <Tag color="gold">{presenter}</Tag>
          </div>
          <List
            size="small"
            data-testid="replay-chat"
            style={{ flex: 1, overflowY: 'auto' }}
            dataSource={frame.chat}
            rowKey="id"
            locale={{ emptyText: t(k('chatEmpty')) }}
            renderItem={(line) => (
              <List.Item data-testid="replay-chat-line">
                <span>
                  <b>{String(line.state.name ?? '')}</b>: {String(line.state.text ?? '')}
                </span>
              </List.Item>
            )}
          />
        </div>
      </ConfigProvider>
    </div>
  );
}
