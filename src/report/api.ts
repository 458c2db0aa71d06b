/**
 * The report detail page's calls (server/routes/report.ts, reportTemplate.ts) over the
 * one request wrapper: a report's detail, its workflow actions (each carrying the
 * version the page holds, and an Idempotency-Key so a retried call is applied once),
 * the lock's release when the page goes away, the operation record, the dialogs'
 * choices, templates and the work list the "next report" walks. No React here.
 */
import { buildHeaders, buildUrl, apiBase, request } from '../services/request';
import type { Report } from '../shared/generated/entities/report';
import type { ReportAction } from '../shared/generated/entities/reportAction';
import type { Template } from '../shared/generated/entities/template';

export const REPORT_API = '/api/report/v1';

/** The exam header detail carries (server/report/read.ts HEADER). */
export interface ExamHeader {
  id: number;
  hospitalId?: number;
  hospitalName?: string;
  examCode?: string;
  patientId?: string;
  hisPatientName?: string;
  sex?: number;
  age?: number;
  ageUnit?: number;
  modality?: string;
  deviceName?: string;
  itemNames?: string;
  examTime?: string;
  examState?: number;
  studyUID?: string;
  imageStatus?: number;
  hisDeptName?: string;
  clinicalDiagnosis?: string;
}

/** GET report/detail/:id: the report's fields, how the caller works on it and what they may do now. */
export type ReportDetail = Report & {
  id: number;
  version: number;
  mode: 'own' | 'remote';
  lockMine?: boolean;
  actions: string[];
  exam: ExamHeader;
};

export type ListKind = 'write' | 'review' | 'print' | 'done' | 'mine' | 'all';
export type Model = 'report' | 'remote';

export interface Choice {
  id: number;
  name: string;
}

export function reportDetail(id: number): Promise<ReportDetail> {
  return request<ReportDetail>(`${REPORT_API}/report/detail/${id}`);
}

/** A key per attempt: the same call retried (a lost reply) carries the same one. */
export function requestKey(): string {
  return typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/**
 * Performs a workflow action; the reply is the report as detail answers it. `quiet`:
 * the caller shows refusals itself (the detail page words REPORT101/103/011 its own way).
 */
export function performAction(action: string, id: number, body: ReportAction, key = requestKey(), quiet = true): Promise<ReportDetail> {
  return request<ReportDetail>(`${REPORT_API}/report/${action}/${id}`, { method: 'POST', body, headers: { 'Idempotency-Key': key }, quiet });
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

export function lockState(id: number): Promise<Pick<ReportDetail, 'lockState' | 'lockedByName' | 'lockedById' | 'lockExpiresAt' | 'lockMine' | 'version'>> {
  return request(`${REPORT_API}/report/lockState/${id}`, { quiet: true });
}

export async function operationLogs(id: number): Promise<Array<Record<string, unknown>>> {
  return (await request<{ list: Array<Record<string, unknown>> }>(`${REPORT_API}/report/logs/${id}`)).list ?? [];
}

/** The doctors an action choosing doctors may name: the remote centre's for a lead's reassign, else the assignment's. */
export async function assigneeChoices(id: number, action = 'assign'): Promise<Choice[]> {
  const list = action === 'reassign' ? 'centreDoctors' : 'assignees';
  return (await request<{ list: Choice[] }>(`${REPORT_API}/report/${list}/${id}`)).list ?? [];
}

export function superiorChoices(id: number): Promise<{ list: Choice[]; chosen?: number }> {
  return request(`${REPORT_API}/report/superiors/${id}`);
}

export type TemplateScope = Template['scope'];
export type TemplateRow = Template & { id: number };
/** GET template/tree: level 1 classes → level 2 classes → templates. */
export type TemplateTree = Array<{ name: string; children: Array<{ name: string; children: TemplateRow[] }> }>;

export async function templateTree(scope: TemplateScope): Promise<TemplateTree> {
  return (await request<TemplateTree>(`${REPORT_API}/template/tree`, { query: { scope } })) ?? [];
}

export function saveTemplate(template: Template): Promise<TemplateRow> {
  return request<TemplateRow>(`${REPORT_API}/template/save`, { method: 'POST', body: template });
}

/** One page of a work list in its default order (the list's own), ids only matter here. */
export async function listPage(kind: ListKind, model: Model | undefined, page: number, pageSize: number): Promise<{ ids: number[]; total: number }> {
  const reply = await request<{ list: Array<{ id: number }>; total: number }>(`${REPORT_API}/report/list/${kind}`, {
    method: 'POST',
    body: { ...(model ? { model } : {}), page, pageSize },
    quiet: true,
  });
  return { ids: (reply.list ?? []).map((r) => r.id), total: reply.total ?? 0 };
}
