/**
 * Image comparison from the exam list (dialog registry name CompareStudies, spec
 * sections 2 and 5): the studies with images of the row's patient, this exam's ticked;
 * the user ticks the ones to compare and the server decides (2 to 16 studies with
 * images of one patient: POST study/compare, whose refusal the request wrapper shows in
 * the catalogue's words); then the viewer opens them side by side (./launch.ts).
 */
import { Modal, Space, Table, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate } from 'umi';
import { LIMITS } from '../../config/limits';
import { AuthImage } from '../schema/components/AuthImage';
import type { ActionDialogProps } from '../schema/dialogs';
import { useTranslate } from '../schema/useTranslate';
import { useCommonSetting } from '../session/store';
import { dicomDateText, dicomNameText } from '../utils/dicom';
import { compareCandidates, compareStudies } from './api';
import { launchViewer } from './launch';
import type { ViewerStudy } from './types';

export default function CompareDialog({ row, title, onClose }: ActionDialogProps) {
  const { t } = useTranslate();
  const navigate = useNavigate();
  const viewConfig = useCommonSetting()?.viewConfig;
  const examId = typeof row?.id === 'number' ? row.id : undefined;
  const [studies, setStudies] = useState<ViewerStudy[]>();
  const [picked, setPicked] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!examId) return;
    let live = true;
    compareCandidates(examId)
      .then((data) => {
        if (!live) return;
        setStudies(data.list);
        setPicked(data.list.filter((s) => s.examId === examId).map((s) => s.studyUid));
      })
      .catch(() => live && setStudies([]));
    return () => {
      live = false;
    };
  }, [examId]);

  const open = async () => {
    setBusy(true);
    try {
      // The server is the judge of the selection; its refusal is shown by the request wrapper.
      await compareStudies({ studyUids: picked });
      await launchViewer({ studyUids: picked, compare: true }, viewConfig, (path) => navigate(path));
      onClose(false);
    } catch {
      // Already told.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      title={title}
      width={880}
      okText={t('entity.viewer.compare.open')}
      cancelText={t('common.cancel')}
      onOk={open}
      onCancel={() => onClose(false)}
      okButtonProps={{ loading: busy, 'data-testid': 'compare-open' }}
      destroyOnClose
    >
      <div data-testid="compare-dialog">
        <Typography.Paragraph type="secondary">
          {t('entity.viewer.compare.hint', { min: LIMITS.compareStudiesMin, max: LIMITS.compareStudiesMax })}{' '}
          <span data-testid="compare-count">{t('entity.viewer.compare.picked', { count: picked.length })}</span>
        </Typography.Paragraph>
        <Table<ViewerStudy>
          rowKey="studyUid"
          size="small"
          loading={!studies}
          dataSource={studies ?? []}
          pagination={false}
          scroll={{ y: 420 }}
          rowSelection={{ selectedRowKeys: picked, onChange: (keys) => setPicked(keys as string[]) }}
          onRow={(s) => ({ 'data-testid': 'compare-study', 'data-study-uid': s.studyUid }) as object}
          columns={[
            {
              key: 'thumbnail',
              width: 64,
              render: (_: unknown, s) => (s.series[0]?.thumbnail ? <AuthImage path={s.series[0].thumbnail} alt={s.series[0].seriesDescription ?? ''} /> : null),
            },
            { key: 'studyDate', title: t('entity.study.field.studyDate'), render: (_: unknown, s) => dicomDateText(s.studyDate) },
            {
              key: 'modality',
              title: t('entity.study.field.modality'),
              render: (_: unknown, s) => (s.modality ? <Tag color="blue">{s.modality}</Tag> : null),
            },
            { key: 'studyDescription', title: t('entity.study.field.studyDescription'), dataIndex: 'studyDescription' },
            { key: 'patientName', title: t('entity.study.field.patientName'), render: (_: unknown, s) => dicomNameText(s.patientName) },
            { key: 'examCode', title: t('entity.study.field.examCode'), dataIndex: 'examCode' },
            {
              key: 'series',
              title: t('entity.viewer.compare.series'),
              render: (_: unknown, s) => (
                <Space size={4}>
                  {s.series.length}
                  <Typography.Text type="secondary">/ {s.series.reduce((n, se) => n + (se.instanceCount ?? 0), 0)}</Typography.Text>
                </Space>
              ),
            },
          ]}
        />
      </div>
    </Modal>
  );
}
