/**
 * The consult service as the consultation screens call it (/api/consult/v1, routes in
 * server/routes/consult.ts), and the workflow buttons of the detail: each action the
 * server allows on the consultation becomes a row action of the consultation view
 * (its call, and a reason dialog where the workflow table declares a reason), so the
 * texts and dialogs are the list's. Pure apart from the request function.
 */
import { request } from '../services/request';
import {
  getConsultationDetailById,
  getCounts,
  getVideoRoomByConsultationId,
  getVideoRoomEventsByConsultationId,
  type GetConsultationDetailByIdData,
  type GetCountsData,
  type GetVideoRoomByConsultationIdData,
  type GetVideoRoomEventsByConsultationIdData,
} from '../services/generated/consult';
import type { RowAction } from '../shared/schema/types';
import { WORKFLOWS } from '../shared/workflows';

export const CONSULT_API = '/api/consult/v1';

/** GET consultation/detail/:id: the consultation with its exams, materials, experts, record and the caller's actions. */
export type ConsultationDetail = GetConsultationDetailByIdData;
export type ConsultCounts = GetCountsData;
/** An event the video room kept (server/video/rooms.ts SyncEvent): a view state, annotations, a hand-over or a chat line. */
export type RoomEvent = GetVideoRoomEventsByConsultationIdData[number];

/** A chat line of the video room as kept with the consultation (a `chat` event of the room). */
export type ChatLine = RoomEvent & { state: { text: string; name: string } };

/** The room as the server answers it (the studies it was started on, for the replay). */
export type VideoRoomInfo = GetVideoRoomByConsultationIdData;

/** Events come 1000 at a time (server/routes/video.ts). */
const EVENTS_PAGE = 1000;

/**
 * The video room's events, oldest first, all pages (or only one kind), for whoever is a
 * party to the consultation, also after it ended; refused otherwise, quietly (a screen
 * that shows them shows nothing instead).
 */
export async function roomEvents(id: number, options: { kind?: RoomEvent['kind'] } = {}): Promise<RoomEvent[]> {
  const all: RoomEvent[] = [];
  for (;;) {
    const page = await getVideoRoomEventsByConsultationId(id, { kind: options.kind, after: all.at(-1)?.id ?? 0 }, { quiet: true });
    all.push(...page);
    if (page.length < EVENTS_PAGE) return all;
  }
}

/** Whether the video room kept anything to replay (one event asked for); false when refused. */
export async function hasRoomEvents(id: number): Promise<boolean> {
  const page = await getVideoRoomEventsByConsultationId(id, { limit: 1 }, { quiet: true }).catch(() => []);
  return page.length > 0;
}

/** The video room's chat, oldest first (the room's events of kind chat). */
export function consultationChat(id: number): Promise<ChatLine[]> {
  return roomEvents(id, { kind: 'chat' }) as Promise<ChatLine[]>;
}

/** The consultation's video room (its studies), for a party, also after it ended. */
export function videoRoom(id: number): Promise<VideoRoomInfo> {
  return getVideoRoomByConsultationId(id, { quiet: true });
}

/** Whether a workflow action carries a form (the table names its entity schema: the edit of a revoked application). */
export function actionForm(name: string): string | undefined {
  const workflow = workflowOf(name);
  return workflow ? WORKFLOWS[workflow].actions[name].form : undefined;
}

export const consultationDetail = (id: number) => getConsultationDetailById(id);
export const consultCounts = () => getCounts({ quiet: true });

/** Where a material is read (inline: the browser previews images and PDF). */
export const materialPath = (id: number, fileId: string) => `${CONSULT_API}/consultation/${id}/material/${encodeURIComponent(fileId)}`;

export const materialBlob = (id: number, fileId: string) => request<Blob>(materialPath(id, fileId), { responseType: 'blob', quiet: true });

/** Actions that carry the report's text. */
export const REPORT_CONTENT_ACTIONS: readonly string[] = ['saveReport', 'submitReport'];

/** The workflow table an action belongs to (names are unique across the consultation's two). */
export function workflowOf(action: string): 'consultation' | 'consultationReport' | undefined {
  for (const name of ['consultation', 'consultationReport'] as const) if (Object.prototype.hasOwnProperty.call(WORKFLOWS[name].actions, action)) return name;
  return undefined;
}

/** The action as a row action of the consultation view: its call, and its reason dialog when the table declares one. */
export function actionAsRowAction(name: string): RowAction {
  const workflow = workflowOf(name);
  const reason = workflow && WORKFLOWS[workflow].actions[name].reason ? { reason: { workflow, action: name } } : undefined;
  return {
    key: name,
    permission: 'view',
    workflow: name,
    ...(reason ? { input: reason } : {}),
    call: { method: 'POST', path: `${CONSULT_API}/consultation/action/${name}`, body: { id: '{id}', version: '{version}' } },
  } as RowAction;
}
