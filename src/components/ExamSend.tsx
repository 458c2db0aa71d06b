/**
 * Regional send from the exam list (dialog registry name ExamSend, spec section 4):
 * the destinations the server allows for the row's exam, a send (or, when one to that
 * destination runs, its status: the server answers which), and the exam's sends with
 * their progress, refreshed while one is under way; a finished one can be sent again.
 * The rules are the server's (server/pacs/send.ts).
 */
import { App, Button, Empty, Modal, Select, Space, Table, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import type { ActionDialogProps } from '../schema/dialogs';
import { ProgressCell } from '../schema/components/ProgressCell';
import { useTranslate } from '../schema/useTranslate';
import {
  getExamSendDestinationsByExamId,
  getExamSendStatusByExamId,
  postExamSend,
  type GetExamSendDestinationsByExamIdData,
  type GetExamSendStatusByExamIdData,
} from '../services/generated/ris';

/** How often the status is asked for while a send is under way. */
const REFRESH_MS = 2000;
const BAR = { sending: 'active', success: 'success', failure: 'exception' } as const;

type Destination = GetExamSendDestinationsByExamIdData['list'][number];
type SendStatus = GetExamSendStatusByExamIdData['list'][number];

export default function ExamSend({ row, title, onClose }: ActionDialogProps) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const examId = typeof row?.id === 'number' ? row.id : undefined;
  const [destinations, setDestinations] = useState<Destination[]>();
  const [destinationId, setDestinationId] = useState<number>();
  const [sends, setSends] = useState<SendStatus[]>([]);
  const [busy, setBusy] = useState(false);
  const [changed, setChanged] = useState(false);

  const refresh = useCallback(async () => {
    if (!examId) return;
    const data = await getExamSendStatusByExamId(examId).catch(() => undefined);
    if (data) setSends(data.list);
  }, [examId]);

  useEffect(() => {
    if (!examId) return;
    let live = true;
    getExamSendDestinationsByExamId(examId)
      .then((data) => {
        if (!live) return;
        setDestinations(data.list);
        setDestinationId(data.list[0]?.id);
      })
      .catch(() => live && setDestinations([]));
    void refresh();
    return () => {
      live = false;
    };
  }, [examId, refresh]);

  const running = sends.some((s) => s.state === 'sending');
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [running, refresh]);

  const send = async (to: number) => {
    if (!examId) return;
    setBusy(true);
    try {
      const answer = await postExamSend({ examId, destinationId: to });
      message.info(t(answer.started ? 'entity.exam.send.started' : 'entity.exam.send.running'));
      setChanged(true);
      await refresh();
    } catch {
      // The request wrapper has told the user.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal open title={title} width={720} footer={null} onCancel={() => onClose(changed)} data-testid="exam-send-dialog">
      {destinations && !destinations.length ? (
        <Empty description={t('entity.exam.send.none')} />
      ) : (
        <Space style={{ marginBottom: 16 }}>
          <Typography.Text>{t('entity.exam.send.destination')}</Typography.Text>
          <Select
            data-testid="send-destination"
            style={{ minWidth: 260 }}
            value={destinationId}
            onChange={setDestinationId}
            options={(destinations ?? []).map((d) => ({ value: d.id, label: `${d.name} (${d.kind === 'stow' ? 'STOW-RS' : 'DICOM'})` }))}
          />
          <Button type="primary" data-testid="send-submit" loading={busy} disabled={!destinationId} onClick={() => destinationId && void send(destinationId)}>
            {t('entity.exam.send.submit')}
          </Button>
        </Space>
      )}
      <Table<SendStatus>
        rowKey="id"
        size="small"
        pagination={false}
        dataSource={sends}
        data-testid="send-status"
        columns={[
          { title: t('entity.exam.send.destination'), dataIndex: 'destinationName' },
          {
            title: t('entity.exam.field.sendState'),
            render: (_v, s) => (
              <ProgressCell label={t(`code.sendState.${s.state}`)} status={BAR[s.state]} done={s.done} total={s.total} error={s.lastError ?? undefined} />
            ),
          },
          { title: '', render: (_v, s) => t('entity.exam.send.attempts', { n: s.attempts }) },
          {
            title: '',
            render: (_v, s) =>
              s.state === 'sending' ? null : (
                <Button size="small" loading={busy} onClick={() => void send(s.destinationId)}>
                  {t('entity.exam.send.resend')}
                </Button>
              ),
          },
        ]}
      />
    </Modal>
  );
}
