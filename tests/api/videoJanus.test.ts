/**
 * The video room through Janus (JANUS_URL; issue #20 item 6), against Debian's Janus
 * started for this file (tests/support/janus.ts), on each database. Node has no WebRTC
 * stack, so the media itself is the browser test's (tests/browser/videoRoomJanus.test.ts);
 * here the signalling and the room:
 * - the welcome says `sfu: 'janus'`; the meeting's Janus room is created by the first
 *   join and found by the next (427 "already exists" is success), from two platform
 *   instances on one database too: all their participants are in one Janus room
 * - a publish offer (SDP written here) comes back as Janus's own answer
 * - the cap: JANUS_ROOM_MAX participants, the next one refused with VIDEO002 {max}
 * - a participant leaving detaches its handles: Janus's room lists it no more
 * - Janus going away under a room: its participants are told VIDEO003; Janus unreachable
 *   (nothing listening, or a socket that never answers): the join is refused with
 *   VIDEO003, promptly; the server logs both
 */
import net from 'node:net';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { approvedConsultation } from '../support/consult';
import { authed, login } from '../support/auth';
import { startJanus, type JanusProcess } from '../support/janus';
import { listenOn, VideoClient } from '../support/videoClient';
import { loadConfig } from '../../server/config';
import { preparePlatform } from '../../server/start';
import { janusRoomId } from '../../server/video/janus';
import { loadJanode, type VideoRoomHandle } from '../../server/video/janode';

const C = '/api/consult/v1';
const ROOM_MAX = 3;

/** A publish offer as a browser writes it: one VP8 video sender, trickle ICE, DTLS. */
function videoOffer(): string {
  const fingerprint = Array.from({ length: 32 }, (_, i) => ((i * 37 + 11) % 256).toString(16).padStart(2, '0').toUpperCase()).join(':');
  return [
    'v=0',
    'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
    's=-',
    't=0 0',
    'a=group:BUNDLE 0',
    'a=msid-semantic: WMS camera',
    'm=video 9 UDP/TLS/RTP/SAVPF 96',
    'c=IN IP4 0.0.0.0',
    'a=rtcp:9 IN IP4 0.0.0.0',
    'a=ice-ufrag:rcld',
    'a=ice-pwd:rcloudtestpasswordabcdefgh',
    'a=ice-options:trickle',
    `a=fingerprint:sha-256 ${fingerprint}`,
    'a=setup:actpass',
    'a=mid:0',
    'a=sendonly',
    'a=msid:camera video0',
    'a=rtcp-mux',
    'a=rtpmap:96 VP8/90000',
    'a=rtcp-fb:96 nack',
    'a=rtcp-fb:96 nack pli',
    'a=ssrc:1234 cname:rcloud',
    '',
  ].join('\r\n');
}

