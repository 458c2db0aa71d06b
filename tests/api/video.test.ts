/**
 * The video room's API and signalling socket (issue #20 items 6 and 7), on each database:
 * - starting a room needs consult:start and a party to the consultation (canJoinConsultation);
 *   one meeting id per consultation, whoever starts, bound to the consultation
 * - the room, its events and annotations are refused (CONSULT002) to whoever may not
 *   enter; the socket refuses a bad token (UAA005), a user without the right (UAA103)
 *   and a join that names no client app (UAA008)
 * - two participants join; the first presents; a signal reaches only its addressee, chat
 *   everyone and is kept with the consultation (the events, a late joiner's welcome);
 *   the presenter's view state reaches the follower and is stored, a
 *   follower's is dropped; the viewer is handed over on request; annotations are kept
 * - a message sent right behind the join waits for it (it was dropped while the join's
 *   NOTIFY was in flight)
 * - the events come back in order for the replay; TURN credentials follow the REST scheme
 * - once the consultation has ended (7) its parties still read the room, events and
 *   annotations (the replay), a non-party still gets CONSULT002, and nobody joins
 * - on PostgreSQL, two instances on one database: a participant on each hears the other
 *   (NOTIFY, and the relay table for a message over NOTIFY's limit)
 */
import crypto from 'node:crypto';
import { dbKinds } from '../support/db';
import { APP_ID, startTestPlatform, type TestPlatform } from '../support/app';
import { listenOn, VideoClient as Client } from '../support/videoClient';
import { approvedConsultation } from '../support/consult';
import { authed, login } from '../support/auth';
import { loadConfig } from '../../server/config';
import { preparePlatform } from '../../server/start';
import { iceServers } from '../../server/video/rooms';

const C = '/api/consult/v1';

