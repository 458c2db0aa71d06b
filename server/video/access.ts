/**
 * Who may enter a consultation's video room: whoever may join the consultation itself
 * (server/consult/domain.ts canJoinConsultation: a party to it — its applicant, an
 * invited expert's user, or a manager whose scope holds one of its hospitals — with a
 * video right, while it is about to start or running). The consult domain owns
 * consultations; the room asks it on every start and join, so a room never
 * outlives the rights to the consultation it belongs to. What the room kept (its
 * events, chat, annotations and studies) is read by the same parties after the
 * consultation has ended too (canReadConsultationRoom), for the replay.
 */
import type { Queryable } from '../db';
import { canJoinConsultation, canReadConsultationRoom } from '../consult/domain';
import type { AuthContext } from '../identity/sessions';

/** Spec section 6, video consultation: start, revoke, join, notify experts. */
export const VIDEO_JOIN = 'consult:join';
export const VIDEO_START = 'consult:start';

export function mayEnterRoom(user: AuthContext, consultationId: number, db: Queryable): Promise<boolean> {
  return canJoinConsultation(db, user, consultationId);
}

/** Whether `user` may read what the room of `consultationId` kept: a party, in any state (the replay after the end). */
export function mayReadRoom(user: AuthContext, consultationId: number, db: Queryable): Promise<boolean> {
  return canReadConsultationRoom(db, user, consultationId);
}
