/**
 * The signalling hub of the video rooms: one WebSocket per participant on the platform's
 * own server. It relays WebRTC offers/answers/candidates between participants (the
 * browsers form a mesh), chat, and the presenter's viewer state (chat lines and view
 * states are stored by ./rooms.ts before they are passed on, so the replay holds
 * everything the followers saw and read; a late joiner's welcome has the recent chat).
 *
 * Several instances behind a load balancer: a room's participants may sit on different
 * instances. Membership is not kept on the server: a newcomer announces itself and the
 * others call it, so every message only has to reach the room wherever its sockets are.
 * Each message is delivered to this instance's sockets and, on PostgreSQL, published with
 * NOTIFY on VIDEO_CHANNEL for the other instances (payloads over NOTIFY's 8000 bytes go
 * through the video_relay table by id). The presenter is a column of video_room, so it
 * survives a reconnect to another instance. Limit: the mesh's four-participant cap is
 * counted per instance (a fifth participant on another instance is not refused).
 *
 * With JANUS_URL the media goes through Janus's VideoRoom instead of the mesh
 * (./janus.ts): each participant gets its Janus handles when it joins (refused with
 * VIDEO002 when the room is full, VIDEO003 when Janus does not answer), its `sfu`
 * messages go to them, and they go when its socket closes. Chat, presence and reading
 * together are the same in both modes.
 */
import crypto from 'node:crypto';
import type { WebSocket } from '@fastify/websocket';
import type { Db } from '../db';
import type { AuthContext } from '../identity/sessions';
import { MESH_MAX, recordChat, recentChat, recordEvent, roomOf, saveAnnotations, setPresenter, lastView, annotationsOf, iceServers, type Room } from './rooms';
import { mayEnterRoom } from './access';
import type { VideoConfig } from '../config';
import { JanusGateway, JanusRoomFull, JanusUnavailable, type JanusParticipant } from './janus';

export const VIDEO_CHANNEL = 'video_room';
/** Under NOTIFY's 8000-byte limit with room for the envelope. */
const NOTIFY_MAX = 7000;
/** A chat line, and a whole viewer state, are small: anything bigger is not ours. */
const MESSAGE_MAX = 256 * 1024;
const CHAT_MAX = 500;

interface Peer {
  id: string;
  socket: WebSocket;
  user: { id: number; name: string };
  room: Room;
  /** Its handles in Janus (JANUS_URL set). */
  sfu?: JanusParticipant;
}

/** What goes between instances: the room, the target peer (or all), and the message. */
interface Envelope {
  origin: string;
  meetingId: string;
  to?: string;
  except?: string;
  message: Record<string, unknown>;
}

export interface HubDeps {
  db: () => Db;
  config: VideoConfig;
  /** Resolves a session token (the browser's X-Auth-Token), as the HTTP API does. */
  resolve(token: string): Promise<AuthContext | null>;
  /** The client app ids the API accepts (X-App-Id elsewhere, the join message here). */
  appIds: string[];
  log: { warn(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void };
}

export class VideoHub {
  readonly instance = crypto.randomUUID();
  private peers = new Map<string, Peer>();
  private stopListening?: () => Promise<void>;
  private janus?: JanusGateway;

  constructor(private deps: HubDeps) {
    const { janusUrl, janusApiSecret, janusRoomMax, janusTimeoutMs } = deps.config;
    if (janusUrl) {
      this.janus = new JanusGateway({ url: janusUrl, apiSecret: janusApiSecret, roomMax: janusRoomMax, timeoutMs: janusTimeoutMs }, deps.log, (lost) => {
        // Janus went away under these participants: their media is gone; they are told so.
        for (const p of this.peers.values()) if (p.sfu === lost) this.refuse(p.socket, 'VIDEO003');
      });
    }
  }

  /** Says why in a catalogue code (with its parameters) and closes. */
  private refuse(socket: WebSocket, code: string, params?: Record<string, unknown>): void {
    socket.send(JSON.stringify({ type: 'error', code, ...(params ? { params } : {}) }));
    socket.close(4403, code);
  }

  /** Hears the other instances (PostgreSQL only: PGlite is one process). */
  async start(): Promise<void> {
    const db = this.deps.db();
    if (db.kind !== 'postgres') return;
    this.stopListening = await db.listen(VIDEO_CHANNEL, {
      message: (payload) => void this.fromOtherInstance(payload).catch((e) => this.deps.log.warn(e, 'video relay')),
    });
  }

  async stop(): Promise<void> {
    for (const p of this.peers.values()) p.socket.close(1001);
    this.peers.clear();
    await this.janus?.close();
    await this.stopListening?.();
  }

