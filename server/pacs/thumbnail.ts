/**
 * The thumbnail of a series: the DICOMweb path of its middle image rendered. One SQL
 * expression, used by the exam list (a row's first matched series) and by a study's
 * series list, so both show the same image.
 */
export function renderedPathSql(study: string, series: string): string {
  return `'/dicom-web/studies/' || ${study}.study_uid || '/series/' || ${series}.series_uid || '/instances/' ||
    (SELECT i.sop_instance_uid FROM dicom_instance i WHERE i.series_id = ${series}.id
      ORDER BY i.instance_number NULLS LAST, i.id OFFSET ${series}.instance_count / 2 LIMIT 1) || '/rendered'`;
}
