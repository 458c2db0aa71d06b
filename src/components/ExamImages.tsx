/**
 * An exam's images (the exam list's "images" action, spec section 2): the studies
 * matched to the exam with their series and thumbnails (GET /api/ris/v1/exam/{id}/studies),
 * and per study unbind (image:unbind) and delete (image:deleteStudy), per series delete,
 * each after a confirmation. Below them, the review queue's studies that name this
 * exam (the matching policy could not link them: the reason says which fields
 * disagree), which a person may link here (image:manualLink). Whether a change is allowed now (the report's state) is the
 * server's to say: a refusal comes back with the catalogue's words (RIS113-118,
 * PACS103-105), shown by the request wrapper. Opened from the dialog registry
 * (src/schema/dialogs.tsx); bespoke because a study holds series, each with actions.
 */
import { Alert, App, Card, Descriptions, Divider, Empty, Modal, Popconfirm, Space, Spin, Tag, Typography } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { getExamStudiesById, postExamMatchById, putExamRelationshipUnbindByHospitalIdByExamIdByStudyId, type GetExamStudiesByIdData } from '../services/generated/ris';
import { postStudyDelete } from '../services/generated/pacs';
import { can } from '../session/access';
import { AuthImage } from '../schema/components/AuthImage';
import type { ActionDialogProps } from '../schema/dialogs';
import { usePermissionMap } from '../schema/permissions';
import { dicomDateText, dicomNameText } from '../utils/dicom';
import { useTranslate } from '../schema/useTranslate';
import { formatTime } from '../shared/format';
type StudyRow = GetExamStudiesByIdData['list'][number];
type SeriesRow = StudyRow['series'][number];

const f = (name: string) => `entity.study.field.${name}`;

