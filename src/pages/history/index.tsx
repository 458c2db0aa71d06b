/**
 * A patient's earlier exams (/history?patientId=, a full-screen route opened from the
 * exam list's "history" row action): GET /api/ris/v1/exam/history, newest first, in
 * the exam list's columns (the exam view, without its query bar). The server cuts the
 * rows to the caller's scope and masks them as the list does.
 */
import { ArrowLeftOutlined } from '@ant-design/icons';
import { ProTable } from '@ant-design/pro-components';
import { Button, Result } from 'antd';
import { useMemo } from 'react';
import { useNavigate, useSearchParams } from 'umi';
import { loadOptions } from '../../schema/options';
import { hiddenColumns, toColumns, type Row } from '../../schema/toColumns';
import { useTranslate } from '../../schema/useTranslate';
import { views } from '../../shared/schema/views';
import { getExamHistory } from '../../services/generated/ris';

export default function HistoryPage() {
  const { t, language } = useTranslate();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const patientId = params.get('patientId') ?? '';
  const columns = useMemo(() => {
    const view = views.exam;
    const hidden = hiddenColumns(view);
    // The list's columns with nothing to search or sort: this page is one patient's exams.
    return toColumns({ ...view, list: { ...view.list, query: [], sortable: [] } }, { t, locale: language, loadOptions: (source) => loadOptions(source, t) }).map((c) =>
      hidden[String(c.dataIndex)] ? { ...c, hideInTable: true } : c,
    );
  }, [t, language]);

  const back = (
    <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(-1)} data-testid="history-back">
      {t('entity.history.back')}
    </Button>
  );
  if (!patientId) return <Result status="warning" title={t('entity.history.noPatient')} extra={back} />;

  return (
    <div data-testid="exam-history" style={{ padding: 24 }}>
      <ProTable<Row>
        rowKey="id"
        headerTitle={`${t('entity.history.title')} · ${patientId}`}
        columns={columns}
        search={false}
        options={{ reload: true, density: false, setting: false }}
        pagination={{ pageSize: 20, showSizeChanger: false }}
        scroll={{ x: 'max-content' }}
        toolBarRender={() => [back]}
        request={async () => {
          try {
            const reply = await getExamHistory({ patientId });
            return { data: reply.list, total: reply.total, success: true };
          } catch {
            return { data: [], total: 0, success: false };
          }
        }}
      />
    </div>
  );
}
