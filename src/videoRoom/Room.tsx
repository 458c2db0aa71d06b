/**
 * The video consultation room's screen (issue #20 items 6 and 7): the shared viewer on
 * the left (the diagnostic viewer, ../viewer), the participants' video, the controls
 * (microphone, camera, screen share, leave), who presents, and the chat on the right.
 * It owns, from mount to unmount, the signalling socket, the media connections (a mesh
 * of peer connections, or through Janus when the server has it: ./sfu.ts), the camera
 * and microphone, a shared screen and the viewer session; leaving releases all of them. The presenter's viewer state goes to the others as it changes; a
 * follower's viewer is brought to it (./sync.ts).
 */
import { AudioMutedOutlined, AudioOutlined, DesktopOutlined, LogoutOutlined, SendOutlined, VideoCameraAddOutlined, VideoCameraOutlined } from '@ant-design/icons';
import { Alert, Button, ConfigProvider, Input, List, Result, Space, Spin, Tag, Tooltip, Typography, theme } from 'antd';
import { useEffect, useRef, useState } from 'react';
import app from '../../config/app.json';
import { useTranslate } from '../schema/useTranslate';
import { apiBase } from '../services/request';
import { getSession } from '../session/store';
import { viewerStudies, type ViewerStudies } from '../viewer/api';
import type { ViewerApi } from '../viewer/types';
import { showStudies, startViewer, Viewer } from '../viewer/Viewer';
import { openCamera, openScreen, WEBCAM_PROBLEM_TEXT, WebcamError, type WebcamProblem } from './media';
import { Mesh, type RemotePeer, type RoomMedia } from './mesh';
import { JanusMedia } from './sfu';
import { RoomRefused, RoomSocket, socketUrl } from './socket';
import { reconcile, sameView, viewStateOf, type ViewState } from './sync';
import type { SharedAnnotation } from '../viewer';

/** The room's WebSocket: messages, not the JSON envelope, so no generated call reaches it; its URL is built here. */
export const ROOM_SOCKET_PATH = '/api/consult/v1/video/socket';
const k = (key: string) => `entity.videoRoom.${key}`;
const VIEW_OPTIONS = { sideBySide: false, autoLoad: true };

interface ChatLine {
  id: number;
  name: string;
  text: string;
  mine: boolean;
}

interface Live {
  socket: RoomSocket;
  mesh?: RoomMedia;
  session?: ViewerApi;
  me?: { id: number; name: string };
  presenterId: number | null;
  /** What the presenter wants shown (followers), and the series asked for on the way there. */
  target?: ViewState;
  loading: { seriesUid?: string };
  /**
   * The viewer has the consultation's studies: a follower steps toward the target only
   * then (a series asked for before its study is known fails, and is not asked again).
   */
  shown?: boolean;
  /** What this presenter sent last (sent again only when it changes). */
  sent?: ViewState;
  sentNotes?: string;
}

