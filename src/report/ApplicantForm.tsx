/**
 * The applicant form: the exam's registration, read-only, rendered from the exam view
 * (schemas/views/exam.json) in the current hospital's layout, as the exam list's
 * detail shows it, in two columns to fit beside the report.
 */
import { Empty, Result, Spin } from 'antd';
import { useMemo } from 'react';
import { useActions } from '../schema/permissions';
import { SchemaForm } from '../schema/SchemaForm';
import { useEntityForm } from '../schema/useEntityForm';
import { useFormLayout } from '../schema/useScreenSettings';
import { useTranslate } from '../schema/useTranslate';
import { views } from '../shared/schema/views';

const COLUMNS = 2;

export function ApplicantForm({ examId }: { examId: number }) {
  const { t } = useTranslate();
  const view = views.exam;
  const can = useActions(view);
  const { form, loading, loadError } = useEntityForm(view, 'detail', String(examId));
  const layout = useFormLayout(view);
  const narrow = useMemo(() => ({ ...layout.view, form: { ...layout.view.form, columns: COLUMNS } }), [layout.view]);
  if (!can.view) return <Empty description={t('entity.page.forbidden')} />;
  if (loadError) return <Result status="warning" title={t('entity.page.loadFailed')} />;
  return (
    <div data-testid="report-applicant">
      <Spin spinning={loading || !layout.loaded}>{layout.loaded && <SchemaForm view={narrow} form={form} mode="detail" />}</Spin>
    </div>
  );
}
