/**
 * /consultationDetail?id=<consultation id> (issue #20 item 3): one consultation — the
 * patient and the meeting, the exams (each opens the viewer), the materials (images
 * and PDF previewed in the browser), the experts, the consultation report (written by
 * an invited expert, reviewed, printed with the applying hospital's layout) and the
 * operation log. The buttons are the workflow actions the server says the caller may
 * take now (config/workflows/consultation.json, consultationReport.json), with the
 * reason dialogs of the list, or the form an action declares (the edit of a revoked
 * application); "join video" opens the video room (/consultationRoom) while it is open,
 * "replay" its kept session (/consultationReplay) once it has events, also after the
 * end, and what was said there (its chat, kept with the consultation) is shown below.
 */
import { EyeOutlined, HistoryOutlined, PictureOutlined, PrinterOutlined, VideoCameraOutlined } from '@ant-design/icons';
import { App, Button, Card, Descriptions, Empty, Flex, Input, List, Modal, Result, Space, Spin, Table, Tag, Timeline, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'umi';
import { actionAsRowAction, actionForm, consultationChat, consultationDetail, hasRoomEvents, materialBlob, REPORT_CONTENT_ACTIONS, type ChatLine, type ConsultationDetail } from '../../consult/api';
import { EditApplicationDialog } from '../../consult/EditDialog';
import { AuthImage } from '../../schema/components/AuthImage';
import { PrintRoot, ReportSheet, SheetDesk } from '../../report/print/ReportSheet';
import { InputDialog } from '../../schema/InputDialog';
import { runRowAction } from '../../schema/rowActions';
import { useBusy } from '../../schema/useBusy';
import { useTranslate } from '../../schema/useTranslate';
import { getConsultationReportPrintById, postConsultationReportPrintedById } from '../../services/generated/consult';
import { formatTime } from '../../shared/format';
import { sheetModel, type PrintSheet } from '../../shared/printSheet';
import type { InputSpec, RowAction } from '../../shared/schema/types';
import { getView } from '../../shared/schema/views';
import { viewerPath } from '../../viewer/launch';

/** States in which the video room is open (approved and waiting, running). */
const ROOM_OPEN = new Set([5, 6]);
/** States in which a room may have been held and its record is read (open, and ended). */
const ROOM_KEPT = new Set([5, 6, 7]);
const STATE_COLOR: Record<number, string> = { 2: 'processing', 3: 'error', 4: 'default', 5: 'warning', 6: 'success', 7: 'default' };

export default function ConsultationDetailPage() {
  const { t } = useTranslate();
  const [params] = useSearchParams();
  const id = Number(params.get('id'));
  if (!Number.isInteger(id) || id <= 0) return <Result status="warning" title={t('error.CONSULT002')} />;
  // `edit=1`: the list's "edit application" (a revoked one) opens the edit form at once.
  return <Detail key={id} id={id} editing={params.get('edit') === '1'} />;
}

function Detail({ id, editing }: { id: number; editing: boolean }) {
  const { t } = useTranslate();
  const navigate = useNavigate();
  const [data, setData] = useState<ConsultationDetail | null>();
  const reload = useCallback(() => consultationDetail(id).then(setData, () => setData(null)), [id]);
  useEffect(() => void reload(), [reload]);
  // A replay is offered once the room kept something, to whoever may read it (the server decides).
  const [replayable, setReplayable] = useState(false);
  const kept = data ? ROOM_KEPT.has(data.status) : false;
  useEffect(() => {
    let live = true;
    if (kept) void hasRoomEvents(id).then((yes) => live && setReplayable(yes));
    return () => {
      live = false;
    };
  }, [id, kept]);
  if (data === undefined) return <Spin size="large" style={{ display: 'block', margin: '30vh auto' }} />;
  if (data === null) return <Result status="404" title={t('error.CONSULT002')} />;

  const code = (table: string, v: unknown) => (v === undefined || v === null ? '' : t(`code.${table}.${v}`));
  const f = (name: string) => t(`entity.consultation.field.${name}`);
  return (
    <div data-testid="consult-detail" data-status={data.status} data-report-status={data.reportStatus}>
      <Card
        title={
          <Space wrap>
            <span data-testid="consult-no">{data.consultNo}</span>
            <span>{data.topic}</span>
            <Tag color={STATE_COLOR[data.status]} data-testid="consult-status">
              {code('consultState', data.status)}
            </Tag>
            <Tag data-testid="consult-report-status">{`${f('reportStatus')}: ${code('consultReportState', data.reportStatus)}`}</Tag>
          </Space>
        }
        extra={
          <Space wrap>
            <ActionButtons data={data} only={(a) => !REPORT_CONTENT_ACTIONS.includes(a) && !a.endsWith('Report')} onDone={reload} startEditing={editing} />
            {ROOM_OPEN.has(data.status) && (
              <Button type="primary" icon={<VideoCameraOutlined />} onClick={() => navigate(`/consultationRoom?id=${data.id}`)} data-testid="consult-join-video">
                {t('entity.consultation.action.joinVideo')}
              </Button>
            )}
            {kept && replayable && (
              <Button icon={<HistoryOutlined />} onClick={() => navigate(`/consultationReplay?id=${data.id}`)} data-testid="consult-replay">
                {t('entity.consultation.action.replay')}
              </Button>
            )}
          </Space>
        }
      >
        <Descriptions size="small" column={{ xs: 1, md: 3 }} title={t('entity.consultation.detail.patient')}>
          <Descriptions.Item label={f('patientName')}>{data.patientName}</Descriptions.Item>
          <Descriptions.Item label={f('sex')}>{code('sex', data.sex)}</Descriptions.Item>
          <Descriptions.Item label={f('birthDate')}>{data.birthDate}</Descriptions.Item>
          <Descriptions.Item label={f('clinicalQuestion')} span={3}>
            {data.clinicalQuestion}
          </Descriptions.Item>
          <Descriptions.Item label={f('clinicalDiagnosis')} span={3}>
            {data.clinicalDiagnosis}
          </Descriptions.Item>
        </Descriptions>
        <Descriptions size="small" column={{ xs: 1, md: 3 }} title={t('entity.consultation.detail.meeting')}>
          <Descriptions.Item label={f('applyHospitalId')}>{data.applyHospitalName}</Descriptions.Item>
          <Descriptions.Item label={f('applicantName')}>{data.applicantName}</Descriptions.Item>
          <Descriptions.Item label={f('consultHospitalName')}>{data.consultHospitalName}</Descriptions.Item>
          <Descriptions.Item label={f('startTime')}>{formatTime(data.startTime, '{y}-{m}-{d} {h}:{i}')}</Descriptions.Item>
          <Descriptions.Item label={f('endTime')}>{data.endTime ? formatTime(data.endTime, '{y}-{m}-{d} {h}:{i}') : ''}</Descriptions.Item>
          <Descriptions.Item label={f('meetingId')}>{data.meetingId ?? ''}</Descriptions.Item>
        </Descriptions>
      </Card>

      <Flex gap={12} wrap style={{ marginTop: 12 }} align="stretch">
        <Card size="small" title={t('entity.consultation.detail.exams')} style={{ flex: '2 1 480px' }} data-testid="consult-exams">
          <Table
            size="small"
            rowKey="id"
            pagination={false}
            dataSource={data.exams}
            columns={[
              { title: t('entity.exam.field.examCode'), dataIndex: 'examCode' },
              { title: t('entity.exam.field.modality'), dataIndex: 'modality' },
              { title: t('entity.exam.field.itemNames'), dataIndex: 'itemNames' },
              { title: t('entity.exam.field.hospitalId'), dataIndex: 'hospitalName' },
              {
                title: t('entity.action.operation'),
                key: 'viewer',
                render: (_v, exam) => (
                  <Button size="small" icon={<PictureOutlined />} onClick={() => navigate(viewerPath({ examId: exam.id }))} data-testid="consult-open-viewer">
                    {t('entity.consultation.action.openViewer')}
                  </Button>
                ),
              },
            ]}
          />
        </Card>
        <Card size="small" title={t('entity.consultation.detail.experts')} style={{ flex: '1 1 300px' }} data-testid="consult-experts">
          <List
            size="small"
            dataSource={data.experts}
            renderItem={(x) => (
              <List.Item data-testid="consult-expert">
                <List.Item.Meta
                  avatar={x.avatar ? <AuthImage path={x.avatar} alt={x.name} width={40} height={40} testId="consult-expert-avatar" /> : undefined}
                  title={
                    <Space wrap>
                      {x.name}
                      {x.title !== undefined && <Tag>{code('doctorTitle', x.title)}</Tag>}
                      {(x.labels ?? []).map((l) => (
                        <Tag key={l} color="blue">
                          {l}
                        </Tag>
                      ))}
                    </Space>
                  }
                  description={[x.hospitalName, x.departmentName, x.specialty].filter(Boolean).join(' · ')}
                />
              </List.Item>
            )}
          />
        </Card>
      </Flex>

      <Materials data={data} />
      <ReportCard data={data} onDone={reload} />
      {ROOM_KEPT.has(data.status) && <MeetingChat id={data.id} />}

      <Card size="small" title={t('entity.consultation.detail.log')} style={{ marginTop: 12 }} data-testid="consult-log">
        <Timeline
          items={data.logs.map((l) => ({
            children: (
              <div data-testid="consult-log-entry" data-action={l.action}>
                <Typography.Text strong>{t(`code.consultLogType.${l.action}`)}</Typography.Text>{' '}
                <Typography.Text type="secondary">
                  {formatTime(l.operateTime)} {l.userName}
                </Typography.Text>
                {l.reason && <div>{`${t('entity.consultationLog.field.reason')}: ${l.reason}`}</div>}
              </div>
            ),
          }))}
        />
      </Card>
    </div>
  );
}

/** The workflow actions the server allows (those `only` keeps), each a button; a reason first where the table declares one. */
function ActionButtons({
  data,
  only,
  extra,
  onDone,
  startEditing = false,
}: {
  data: ConsultationDetail;
  only: (action: string) => boolean;
  extra?: () => Record<string, unknown>;
  onDone: () => void;
  /** Open the action's form at once (when the server offers the action). */
  startEditing?: boolean;
}) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const view = getView('consultation')!;
  const [asking, setAsking] = useState<RowAction & { input: InputSpec }>();
  // An action with a form (the edit of a revoked application) asks for it first.
  const [editing, setEditing] = useState(() => startEditing && data.actions.some((a) => only(a) && actionForm(a)));
  const [busy, setBusy] = useState(false);
  // A refusal was shown by the request wrapper; the page stays as it was.
  const run = async (action: RowAction) => {
    setBusy(true);
    try {
      await runRowAction(action, data as unknown as Record<string, unknown>, undefined, extra?.());
      message.success(t(`entity.consultation.action.${action.key}Done`));
      onDone();
    } catch {
      // shown already
    } finally {
      setBusy(false);
    }
  };
  const names = data.actions.filter(only);
  return (
    <>
      {names.map((name) => {
        const action = actionAsRowAction(name);
        return (
          <Button
            key={name}
            loading={busy}
            danger={name.startsWith('reject') || name === 'revoke'}
            onClick={() => (actionForm(name) ? setEditing(true) : action.input ? setAsking(action as RowAction & { input: InputSpec }) : void run(action))}
            data-testid={`consult-action-${name}`}
          >
            {t(`entity.consultation.action.${name}`)}
          </Button>
        );
      })}
      {editing && (
        <EditApplicationDialog
          data={data}
          onClose={(changed) => {
            setEditing(false);
            if (changed) onDone();
          }}
        />
      )}
      {asking && (
        <InputDialog
          view={view}
          action={asking}
          row={data as unknown as Record<string, unknown>}
          onClose={(changed) => {
            setAsking(undefined);
            if (changed) onDone();
          }}
        />
      )}
    </>
  );
}