export function ConsultationRoom({ consultationId, onLeave }: { consultationId: number; onLeave(): void }) {
  const { t } = useTranslate();
  const [phase, setPhase] = useState<{
    kind: 'joining' | 'in' | 'refused';
    code?: string;
    params?: Record<string, unknown>;
  }>({ kind: 'joining' });
  const [problem, setProblem] = useState<WebcamProblem>();
  const [local, setLocal] = useState<MediaStream>();
  const [peers, setPeers] = useState<RemotePeer[]>([]);
  const [presenterId, setPresenterId] = useState<number | null>(null);
  const [me, setMe] = useState<{ id: number; name: string }>();
  const [chat, setChat] = useState<ChatLine[]>([]);
  const [draft, setDraft] = useState('');
  const [asking, setAsking] = useState<Array<{ id: number; name: string }>>([]);
  const [mic, setMic] = useState(true);
  const [cam, setCam] = useState(true);
  const [screen, setScreen] = useState<MediaStreamTrack>();
  const [viewer, setViewer] = useState<{
    session: ViewerApi;
    data?: ViewerStudies;
  }>();
  const live = useRef<Live>();

  useEffect(() => {
    let gone = false;
    const socket = new RoomSocket(socketUrl(apiBase(), ROOM_SOCKET_PATH));
    const state: Live = { socket, presenterId: null, loading: {} };
    live.current = state;
    let stream: MediaStream | undefined;
    const cleanups: Array<() => void> = [];

    /** Presenter: send what changed. Follower: one step toward the presenter's view. */
    const onViewerChange = () => {
      const session = state.session;
      if (!session || !state.me) return;
      if (state.presenterId === state.me.id) {
        const view = viewStateOf(session.snapshot());
        if (view && !sameView(view, state.sent)) {
          state.sent = view;
          socket.send({ type: 'view', state: view, t: Date.now() });
        }
        const notes = session.annotations();
        const text = JSON.stringify(notes);
        if (text !== state.sentNotes && (state.sentNotes !== undefined || notes.length)) {
          state.sentNotes = text;
          socket.send({ type: 'annotations', annotations: notes });
        }
      } else if (state.target && state.shown) reconcile(session, state.target, state.loading);
    };
    const presenting = (id: number | null) => {
      state.presenterId = id;
      state.sent = undefined;
      state.sentNotes = undefined;
      if (id === state.me?.id) state.target = undefined;
      setPresenterId(id);
      onViewerChange();
    };

    (async () => {
      try {
        stream = await openCamera();
        if (gone) return stream.getTracks().forEach((tr) => tr.stop());
        setLocal(stream);
      } catch (e) {
        // The room works without a camera: the others are seen and heard, the images read together.
        setProblem(e instanceof WebcamError ? e.problem : 'unsupported');
      }
      const welcome = await socket.join(app.clientAppId, getSession().token ?? '', consultationId);
      if (gone) return;
      state.me = welcome.user;
      setMe(welcome.user);
      const mesh: RoomMedia = welcome.sfu === 'janus' ? new JanusMedia(socket, stream, welcome.iceServers) : new Mesh(socket, welcome.peerId, stream, welcome.iceServers);
      state.mesh = mesh;
      cleanups.push(mesh.subscribe(() => !gone && setPeers(mesh.list())));
      socket.on('view', (m) => {
        state.target = m.state;
        onViewerChange();
      });
      socket.on('annotations', (m) => state.session?.setAnnotations(m.annotations as SharedAnnotation[]));
      socket.on('presenter', (m) => {
        setAsking([]);
        presenting(m.presenterId);
      });
      socket.on('request', (m) => setAsking((list) => (list.some((u) => u.id === m.user.id) ? list : [...list, m.user])));
      // The recent chat (kept with the consultation: a late joiner reads what was said), then each new line.
      const mine = (userId: number) => userId === state.me?.id;
      setChat(((welcome.chat ?? []) as Array<{ id: number; userId: number; name: string; text: string }>).map((l) => ({ id: l.id, name: l.name, text: l.text, mine: mine(l.userId) })));
      socket.on('chat', (m) => setChat((list) => (list.some((l) => l.id === m.id) ? list : [...list, { id: m.id, name: m.user.name, text: m.text, mine: mine(m.user.id) }])));
      // The server ends the room for us with a reason (VIDEO003: Janus went away), or just closes.
      socket.on('error', (m) => !gone && setPhase({ kind: 'refused', code: m.code, params: m.params }));
      socket.on('closed', () => !gone && setPhase((p) => (p.kind === 'refused' ? p : { kind: 'refused', code: 'UAA005' })));
      // The viewer opens on the consultation's studies; a late joiner goes where the presenter is.
      state.target = welcome.view;
      const session = startViewer([], VIEW_OPTIONS);
      state.session = session;
      cleanups.push(session.subscribe(onViewerChange));
      setViewer({ session });
      presenting(welcome.presenterId);
      if (welcome.annotations?.length) session.setAnnotations(welcome.annotations);
      setPhase({ kind: 'in' });
      if (welcome.studyUids?.length) {
        const data = await viewerStudies({ studyUids: welcome.studyUids });
        if (gone) return;
        showStudies(session, data.list, VIEW_OPTIONS);
        state.shown = true;
        setViewer({ session, data });
        onViewerChange();
      }
    })().catch((e: Error) => !gone && setPhase({ kind: 'refused', code: e.message, params: e instanceof RoomRefused ? e.params : undefined }));

    return () => {
      gone = true;
      for (const c of cleanups) c();
      state.mesh?.close();
      socket.close();
      stream?.getTracks().forEach((tr) => tr.stop());
      state.session?.dispose();
      live.current = undefined;
    };
  }, [consultationId]);

  // A shared screen ends when the room does.
  useEffect(() => () => screen?.stop(), [screen]);

  const toggle = (kind: 'audio' | 'video', on: boolean) => {
    local
      ?.getTracks()
      .filter((tr) => tr.kind === kind)
      .forEach((tr) => (tr.enabled = on));
    (kind === 'audio' ? setMic : setCam)(on);
  };
  const share = async () => {
    const mesh = live.current?.mesh;
    if (!mesh) return;
    if (screen) {
      screen.stop();
      setScreen(undefined);
      await mesh.replaceVideo(undefined);
      return;
    }
    const track = await openScreen();
    if (!track) return;
    track.onended = () => {
      setScreen(undefined);
      void mesh.replaceVideo(undefined);
    };
    setScreen(track);
    await mesh.replaceVideo(track);
  };
  const send = () => {
    const text = draft.trim();
    if (!text) return;
    live.current?.socket.send({ type: 'chat', text });
    setDraft('');
  };

  if (phase.kind === 'refused') {
    return <Result status="error" title={t(k('refused'))} subTitle={<span data-testid="room-refused" data-code={phase.code}>{t(`error.${phase.code}`, phase.params)}</span>} extra={<Button onClick={onLeave}>{t(k('leave'))}</Button>} />;
  }
  if (phase.kind === 'joining' || !viewer) return <Spin size="large" style={{ display: 'block', margin: '30vh auto' }} data-testid="room-joining" />;

  const everyone = [...(me ? [me] : []), ...peers.map((p) => p.user)];
  const presenter = everyone.find((u) => u.id === presenterId);
  const iPresent = !!me && presenterId === me.id;

  return (
    <div data-testid="video-room" data-presenting={iPresent ? 'true' : 'false'} style={{ display: 'flex', height: '100vh', background: '#141414' }}>
      {/* The viewer lays itself over the whole window (position: fixed); a transform makes this box its window instead. */}
      <div
        style={{
          flex: 1,
          minWidth: 0,
          position: 'relative',
          transform: 'translateZ(0)',
        }}
      >
        <Viewer studies={viewer.data?.list ?? []} masked={viewer.data?.masked ?? true} {...VIEW_OPTIONS} session={viewer.session} onClose={onLeave} />
      </div>
      {/* Dark like the viewer beside it. */}
      <ConfigProvider theme={{ algorithm: theme.darkAlgorithm }}>
        <div
          style={{
            width: 320,
            display: 'flex',
            flexDirection: 'column',
            gap: 8,
            padding: 8,
            background: '#1f1f1f',
            color: '#e8e8e8',
          }}
        >
          {problem && <Alert type="warning" showIcon message={t(WEBCAM_PROBLEM_TEXT[problem])} data-testid="room-webcam-problem" data-problem={problem} />}
          <div style={{ display: 'grid', gridTemplateColumns: '1fr 1fr', gap: 4 }}>
            {local && <Tile stream={local} name={me?.name ?? ''} muted testId="video-local" />}
            {peers.map((p) => (
              <Tile key={p.peerId} stream={p.stream} name={p.user.name} testId="video-remote" state={p.pc.connectionState} />
            ))}
          </div>
          <Space wrap>
            <Tooltip title={t(k(mic ? 'micOff' : 'micOn'))}>
              <Button icon={mic ? <AudioOutlined /> : <AudioMutedOutlined />} onClick={() => toggle('audio', !mic)} disabled={!local} data-testid="room-mic" data-on={String(mic)} />
            </Tooltip>
            <Tooltip title={t(k(cam ? 'camOff' : 'camOn'))}>
              <Button icon={cam ? <VideoCameraOutlined /> : <VideoCameraAddOutlined />} onClick={() => toggle('video', !cam)} disabled={!local} data-testid="room-camera" data-on={String(cam)} />
            </Tooltip>
            <Tooltip title={t(k(screen ? 'shareStop' : 'share'))}>
              <Button icon={<DesktopOutlined />} type={screen ? 'primary' : 'default'} onClick={() => void share()} data-testid="room-share" />
            </Tooltip>
            <Button danger icon={<LogoutOutlined />} onClick={onLeave} data-testid="room-leave">
              {t(k('leave'))}
            </Button>
          </Space>
          <div data-testid="room-presenter" data-presenter-id={presenterId ?? ''}>
            <Typography.Text type="secondary">{t(k('presenter'))}: </Typography.Text>
            <Tag color="gold">{presenter?.name ?? t(k('nobody'))}</Tag>
            {!iPresent && (
              <Button size="small" onClick={() => live.current?.socket.send(presenterId === null && me ? { type: 'handover', userId: me.id } : { type: 'request' })} data-testid="room-request">
                {t(k('request'))}
              </Button>
            )}
          </div>
          {iPresent &&
            asking.map((u) => (
              <Alert
                key={u.id}
                type="info"
                message={t(k('asks'), { name: u.name })}
                action={
                  <Button
                    size="small"
                    onClick={() =>
                      live.current?.socket.send({
                        type: 'handover',
                        userId: u.id,
                      })
                    }
                    data-testid="room-handover"
                  >
                    {t(k('handover'))}
                  </Button>
                }
              />
            ))}
          <List
            size="small"
            data-testid="room-chat"
            style={{ flex: 1, overflowY: 'auto' }}
            dataSource={chat}
            locale={{ emptyText: t(k('chatEmpty')) }}
            renderItem={(line) => (
              <List.Item
                style={{
                  justifyContent: line.mine ? 'flex-end' : 'flex-start',
                }}
                data-testid="room-chat-line"
              >
                <span>
                  <b>{line.name}</b>: {line.text}
                </span>
              </List.Item>
            )}
          />
          <Space.Compact>
            <Input value={draft} maxLength={500} onChange={(e) => setDraft(e.target.value)} onPressEnter={send} placeholder={t(k('chatPlaceholder'))} data-testid="room-chat-input" />
            <Button icon={<SendOutlined />} onClick={send} data-testid="room-chat-send" aria-label={t(k('send'))} />
          </Space.Compact>
        </div>
      </ConfigProvider>
    </div>
  );
}

function Tile({ stream, name, muted, testId, state }: { stream: MediaStream; name: string; muted?: boolean; testId: string; state?: string }) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    if (ref.current && ref.current.srcObject !== stream) ref.current.srcObject = stream;
  }, [stream]);
  return (
    <div style={{ position: 'relative', background: '#000', aspectRatio: '4 / 3' }}>
      <video ref={ref} autoPlay playsInline muted={muted} data-testid={testId} data-state={state} style={{ width: '100%', height: '100%', objectFit: 'cover' }} />
      <span
        style={{
          position: 'absolute',
          left: 4,
          bottom: 2,
          fontSize: 12,
          textShadow: '0 0 2px #000',
        }}
      >
        {name}
      </span>
    </div>
  );
}
