/**
 * Export records (/exportReportList, spec sections 2 and 9): the signed-in user's own
 * background exports, newest first, with state and progress; refreshed every few
 * seconds while one is queued or running; a finished file is downloaded through the
 * request wrapper (its headers are required on /api calls) as a blob. A bespoke page
 * rather than the generic list: it polls and downloads, which a view cannot say.
 */
import { ProTable, type ActionType, type ProColumns } from '@ant-design/pro-components';
import { useInterval } from 'ahooks';
import { Button, Progress, Tag } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { saveBlob } from '../../schema/components/ExcelImport';
import { getExportList, type GetExportListData } from '../../services/generated/ris';
import { request } from '../../services/request';
import { formatTime } from '../../shared/format';

type ExportJob = GetExportListData['list'][number];

/** The file itself is bytes, not the envelope: fetched by URL through the wrapper (its headers are required). */
const DOWNLOAD = '/api/ris/v1/export/download';
/** How often the list refreshes while a job is under way. */
const REFRESH_MS = 2000;
const STATE_COLOR: Record<ExportJob['state'], string> = { queued: 'default', running: 'processing', done: 'success', failed: 'error' };

const underWay = (jobs: ExportJob[]) => jobs.some((j) => j.state === 'queued' || j.state === 'running');

export default function ExportJobsPage() {
  const { t } = useTranslation();
  const actionRef = useRef<ActionType>();
  const [polling, setPolling] = useState(false);
  const [downloading, setDownloading] = useState<number | null>(null);
  useInterval(() => actionRef.current?.reload(), polling ? REFRESH_MS : undefined);

  const download = async (job: ExportJob) => {
    setDownloading(job.id);
    try {
      const blob = await request<Blob>(`${DOWNLOAD}/${job.id}`, { responseType: 'blob' });
      saveBlob(blob, job.fileName ?? `export-${job.id}.xlsx`);
      actionRef.current?.reload();
    } catch {
      // The request wrapper has already told the user.
    } finally {
      setDownloading(null);
    }
  };

  const columns: ProColumns<ExportJob>[] = [
    { title: t('entity.exportJob.field.id'), dataIndex: 'id', width: 80 },
    { title: t('entity.exportJob.field.kind'), dataIndex: 'kind', width: 140, render: (_, j) => t(`entity.exportJob.kind.${j.kind}`) },
    {
      title: t('entity.exportJob.field.state'),
      dataIndex: 'state',
      width: 110,
      render: (_, j) => (
        <Tag color={STATE_COLOR[j.state]} data-testid="export-state">
          {t(`entity.exportJob.state.${j.state}`)}
        </Tag>
      ),
    },
    {
      title: t('entity.exportJob.field.progress'),
      key: 'progress',
      width: 240,
      render: (_, j) => {
        const percent = j.state === 'done' ? 100 : j.rowsTotal ? Math.floor((100 * j.rowsDone) / j.rowsTotal) : 0;
        return (
          <Progress
            percent={percent}
            size="small"
            status={j.state === 'failed' ? 'exception' : j.state === 'done' ? 'success' : 'active'}
            format={() => `${j.rowsDone}/${j.rowsTotal ?? '-'}`}
          />
        );
      },
    },
    { title: t('entity.exportJob.field.fileName'), dataIndex: 'fileName', ellipsis: true },
    { title: t('entity.exportJob.field.createdAt'), dataIndex: 'createdAt', width: 180, render: (_, j) => formatTime(j.createdAt) },
    { title: t('entity.exportJob.field.finishedAt'), dataIndex: 'finishedAt', width: 180, render: (_, j) => (j.finishedAt ? formatTime(j.finishedAt) : '-') },
    { title: t('entity.exportJob.field.downloadedAt'), dataIndex: 'downloadedAt', width: 180, render: (_, j) => (j.downloadedAt ? formatTime(j.downloadedAt) : '-') },
    {
      title: t('entity.action.operation'),
      key: 'actions',
      fixed: 'right',
      width: 100,
      render: (_, j) =>
        j.state === 'done' ? (
          <Button type="link" size="small" loading={downloading === j.id} onClick={() => download(j)} data-testid="export-download">
            {t('entity.exportJob.download')}
          </Button>
        ) : null,
    },
  ];

  return (
    <div data-testid="export-jobs">
      <ProTable<ExportJob>
        rowKey="id"
        actionRef={actionRef}
        headerTitle={t('menu.exportReportList')}
        columns={columns}
        search={false}
        options={{ reload: true, density: false, setting: false }}
        pagination={{ pageSize: 20, showSizeChanger: false }}
        scroll={{ x: 'max-content' }}
        request={async () => {
          try {
            const reply = await getExportList();
            setPolling(underWay(reply.list));
            return { data: reply.list, total: reply.total, success: true };
          } catch {
            setPolling(false);
            return { data: [], total: 0, success: false };
          }
        }}
      />
    </div>
  );
}