/**
 * What was said in the video room, kept with the consultation (the room's chat events),
 * for its parties, also after it ended; nothing shows for anyone else (the server refuses them).
 */
function MeetingChat({ id }: { id: number }) {
  const { t } = useTranslate();
  const [lines, setLines] = useState<ChatLine[]>();
  useEffect(() => {
    let live = true;
    consultationChat(id).then(
      (list) => live && setLines(list),
      () => live && setLines(undefined),
    );
    return () => {
      live = false;
    };
  }, [id]);
  if (!lines) return null;
  return (
    <Card size="small" title={t('entity.consultation.detail.chat')} style={{ marginTop: 12 }} data-testid="consult-chat">
      {lines.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('entity.videoRoom.chatEmpty')} />
      ) : (
        <List
          size="small"
          dataSource={lines}
          rowKey="id"
          renderItem={(l) => (
            <List.Item data-testid="consult-chat-line">
              <Space align="start">
                <Typography.Text type="secondary">{formatTime(l.at, '{m}-{d} {h}:{i}')}</Typography.Text>
                <Typography.Text strong>{l.state.name}</Typography.Text>
                <Typography.Text>{l.state.text}</Typography.Text>
              </Space>
            </List.Item>
          )}
        />
      )}
    </Card>
  );
}

function Materials({ data }: { data: ConsultationDetail }) {
  const { t } = useTranslate();
  const [preview, setPreview] = useState<{ name: string; mime: string; url: string }>();
  const open = async (m: ConsultationDetail['materials'][number]) => {
    const blob = await materialBlob(data.id, m.fileId);
    setPreview({ name: m.name ?? m.fileId, mime: m.mime ?? blob.type, url: URL.createObjectURL(blob) });
  };
  const close = () => {
    if (preview) URL.revokeObjectURL(preview.url);
    setPreview(undefined);
  };
  return (
    <Card size="small" title={t('entity.consultation.detail.materials')} style={{ marginTop: 12 }} data-testid="consult-materials">
      {data.materials.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />
      ) : (
        <List
          size="small"
          dataSource={data.materials}
          renderItem={(m) => (
            <List.Item
              data-testid="consult-material"
              actions={[
                <Button key="preview" size="small" icon={<EyeOutlined />} onClick={() => void open(m).catch(() => undefined)} data-testid="consult-material-preview">
                  {t('entity.consultation.action.preview')}
                </Button>,
              ]}
            >
              <Space>
                <Tag>{t(`code.attachmentType.${m.type}`)}</Tag>
                {m.name}
              </Space>
            </List.Item>
          )}
        />
      )}
      <Modal open={Boolean(preview)} title={preview?.name} width={900} footer={null} onCancel={close} destroyOnClose>
        {preview &&
          (preview.mime.startsWith('image/') ? (
            <img src={preview.url} alt={preview.name} style={{ maxWidth: '100%' }} data-testid="consult-preview-image" />
          ) : (
            <iframe src={preview.url} title={preview.name} style={{ width: '100%', height: '70vh', border: 0 }} data-testid="consult-preview-pdf" />
          ))}
      </Modal>
    </Card>
  );
}

