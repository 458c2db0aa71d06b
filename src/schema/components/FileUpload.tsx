/**
 * The upload control of attachment fields (../toUpload: file ids of the file service).
 * Props: `purpose` (the file service purpose: its policy says the types, size and
 * chunk size), `ownerField` (the form field holding the owning record's id; until it
 * has one there is nothing to attach to, and the control says so), `multiple`,
 * `maxCount`. Each chosen file is checked against the policy, uploaded at once (in
 * chunks when large, ../../services/files) with its progress, and its id joins the
 * value; the server's refusal shows under the control. Removing one drops it from the
 * value and deletes the file. Read-pretty lists the files, each opening on click.
 */
import { DeleteOutlined, PaperClipOutlined, UploadOutlined } from '@ant-design/icons';
import { PreviewText } from '@formily/antd-v5';
import type { Field } from '@formily/core';
import { connect, mapProps, mapReadPretty, observer, useField, useForm } from '@formily/react';
import { Button, Progress, Typography, Upload } from 'antd';
import { useEffect, useState } from 'react';
import { deleteFile, downloadFile, fileDetail, filePolicy, uploadFile, type FileMeta, type FilePolicy, type FilePurpose } from '../../services/files';
import { RequestError } from '../../services/request';
import { sizeText, typeNames } from '../imageCheck';
import { useTranslate } from '../useTranslate';

export interface FileUploadProps {
  purpose?: FilePurpose;
  ownerField?: string;
  multiple?: boolean;
  maxCount?: number;
  value?: string | string[] | null;
  onChange?(value: string | string[] | undefined): void;
  disabled?: boolean;
}

const idsOf = (value: FileUploadProps['value']): string[] => (Array.isArray(value) ? value : value ? [value] : []);

