/**
 * The report detail page's calls (server/routes/report.ts, reportTemplate.ts) over the
 * one request wrapper: a report's detail, its workflow actions (each carrying the
 * version the page holds, and an Idempotency-Key so a retried call is applied once),
 * the lock's release when the page goes away, the operation record, the dialogs'
 * choices, templates and the work list the "next report" walks. No React here.
 */
import { buildHeaders, buildUrl, apiBase, request } from '../services/request';
import {
  getReportAssigneesById,
  getReportCentreDoctorsById,
  getReportDetailById,
  getReportLockStateById,
  getReportLogsById,
  getReportSuperiorsById,
  getTemplateTree,
  postReportListAll,
  postReportListDone,
  postReportListMine,
  postReportListPrint,
  postReportListReview,
  postReportListWrite,
  postTemplateSave,
  type GetReportDetailByIdData,
  type GetTemplateTreeData,
  type PostReportSubmitByIdData,
} from '../services/generated/report';
import type { ReportAction } from '../shared/generated/entities/reportAction';
import type { Template } from '../shared/generated/entities/template';

export const REPORT_API = '/api/report/v1';

/** GET report/detail/:id: the report's fields, how the caller works on it, what they may do now, its exam's header. */
export type ReportDetail = GetReportDetailByIdData;

export type ListKind = 'write' | 'review' | 'print' | 'done' | 'mine' | 'all';
export type Model = 'report' | 'remote';

export type Choice = Awaited<ReturnType<typeof getReportAssigneesById>>['list'][number];

export function reportDetail(id: number): Promise<ReportDetail> {
  return getReportDetailById(id);
}

/** A key per attempt: the same call retried (a lost reply) carries the same one. */
export function requestKey(): string {
  return typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/**
 * Performs a workflow action; the reply is the report as detail answers it. `quiet`:
 * the caller shows refusals itself (the detail page words REPORT101/103/011 its own way).
 * The action's name comes from the workflow table at run time, so its path is built
 * here; every action's route answers the same (the generated PostReport<Action>ByIdData).
 */
export function performAction(action: string, id: number, body: ReportAction, key = requestKey(), quiet = true): Promise<PostReportSubmitByIdData> {
  return request<PostReportSubmitByIdData>(`${REPORT_API}/report/${action}/${id}`, { method: 'POST', body, headers: { 'Idempotency-Key': key }, quiet });
}

/**
 * Frees the caller's lock as the page goes away (closed, reloaded, left): a request
 * that outlives the page (fetch keepalive; sendBeacon cannot send the session header).
 */
export function releaseOnLeave(id: number): void {
  const path = `${REPORT_API}/report/release/${id}`;
  const storage = typeof localStorage !== 'undefined' ? localStorage : undefined;
  void fetch(buildUrl(apiBase(), path), { method: 'POST', keepalive: true, headers: buildHeaders(path, { body: {} }, storage), body: '{}' }).catch(() => undefined);
}

export function lockState(id: number) {
  return getReportLockStateById(id, { quiet: true });
}

export async function operationLogs(id: number) {
  return (await getReportLogsById(id)).list ?? [];
}

/** The doctors an action choosing doctors may name: the remote centre's for a lead's reassign, else the assignment's. */
export async function assigneeChoices(id: number, action = 'assign'): Promise<Choice[]> {
  return (await (action === 'reassign' ? getReportCentreDoctorsById : getReportAssigneesById)(id)).list ?? [];
}

export function superiorChoices(id: number) {
  return getReportSuperiorsById(id);
}

export type TemplateScope = Template['scope'];
/** GET template/tree: level 1 classes → level 2 classes → templates. */
export type TemplateTree = GetTemplateTreeData;
export type TemplateRow = TemplateTree[number]['children'][number]['children'][number];

export async function templateTree(scope: TemplateScope): Promise<TemplateTree> {
  return (await getTemplateTree({ scope })) ?? [];
}

export function saveTemplate(template: Template): Promise<TemplateRow> {
  return postTemplateSave(template);
}

const LISTS: Record<ListKind, typeof postReportListAll> = {
  write: postReportListWrite,
  review: postReportListReview,
  print: postReportListPrint,
  done: postReportListDone,
  mine: postReportListMine,
  all: postReportListAll,
};

/** One page of a work list in its default order (the list's own), ids only matter here. */
export async function listPage(kind: ListKind, model: Model | undefined, page: number, pageSize: number): Promise<{ ids: number[]; total: number }> {
  const reply = await LISTS[kind]({ ...(model ? { model } : {}), page, pageSize }, { quiet: true });
  return { ids: (reply.list ?? []).map((r) => r.id as number), total: reply.total ?? 0 };
}
