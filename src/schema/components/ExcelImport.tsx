/**
 * Excel buttons of a list (a view's `list.excel`): Import, Export and Template on the
 * toolbar, offered with the view module's import / export rights (the server checks
 * them again). Export and import work on the value of the `filter` query field the
 * list was last queried with (e.g. the chosen dictionary). The import dialog uploads
 * one .xlsx as base64, then shows how many rows went in and a table of the failed
 * rows with their reasons, which can be downloaded as a file to correct and import
 * again. Files come through the one request wrapper (its headers are required on
 * every /api call) as blobs and are saved through an object URL.
 */
import { DownloadOutlined, FileExcelOutlined, UploadOutlined } from '@ant-design/icons';
import { Alert, App, Button, Checkbox, Modal, Space, Table, Upload } from 'antd';
import { useState } from 'react';
import { request } from '../../services/request';
import { invalidateOptions } from '../options';
import { allows, usePermissionMap } from '../permissions';
import { resourceBase } from '../resource';
import { fieldLabelKey } from '../toFormily';
import type { ExcelSpec, Scalar, View } from '../../shared/schema/types';
import { useTranslate } from '../useTranslate';

export interface ImportReply {
  imported: number;
  failed: Array<{ row: number; reason: string }>;
  failedFile?: string;
}

/** Offers `blob` as a download named `fileName`. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // The click has handed the URL to the download; release it once that has started.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function download(path: string, fileName: string, query?: Record<string, Scalar>): Promise<void> {
  const blob = await request<Blob>(path, { responseType: 'blob', query });
  saveBlob(blob, fileName);
}

function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

const XLSX = '.xlsx';

interface DialogProps {
  spec: ExcelSpec;
  base: string;
  filterValue: Scalar;
  title: string;
  onClose: (imported: boolean) => void;
}

function ImportDialog({ spec, base, filterValue, title, onClose }: DialogProps) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const [file, setFile] = useState<File | null>(null);
  const [overwrite, setOverwrite] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ImportReply | null>(null);

  const upload = async () => {
    if (!file) return;
    setBusy(true);
    try {
      const content = await readBase64(file);
      const reply = await request<ImportReply>(`${base}/import`, {
        method: 'POST',
        body: { [spec.filter]: filterValue, fileName: file.name, content, overwrite },
      });
      setResult(reply);
      if (!reply.failed.length) message.success(t('entity.excel.importSuccess', { count: reply.imported }));
    } catch {
      // The request wrapper has shown why (e.g. the file is not the template).
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      title={t('entity.excel.importTitle')}
      width={720}
      onCancel={() => onClose(Boolean(result?.imported))}
      maskClosable={false}
      destroyOnClose
      footer={[
        <Button key="close" onClick={() => onClose(Boolean(result?.imported))}>
          {t('entity.action.close')}
        </Button>,
        <Button key="upload" type="primary" loading={busy} disabled={!file} onClick={upload} data-testid="excel-import-upload">
          {t('entity.excel.upload')}
        </Button>,
      ]}
    >
      <Space direction="vertical" style={{ width: '100%' }} data-testid="excel-import-dialog">
        <Upload
          accept={XLSX}
          maxCount={1}
          beforeUpload={(f) => {
            if (!f.name.toLowerCase().endsWith(XLSX)) {
              message.error(t('entity.excel.onlyXlsx'));
              return Upload.LIST_IGNORE;
            }
            setFile(f);
            setResult(null);
            // Kept here and sent by the import call, not by the Upload control.
            return false;
          }}
          onRemove={() => setFile(null)}
          fileList={file ? [{ uid: '1', name: file.name, status: 'done' }] : []}
        >
          <Button icon={<UploadOutlined />} data-testid="excel-import-pick">
            {t('entity.excel.pick')}
          </Button>
        </Upload>
        <Checkbox checked={overwrite} onChange={(e) => setOverwrite(e.target.checked)} data-testid="excel-import-overwrite">
          {t('entity.excel.overwrite')}
        </Checkbox>
        {result && (
          <div data-testid="excel-import-result">
            {result.failed.length ? (
              <Alert
                type="warning"
                showIcon
                message={t('entity.excel.importPartly', { imported: result.imported, failed: result.failed.length })}
                action={
                  result.failedFile ? (
                    <Button
                      size="small"
                      icon={<DownloadOutlined />}
                      data-testid="excel-import-download-failed"
                      onClick={() =>
                        download(`${base}/import/failed/${result.failedFile}`, `${title}-${t('entity.excel.downloadFailed')}${XLSX}`).catch(() => undefined)
                      }
                    >
                      {t('entity.excel.downloadFailed')}
                    </Button>
                  ) : undefined
                }
              />
            ) : (
              <Alert type="success" showIcon message={t('entity.excel.importSuccess', { count: result.imported })} />
            )}
            {result.failed.length > 0 && (
              <Table
                size="small"
                rowKey="row"
                style={{ marginTop: 12 }}
                pagination={result.failed.length > 10 ? { pageSize: 10 } : false}
                dataSource={result.failed}
                data-testid="excel-import-failed"
                columns={[
                  { title: t('entity.excel.row'), dataIndex: 'row', width: 80 },
                  { title: t('entity.excel.reason'), dataIndex: 'reason' },
                ]}
              />
            )}
          </div>
        )}
      </Space>
    </Modal>
  );
}

export interface ExcelButtonsProps {
  view: View;
  /** The filters the list was last queried with; `excel.filter` among them scopes export and import. */
  filters: () => Record<string, unknown>;
  /** Rows were imported: the list should reload. */
  onImported: () => void;
  /** The list was answered read-only (ownedRights): no import. */
  readOnly?: boolean;
}

