/**
 * The Export button of a list whose view has `list.export` (spec sections 2, 9: the
 * exam-list export runs in the background and is fetched from the export records).
 * Offered with the view module's export right; it opens a dialog asking for the date
 * range the export needs (the list's own range, else the last 7 days; at most
 * limits.exportRangeDays days), then sends the filters the list was last queried with,
 * that range in, to the view's call, which queues a job, and points to
 * /exportReportList. A range the server refuses is said on the range field, in the
 * server's words for that field.
 */
import { DownloadOutlined } from '@ant-design/icons';
import { App, Button, DatePicker, Form, Modal, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useNavigate } from 'umi';
import { LIMITS } from '../../../config/limits';
import { request, RequestError } from '../../services/request';
import { filterDaysOr, quickRangeDays, QUICK_RANGES, toFilterRange } from '../../shared/dateRanges';
import { allows, usePermissionMap } from '../permissions';
import type { ExportSpec, View } from '../../shared/schema/types';
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
  const map = usePermissionMap();
  const [open, setOpen] = useState(false);
  if (!allows(map, view.permission, 'export')) return null;
  return (
    <>
      <Button icon={<DownloadOutlined />} onClick={() => setOpen(true)} data-testid="list-export">
        {t('entity.exportJob.export')}
      </Button>
      {open && <ExportDialog view={view} filters={filters} onClose={() => setOpen(false)} />}
    </>
  );
}

function ExportDialog({ view, filters, onClose }: ExportButtonsProps & { onClose(): void }) {
  const { t } = useTranslate();
  const { notification, message } = App.useApp();
  const navigate = useNavigate();
  const spec = view.list.export as ExportSpec;
  const label = t(`entity.${view.entity}.field.${spec.range}`);
  const [form] = Form.useForm<{ range: [Dayjs, Dayjs] }>();
  const [busy, setBusy] = useState(false);
  const [initial] = useState(() => filterDaysOr(filters()[spec.range], 'last7Days').map((d) => dayjs(d)) as [Dayjs, Dayjs]);

  const queue = async ({ range }: { range: [Dayjs, Dayjs] }) => {
    setBusy(true);
    try {
      const body = { filters: { ...filters(), [spec.range]: toFilterRange(range[0], range[1]) } };
      // Quiet: a refused range is said on the field below, not in a toast of the catalogue's generic words.
      await request<{ id: number }>(spec.call, { method: 'POST', body, quiet: true });
      onClose();
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
    } catch (e) {
      const data = (e instanceof RequestError ? e.data : undefined) as { field?: string; detail?: string } | undefined;
      if (data?.field === spec.range && data.detail) form.setFields([{ name: 'range', errors: [data.detail] }]);
      else if (e instanceof RequestError && e.message) message.error(e.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      title={t('entity.exportJob.export')}
      okText={t('entity.exportJob.export')}
      confirmLoading={busy}
      onOk={() => form.submit()}
      onCancel={onClose}
      destroyOnClose
      okButtonProps={{ 'data-testid': 'export-confirm' } as React.ComponentProps<typeof Button>}
    >
      <Form form={form} layout="vertical" initialValues={{ range: initial }} onFinish={queue} data-testid="export-dialog">
        <Form.Item
          name="range"
          label={label}
          extra={t('entity.exportJob.rangeHint', { limit: LIMITS.exportRangeDays })}
          rules={[{ required: true, message: t('validation.select', { field: label }) }]}
        >
          <DatePicker.RangePicker
            style={{ width: '100%' }}
            presets={QUICK_RANGES.map((key) => ({ label: t(`entity.range.${key}`), value: quickRangeDays(key).map((d) => dayjs(d)) as [Dayjs, Dayjs] }))}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

export default ExportButton;
