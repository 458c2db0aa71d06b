/**
 * The viewer's calls to the platform (server/routes/viewer.ts) over the one request
 * wrapper: the studies to show, a comparison (which the server validates: 2 to 16
 * studies with images of one patient), the studies a comparison may pick from, and
 * saving the image-viewer settings. No Cornerstone here: the exam list uses it too.
 */
import { request } from '../services/request';
import type { CommonSetting } from '../services/uaa';
import type { ViewerStudy } from './types';

const PACS = '/api/pacs/v1';

export interface StudySelection {
  studyUids?: string[];
  examIds?: number[];
}

export interface ViewerStudies {
  /** Patient name and ID are masked for this user (grade safety): the overlays must not show DICOM's own. */
  masked: boolean;
  list: ViewerStudy[];
  total: number;
}

export type ViewConfig = NonNullable<CommonSetting['viewConfig']>;

export function viewerStudies(selection: StudySelection): Promise<ViewerStudies> {
  return request<ViewerStudies>(`${PACS}/study/viewer`, { method: 'POST', body: selection });
}

export function compareStudies(selection: StudySelection): Promise<ViewerStudies> {
  return request<ViewerStudies>(`${PACS}/study/compare`, { method: 'POST', body: selection });
}

export function compareCandidates(examId: number): Promise<ViewerStudies> {
  return request<ViewerStudies>(`${PACS}/study/compare/candidates/${examId}`);
}

export function saveViewConfig(viewConfig: ViewConfig): Promise<ViewConfig> {
  return request<ViewConfig>(`${PACS}/viewer/config`, { method: 'POST', body: { viewConfig } });
}
