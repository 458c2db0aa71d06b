/**
 * Printing reports (dialog registry name "ReportPrint"; the report detail page opens
 * it too, and may show ReportPrintPreview inline). For one report (`row`) or several
 * (`rows`: the print list's ticked ones) it fetches each report's sheet (GET
 * /api/report/v1/print/layout/:id), shows the A4 sheets, says why a report cannot
 * print (its hospital has no layout, it is not approved, no right), and Print prints
 * the printable ones with the browser's print (the print CSS keeps only the sheets,
 * one per page), then tells the server so print state and count move: the workflow
 * action `print` for one (its version, a key against a double click), batchPrint for
 * several. `props.preview`: a preview only, without the Print button.
 */
import { PrinterOutlined } from '@ant-design/icons';
import { Alert, App, Button, Empty, Modal, Space, Spin, Tag } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ActionDialogProps } from '../../schema/dialogs';
import type { Translate } from '../../shared/schema/types';
import { useBusy } from '../../schema/useBusy';
import { useTranslate } from '../../schema/useTranslate';
import { RequestError } from '../../services/request';
import { getPrintLayoutById, postReportBatchPrint, postReportPrintById } from '../../services/generated/report';
import { PrintRoot, ReportSheet, SheetDesk } from './ReportSheet';
import { sheetModel, type PrintSheet } from '../../shared/printSheet';


interface Entry {
  id: number;
  sheet?: PrintSheet;
  /** Why there is no sheet (the server's words: no layout, no such report, no right). */
  error?: string;
}

/** Each report's sheet, fetched quietly: a report that cannot show says so in the dialog rather than in a toast. */
export function useSheets(ids: number[]): { loading: boolean; entries: Entry[] } {
  const [state, setState] = useState<{ loading: boolean; entries: Entry[] }>({ loading: true, entries: [] });
  const key = ids.join(',');
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    Promise.all(
      ids.map((id) =>
        getPrintLayoutById(id, { quiet: true }).then(
          (sheet): Entry => ({ id, sheet }),
          (e: unknown): Entry => ({ id, error: e instanceof RequestError ? e.message : String(e) }),
        ),
      ),
    ).then((entries) => live && setState({ loading: false, entries }));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return state;
}

const modelOf = (sheet: PrintSheet, t: Translate) => sheetModel({ ...sheet, hospitalName: sheet.report.hospitalName }, t);

/** Why a report that has a sheet does not print: not approved, or not the caller's to print. */
function cannotPrint(sheet: PrintSheet, t: Translate): string | undefined {
  if (sheet.report.canPrint) return undefined;
  return t(sheet.report.reportState === 4 ? 'entity.report.print.notAllowed' : 'entity.report.print.notApproved');
}

/** One report's sheet inline (the detail page's preview pane). */
export function ReportPrintPreview({ id, zoom }: { id: number; zoom?: number }) {
  const { t } = useTranslate();
  const { loading, entries } = useSheets([id]);
  const entry = entries[0];
  return (
    <Spin spinning={loading}>
      {entry?.error && <Alert type="warning" showIcon message={entry.error} data-testid="print-problem" />}
      {entry?.sheet && (
        <SheetDesk>
          <ReportSheet model={modelOf(entry.sheet, t)} zoom={zoom} />
        </SheetDesk>
      )}
    </Spin>
  );
}

/** Something short that names a listed report when its sheet could not be fetched. */
function rowLabel(row: Record<string, unknown> | undefined): string {
  return [row?.examCode, row?.hisPatientName].filter((v) => v !== undefined && v !== null && v !== '').join(' ');
}

export default function PrintDialog({ row, rows, title, props, onClose }: ActionDialogProps) {
  const { t } = useTranslate();
  const { message, modal } = App.useApp();
  const preview = props.preview === true;
  const batch = Boolean(rows?.length);
  const listed = useMemo(() => (rows?.length ? rows : row ? [row] : []), [row, rows]);
  const ids = useMemo(() => listed.map((r) => Number(r.id)).filter((id) => Number.isInteger(id) && id > 0), [listed]);
  const { loading, entries } = useSheets(ids);
  const printable = entries.filter((e) => e.sheet?.report.canPrint);
  // One key per dialog: a second click sent before the first answered is not a second print.
  const requestKey = useRef(`print-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`);

  const [onPrint, printing] = useBusy(async () => {
    window.print();
    if (batch) {
      const r = await postReportBatchPrint({ ids: printable.map((e) => e.id) });
      if (r.printed.length) message.success(t('entity.report.print.done', { count: r.printed.length }));
      if (r.refused.length) {
        modal.warning({ title: t('entity.report.print.refused', { count: r.refused.length, reasons: [...new Set(r.refused.map((x) => x.message))].join(' / ') }) });
      }
    } else {
      const e = printable[0];
      await postReportPrintById(e.id, { version: e.sheet!.report.version }, { headers: { 'Idempotency-Key': requestKey.current } });
      message.success(t('entity.report.print.done', { count: 1 }));
    }
    onClose(true);
  });

  const problems = entries.flatMap((e) => {
    const label = rowLabel(listed.find((r) => Number(r.id) === e.id));
    const text = e.error ?? (preview || !e.sheet ? undefined : cannotPrint(e.sheet, t));
    return text ? [{ id: e.id, text: label ? `${t('entity.printLayout.cellLabel', { label })}${text}` : text }] : [];
  });

  return (
    <>
      <Modal
        open
        title={title}
        width={900}
        onCancel={() => onClose(false)}
        destroyOnClose
        maskClosable={false}
        footer={
          <Space>
            {batch && !loading && <span data-testid="print-count">{t('entity.report.print.printable', { count: printable.length })}</span>}
            <Button onClick={() => onClose(false)}>{t(preview ? 'entity.action.close' : 'common.cancel')}</Button>
            {!preview && (
              <Button type="primary" icon={<PrinterOutlined />} disabled={loading || !printable.length} loading={printing} onClick={onPrint} data-testid="print-submit">
                {t('entity.report.action.print')}
              </Button>
            )}
          </Space>
        }
      >
        <div data-testid="print-dialog">
          <Spin spinning={loading}>
            {!ids.length && <Empty description={t('entity.report.print.none')} />}
            {problems.map((p) => (
              <Alert key={p.id} type="warning" showIcon message={p.text} style={{ marginBottom: 8 }} data-testid="print-problem" />
            ))}
            {entries.some((e) => e.sheet) && (
              <SheetDesk>
                {entries.map(
                  (e) =>
                    e.sheet && (
                      <div key={e.id}>
                        {e.sheet.report.printNumber > 0 && (
                          <Tag color="orange" style={{ marginBottom: 8 }} data-testid="print-number">
                            {t('entity.report.print.printCount', { count: e.sheet.report.printNumber })}
                          </Tag>
                        )}
                        <ReportSheet model={modelOf(e.sheet, t)} />
                      </div>
                    ),
                )}
              </SheetDesk>
            )}
          </Spin>
        </div>
      </Modal>
      {!preview && printable.length > 0 && (
        <PrintRoot>
          {printable.map((e) => (
            <ReportSheet key={e.id} model={modelOf(e.sheet!, t)} testId="print-sheet" />
          ))}
        </PrintRoot>
      )}
    </>
  );
}