  /** A new socket: it must say who it is (its session token) and which consultation's room, first. */
  accept(socket: WebSocket): void {
    let peer: Peer | undefined;
    let closed = false;
    const fail = (code: string, params?: Record<string, unknown>) => this.refuse(socket, code, params);
    const take = async (msg: Record<string, unknown>): Promise<void> => {
      if (closed) return;
      if (peer) return this.handle(peer, msg);
      // Nothing but a join is heard before the join.
      if (msg.type !== 'join') return;
      const joined = await this.join(socket, msg, () => closed, (p) => (peer = p)).catch((e) => {
        this.deps.log.warn(e, 'video join');
        return 'UAA003';
      });
      if (typeof joined === 'string') return fail(joined);
      if (Array.isArray(joined)) return fail(joined[0], joined[1]);
      // Closed while joining: the close handler may have found no peer to remove.
      if (closed) this.leave(joined);
    };
    // One message at a time, in the order sent. A message right behind the join waits for
    // the join to finish: it used to be dropped while the join's NOTIFY was in flight (on
    // PostgreSQL under load, a chat sent just after the welcome was lost), and a
    // presenter's view steps are stored in the order they were taken.
    let turn = Promise.resolve();
    socket.on('message', (raw) => {
      const text = String(raw);
      if (text.length > MESSAGE_MAX) return;
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(text);
      } catch {
        return;
      }
      turn = turn.then(() => take(msg)).catch((e) => this.deps.log.warn(e, 'video message'));
    });
    socket.on('close', () => {
      closed = true;
      if (peer) this.leave(peer);
    });
  }

  /** A participant gone: its Janus handles detached, the others told (once). */
  private leave(peer: Peer): void {
    if (!this.peers.delete(peer.id)) return;
    void peer.sfu?.leave();
    void this.publish({ origin: this.instance, meetingId: peer.room.meetingId, except: peer.id, message: { type: 'leave', peerId: peer.id } }).catch((e) =>
      this.deps.log.warn(e, 'video leave'),
    );
  }

  /** The participant, or the catalogue code (with parameters) it is refused with. */
  private async join(socket: WebSocket, msg: Record<string, unknown>, closed: () => boolean, admit: (peer: Peer) => void): Promise<Peer | string | [string, Record<string, unknown>]> {
    const db = this.deps.db();
    if (typeof msg.appId !== 'string' || !this.deps.appIds.includes(msg.appId)) return 'UAA008';
    const user = typeof msg.token === 'string' ? await this.deps.resolve(msg.token) : null;
    if (!user || user.status !== 1) return 'UAA005';
    const consultationId = Number(msg.consultationId);
    if (!Number.isInteger(consultationId) || consultationId <= 0) return 'CONSULT002';
    if (!(await mayEnterRoom(user, consultationId, db))) return 'UAA103';
    const room = await roomOf(db, consultationId);
    if (!room) return 'CONSULT002';
    const here = [...this.peers.values()].filter((p) => p.room.meetingId === room.meetingId).length;
    if (!this.deps.config.janusUrl && here >= MESH_MAX) return 'VIDEO001';
    const peer: Peer = { id: crypto.randomUUID(), socket, user: { id: user.userId, name: user.name }, room };
    if (this.janus) {
      const send = (m: Record<string, unknown>) => socket.readyState === socket.OPEN && socket.send(JSON.stringify(m));
      try {
        peer.sfu = await this.janus.enter(room.meetingId, { peerId: peer.id, user: peer.user }, send);
      } catch (e) {
        if (e instanceof JanusRoomFull) return [e.code, { max: e.max }];
        if (e instanceof JanusUnavailable) return e.code;
        throw e;
      }
      // Gone while Janus answered: its handles go too.
      if (closed()) {
        await peer.sfu.leave();
        return 'UAA005';
      }
    }
    this.peers.set(peer.id, peer);
    admit(peer);
    // The first participant drives the viewer until someone asks for it.
    if (room.presenterId === null) await setPresenter(db, room, user.userId, user.userId);
    socket.send(
      JSON.stringify({
        type: 'welcome',
        peerId: peer.id,
        user: peer.user,
        meetingId: room.meetingId,
        consultationId,
        studyUids: room.studyUids,
        presenterId: room.presenterId,
        view: await lastView(db, room),
        annotations: (await annotationsOf(db, consultationId))?.annotations ?? [],
        chat: await recentChat(db, room),
        iceServers: iceServers(this.deps.config, user.userId),
        sfu: this.deps.config.janusUrl ? 'janus' : 'mesh',
      }),
    );
    // The feeds already in Janus's room are offered once the browser has its welcome.
    peer.sfu?.start();
    await this.publish({ origin: this.instance, meetingId: room.meetingId, except: peer.id, message: { type: 'join', peerId: peer.id, user: peer.user } });
    return peer;
  }

