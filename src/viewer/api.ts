/**
 * The viewer's calls to the platform (server/routes/viewer.ts) through the generated
 * client: the studies to show, a comparison (which the server validates: 2 to 16
 * studies with images of one patient), the studies a comparison may pick from, and
 * saving the image-viewer settings. No Cornerstone here: the exam list uses it too.
 */
import {
  getStudyCompareCandidatesByExamId,
  postStudyCompare,
  postStudyViewer,
  postViewerConfig,
  type PostStudyViewerBody,
  type PostStudyViewerData,
  type PostViewerConfigData,
} from '../services/generated/pacs';

export type StudySelection = PostStudyViewerBody;
/** The studies with their series; `masked`: patient name and ID are masked for this user (grade safety), so the overlays must not show DICOM's own. */
export type ViewerStudies = PostStudyViewerData;
export type ViewConfig = PostViewerConfigData;

export const viewerStudies = (selection: StudySelection): Promise<ViewerStudies> => postStudyViewer(selection);
export const compareStudies = (selection: StudySelection): Promise<ViewerStudies> => postStudyCompare(selection);
export const compareCandidates = (examId: number): Promise<ViewerStudies> => getStudyCompareCandidatesByExamId(examId);
export const saveViewConfig = (viewConfig: ViewConfig): Promise<ViewConfig> => postViewerConfig({ viewConfig });
