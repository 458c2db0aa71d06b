/**
 * The generic list screen: the view comes from the route (config/routes.json `view`),
 * the rest from the view. Forms open on the view's form route, or in a modal when the
 * view says form.mode "modal".
 */
import type { ActionType } from '@ant-design/pro-components';
import { Result } from 'antd';
import { useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useSearchParams } from 'umi';
import { FormModal } from '../../schema/FormModal';
import type { Entity } from '../../schema/resource';
import { SchemaTable } from '../../schema/SchemaTable';
import type { View } from '../../shared/schema/types';
import { formUrl, resolveView, viewName, type FormMode } from '../../shared/schema/views';

function ListScreen({ view }: { view: View }) {
  const navigate = useNavigate();
  const actionRef = useRef<ActionType>();
  const [dialog, setDialog] = useState<{ mode: FormMode; id?: string } | null>(null);
  const inModal = view.form?.mode === 'modal' || !view.routes.form;

  const open = useCallback(
    (mode: FormMode, row?: Entity) => {
      const id = row?.id === undefined ? undefined : String(row.id);
      if (inModal) setDialog({ mode, id });
      else navigate(formUrl(view, mode, id) as string);
    },
    [inModal, navigate, view],
  );

  return (
    <div data-testid="resource-list" data-view={viewName(view)}>
      <SchemaTable view={view} onOpen={open} actionRef={actionRef} />
      {dialog && (
        <FormModal
          view={view}
          mode={dialog.mode}
          id={dialog.id}
          onClose={(saved) => {
            setDialog(null);
            if (saved) actionRef.current?.reload();
          }}
        />
      )}
    </div>
  );
}

export default function ResourceList() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const [params] = useSearchParams();
  const view = resolveView(pathname, params.get('view'));
  if (!view) return <Result status="warning" title={t('entity.page.noView')} subTitle={pathname} />;
  return <ListScreen key={viewName(view)} view={view} />;
}