describe.each(dbKinds)('video room on %s', (kind) => {
  let p: TestPlatform;
  let base: string;
  let admin: string;
  let expert: string;
  let doctor: string;
  /** A consultation about to start: the admin applied, 郑教授 (13800000006) invited; the radiologist 13800000004 is no party. */
  let consultationId: number;
  const clients: Client[] = [];
  const open = async () => {
    const c = await Client.open(base);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    base = await listenOn(p.app);
    admin = await login(p.app, '13800000001');
    expert = await login(p.app, '13800000006');
    doctor = await login(p.app, '13800000004');
    consultationId = await approvedConsultation(p.db, '13800000001', ['13800000006']);
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) c.ws.close();
    await p?.close();
  });

  test('a room is started with consult:start, once per consultation, and shown only to who may enter', async () => {
    const refused = await p.app.inject({ method: 'POST', url: `${C}/video/room`, headers: authed(expert), payload: { consultationId } });
    expect(refused.json().status).toBe('UAA103');
    const started = await p.app.inject({ method: 'POST', url: `${C}/video/room`, headers: authed(admin), payload: { consultationId, studyUids: ['1.2.3.4'] } });
    expect(started.json().status).toBe('0');
    const room = started.json().data;
    expect(room).toMatchObject({ consultationId, studyUids: ['1.2.3.4'], presenterId: null, sfu: 'mesh' });
    const again = await p.app.inject({ method: 'POST', url: `${C}/video/room`, headers: authed(admin), payload: { consultationId } });
    expect(again.json().data.meetingId).toBe(room.meetingId);
    const seen = await p.app.inject({ method: 'GET', url: `${C}/video/room/${consultationId}`, headers: authed(expert) });
    expect(seen.json().data.meetingId).toBe(room.meetingId);
    // The meeting id is the consultation's (its detail shows it).
    expect((await p.db.query('SELECT meeting_id FROM consultation WHERE id = $1', [consultationId])).rows[0].meeting_id).toBe(room.meetingId);
    // The radiologist may start rooms but is no party to this consultation: not started, not shown.
    const notParty = await p.app.inject({ method: 'POST', url: `${C}/video/room`, headers: authed(doctor), payload: { consultationId } });
    expect([notParty.statusCode, notParty.json().status]).toEqual([404, 'CONSULT002']);
    // A consultation not yet approved has no room, even for its party.
    const pending = await approvedConsultation(p.db, '13800000001', ['13800000006'], 2);
    expect((await p.app.inject({ method: 'POST', url: `${C}/video/room`, headers: authed(admin), payload: { consultationId: pending } })).json().status).toBe('CONSULT002');
    // No party (the radiologist), or an unknown consultation: the same answer.
    for (const [token, id] of [[doctor, consultationId], [expert, consultationId + 1]] as const) {
      for (const suffix of ['', '/events', '/events?kind=chat', '/annotations']) {
        const r = await p.app.inject({ method: 'GET', url: `${C}/video/room/${id}${suffix}`, headers: authed(token) });
        expect([r.statusCode, r.json().status]).toEqual([404, 'CONSULT002']);
      }
    }
  });

  test('the socket refuses a bad token and a user without the right, and says nothing before', async () => {
    const bad = await open();
    bad.send({ type: 'chat', text: 'before joining' });
    expect((await bad.join('not-a-token', consultationId)).code).toBe('UAA005');
    expect(await bad.closed).toBe(4403);
    const doc = await open();
    expect((await doc.join(doctor, consultationId)).code).toBe('UAA103');
    const noApp = await open();
    noApp.send({ type: 'join', token: admin, consultationId });
    expect((await noApp.next((m) => m.type === 'error')).code).toBe('UAA008');
    expect(bad.heard.filter((m) => m.type !== 'error')).toEqual([]);
  });

  test('two participants: signals, chat, the presenter’s view mirrored and stored, the hand-over, annotations', async () => {
    const a = await open();
    const wa = await a.join(admin, consultationId);
    expect(wa.type).toBe('welcome');
    const adminId = wa.user.id;
    expect(wa.presenterId).toBe(adminId);
    expect(wa.iceServers).toEqual([]);
    const b = await open();
    const wb = await b.join(expert, consultationId);
    expect(wb).toMatchObject({ type: 'welcome', meetingId: wa.meetingId, presenterId: adminId, studyUids: ['1.2.3.4'] });
    const joined = await a.next((m) => m.type === 'join');
    expect(joined.peerId).toBe(wb.peerId);

    a.send({ type: 'signal', to: wb.peerId, data: { sdp: 'offer' } });
    expect((await b.next((m) => m.type === 'signal')).data).toEqual({ sdp: 'offer' });
    b.send({ type: 'chat', text: '  请看第 12 层  ' });
    const heardChat = await a.next((m) => m.type === 'chat');
    expect(heardChat).toMatchObject({ text: '请看第 12 层', user: { id: wb.user.id } });
    // An empty line is neither passed on nor kept.
    b.send({ type: 'chat', text: '   ' });

    const view = { studyUid: '1.2.3.4', seriesUid: '1.2.3.4.1', index: 11, voi: { lower: -160, upper: 240 }, zoom: 1.5, pan: [3, -4] };
    a.send({ type: 'view', state: view });
    expect((await b.next((m) => m.type === 'view')).state).toEqual(view);
    // A follower does not drive: its state is neither passed on nor stored.
    b.send({ type: 'view', state: { ...view, index: 99 } });
    a.send({ type: 'view', state: { ...view, index: 12 } });
    expect((await b.next((m) => m.type === 'view' && m.state.index === 12)).from).toBe(wa.peerId);
    expect(a.heard.some((m) => m.type === 'view')).toBe(false);

    b.send({ type: 'request' });
    expect((await a.next((m) => m.type === 'request')).user.id).toBe(wb.user.id);
    a.send({ type: 'handover', userId: wb.user.id });
    expect((await b.next((m) => m.type === 'presenter')).presenterId).toBe(wb.user.id);
    const notes = [{ annotationUID: 'n1', metadata: { toolName: 'Length' }, data: { handles: { points: [[0, 0, 0], [10, 0, 0]] } } }];
    b.send({ type: 'annotations', annotations: notes });
    expect((await a.next((m) => m.type === 'annotations')).annotations).toEqual(notes);

    const events = await p.app.inject({ method: 'GET', url: `${C}/video/room/${consultationId}/events`, headers: authed(expert) });
    const list = events.json().data as Array<{ id: number; kind: string; userId: number; state: Record<string, unknown> }>;
    expect(list.map((e) => [e.kind, e.state.index ?? e.state.presenterId ?? e.state.text ?? 'notes'])).toEqual([
      ['presenter', adminId],
      // The chat is kept with the consultation, in order among the viewer's events, with who said it.
      ['chat', '请看第 12 层'],
      ['view', 11],
      ['view', 12],
      ['presenter', wb.user.id],
      ['annotations', 'notes'],
    ]);
    expect(list[1]).toMatchObject({ id: heardChat.id, userId: wb.user.id, state: { text: '请看第 12 层', name: wb.user.name } });
    const after = await p.app.inject({ method: 'GET', url: `${C}/video/room/${consultationId}/events?after=${list[3].id}`, headers: authed(expert) });
    expect(after.json().data).toHaveLength(2);
    // Only the chat (the consultation's detail reads it so), for whoever may enter the room.
    const chat = await p.app.inject({ method: 'GET', url: `${C}/video/room/${consultationId}/events?kind=chat`, headers: authed(admin) });
    expect(chat.json().data.map((e: { id: number }) => e.id)).toEqual([heardChat.id]);
    const saved = await p.app.inject({ method: 'GET', url: `${C}/video/room/${consultationId}/annotations`, headers: authed(admin) });
    expect(saved.json().data).toMatchObject({ annotations: notes, savedBy: wb.user.id });

    // A late joiner starts from the last view and the annotations.
    const c = await open();
    const wc = await c.join(admin, consultationId);
    expect(wc).toMatchObject({ presenterId: wb.user.id, view: { ...view, index: 12 }, annotations: notes });
    // ...and the recent chat, oldest first.
    expect(wc.chat).toEqual([{ id: heardChat.id, userId: wb.user.id, name: wb.user.name, text: '请看第 12 层', at: heardChat.at }]);
    // The leaving peer is announced.
    c.ws.close();
    expect((await a.next((m) => m.type === 'leave')).peerId).toBe(wc.peerId);
  });

  test('a message sent right behind the join, before the welcome, is handled after the join, not dropped', async () => {
    // A room of its own: the shared one holds four at most.
    const own = await approvedConsultation(p.db, '13800000001', ['13800000006']);
    expect((await p.app.inject({ method: 'POST', url: `${C}/video/room`, headers: authed(admin), payload: { consultationId: own } })).json().status).toBe('0');
    const a = await open();
    expect((await a.join(admin, own)).type).toBe('welcome');
    const b = await open();
    b.send({ type: 'join', appId: APP_ID, token: expert, consultationId: own });
    b.send({ type: 'chat', text: 'right behind the join' });
    expect((await a.next((m) => m.type === 'chat' && m.text === 'right behind the join')).user.id).toBe((await b.next((m) => m.type === 'welcome')).user.id);
  });

  test('after the consultation has ended its parties still read the room, its events and annotations; nobody joins', async () => {
    // A consultation of its own: ending the shared one would close the later tests' room.
    const ended = await approvedConsultation(p.db, '13800000001', ['13800000006']);
    expect((await p.app.inject({ method: 'POST', url: `${C}/video/room`, headers: authed(admin), payload: { consultationId: ended, studyUids: ['1.2.3.9'] } })).json().status).toBe('0');
    const a = await open();
    expect((await a.join(admin, ended)).type).toBe('welcome');
    a.send({ type: 'view', state: { studyUid: '1.2.3.9', seriesUid: '1.2.3.9.1', index: 4 } });
    a.send({ type: 'annotations', annotations: [{ annotationUID: 'e1' }] });
    a.send({ type: 'chat', text: 'kept for the replay' });
    await a.next((m) => m.type === 'chat');
    a.ws.close();
    await p.db.query('UPDATE consultation SET status = 7 WHERE id = $1', [ended]);

    for (const token of [admin, expert]) {
      const room = await p.app.inject({ method: 'GET', url: `${C}/video/room/${ended}`, headers: authed(token) });
      expect(room.json().data).toMatchObject({ consultationId: ended, studyUids: ['1.2.3.9'] });
      const events = await p.app.inject({ method: 'GET', url: `${C}/video/room/${ended}/events`, headers: authed(token) });
      expect((events.json().data as Array<{ kind: string }>).map((e) => e.kind)).toEqual(['presenter', 'view', 'annotations', 'chat']);
      // One asked for (the detail's "is there a replay?").
      const one = await p.app.inject({ method: 'GET', url: `${C}/video/room/${ended}/events?limit=1`, headers: authed(token) });
      expect((one.json().data as Array<{ kind: string }>).map((e) => e.kind)).toEqual(['presenter']);
      const notes = await p.app.inject({ method: 'GET', url: `${C}/video/room/${ended}/annotations`, headers: authed(token) });
      expect(notes.json().data).toMatchObject({ annotations: [{ annotationUID: 'e1' }] });
    }
    // No party: the same answer as before the end.
    for (const suffix of ['', '/events', '/annotations']) {
      const r = await p.app.inject({ method: 'GET', url: `${C}/video/room/${ended}${suffix}`, headers: authed(doctor) });
      expect([r.statusCode, r.json().status]).toEqual([404, 'CONSULT002']);
    }
    // The room itself is closed: no join, no new start.
    const late = await open();
    expect((await late.join(expert, ended)).code).toBe('UAA103');
    const restart = await p.app.inject({ method: 'POST', url: `${C}/video/room`, headers: authed(admin), payload: { consultationId: ended } });
    expect(restart.json().status).toBe('CONSULT002');
  });

  test('TURN credentials: "<expiry>:<user>" signed with the shared secret', () => {
    const now = Date.UTC(2026, 0, 1);
    const [turn] = iceServers({ stunUrls: [], turnUrls: ['turn:10.0.0.1:3478'], turnSecret: 's3cret', turnTtlSeconds: 600, janusRoomMax: 16, janusTimeoutMs: 10_000 }, 42, now);
    expect(turn.username).toBe(`${now / 1000 + 600}:42`);
    expect(turn.credential).toBe(crypto.createHmac('sha1', 's3cret').update(turn.username!).digest('base64'));
  });

  if (kind === 'postgres') {
    test('two instances on one database: participants on each hear each other', async () => {
      const config = loadConfig({ DATA_DIR: p.dataDir, LOG_LEVEL: 'silent', SESSION_MAX_PER_USER: '0', DIST_DIR: `${p.dataDir}/no-dist` });
      const second = await preparePlatform(config, { db: p.db, logger: false });
      try {
        const base2 = await listenOn(second.app);
        const a = await open();
        const wa = await a.join(admin, consultationId);
        const b = new Client(await Client.open(base2).then((c) => c.ws));
        clients.push(b);
        const wb = await b.join(expert, consultationId);
        expect((await a.next((m) => m.type === 'join' && m.peerId === wb.peerId)).user.id).toBe(wb.user.id);
        // An SDP-sized message: over NOTIFY's 8000 bytes, it goes through the relay table.
        const sdp = 'a=candidate '.repeat(1000);
        b.send({ type: 'signal', to: wa.peerId, data: { sdp } });
        expect((await a.next((m) => m.type === 'signal')).data.sdp).toBe(sdp);
        b.ws.close();
      } finally {
        await second.app.close();
      }
    });
  }
});
