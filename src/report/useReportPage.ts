/**
 * The state of one report on the detail page: its detail as the server last answered
 * (version, lock, allowed actions), the text being edited and its field messages, and
 * `run`, which sends one workflow action with the version the page holds and the
 * content when the action carries it. Opening the report takes its lock when the
 * server offers `lock`. Refusals are worded here: a stale version (REPORT103) offers a
 * reload and never overwrites; a printed report's recall (REPORT011) asks again and
 * resends with the confirmation; a field refused by the server (UAA421) is marked.
 */
import { App } from 'antd';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { errorCatalogue } from '../../config/errors';
import { NETWORK_ERROR, RequestError } from '../services/request';
import { useTranslate } from '../schema/useTranslate';
import type { ReportAction } from '../shared/generated/entities/reportAction';
import { performAction, reportDetail, type ReportDetail } from './api';
import { contentBody, draftOf, draftProblems, sameDraft, type Draft, type DraftField, type Problem } from './content';
import { useReportLock } from './useReportLock';
import { carriesContent, contentLimits, needsContent, versioned } from './workflow';

/** The server names a refused field by its report name; the panel's field for it. */
const SERVER_FIELD: Record<string, DraftField> = { see: 'see', diagnosis: 'diagnosis', remark: 'remark', crisisValue: 'description', 'crisisValue.description': 'description', 'crisisValue.recorder': 'recorder' };

/** Label keys of the panel's fields (entities/report.json). */
export const FIELD_LABEL: Record<DraftField, string> = {
  see: 'entity.report.field.see',
  diagnosis: 'entity.report.field.diagnosis',
  remark: 'entity.report.field.remark',
  recorder: 'entity.report.field.crisisValue.recorder',
  description: 'entity.report.field.crisisValue.description',
};

export type FieldErrors = Partial<Record<DraftField, string>>;

export function useReportPage(id: number) {
  const { t } = useTranslate();
  const { message, modal } = App.useApp();
  const limits = useMemo(() => contentLimits(), []);
  const [detail, setDetail] = useState<ReportDetail>();
  const [loadError, setLoadError] = useState<unknown>();
  const [draft, setDraft] = useState<Draft>();
  const [stored, setStored] = useState<Draft>();
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState<string>();
  /** Grows with every answer: panels that list what happened (the operation record) read again. */
  const [revision, setRevision] = useState(0);
  const dirty = Boolean(draft && stored && !sameDraft(draft, stored));
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;

  /** Takes the server's answer; the text being edited is kept when asked (someone else's change must not wipe it unseen). */
  const accept = useCallback((d: ReportDetail, keepDraft = false) => {
    const fresh = draftOf(d);
    setDetail(d);
    setStored(fresh);
    if (!keepDraft) {
      setDraft(fresh);
      setErrors({});
    }
    setRevision((r) => r + 1);
  }, []);

  /** Reads the report; `open`: take its lock when the server offers it (opening it to write or review). */
  const load = useCallback(
    async (open: boolean, keepDraft = false) => {
      const d = await reportDetail(id);
      if (open && d.actions.includes('lock')) {
        try {
          accept(await performAction('lock', id, {}), keepDraft);
          return;
        } catch {
          // Taken by someone between the two calls: shown as it is now.
          accept(await reportDetail(id), keepDraft);
          return;
        }
      }
      accept(d, keepDraft);
    },
    [id, accept],
  );

  useEffect(() => {
    setDetail(undefined);
    setDraft(undefined);
    setLoadError(undefined);
    load(true).catch((e: unknown) => setLoadError(e));
  }, [load]);

  useReportLock(id, detail, {
    onLost: () => {
      message.warning(t('entity.report.detail.lockLost'));
      void load(false, dirtyRef.current).catch(() => undefined);
    },
    onFreed: () => void load(true, dirtyRef.current).catch(() => undefined),
  });

  const problemText = useCallback(
    (p: Problem) => t(`validation.${p.key}`, { field: t(FIELD_LABEL[p.field]), limit: p.limit }),
    [t],
  );

  /** Says why the server refused, unless the request wrapper's handling (a re-login, a reload) already did. */
  const tell = useCallback(
    (e: unknown) => {
      if (!(e instanceof RequestError)) return;
      if (e.code === NETWORK_ERROR) message.error(t('error.network'));
      else if ((errorCatalogue.codes[e.code]?.handling ?? 'message') === 'message') message.error(e.message);
    },
    [message, t],
  );

  const run = useCallback(
    async (name: string, extra: Partial<ReportAction> = {}): Promise<boolean> => {
      if (!detail) return false;
      let body: ReportAction = { ...extra };
      if (versioned(name)) body.version = detail.version;
      if (carriesContent(name) && draft) {
        const problems = draftProblems(draft, limits, needsContent(name));
        if (problems.length) {
          setErrors(Object.fromEntries(problems.map((p) => [p.field, problemText(p)])));
          message.error(problemText(problems[0]));
          return false;
        }
        body = { ...body, ...contentBody(draft) };
      }
      setBusy(name);
      try {
        accept(await performAction(name, id, body));
        message.success(t('entity.report.detail.done', { action: t(`entity.report.action.${name}`) }));
        // Unlocked to work on it: opened as if the lock had never been there.
        if (name === 'unlock') await load(true, true).catch(() => undefined);
        return true;
      } catch (e) {
        if (!(e instanceof RequestError)) throw e;
        if (e.code === 'REPORT103') {
          // Someone changed it meanwhile: nothing was written; the user decides when to read theirs.
          modal.confirm({
            title: t('entity.report.detail.staleTitle'),
            content: e.message,
            okText: t('common.reload'),
            cancelText: t('common.cancel'),
            okButtonProps: { 'data-testid': 'report-stale-reload' } as never,
            onOk: () => load(false),
          });
        } else if (e.code === 'REPORT011') {
          return await new Promise<boolean>((resolve) => {
            modal.confirm({
              title: t(`entity.report.action.${name}`),
              content: e.message,
              okButtonProps: { 'data-testid': 'report-confirm-printed' } as never,
              onOk: async () => resolve(await run(name, { ...extra, confirm: true })),
              onCancel: () => resolve(false),
            });
          });
        } else if (e.code === 'UAA421') {
          const reported = (e.data as { field?: string; detail?: string } | undefined) ?? {};
          const field = reported.field ? SERVER_FIELD[reported.field] : undefined;
          if (field) setErrors((prev) => ({ ...prev, [field]: reported.detail || e.message }));
          message.error(e.message);
        } else {
          tell(e);
          // Locked by someone else meanwhile: show who, keeping the text.
          if (e.code === 'REPORT101') await load(false, true).catch(() => undefined);
        }
        return false;
      } finally {
        setBusy(undefined);
      }
    },
    [detail, draft, id, limits, accept, load, message, modal, problemText, t, tell],
  );

  const edit = useCallback((patch: Partial<Draft>) => {
    setDraft((d) => (d ? { ...d, ...patch } : d));
    setErrors((prev) => {
      const next = { ...prev };
      for (const k of Object.keys(patch)) delete next[k as DraftField];
      return next;
    });
  }, []);

  return { detail, loadError, draft, dirty, errors, busy, revision, limits, load, run, edit };
}

export type ReportPage = ReturnType<typeof useReportPage>;
