/**
 * The Export button of a list whose view has `list.export` (spec sections 2, 9: the
 * exam-list export runs in the background and is fetched from the export records).
 * Offered with the view module's export right; it sends the filters the list was last
 * queried with to the view's call, which queues a job (the server refuses a range it
 * does not allow, and the request wrapper says why), then points to /exportReportList.
 */
import { DownloadOutlined } from '@ant-design/icons';
import { App, Button, Typography } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'umi';
import { request } from '../../services/request';
import { allows, usePermissionMap } from '../permissions';
import type { ExportSpec, View } from '../types';
import { useTranslate } from '../useTranslate';

/** Where the user's export jobs are listed (config/routes.json). */
export const EXPORT_LIST_PATH = '/exportReportList';

export interface ExportButtonsProps {
  view: View;
  /** The filters the list was last queried with. */
  filters: () => Record<string, unknown>;
}

/** The toolbar button for `view.list.export` (none when the view has no export). */
export function exportButtons(props: ExportButtonsProps): JSX.Element[] {
  return props.view.list.export ? [<ExportButton key="export" {...props} />] : [];
}

function ExportButton({ view, filters }: ExportButtonsProps) {
  const { t } = useTranslate();
  const { notification } = App.useApp();
  const navigate = useNavigate();
  const map = usePermissionMap();
  const [busy, setBusy] = useState(false);
  const spec = view.list.export as ExportSpec;
  if (!allows(map, view.permission, 'export')) return null;

  const queue = async () => {
    setBusy(true);
    try {
      await request<{ id: number }>(spec.call, { method: 'POST', body: { filters: filters() } });
      notification.success({
        message: t('entity.exportJob.queued'),
        // The notification renders outside the router: the link navigates through this screen's router.
        description: (
          <Typography.Link onClick={() => navigate(EXPORT_LIST_PATH)} data-testid="export-open-list">
            {t('entity.exportJob.openList')}
          </Typography.Link>
        ),
        duration: 8,
      });
    } catch {
      // The request wrapper has shown why (e.g. the range is too long).
    } finally {
      setBusy(false);
    }
  };

  return (
    <Button icon={<DownloadOutlined />} loading={busy} onClick={queue} data-testid="list-export">
      {t('entity.exportJob.export')}
    </Button>
  );
}

export default ExportButton;
