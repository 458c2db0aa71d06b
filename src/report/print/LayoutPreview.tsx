/**
 * The print layout editor's live preview (form aside "PrintLayoutPreview" of
 * views/printLayout.json, /qualityControl): the A4 sheet of the layout as it is being
 * edited, filled with sample values, redrawn on every change of the form.
 */
import { observer } from '@formily/react';
import { Typography } from 'antd';
import type { FormAsideProps } from '../../schema/formAsides';
import { useTranslate } from '../../schema/useTranslate';
import type { PrintLayout } from '../../shared/generated/entities/printLayout';
import { ReportSheet, SheetDesk } from './ReportSheet';
import { sampleSheet, sheetModel, type PrintItem } from '../../shared/printSheet';

/** A4 at 62 %: beside a two-column form in a wide modal. */
const ZOOM = 0.62;

function LayoutPreview({ form }: FormAsideProps) {
  const { t } = useTranslate();
  const values = form.values as Partial<PrintLayout>;
  // Rows being added count once they name an item and its block.
  const fields = (values.fields ?? []).filter((f): f is PrintItem => Boolean(f?.field && f?.group)).map((f) => ({ ...f }));
  const layout = { ...values, name: values.name ?? '', title: values.title ?? '', fields } as PrintLayout;
  return (
    <div data-testid="layout-preview">
      <Typography.Text type="secondary">{t('entity.printLayout.preview')}</Typography.Text>
      <SheetDesk>
        <ReportSheet model={sheetModel(sampleSheet(layout, t), t)} zoom={ZOOM} testId="layout-preview-sheet" />
      </SheetDesk>
    </div>
  );
}

export default observer(LayoutPreview);