describe.each(dbKinds)('video room through Janus on %s', (kind) => {
  let janus: JanusProcess;
  let p: TestPlatform;
  let base: string;
  let admin: string;
  let expert: string;
  let consultationId: number;
  let meetingId: string;
  /** A handle of the test's own on Janus, to see its rooms as Janus has them. */
  let probe: VideoRoomHandle;
  let closeProbe: () => Promise<void>;
  const clients: VideoClient[] = [];
  const open = async (at = base) => {
    const c = await VideoClient.open(at);
    clients.push(c);
    return c;
  };
  const inJanus = async () => (await probe.listParticipants({ room: janusRoomId(meetingId) })).participants.map((x) => JSON.parse(x.display ?? '{}').peerId as string);
  /** Janus's room as it changes (detaching is Janus's work after the socket closed): polled until `done`. */
  const untilInJanus = async (done: (peers: string[]) => boolean) => {
    for (;;) {
      const peers = await inJanus();
      if (done(peers)) return peers;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  beforeAll(async () => {
    janus = await startJanus();
    p = await startTestPlatform(kind, { JANUS_URL: janus.url, JANUS_ROOM_MAX: String(ROOM_MAX) });
    base = await listenOn(p.app);
    admin = await login(p.app, '13800000001');
    expert = await login(p.app, '13800000006');
    consultationId = await approvedConsultation(p.db, '13800000001', ['13800000006']);
    const started = await p.app.inject({ method: 'POST', url: `${C}/video/room`, headers: authed(admin), payload: { consultationId } });
    expect(started.json().data.sfu).toBe('janus');
    meetingId = started.json().data.meetingId;
    const { janode, videoRoom } = await loadJanode();
    const connection = await janode.connect({ address: { url: janus.url }, max_retries: 0 });
    const session = await connection.create();
    probe = await session.attach(videoRoom);
    closeProbe = async () => {
      await session.destroy().catch(() => undefined);
      await connection.close().catch(() => undefined);
    };
  }, 180_000);
  afterAll(async () => {
    for (const c of clients) c.ws.close();
    await closeProbe?.();
    await p?.close();
    await janus?.stop();
  });

  test('the first join creates the meeting’s Janus room, the next finds it; a publish offer gets Janus’s answer; leaving detaches', async () => {
    const a = await open();
    const wa = await a.join(admin, consultationId);
    expect(wa).toMatchObject({ type: 'welcome', sfu: 'janus', meetingId });
    const b = await open();
    const wb = await b.join(expert, consultationId);
    expect(wb).toMatchObject({ type: 'welcome', sfu: 'janus', meetingId });
    // One Janus room for the meeting, both participants in it, each with who it is.
    expect((await inJanus()).sort()).toEqual([wa.peerId, wb.peerId].sort());

    a.send({ type: 'sfu', op: 'publish', jsep: { type: 'offer', sdp: videoOffer() } });
    const published = await a.next((m) => m.type === 'sfu' && m.op === 'published');
    expect(published.jsep.type).toBe('answer');
    // Janus's answer: it receives the video (it does not send on a publisher's connection) with its own ICE credentials.
    expect(published.jsep.sdp).toMatch(/a=recvonly/);
    expect(published.jsep.sdp).toMatch(/VP8\/90000/);
    expect(published.jsep.sdp).not.toMatch(/a=ice-ufrag:rcld\r?\n/);
    // Candidates trickle to Janus; a malformed offer is not passed on.
    a.send({ type: 'sfu', op: 'trickle', candidate: { candidate: 'candidate:1 1 udp 2122260223 10.213.0.1 50000 typ host', sdpMid: '0', sdpMLineIndex: 0 } });
    a.send({ type: 'sfu', op: 'trickle', candidate: null });
    b.send({ type: 'sfu', op: 'publish', jsep: { type: 'answer', sdp: 'v=0' } });
    b.send({ type: 'chat', text: 'after the bad offer' });
    await a.next((m) => m.type === 'chat' && m.text === 'after the bad offer');
    expect(b.heard.some((m) => m.type === 'sfu')).toBe(false);

    b.ws.close();
    expect((await a.next((m) => m.type === 'leave')).peerId).toBe(wb.peerId);
    expect(await untilInJanus((peers) => peers.length === 1)).toEqual([wa.peerId]);
    a.ws.close();
    await untilInJanus((peers) => peers.length === 0);
    // The room stays in Janus (see server/video/janus.ts): a rejoin finds it.
    const again = await open();
    expect((await again.join(admin, consultationId)).type).toBe('welcome');
    again.ws.close();
    await untilInJanus((peers) => peers.length === 0);
  });

  test(`the cap: ${ROOM_MAX} participants, the next refused with VIDEO002 naming it`, async () => {
    const inside: VideoClient[] = [];
    for (let i = 0; i < ROOM_MAX; i++) {
      const c = await open();
      expect((await c.join(i % 2 ? expert : admin, consultationId)).type).toBe('welcome');
      inside.push(c);
    }
    const late = await open();
    const refused = await late.join(expert, consultationId);
    expect(refused).toEqual({ type: 'error', code: 'VIDEO002', params: { max: ROOM_MAX } });
    expect(await late.closed).toBe(4403);
    // Refused before any handle: Janus's room holds the three.
    expect(await inJanus()).toHaveLength(ROOM_MAX);
    for (const c of inside) c.ws.close();
    await untilInJanus((peers) => peers.length === 0);
  });

  if (kind === 'postgres') {
    test('two platform instances on one database share the meeting’s Janus room', async () => {
      const config = loadConfig({ DATA_DIR: p.dataDir, LOG_LEVEL: 'silent', SESSION_MAX_PER_USER: '0', DIST_DIR: `${p.dataDir}/no-dist`, JANUS_URL: janus.url, JANUS_ROOM_MAX: String(ROOM_MAX) });
      const second = await preparePlatform(config, { db: p.db, logger: false });
      try {
        const base2 = await listenOn(second.app);
        const a = await open();
        const wa = await a.join(admin, consultationId);
        const b = await open(base2);
        const wb = await b.join(expert, consultationId);
        expect(wb.type).toBe('welcome');
        expect((await inJanus()).sort()).toEqual([wa.peerId, wb.peerId].sort());
        b.ws.close();
        a.ws.close();
        await untilInJanus((peers) => peers.length === 0);
      } finally {
        await second.app.close();
      }
      // A second platform starts slowly on a busy machine.
    }, 120_000);
  }

  // Janus itself does not depend on the database: the failures once, on the embedded one
  // (each case needs a platform of its own pointed at a Janus that goes away).
  if (kind === 'pglite') {
    test('Janus going away under a room, then not listening, then never answering: VIDEO003 each time, promptly, and logged', async () => {
      const gone = await startJanus();
      const port = gone.port;
      const lines: string[] = [];
      const logged = (pattern: RegExp) => lines.map((l) => JSON.parse(l)).filter((l) => pattern.test(l.msg));
      const config = loadConfig({ DATA_DIR: p.dataDir, LOG_LEVEL: 'silent', SESSION_MAX_PER_USER: '0', DIST_DIR: `${p.dataDir}/no-dist`, JANUS_URL: gone.url, JANUS_TIMEOUT_MS: '5000' });
      const other = await preparePlatform(config, { db: p.db, logger: { level: 'warn', stream: { write: (line: string) => lines.push(line) } } });
      const held: net.Socket[] = [];
      const silent = net.createServer((socket) => held.push(socket));
      try {
        const otherBase = await listenOn(other.app);
        const c = await open(otherBase);
        expect((await c.join(expert, consultationId)).type).toBe('welcome');
        // Gone under the room: the participant is told, and it is logged.
        await gone.stop();
        expect(await c.next((m) => m.type === 'error')).toEqual({ type: 'error', code: 'VIDEO003' });
        expect(await c.closed).toBe(4403);
        expect(logged(/janus connection lost/)).toHaveLength(1);
        // Nothing listening there now: the next join is refused, not left waiting.
        const refused = await open(otherBase);
        expect(await refused.join(admin, consultationId)).toEqual({ type: 'error', code: 'VIDEO003' });
        expect(await refused.closed).toBe(4403);
        expect(logged(/janus unreachable/)[0]).toMatchObject({ janusUrl: gone.url, meetingId });
        // A socket there that accepts and never answers: refused after JANUS_TIMEOUT_MS, no longer.
        await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
        const waited = await open(otherBase);
        expect(await waited.join(admin, consultationId)).toEqual({ type: 'error', code: 'VIDEO003' });
        expect(held.length).toBeGreaterThan(0);
        expect(logged(/janus unreachable/)).toHaveLength(2);
      } finally {
        for (const socket of held) socket.destroy();
        silent.close();
        await other.app.close();
        await gone.stop();
      }
    }, 120_000);
  }
});
