/**
 * Which notice counts a user is shown (spec section 4, "Notification cycle"), as a
 * pure function of the module and the permission map: with the module's write right
 * the unwritten, rejected-back and returned counts; with its verify right the
 * first-trial count; in the report centre, with the right to acknowledge critical
 * values, the critical values waiting for the user's department; in the remote centre,
 * for its lead (the assign right), the reports past their turnaround limit.
 */
import { can, type PermissionMap } from '../../session/access';
import type { GetNoticeData, GetNoticeQuery } from '../../services/generated/report';

export type NoticeModel = GetNoticeQuery['model'];
/** GET /api/report/v1/notice: the spec's four counts, the critical values (`crisis`) and the overdue ones (the server's reply schema). */
export type NoticeCounts = Partial<GetNoticeData>;
export type CountKind = keyof GetNoticeData;

export interface NoticeLine {
  kind: CountKind;
  count: number;
}

/** The order the spec gives: report first, remote half a second later. */
export const MODEL_DELAY_MS: Record<NoticeModel, number> = { report: 0, remote: 500 };

/** The client route a pop-up opens. */
export const MODEL_PAGE: Record<NoticeModel, string> = { report: '/report', remote: '/remote' };

/** Critical values are acknowledged with this right (config/permissions.json; the server's crisis.ts). */
const ACKNOWLEDGE = 'report:crisisAcknowledge';
/** The remote centre's lead (who reassigns) is told of reports past their turnaround limit. */
const LEAD = 'reportAssign:assign';

export function noticeKinds(model: NoticeModel, map: PermissionMap | null | undefined): CountKind[] {
  const kinds: CountKind[] = [];
  if (can(map, `${model}:write`)) kinds.push('unwritten', 'retrialBack', 'reportReturn');
  if (can(map, `${model}:verify`)) kinds.push('firstTrial');
  if (model === 'report' && can(map, ACKNOWLEDGE)) kinds.push('crisis');
  if (model === 'remote' && can(map, LEAD)) kinds.push('overdue');
  return kinds;
}

/** The modules of the user's modelList to poll: known ones the user may view and has some count to be shown. */
export function noticeModels(modelList: readonly string[] | undefined, map: PermissionMap | null | undefined): NoticeModel[] {
  return (Object.keys(MODEL_DELAY_MS) as NoticeModel[]).filter(
    (m) => (modelList ?? []).includes(m) && can(map, `${m}:view`) && noticeKinds(m, map).length > 0,
  );
}

/** The lines of a pop-up; empty when every count shown is 0 (no pop-up then). */
export function noticeLines(model: NoticeModel, counts: NoticeCounts, map: PermissionMap | null | undefined): NoticeLine[] {
  const lines = noticeKinds(model, map).map((kind) => ({ kind, count: counts[kind] ?? 0 }));
  return lines.some((l) => l.count > 0) ? lines : [];
}
