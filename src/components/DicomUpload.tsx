/**
 * The front hospital's uploader (issue 6, spec section 2): DICOM files or a whole
 * folder sent to the archive by STOW-RS (POST /dicom-web/studies) from the browser,
 * in batches (./stow), with a progress bar of bytes sent, each file's outcome (stored,
 * or failed with the archive's reason), cancel, and files that are not DICOM skipped
 * before anything is sent. Opened from the dialog registry (src/schema/dialogs.tsx):
 * on an exam's row it then offers the view's follow-up (auto match). Bespoke because a
 * streamed multi-request upload with per-file results is not a form.
 *
 * The requests go through XMLHttpRequest, not the request wrapper: fetch reports no
 * upload progress. They carry the same headers (buildHeaders).
 */
import { FileAddOutlined, FolderOpenOutlined } from '@ant-design/icons';
import { Alert, Button, Modal, Progress, Space, Table, Tag, Typography } from 'antd';
import { useEffect, useMemo, useRef, useState, type ChangeEvent } from 'react';
import { apiBase, buildHeaders, buildUrl } from '../services/request';
import { sizeText } from '../schema/imageCheck';
import type { ActionDialogProps } from '../schema/dialogs';
import { useTranslate } from '../schema/useTranslate';
import { batches, failureReasonText, HEAD_BYTES, isPart10, multipartBody, newBoundary, sopInstanceUidOf, stowContentType, stowOutcome } from './stow';

const STOW_PATH = '/dicom-web/studies';

/** A file's size; bytes below one kilobyte (sizeText would say "0 KB"). */
const fileSize = (n: number) => (n < 1024 ? `${n} B` : sizeText(n));

type FileState = 'pending' | 'skipped' | 'uploading' | 'stored' | 'failed';

interface Entry {
  id: number;
  file: File;
  name: string;
  size: number;
  state: FileState;
  uid?: string;
  /** Why it failed or was skipped, as shown. */
  reason?: string;
}

const STATE_COLOR: Record<FileState, string> = { pending: 'default', skipped: 'warning', uploading: 'processing', stored: 'success', failed: 'error' };

/** What one request came to: an outcome per file id. */
type BatchResult = Map<number, { state: 'stored' | 'failed'; reason?: string }>;

class Cancelled extends Error {}

/** Sends one batch; `progress` gets the bytes of the batch's files sent so far. Rejects with Cancelled when aborted. */
function sendBatch(batch: Entry[], t: (k: string, p?: Record<string, unknown>) => string, progress: (bytes: number) => void, register: (xhr: XMLHttpRequest) => void): Promise<BatchResult> {
  const boundary = newBoundary();
  const body = multipartBody(
    batch.map((e) => e.file),
    boundary,
  );
  const fileBytes = batch.reduce((n, e) => n + e.size, 0);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    register(xhr);
    xhr.open('POST', buildUrl(apiBase(), STOW_PATH));
    const headers = buildHeaders(STOW_PATH, {}, typeof localStorage !== 'undefined' ? localStorage : undefined);
    for (const [k, v] of Object.entries({ ...headers, Accept: 'application/dicom+json', 'Content-Type': stowContentType(boundary) })) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      // The body is the files plus a few boundary lines: count it as the files' bytes.
      if (e.lengthComputable && e.total > 0) progress(Math.min(fileBytes, Math.round((e.loaded / e.total) * fileBytes)));
    };
    xhr.onabort = () => reject(new Cancelled());
    xhr.onerror = () => resolve(new Map(batch.map((e) => [e.id, { state: 'failed', reason: t('error.network') }])));
    xhr.onload = () => {
      progress(fileBytes);
      let answer: unknown;
      try {
        answer = JSON.parse(xhr.responseText);
      } catch {
        answer = undefined;
      }
      const result: BatchResult = new Map();
      // 200 all stored, 202 some failed, 409 none stored: each with the DICOM JSON answer.
      if ([200, 202, 409].includes(xhr.status) && answer && typeof answer === 'object' && !('status' in answer)) {
        const outcome = stowOutcome(answer);
        for (const e of batch) {
          if (e.uid && outcome.stored.has(e.uid)) result.set(e.id, { state: 'stored' });
          else if (e.uid && outcome.failed.has(e.uid)) {
            const { key, params } = failureReasonText(outcome.failed.get(e.uid));
            result.set(e.id, { state: 'failed', reason: t(key, params) });
          } else result.set(e.id, { state: 'failed', reason: t('entity.dicomUpload.reason.unknown') });
        }
      } else {
        // The platform's envelope (a session that ended, no right): its message says why.
        const message = answer && typeof answer === 'object' ? (answer as { message?: unknown }).message : undefined;
        const reason = typeof message === 'string' && message ? message : t('entity.dicomUpload.httpFailed', { status: xhr.status });
        for (const e of batch) result.set(e.id, { state: 'failed', reason });
      }
      resolve(result);
    };
    xhr.send(body);
  });
}