/** The toolbar buttons for `view.list.excel` (an empty list when the view has none or the user may not). */
export function excelButtons(props: ExcelButtonsProps): JSX.Element[] {
  return props.view.list.excel ? [<ExcelButtons key="excel" {...props} />] : [];
}

function ExcelButtons({ view, filters, onImported, readOnly }: ExcelButtonsProps) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const map = usePermissionMap();
  const [importing, setImporting] = useState<Scalar | null>(null);
  const spec = view.list.excel as ExcelSpec;
  const base = resourceBase(spec.resource);
  const title = t(`entity.${view.entity}.title`);
  const canImport = allows(map, view.permission, 'import') && !readOnly;
  const canExport = allows(map, view.permission, 'export');
  if (!canImport && !canExport) return null;

  /** The scoping value, or a message asking to choose it first. */
  const scoped = (): Scalar | undefined => {
    const v = filters()[spec.filter] as Scalar | undefined;
    if (v === undefined || v === null || v === '') {
      message.warning(t('entity.excel.chooseFirst', { field: t(fieldLabelKey(view.entity, spec.filter)) }));
      return undefined;
    }
    return v;
  };

  return (
    <Space size={8}>
      {canImport && (
        <Button
          icon={<UploadOutlined />}
          data-testid="excel-import"
          onClick={() => {
            const v = scoped();
            if (v !== undefined) setImporting(v);
          }}
        >
          {t('entity.excel.import')}
        </Button>
      )}
      {canExport && (
        <Button
          icon={<DownloadOutlined />}
          data-testid="excel-export"
          onClick={() => {
            const v = scoped();
            if (v !== undefined) download(`${base}/export`, `${title}${XLSX}`, { [spec.filter]: v }).catch(() => undefined);
          }}
        >
          {t('entity.excel.export')}
        </Button>
      )}
      {canImport && (
        <Button
          icon={<FileExcelOutlined />}
          data-testid="excel-template"
          onClick={() => download(`${base}/template`, `${title}-${t('entity.excel.template')}${XLSX}`).catch(() => undefined)}
        >
          {t('entity.excel.template')}
        </Button>
      )}
      {importing !== null && (
        <ImportDialog
          spec={spec}
          base={base}
          filterValue={importing}
          title={title}
          onClose={(imported) => {
            setImporting(null);
            if (!imported) return;
            invalidateOptions(spec.resource);
            onImported();
          }}
        />
      )}
    </Space>
  );
}

export default ExcelButtons;