export default function ExamImages({ row, title, onClose }: ActionDialogProps) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const map = usePermissionMap();
  const [studies, setStudies] = useState<StudyRow[]>();
  const [waiting, setWaiting] = useState<StudyRow[]>([]);
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState<string>();
  const changed = useRef(false);
  const examId = row?.id as number | undefined;
  const hospitalId = row?.hospitalId as number | undefined;

  const load = useCallback(async () => {
    if (!examId) return;
    try {
      const data = await getExamStudiesById(examId);
      setStudies(data.list);
      setWaiting(data.review);
      setFailed(false);
    } catch {
      setFailed(true);
    }
  }, [examId]);
  useEffect(() => {
    void load();
  }, [load]);

  /** Runs a change, says it is done and lists the studies again; a refusal was shown by the request wrapper. */
  const change = async (key: string, call: () => Promise<unknown>, done: string) => {
    setBusy(key);
    try {
      await call();
      changed.current = true;
      message.success(done);
      await load();
    } catch {
      // Shown by the request wrapper.
    } finally {
      setBusy(undefined);
    }
  };

  const unbind = (s: StudyRow) =>
    change(`unbind-${s.id}`, () => putExamRelationshipUnbindByHospitalIdByExamIdByStudyId(hospitalId!, examId!, s.id), t('entity.study.action.unbindDone'));
  const removeStudy = (s: StudyRow) =>
    change(`delete-${s.id}`, () => postStudyDelete({ studyId: s.id }), t('entity.study.action.deleteStudyDone'));
  const removeSeries = (s: StudyRow, se: SeriesRow) =>
    change(
      `delete-${s.id}-${se.seriesUid}`,
      () => postStudyDelete({ studyId: s.id, seriesUid: se.seriesUid }),
      t('entity.study.action.deleteSeriesDone'),
    );

  const link = (s: StudyRow) =>
    change(`link-${s.id}`, () => postExamMatchById(examId!, { studyId: s.id }), t('entity.study.review.linkDone'));

  const mayUnbind = can(map, 'image:unbind');
  const mayLink = can(map, 'image:manualLink');
  const mayDelete = can(map, 'image:deleteStudy');

  const confirm = (testId: string, question: string, onConfirm: () => void, label: string, key: string, danger = false) => (
    <Popconfirm
      title={question}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      okButtonProps={{ danger, loading: busy === key, 'data-testid': `${testId}-ok` }}
      onConfirm={onConfirm}
    >
      <Typography.Link type={danger ? 'danger' : undefined} disabled={busy !== undefined} data-testid={testId}>
        {label}
      </Typography.Link>
    </Popconfirm>
  );

  const studyName = (s: StudyRow) => [dicomDateText(s.studyDate), s.modality, s.studyDescription].filter(Boolean).join(' ');

  /** One study with its series; `waitingForReview`: on the review queue, with its reason and the link action. */
  const studyCard = (s: StudyRow, waitingForReview: boolean) => (
    <Card
      key={s.id}
      size="small"
      data-testid={waitingForReview ? 'exam-review-study' : 'exam-study'}
      data-study-uid={s.studyUid}
      title={
        <Space>
          <span>{dicomDateText(s.studyDate)}</span>
          {s.modality && <Tag color="blue">{s.modality}</Tag>}
          <Typography.Text type="secondary">{s.studyDescription}</Typography.Text>
        </Space>
      }
      extra={
        <Space size="middle">
          {waitingForReview &&
            mayLink &&
            confirm('study-link', t('entity.study.review.linkConfirm', { name: studyName(s) }), () => link(s), t('entity.study.review.link'), `link-${s.id}`)}
          {!waitingForReview &&
            mayUnbind &&
            confirm('study-unbind', t('entity.study.action.unbindConfirm', { name: studyName(s) }), () => unbind(s), t('entity.study.action.unbind'), `unbind-${s.id}`)}
          {mayDelete &&
            confirm(
              'study-delete',
              t('entity.study.action.deleteStudyConfirm', { name: studyName(s) }),
              () => removeStudy(s),
              t('entity.study.action.deleteStudy'),
              `delete-${s.id}`,
              true,
            )}
        </Space>
      }
    >
      {waitingForReview && s.reviewReason && <Alert type="warning" showIcon message={s.reviewReason} style={{ marginBottom: 8 }} data-testid="review-reason" />}
      <Descriptions
        size="small"
        column={3}
        items={[
          { key: 'patientName', label: t(f('patientName')), children: dicomNameText(s.patientName) },
          { key: 'patientId', label: t(f('patientId')), children: s.patientId },
          { key: 'accessionNumber', label: t(f('accessionNumber')), children: s.accessionNumber },
          {
            key: 'counts',
            label: t('entity.study.images.counts'),
            children: t('entity.study.images.countsValue', { series: s.seriesCount ?? 0, instances: s.instanceCount ?? 0 }),
          },
          { key: 'matchKind', label: t(f('matchKind')), children: s.matchKind ? t(`code.matchKind.${s.matchKind}`) : '' },
          { key: 'receivedAt', label: t(f('receivedAt')), children: formatTime(s.receivedAt) },
        ]}
      />
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12, marginTop: 8 }}>
        {(s.series ?? []).map((se) => {
          const label = [se.seriesNumber !== undefined ? `#${se.seriesNumber}` : '', se.seriesDescription].filter(Boolean).join(' ');
          return (
            <div key={se.seriesUid} data-testid="exam-series" data-series-uid={se.seriesUid} style={{ width: 132 }}>
              {se.thumbnail ? (
                <AuthImage path={se.thumbnail} alt={label} width={132} height={132} testId="series-thumbnail" />
              ) : (
                <div style={{ width: 132, height: 132, background: '#000' }} />
              )}
              <Typography.Text ellipsis={{ tooltip: label }} style={{ display: 'block', width: 132 }}>
                {label}
              </Typography.Text>
              <Space size={8}>
                <Typography.Text type="secondary">
                  {[se.modality, t('entity.study.images.instances', { count: se.instanceCount ?? 0 })].filter(Boolean).join(' · ')}
                </Typography.Text>
                {mayDelete &&
                  confirm(
                    'series-delete',
                    t('entity.study.action.deleteSeriesConfirm', { name: label }),
                    () => removeSeries(s, se),
                    t('entity.action.delete'),
                    `delete-${s.id}-${se.seriesUid}`,
                    true,
                  )}
              </Space>
            </div>
          );
        })}
      </div>
    </Card>
  );

  return (
    <Modal open title={title} width={960} footer={null} onCancel={() => onClose(changed.current)} destroyOnClose>
      <div data-testid="exam-images" style={{ maxHeight: '70vh', overflowY: 'auto' }}>
        {failed ? (
          <Empty description={t('entity.page.loadFailed')} />
        ) : !studies ? (
          <Spin style={{ display: 'block', margin: '48px auto' }} />
        ) : (
          <Space direction="vertical" size="middle" style={{ width: '100%' }}>
            {studies.length ? (
              studies.map((s) => studyCard(s, false))
            ) : (
              <div data-testid="exam-images-empty">
                <Empty description={t('entity.study.images.empty')} />
              </div>
            )}
            {waiting.length > 0 && (
              <div data-testid="exam-review">
                <Divider orientation="left" plain>
                  {t('entity.study.review.title', { count: waiting.length })}
                </Divider>
                <Space direction="vertical" size="middle" style={{ width: '100%' }}>
                  {waiting.map((s) => studyCard(s, true))}
                </Space>
              </div>
            )}
          </Space>
        )}
      </div>
    </Modal>
  );
}