function ReportCard({ data, onDone }: { data: ConsultationDetail; onDone: () => void }) {
  const { t } = useTranslate();
  const writable = data.actions.some((a) => REPORT_CONTENT_ACTIONS.includes(a));
  const [findings, setFindings] = useState(data.reportFindings ?? '');
  const [opinion, setOpinion] = useState(data.reportOpinion ?? '');
  const [printing, setPrinting] = useState(false);
  const f = (name: string) => t(`entity.consultation.field.${name}`);
  return (
    <Card
      size="small"
      title={t('entity.consultation.detail.report')}
      style={{ marginTop: 12 }}
      data-testid="consult-report"
      extra={
        <Space wrap>
          <ActionButtons data={data} only={(a) => a.endsWith('Report')} extra={() => (writable ? { findings, opinion } : {})} onDone={onDone} />
          {data.reportStatus === 4 && (
            <Button icon={<PrinterOutlined />} onClick={() => setPrinting(true)} data-testid="consult-print">
              {t('entity.consultation.action.print')}
            </Button>
          )}
        </Space>
      }
    >
      {writable ? (
        <Space direction="vertical" style={{ width: '100%' }}>
          <Typography.Text strong>{f('reportFindings')}</Typography.Text>
          <Input.TextArea rows={4} maxLength={3000} value={findings} onChange={(e) => setFindings(e.target.value)} data-testid="consult-findings" />
          <Typography.Text strong>{f('reportOpinion')}</Typography.Text>
          <Input.TextArea rows={3} maxLength={3000} value={opinion} onChange={(e) => setOpinion(e.target.value)} data-testid="consult-opinion" />
        </Space>
      ) : data.reportFindings || data.reportOpinion ? (
        <Descriptions size="small" column={1}>
          <Descriptions.Item label={f('reportFindings')}>
            <span data-testid="consult-findings-text">{data.reportFindings}</span>
          </Descriptions.Item>
          <Descriptions.Item label={f('reportOpinion')}>{data.reportOpinion}</Descriptions.Item>
          <Descriptions.Item label={f('reportAuthorName')}>{data.reportAuthorName}</Descriptions.Item>
          {data.reportReviewerName && <Descriptions.Item label={f('reportReviewerName')}>{data.reportReviewerName}</Descriptions.Item>}
        </Descriptions>
      ) : (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('entity.consultation.detail.noReport')} />
      )}
      {printing && <PrintReport id={data.id} onClose={() => setPrinting(false)} />}
    </Card>
  );
}