export default function DicomUpload({ title, onClose, followUp }: ActionDialogProps) {
  const { t } = useTranslate();
  const [entries, setEntries] = useState<Entry[]>([]);
  const [checking, setChecking] = useState(0);
  const [uploading, setUploading] = useState(false);
  const [sent, setSent] = useState({ bytes: 0, total: 0 });
  const [finished, setFinished] = useState(false);
  const [followed, setFollowed] = useState(false);
  const [following, setFollowing] = useState(false);
  const nextId = useRef(1);
  const xhrRef = useRef<XMLHttpRequest>();
  const cancelled = useRef(false);
  const changed = useRef(false);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  // Leaving the dialog stops what is under way.
  useEffect(() => () => xhrRef.current?.abort(), []);

  const patch = (updates: Map<number, Partial<Entry>>) => setEntries((list) => list.map((e) => (updates.has(e.id) ? { ...e, ...updates.get(e.id) } : e)));

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const files = [...(event.target.files ?? [])];
    event.target.value = '';
    if (!files.length) return;
    setFinished(false);
    setChecking((n) => n + files.length);
    const added: Entry[] = await Promise.all(
      files.map(async (file) => {
        const head = new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer());
        const dicom = isPart10(head);
        return {
          id: nextId.current++,
          file,
          name: file.webkitRelativePath || file.name,
          size: file.size,
          state: dicom ? 'pending' : 'skipped',
          uid: dicom ? sopInstanceUidOf(head) : undefined,
          reason: dicom ? undefined : t('entity.dicomUpload.notDicom'),
        } satisfies Entry;
      }),
    );
    setEntries((list) => [...list, ...added]);
    setChecking((n) => n - files.length);
  };

  const start = async () => {
    const pending = entries.filter((e) => e.state === 'pending' || e.state === 'failed');
    if (!pending.length || uploading) return;
    cancelled.current = false;
    setUploading(true);
    setFinished(false);
    const total = pending.reduce((n, e) => n + e.size, 0);
    let done = 0;
    setSent({ bytes: 0, total });
    try {
      for (const batch of batches(pending)) {
        if (cancelled.current) break;
        patch(new Map(batch.map((e) => [e.id, { state: 'uploading' as const, reason: undefined }])));
        const result = await sendBatch(
          batch,
          t,
          (bytes) => setSent({ bytes: done + bytes, total }),
          (xhr) => {
            xhrRef.current = xhr;
          },
        );
        done += batch.reduce((n, e) => n + e.size, 0);
        setSent({ bytes: done, total });
        if ([...result.values()].some((r) => r.state === 'stored')) changed.current = true;
        patch(result);
      }
      setFinished(true);
    } catch (e) {
      if (!(e instanceof Cancelled)) throw e;
      // What was on its way goes back to waiting; stored files stay stored.
      setEntries((list) => list.map((x) => (x.state === 'uploading' ? { ...x, state: 'pending' } : x)));
    } finally {
      xhrRef.current = undefined;
      setUploading(false);
    }
  };

  const cancel = () => {
    cancelled.current = true;
    xhrRef.current?.abort();
  };

  const counts = useMemo(() => {
    const c: Record<FileState, number> = { pending: 0, skipped: 0, uploading: 0, stored: 0, failed: 0 };
    for (const e of entries) c[e.state] += 1;
    return c;
  }, [entries]);
  const dicomBytes = entries.filter((e) => e.state !== 'skipped').reduce((n, e) => n + e.size, 0);
  const percent = sent.total ? Math.floor((100 * sent.bytes) / sent.total) : 0;
  const waiting = counts.pending + counts.failed;

  const columns = [
    { title: t('entity.dicomUpload.file'), dataIndex: 'name', key: 'name', ellipsis: true },
    { title: t('entity.dicomUpload.size'), key: 'size', width: 100, render: (_: unknown, e: Entry) => fileSize(e.size) },
    {
      title: t('entity.dicomUpload.state'),
      key: 'state',
      width: 110,
      render: (_: unknown, e: Entry) => (
        <Tag color={STATE_COLOR[e.state]} data-testid="dicom-upload-state" data-state={e.state}>
          {t(`entity.dicomUpload.fileState.${e.state}`)}
        </Tag>
      ),
    },
    { title: t('entity.dicomUpload.outcome'), dataIndex: 'reason', key: 'reason', ellipsis: true },
  ];

  return (
    <Modal
      open
      title={title}
      width={860}
      maskClosable={false}
      onCancel={() => {
        cancel();
        onClose(changed.current);
      }}
      footer={[
        <Button key="close" onClick={() => (cancel(), onClose(changed.current))} data-testid="dicom-upload-close">
          {t('entity.action.close')}
        </Button>,
        uploading ? (
          <Button key="cancel" danger onClick={cancel} data-testid="dicom-upload-cancel">
            {t('entity.dicomUpload.cancel')}
          </Button>
        ) : null,
        <Button key="start" type="primary" loading={uploading} disabled={!waiting || checking > 0} onClick={start} data-testid="dicom-upload-start">
          {t('entity.dicomUpload.start')}
        </Button>,
      ]}
    >
      <div data-testid="dicom-upload">
        <Typography.Paragraph type="secondary">{t('entity.dicomUpload.hint')}</Typography.Paragraph>
        <Space style={{ marginBottom: 12 }} wrap>
          <Button icon={<FileAddOutlined />} disabled={uploading} onClick={() => filesInput.current?.click()} data-testid="dicom-upload-choose-files">
            {t('entity.dicomUpload.chooseFiles')}
          </Button>
          <Button icon={<FolderOpenOutlined />} disabled={uploading} onClick={() => folderInput.current?.click()} data-testid="dicom-upload-choose-folder">
            {t('entity.dicomUpload.chooseFolder')}
          </Button>
          <input ref={filesInput} type="file" multiple hidden onChange={choose} data-testid="dicom-upload-files" />
          {/* A folder and everything under it (Chromium, Firefox, Safari and Edge know webkitdirectory). */}
          <input ref={folderInput} type="file" multiple hidden onChange={choose} data-testid="dicom-upload-folder" {...{ webkitdirectory: '', directory: '' }} />
          {entries.length > 0 && (
            <Typography.Text data-testid="dicom-upload-summary">
              {t('entity.dicomUpload.chosen', { count: entries.length - counts.skipped, size: fileSize(dicomBytes) })}
              {counts.skipped > 0 && <Typography.Text type="warning">{` ${t('entity.dicomUpload.skippedNote', { count: counts.skipped })}`}</Typography.Text>}
            </Typography.Text>
          )}
        </Space>
        {(uploading || sent.total > 0) && (
          <Progress
            percent={percent}
            status={uploading ? 'active' : counts.failed ? 'exception' : 'success'}
            format={() => `${fileSize(sent.bytes)} / ${fileSize(sent.total)}`}
            data-testid="dicom-upload-progress"
          />
        )}
        {finished && (
          <Alert
            style={{ margin: '8px 0' }}
            type={counts.failed ? 'warning' : 'success'}
            showIcon
            data-testid="dicom-upload-result"
            message={t('entity.dicomUpload.result', { stored: counts.stored, failed: counts.failed, skipped: counts.skipped })}
            action={
              followUp && counts.stored > 0 ? (
                <Button
                  size="small"
                  type="primary"
                  loading={following}
                  disabled={followed}
                  data-testid="dicom-upload-follow-up"
                  onClick={async () => {
                    setFollowing(true);
                    const ok = await followUp.run();
                    setFollowing(false);
                    if (ok) {
                      setFollowed(true);
                      changed.current = true;
                    }
                  }}
                >
                  {followUp.label}
                </Button>
              ) : undefined
            }
          />
        )}
        <Table<Entry>
          rowKey="id"
          size="small"
          columns={columns}
          dataSource={entries}
          pagination={false}
          scroll={{ y: 300 }}
          locale={{ emptyText: t('entity.dicomUpload.empty') }}
          loading={checking > 0}
        />
      </div>
    </Modal>
  );
}
