/**
 * /reportDetail?id=<examId>&from=<listKind>&model=<report|remote> (full screen, issue #8):
 * the report editor. Images on the left (resizable), the report in the middle (lock
 * and reject notices, write panel, review panel, the actions the server allows), and
 * side tabs on the right (templates, applicant form, operation record, AI and bone
 * density). The viewer has the larger share at first; the split and the viewer's panels
 * are kept as the user leaves them (src/report/layout.ts, a screen setting on the
 * server). Keys: Ctrl+S saves; Alt+N / Ctrl+PageDown the next report of the list it
 * was opened from, Alt+P / Ctrl+PageUp the previous one; the viewer's own (images and
 * series, src/viewer/keys.ts) work while typing too; the header's keys button lists
 * them. Leaving with unsaved text
 * asks first. The lock and the state live in src/report/useReportPage.
 */
import { Alert, App, Button, Empty, Flex, Result, Spin, Splitter, Tabs } from 'antd';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useNavigate, useSearchParams } from 'umi';
import { ActionBar } from '../../report/ActionBar';
import { ApplicantForm } from '../../report/ApplicantForm';
import { applyText } from '../../report/content';
import { ImagesPane } from '../../report/ImagesPane';
import { panesOf, readingLayout, REPORT_PAGE_MODULE, sharesOf, type ReadingLayout } from '../../report/layout';
import { findNeighbours, listOrigin, neighbourOf, type ListOrigin, type Neighbours } from '../../report/neighbour';
import { OperationRecord } from '../../report/OperationRecord';
import { ReportHeader } from '../../report/ReportHeader';
import { RejectReason, ReviewPanel } from '../../report/ReviewPanel';
import { TemplatePanel } from '../../report/TemplatePanel';
import { useReportPage } from '../../report/useReportPage';
import { carriesContent, needsContent } from '../../report/workflow';
import { WritePanel } from '../../report/WritePanel';
import { useUserScreenSetting } from '../../schema/useScreenSettings';
import { useTranslate } from '../../schema/useTranslate';
import { formatTime } from '../../shared/format';

export default function ReportDetailPage() {
  const { t } = useTranslate();
  const [params] = useSearchParams();
  const id = Number(params.get('id'));
  const origin = useMemo(() => listOrigin(params.get('from'), params.get('model')), [params]);
  // The user's split and panels, read once for the page (next and previous keep them).
  const screen = useUserScreenSetting(REPORT_PAGE_MODULE);
  if (!Number.isInteger(id) || id <= 0) return <Result status="warning" title={t('entity.report.detail.noReport')} />;
  if (!screen.loaded) return <Spin size="large" style={{ display: 'block', margin: '40vh auto' }} />;
  const layout = readingLayout(screen.setting?.panes);
  // A refused save was shown by the request wrapper; the page keeps the user's choice.
  const keep = (next: ReadingLayout) => void screen.save({ panes: panesOf(next) }).catch(() => undefined);
  return <ReportEditor key={id} id={id} origin={origin} layout={layout} onLayout={keep} />;
}

