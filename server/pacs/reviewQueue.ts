/**
 * Which studies of the review queue (dicom_study.match_review, see ./matching Review)
 * name an exam: the policy's closest candidate (examId) or one of several agreeing
 * exams (examCodes). SQL fragments only, with no imports, so the exam list's query
 * (../exam/domain.ts) can use them without a cycle through the matching module.
 */

/** A study row `s` waiting on the review queue. Served by dicom_study_review_idx (partial, by hospital). */
export const WAITING = (s: string) => `${s}.exam_id IS NULL AND ${s}.match_review IS NOT NULL`;

/** The waiting study `s` names the exam whose id (as text) and exam code (as jsonb string) are given. */
export const namesExam = (s: string, examIdText: string, examCodeJson: string) =>
  `(${s}.match_review ->> 'examId' = ${examIdText} OR coalesce(${s}.match_review -> 'examCodes', '[]'::jsonb) @> ${examCodeJson})`;

/**
 * Whether a study of the exam `e`'s hospital waits for review naming it: the exam list
 * then offers the images dialog even while no study is linked. An index walk on the
 * hospital's part of the queue per row of a page.
 */
export const reviewWaitingSql = (e: string) =>
  `EXISTS (SELECT 1 FROM dicom_study rq WHERE rq.hospital_id = ${e}.hospital_id AND ${WAITING('rq')} AND ${namesExam('rq', `${e}.id::text`, `to_jsonb(${e}.exam_code)`)})`;
