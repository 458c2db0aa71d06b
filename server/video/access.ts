/**
 * Who may enter a consultation's video room: one pluggable rule. The consult domain owns
 * consultations (who applied, which experts were invited, the consultation's state), so
 * after the merge it plugs its own rule in at start-up (server/video/index.ts):
 *   setRoomAuthorizer((user, consultationId, db) => canJoinConsultation(user, consultationId))
 * Until then the default lets a holder of the video-consultation "join" right (spec
 * section 6) into a room that was started for the consultation through this module's
 * API, which is all the tests of this module need.
 */
import type { Queryable } from '../db';
import { hasPermission } from '../identity/access';
import type { AuthContext } from '../identity/sessions';

/** Spec section 6, video consultation: start, revoke, join, notify experts. */
export const VIDEO_JOIN = 'consult:join';
export const VIDEO_START = 'consult:start';

export type RoomAuthorizer = (user: AuthContext, consultationId: number, db: Queryable) => Promise<boolean>;

const defaultAuthorizer: RoomAuthorizer = async (user, consultationId, db) => {
  if (!hasPermission(user.permissions, VIDEO_JOIN) && !hasPermission(user.permissions, VIDEO_START)) return false;
  const room = await db.query('SELECT 1 FROM video_room WHERE consultation_id = $1 AND ended_at IS NULL', [consultationId]);
  return room.rows.length > 0;
};

let authorizer: RoomAuthorizer = defaultAuthorizer;

/** Replaces the rule (the consult domain's canJoinConsultation); undefined puts the default back. */
export function setRoomAuthorizer(fn: RoomAuthorizer | undefined): void {
  authorizer = fn ?? defaultAuthorizer;
}

export function mayEnterRoom(user: AuthContext, consultationId: number, db: Queryable): Promise<boolean> {
  return authorizer(user, consultationId, db);
}