/** The report's sheet in the applying hospital's layout; Print prints it and records the print in the log. */
function PrintReport({ id, onClose }: { id: number; onClose: () => void }) {
  const { t } = useTranslate();
  const [sheet, setSheet] = useState<PrintSheet>();
  useEffect(() => {
    getConsultationReportPrintById(id).then(setSheet, onClose);
  }, [id, onClose]);
  const [print, busy] = useBusy(async () => {
    window.print();
    await postConsultationReportPrintedById(id);
    onClose();
  });
  const model = sheet && sheetModel({ ...sheet, hospitalName: sheet.report.hospitalName }, t);
  return (
    <Modal
      open
      width={900}
      title={t('entity.consultation.action.print')}
      onCancel={onClose}
      footer={
        <Button type="primary" icon={<PrinterOutlined />} loading={busy} disabled={!sheet?.report.canPrint} onClick={() => void print()} data-testid="print-submit">
          {t('entity.consultation.action.print')}
        </Button>
      }
    >
      <Spin spinning={!sheet}>
        <div data-testid="print-dialog">
          {model && (
            <SheetDesk>
              <ReportSheet model={model} />
            </SheetDesk>
          )}
        </div>
      </Spin>
      {model && sheet?.report.canPrint && (
        <PrintRoot>
          <ReportSheet model={model} testId="print-sheet" />
        </PrintRoot>
      )}
    </Modal>
  );
}