  private async handle(peer: Peer, msg: Record<string, unknown>): Promise<void> {
    const db = this.deps.db();
    const base = { origin: this.instance, meetingId: peer.room.meetingId };
    const from = { from: peer.id, user: peer.user };
    switch (msg.type) {
      case 'sfu':
        // The browser's side of its Janus connections (./janus.ts).
        await peer.sfu?.handle(msg);
        return;
      case 'signal':
        // Offers, answers and ICE candidates, from one browser to another, untouched.
        if (typeof msg.to === 'string') await this.publish({ ...base, to: msg.to, message: { type: 'signal', ...from, data: msg.data } });
        return;
      case 'chat': {
        const text = typeof msg.text === 'string' ? msg.text.trim().slice(0, CHAT_MAX) : '';
        if (!text) return;
        // Kept with the consultation before it is passed on: the replay and the detail hold every line that was read.
        const line = await recordChat(db, peer.room, peer.user, text);
        await this.publish({ ...base, message: { type: 'chat', ...from, id: line.id, text, at: line.at } });
        return;
      }
      case 'ping':
        // The bench's reference: a round trip through this socket without the database.
        peer.socket.send(JSON.stringify({ type: 'pong', t: msg.t }));
        return;
      case 'view':
      case 'annotations': {
        // Only the presenter drives; what a follower sends is dropped (its viewer follows).
        const room = await this.fresh(peer);
        if (room.presenterId !== peer.user.id) return;
        if (msg.type === 'view') await recordEvent(db, room, peer.user.id, 'view', msg.state ?? {});
        else await saveAnnotations(db, room, peer.user.id, Array.isArray(msg.annotations) ? msg.annotations : []);
        const payload = msg.type === 'view' ? { type: 'view', ...from, state: msg.state, t: msg.t } : { type: 'annotations', ...from, annotations: msg.annotations };
        await this.publish({ ...base, except: peer.id, message: payload });
        return;
      }
      case 'request':
        // A follower asks for the viewer: the presenter's screen offers to hand it over.
        await this.publish({ ...base, except: peer.id, message: { type: 'request', ...from } });
        return;
      case 'handover': {
        const room = await this.fresh(peer);
        const to = Number(msg.userId);
        // The presenter hands over; anyone takes it when nobody holds it.
        if (room.presenterId !== peer.user.id && room.presenterId !== null) return;
        if (!Number.isInteger(to)) return;
        await setPresenter(db, room, peer.user.id, to);
        await this.publish({ ...base, message: { type: 'presenter', presenterId: to } });
        return;
      }
      default:
    }
  }

  /** The room as the database has it now (another instance may have handed the viewer over). */
  private async fresh(peer: Peer): Promise<Room> {
    const room = await roomOf(this.deps.db(), peer.room.consultationId);
    if (room) peer.room = room;
    return peer.room;
  }

  private async publish(envelope: Envelope): Promise<void> {
    this.deliver(envelope);
    const db = this.deps.db();
    if (db.kind !== 'postgres') return;
    let payload = JSON.stringify(envelope);
    if (Buffer.byteLength(payload) > NOTIFY_MAX) {
      const r = await db.query<{ id: string }>('INSERT INTO video_relay (payload) VALUES ($1) RETURNING id::text AS id', [payload]);
      payload = `#${r.rows[0].id}`;
      // Every instance has read it long before: a minute is ample.
      await db.query("DELETE FROM video_relay WHERE created_at < now() - interval '1 minute'");
    }
    await db.query('SELECT pg_notify($1, $2)', [VIDEO_CHANNEL, payload]);
  }

  private async fromOtherInstance(payload: string): Promise<void> {
    let text = payload;
    if (payload.startsWith('#')) {
      const r = await this.deps.db().query<{ payload: string }>('SELECT payload FROM video_relay WHERE id = $1', [payload.slice(1)]);
      if (!r.rows[0]) return;
      text = r.rows[0].payload;
    }
    const envelope = JSON.parse(text) as Envelope;
    if (envelope.origin === this.instance) return;
    this.deliver(envelope);
  }

  private deliver(envelope: Envelope): void {
    const text = JSON.stringify(envelope.message);
    for (const p of this.peers.values()) {
      if (p.room.meetingId !== envelope.meetingId || p.id === envelope.except) continue;
      if (envelope.to && p.id !== envelope.to) continue;
      if (p.socket.readyState === p.socket.OPEN) p.socket.send(text);
    }
  }
}