/** The names and sizes of the files a value names (asked once per id). */
function useFileMetas(ids: string[]): Record<string, FileMeta | 'failed'> {
  const [metas, setMetas] = useState<Record<string, FileMeta | 'failed'>>({});
  const key = ids.join(',');
  useEffect(() => {
    let live = true;
    for (const id of ids) {
      if (metas[id]) continue;
      fileDetail(id)
        .then((m) => live && setMetas((all) => ({ ...all, [id]: m })))
        .catch(() => live && setMetas((all) => ({ ...all, [id]: 'failed' })));
    }
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return metas;
}

function usePolicy(purpose: FilePurpose | undefined): FilePolicy | undefined {
  const [policy, setPolicy] = useState<FilePolicy>();
  useEffect(() => {
    if (!purpose) return undefined;
    let live = true;
    filePolicy(purpose)
      .then((p) => live && setPolicy(p))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [purpose]);
  return policy;
}

async function openFile(id: string): Promise<void> {
  const url = URL.createObjectURL(await downloadFile(id));
  window.open(url, '_blank', 'noopener');
  // The new tab has read it by then; the page keeps no blob it does not show.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function FileRow({ id, meta, onRemove }: { id: string; meta?: FileMeta | 'failed'; onRemove?: () => void }) {
  const { t } = useTranslate();
  const name = meta === 'failed' ? t('entity.upload.fileGone') : meta?.name ?? '…';
  return (
    <div data-testid="file-upload-item" data-file-id={id} style={{ display: 'flex', alignItems: 'center', gap: 8 }}>
      <PaperClipOutlined />
      <Typography.Link onClick={() => void openFile(id).catch(() => undefined)} disabled={meta === 'failed'}>
        {name}
      </Typography.Link>
      {meta && meta !== 'failed' && <Typography.Text type="secondary">{sizeText(meta.size)}</Typography.Text>}
      {onRemove && <Button type="text" size="small" icon={<DeleteOutlined />} aria-label={t('entity.upload.remove')} onClick={onRemove} data-testid="file-upload-remove" />}
    </div>
  );
}

const FileUploadInput = observer((props: FileUploadProps) => {
  const { t } = useTranslate();
  const form = useForm();
  const field = useField<Field>();
  const policy = usePolicy(props.purpose);
  const ids = idsOf(props.value);
  const metas = useFileMetas(ids);
  const [sending, setSending] = useState<Record<string, { name: string; percent: number }>>({});
  const [error, setError] = useState<string>();
  const ownerId = props.ownerField ? Number((form.values as Record<string, unknown>)[props.ownerField]) : NaN;
  const max = props.multiple ? props.maxCount ?? Infinity : 1;

  const setIds = (next: string[]) => props.onChange?.(props.multiple ? next : next[0]);
  // A field still uploading is `loading`: the wizard does not submit until every upload ended.
  const uploading = Object.keys(sending).length > 0;
  useEffect(() => {
    field.loading = uploading;
  }, [field, uploading]);

  if (!props.purpose || !Number.isInteger(ownerId) || ownerId <= 0) {
    return (
      <div data-testid="file-upload" data-state="noOwner">
        <Typography.Text type="secondary">{t('entity.upload.ownerFirst')}</Typography.Text>
      </div>
    );
  }

  const pick = async (file: File) => {
    if (!policy) return;
    setError(undefined);
    // The browser's type is a hint (DICOM files often have none); the server sniffs the bytes.
    if (file.type && !policy.types.includes(file.type)) {
      setError(t('entity.upload.fileBadType', { name: file.name, types: typeNames(policy.types) }));
      return;
    }
    if (file.size > policy.maxBytes) {
      setError(t('entity.upload.fileTooLarge', { name: file.name, size: sizeText(policy.maxBytes) }));
      return;
    }
    const key = `${file.name}:${file.size}:${Date.now()}`;
    setSending((s) => ({ ...s, [key]: { name: file.name, percent: 0 } }));
    try {
      const kept = await uploadFile(file, { purpose: props.purpose!, ownerId, name: file.name }, {
        onProgress: (sent, total) => setSending((s) => ({ ...s, [key]: { name: file.name, percent: total ? Math.floor((sent / total) * 100) : 100 } })),
      });
      // The value as it is now (field.value, not this render's): other uploads may have finished meanwhile.
      const current = props.multiple ? idsOf(field.value as FileUploadProps['value']) : [];
      setIds([...current.filter((id) => id !== kept.id), kept.id]);
    } catch (e) {
      setError(e instanceof RequestError ? `${file.name}: ${e.message}` : t('error.common'));
    } finally {
      setSending((s) => {
        const { [key]: _done, ...rest } = s;
        return rest;
      });
    }
  };

  const remove = (id: string) => {
    setIds(ids.filter((x) => x !== id));
    void deleteFile(id).catch(() => undefined);
  };

  const full = ids.length + Object.keys(sending).length >= max;
  return (
    <div data-testid="file-upload" data-state={ids.length ? 'present' : 'empty'} style={{ display: 'flex', flexDirection: 'column', gap: 6 }}>
      {ids.map((id) => (
        <FileRow key={id} id={id} meta={metas[id]} onRemove={props.disabled ? undefined : () => remove(id)} />
      ))}
      {Object.entries(sending).map(([key, s]) => (
        <div key={key} data-testid="file-upload-sending">
          <Typography.Text>{s.name}</Typography.Text>
          <Progress percent={s.percent} size="small" />
        </div>
      ))}
      <div>
        <Upload
          accept={policy?.types.join(',')}
          multiple={props.multiple}
          showUploadList={false}
          disabled={props.disabled || !policy || full}
          beforeUpload={(file) => {
            void pick(file);
            return Upload.LIST_IGNORE;
          }}
        >
          <Button icon={<UploadOutlined />} disabled={props.disabled || !policy || full} data-testid="file-upload-choose">
            {t('entity.upload.addFiles')}
          </Button>
        </Upload>
      </div>
      {policy && (
        <Typography.Text type="secondary">{t('entity.upload.fileHint', { types: typeNames(policy.types), size: sizeText(policy.maxBytes) })}</Typography.Text>
      )}
      {error && (
        <Typography.Text type="danger" data-testid="file-upload-error">
          {error}
        </Typography.Text>
      )}
    </div>
  );
});

const FileUploadPreview = observer((props: FileUploadProps) => {
  const ids = idsOf(props.value);
  const metas = useFileMetas(ids);
  if (!ids.length) return <PreviewText.Input value={undefined} />;
  return (
    <div data-testid="file-upload" data-state="present">
      {ids.map((id) => (
        <FileRow key={id} id={id} meta={metas[id]} />
      ))}
    </div>
  );
});

export const FileUpload = connect(
  FileUploadInput,
  mapReadPretty(FileUploadPreview),
  mapProps((props: FileUploadProps) => ({ ...props, value: props.value ?? undefined })),
);

export default FileUpload;
