/**
 * The calls of the notices: the counts (GET /api/report/v1/notice, quiet: a poll that
 * fails is tried again next round, not shown) and saving the exam-upload notice
 * setting (a common setting of the user centre).
 */
import { getNotice } from '../../services/generated/report';
import { postUserCommonSettingExamNotice, type PostUserCommonSettingExamNoticeData } from '../../services/generated/ucenter';
import type { NoticeCounts, NoticeModel } from './counts';

export type ExamNotice = PostUserCommonSettingExamNoticeData;

export function fetchNotice(model: NoticeModel, signal?: AbortSignal): Promise<NoticeCounts> {
  return getNotice({ model }, { quiet: true, signal });
}

export function saveExamNotice(examNotice: ExamNotice): Promise<ExamNotice> {
  return postUserCommonSettingExamNotice({ examNotice });
}
