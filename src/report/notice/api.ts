/**
 * The calls of the notices: the counts (GET /api/report/v1/notice, quiet: a poll that
 * fails is tried again next round, not shown) and saving the exam-upload notice
 * setting (a common setting of the user centre).
 */
import { request } from '../../services/request';
import type { CommonSetting } from '../../shared/generated/entities/commonSetting';
import type { NoticeCounts, NoticeModel } from './counts';

export type ExamNotice = NonNullable<CommonSetting['examNotice']>;

export function fetchNotice(model: NoticeModel, signal?: AbortSignal): Promise<NoticeCounts> {
  return request<NoticeCounts>('/api/report/v1/notice', { query: { model }, quiet: true, signal });
}

export function saveExamNotice(examNotice: ExamNotice): Promise<ExamNotice> {
  return request<ExamNotice>('/api/ucenter/v1/user/commonSetting/examNotice', { method: 'POST', body: { examNotice } });
}
