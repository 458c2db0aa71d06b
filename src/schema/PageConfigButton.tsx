/**
 * The page-configuration button of a form (the form modal and the form page), shown
 * to holders of reportPage:edit only, and its dialog (./FormLayoutDialog).
 */
import { LayoutOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useState } from 'react';
import { FormLayoutDialog } from './FormLayoutDialog';
import type { FormLayout } from './layout';
import type { View } from '../shared/schema/types';
import { useCanConfigurePage } from './useScreenSettings';
import { useTranslate } from './useTranslate';

export interface PageConfigButtonProps {
  /** The view as its file has it. */
  view: View;
  layout: FormLayout | null;
  onSaved: (layout: FormLayout) => void;
  /** Small in a dialog's title, default among a page's buttons. */
  size?: 'small' | 'middle';
}

export function PageConfigButton({ view, layout, onSaved, size = 'middle' }: PageConfigButtonProps) {
  const { t } = useTranslate();
  const allowed = useCanConfigurePage();
  const [open, setOpen] = useState(false);
  if (!allowed) return null;
  return (
    <>
      <Button size={size} icon={<LayoutOutlined />} onClick={() => setOpen(true)} data-testid="page-config">
        {t('entity.settings.pageConfig')}
      </Button>
      {open && (
        <FormLayoutDialog
          view={view}
          layout={layout}
          onClose={() => setOpen(false)}
          onSaved={(saved) => {
            setOpen(false);
            onSaved(saved);
          }}
        />
      )}
    </>
  );
}

export default PageConfigButton;