function ReportEditor({ id, origin, layout, onLayout }: { id: number; origin?: ListOrigin; layout: ReadingLayout; onLayout: (layout: ReadingLayout) => void }) {
  const { t } = useTranslate();
  const { message, modal } = App.useApp();
  const navigate = useNavigate();
  const page = useReportPage(id);
  const { detail, draft, dirty } = page;
  const opened = useRef<Neighbours>();

  // Where this report sits in its list, for "next" once it has left the list.
  useEffect(() => {
    if (!origin) return;
    findNeighbours(origin, id).then(
      (n) => (opened.current = n),
      () => undefined,
    );
  }, [origin, id]);

  /** Runs `go` now, or after the user agrees to drop unsaved text. */
  const leave = useCallback(
    (go: () => void) => {
      if (!dirty) return go();
      modal.confirm({ title: t('entity.report.detail.leaveUnsaved'), okButtonProps: { 'data-testid': 'report-leave-ok' } as never, onOk: go });
    },
    [dirty, modal, t],
  );

  const step = useCallback(
    async (s: 1 | -1) => {
      if (!origin) return;
      const target = await neighbourOf(origin, id, s, opened.current).catch(() => undefined);
      if (!target) {
        message.info(t(s === 1 ? 'entity.report.detail.noNext' : 'entity.report.detail.noPrev'));
        return;
      }
      const query = new URLSearchParams({ id: String(target), from: origin.kind, ...(origin.model ? { model: origin.model } : {}) });
      leave(() => navigate(`/reportDetail?${query.toString()}`));
    },
    [origin, id, leave, navigate, message, t],
  );

  const close = useCallback(() => {
    leave(() => {
      if (window.opener && !window.opener.closed) window.close();
      else if (window.history.length > 1) navigate(-1);
      else navigate(origin?.kind === 'mine' ? '/myReport' : '/report');
    });
  }, [leave, navigate, origin]);

  // Keys before anything else on the page (the viewer's own PageUp/PageDown scroll its stack).
  const keys = useRef({ save: () => undefined as unknown, step });
  keys.current = { save: () => detail?.actions.includes('save') && page.busy === undefined && page.run('save'), step };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const ctrl = e.ctrlKey || e.metaKey;
      let handled = true;
      if (ctrl && !e.altKey && e.key.toLowerCase() === 's') keys.current.save();
      else if ((e.altKey && e.code === 'KeyN') || (ctrl && e.key === 'PageDown')) void keys.current.step(1);
      else if ((e.altKey && e.code === 'KeyP') || (ctrl && e.key === 'PageUp')) void keys.current.step(-1);
      else handled = false;
      if (!handled) return;
      e.preventDefault();
      e.stopPropagation();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);

  // The browser asks before a reload or close drops unsaved text.
  useEffect(() => {
    if (!dirty) return undefined;
    const onBefore = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onBefore);
    return () => window.removeEventListener('beforeunload', onBefore);
  }, [dirty]);

  if (page.loadError) {
    return <Result status="warning" title={t('entity.page.loadFailed')} subTitle={(page.loadError as Error).message} extra={<Button onClick={close}>{t('entity.report.detail.close')}</Button>} />;
  }
  if (!detail || !draft) return <Spin size="large" style={{ display: 'block', margin: '40vh auto' }} />;

  const editable = detail.actions.some(carriesContent);
  const lockedByOther = Boolean(detail.lockState && !detail.lockMine);
  const tabs = [
    {
      key: 'templates',
      label: t('entity.report.detail.tab.templates'),
      children: (
        <TemplatePanel
          editable={editable}
          current={{ see: draft.see, diagnosis: draft.diagnosis }}
          defaultClass={detail.exam.modality}
          onApply={(tpl, mode) => {
            page.edit({ see: applyText(draft.see, tpl.see, mode), diagnosis: applyText(draft.diagnosis, tpl.diagnosis, mode) });
            message.success(t('entity.report.detail.template.applied', { name: tpl.templateName }));
          }}
        />
      ),
    },
    { key: 'applicant', label: t('entity.report.detail.tab.applicant'), children: <ApplicantForm examId={id} /> },
    { key: 'record', label: t('entity.report.detail.tab.record'), children: <OperationRecord examId={id} revision={page.revision} /> },
    { key: 'ai', label: t('entity.report.detail.tab.ai'), children: <Empty data-testid="report-ai" description={t('entity.report.detail.aiDisabled')} /> },
    { key: 'boneDensity', label: t('entity.report.detail.tab.boneDensity'), children: <Empty data-testid="report-bone-density" description={t('entity.report.detail.aiDisabled')} /> },
  ];

  return (
    <Flex vertical style={{ position: 'fixed', inset: 0, background: '#f5f5f5' }} data-testid="report-detail" data-report={id} data-version={detail.version}>
      <ReportHeader detail={detail} walk={Boolean(origin)} onStep={(s) => void step(s)} onClose={close} />
      <Splitter
        style={{ flex: 1, minHeight: 0 }}
        onResizeEnd={(sizes) => onLayout({ ...layout, sizes: sharesOf(sizes) as ReadingLayout['sizes'] })}
        onCollapse={(_collapsed, sizes) => onLayout({ ...layout, sizes: sharesOf(sizes) as ReadingLayout['sizes'] })}
      >
        <Splitter.Panel defaultSize={`${layout.sizes[0]}%`} min="15%" collapsible>
          <ImagesPane examId={id} hasImages={detail.exam.imageStatus === 1} panels={layout.panels} onPanels={(panels) => onLayout({ ...layout, panels })} />
        </Splitter.Panel>
        <Splitter.Panel defaultSize={`${layout.sizes[1]}%`} min={300}>
          <Flex vertical style={{ height: '100%', background: '#fff' }}>
            <div style={{ flex: 1, overflow: 'auto', padding: 12 }}>
              {lockedByOther && (
                <Alert
                  type="warning"
                  showIcon
                  style={{ marginBottom: 12 }}
                  data-testid="report-locked-by"
                  message={t('error.REPORT101', { name: detail.lockedByName ?? '' })}
                  description={t('entity.report.detail.readOnlyUntil', { time: formatTime(detail.lockExpiresAt ?? undefined) })}
                />
              )}
              <RejectReason detail={detail} />
              <WritePanel draft={draft} limits={page.limits} errors={page.errors} editable={editable} required={detail.actions.some(needsContent)} onEdit={page.edit} />
              <ReviewPanel detail={detail} />
            </div>
            <div style={{ padding: '8px 12px', borderTop: '1px solid #f0f0f0' }}>
              <ActionBar detail={detail} busy={page.busy} run={page.run} onPrinted={() => void page.load(false, true)} />
            </div>
          </Flex>
        </Splitter.Panel>
        <Splitter.Panel defaultSize={`${layout.sizes[2]}%`} min={220} collapsible>
          <Tabs items={tabs} size="small" style={{ height: '100%', background: '#fff', padding: '0 12px' }} data-testid="report-side" />
        </Splitter.Panel>
      </Splitter>
    </Flex>
  );
}
