/**
 * The video room's rules and rows (issue #20 items 6 and 7): a room per consultation
 * (its meeting id), the presenter who drives everyone's viewer, every reading-together
 * event in order (replayed afterwards), the final annotations (read by the consultation
 * report), and the ICE servers a participant gets (TURN with time-limited credentials).
 * Touches only the video_* tables; who may enter is ./access.ts.
 */
import crypto from 'node:crypto';
import type { Queryable } from '../db';
import { AppError } from '../lib/errors';
import type { VideoConfig } from '../config';

export interface Room {
  meetingId: string;
  consultationId: number;
  studyUids: string[];
  presenterId: number | null;
  createdBy: number;
}

export type SyncKind = 'view' | 'annotations' | 'presenter' | 'chat';
export const SYNC_KINDS: readonly SyncKind[] = ['view', 'annotations', 'presenter', 'chat'];

/** A chat line as kept (a `chat` event's state): the speaker's name as it was, so the log reads without the user table. */
export interface ChatLine {
  id: number;
  userId: number;
  name: string;
  text: string;
  at: string;
}

/** How many chat lines a late joiner's welcome carries. */
export const WELCOME_CHAT = 50;

/** With no SFU configured, every participant sends to every other: four is what a laptop's uplink carries. */
export const MESH_MAX = 4;

const ROOM_COLUMNS = 'meeting_id AS "meetingId", consultation_id AS "consultationId", study_uids AS "studyUids", presenter_id AS "presenterId", created_by AS "createdBy"';

export async function roomOf(db: Queryable, consultationId: number): Promise<Room | undefined> {
  const r = await db.query<Room>(`SELECT ${ROOM_COLUMNS} FROM video_room WHERE consultation_id = $1 AND ended_at IS NULL`, [consultationId]);
  return r.rows[0];
}

/** Starts (or finds) the consultation's room: one meeting id per consultation, whoever starts it first. */
export async function startRoom(db: Queryable, userId: number, consultationId: number, studyUids: string[]): Promise<Room> {
  const meetingId = crypto.randomUUID();
  await db.query(
    `INSERT INTO video_room (meeting_id, consultation_id, created_by, study_uids) VALUES ($1, $2, $3, $4)
     ON CONFLICT (consultation_id) DO UPDATE SET study_uids = CASE WHEN video_room.study_uids = '[]'::jsonb THEN EXCLUDED.study_uids ELSE video_room.study_uids END`,
    [meetingId, consultationId, userId, JSON.stringify(studyUids)],
  );
  const room = await roomOf(db, consultationId);
  if (!room) throw new AppError('CONSULT002');
  return room;
}

/** Hands the viewer over: to `userId`, or to nobody (null). Recorded like every sync event. */
export async function setPresenter(db: Queryable, room: Room, byUser: number, userId: number | null): Promise<void> {
  await db.query('UPDATE video_room SET presenter_id = $2 WHERE meeting_id = $1', [room.meetingId, userId]);
  room.presenterId = userId;
  await recordEvent(db, room, byUser, 'presenter', { presenterId: userId });
}

export async function recordEvent(db: Queryable, room: Room, userId: number, kind: SyncKind, state: unknown): Promise<void> {
  await db.query('INSERT INTO video_sync_event (meeting_id, consultation_id, user_id, kind, state) VALUES ($1, $2, $3, $4, $5)', [
    room.meetingId,
    room.consultationId,
    userId,
    kind,
    JSON.stringify(state),
  ]);
}

/** The presenter's annotations: kept as the last set (for the report) and as an event (for the replay). */
export async function saveAnnotations(db: Queryable, room: Room, userId: number, annotations: unknown[]): Promise<void> {
  await db.query(
    `INSERT INTO video_annotation (meeting_id, consultation_id, annotations, saved_by) VALUES ($1, $2, $3, $4)
     ON CONFLICT (meeting_id) DO UPDATE SET annotations = EXCLUDED.annotations, saved_by = EXCLUDED.saved_by, saved_at = now()`,
    [room.meetingId, room.consultationId, JSON.stringify(annotations), userId],
  );
  await recordEvent(db, room, userId, 'annotations', { annotations });
}

export interface SyncEvent {
  id: number;
  userId: number;
  kind: SyncKind;
  state: Record<string, unknown>;
  at: string;
}

/** The session in order, for the replay (the viewer's events and the chat), or only events of one kind. */
export async function eventsOf(db: Queryable, consultationId: number, afterId = 0, limit = 1000, kind?: SyncKind): Promise<SyncEvent[]> {
  const r = await db.query<SyncEvent>(
    `SELECT e.id::int AS id, e.user_id AS "userId", e.kind, e.state, e.at FROM video_sync_event e
     WHERE e.consultation_id = $1 AND e.id > $2 AND ($4::text IS NULL OR e.kind = $4) ORDER BY e.id LIMIT $3`,
    [consultationId, afterId, limit, kind ?? null],
  );
  return r.rows.map((e) => ({ ...e, at: new Date(e.at).toISOString() }));
}

/** Keeps a chat line with the room's events (before it is passed on, like a view state); answers it as kept. */
export async function recordChat(db: Queryable, room: Room, user: { id: number; name: string }, text: string): Promise<ChatLine> {
  const r = await db.query<{ id: number; at: Date }>(
    "INSERT INTO video_sync_event (meeting_id, consultation_id, user_id, kind, state) VALUES ($1, $2, $3, 'chat', $4) RETURNING id::int AS id, at",
    [room.meetingId, room.consultationId, user.id, JSON.stringify({ text, name: user.name })],
  );
  return { id: r.rows[0].id, userId: user.id, name: user.name, text, at: new Date(r.rows[0].at).toISOString() };
}

/** The room's last chat lines, oldest first (a late joiner's welcome). */
export async function recentChat(db: Queryable, room: Room, limit = WELCOME_CHAT): Promise<ChatLine[]> {
  const r = await db.query<{ id: number; userId: number; state: { text: string; name: string }; at: Date }>(
    `SELECT id::int AS id, user_id AS "userId", state, at FROM video_sync_event WHERE meeting_id = $1 AND kind = 'chat' ORDER BY id DESC LIMIT $2`,
    [room.meetingId, limit],
  );
  return r.rows.reverse().map((e) => ({ id: e.id, userId: e.userId, name: e.state.name, text: e.state.text, at: new Date(e.at).toISOString() }));
}

/** The latest view state, for a participant who joins late (or reconnects). */
export async function lastView(db: Queryable, room: Room): Promise<Record<string, unknown> | undefined> {
  const r = await db.query<{ state: Record<string, unknown> }>("SELECT state FROM video_sync_event WHERE meeting_id = $1 AND kind = 'view' ORDER BY id DESC LIMIT 1", [room.meetingId]);
  return r.rows[0]?.state;
}

export async function annotationsOf(db: Queryable, consultationId: number): Promise<{ annotations: unknown[]; savedBy: number; savedAt: string } | undefined> {
  const r = await db.query<{ annotations: unknown[]; savedBy: number; savedAt: string }>(
    'SELECT annotations, saved_by AS "savedBy", saved_at AS "savedAt" FROM video_annotation WHERE consultation_id = $1 ORDER BY saved_at DESC LIMIT 1',
    [consultationId],
  );
  const row = r.rows[0];
  return row && { ...row, savedAt: new Date(row.savedAt).toISOString() };
}

export interface IceServer {
  urls: string[];
  username?: string;
  credential?: string;
}

/**
 * STUN and TURN for the browser. TURN credentials follow the TURN REST scheme coturn
 * checks with `use-auth-secret`: username "<expiry unix time>:<user id>", password
 * base64(HMAC-SHA1(shared secret, username)); they stop working at the expiry, so a
 * leaked one is worth little.
 */
export function iceServers(config: VideoConfig, userId: number, now = Date.now()): IceServer[] {
  const out: IceServer[] = [];
  if (config.stunUrls.length) out.push({ urls: config.stunUrls });
  if (config.turnUrls.length && config.turnSecret) {
    const username = `${Math.floor(now / 1000) + config.turnTtlSeconds}:${userId}`;
    const credential = crypto.createHmac('sha1', config.turnSecret).update(username).digest('base64');
    out.push({ urls: config.turnUrls, username, credential });
  }
  return out;
}
