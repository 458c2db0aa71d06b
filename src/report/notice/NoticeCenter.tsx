/**
 * The notification pop-ups (spec section 4, "Notification cycle"), mounted once from
 * the app root (src/components/AppRoot.tsx). While a user is signed in with
 * examNotice.noticeOpen, the counts of each module of modelList are polled (./poller)
 * and the ones the user may act on (./counts) shown at the top left for `duration`
 * seconds; a click opens the module's page and closes the pop-up. The remote pop-up
 * loops an alert (./sound) while unwritten reports wait, until it is closed or
 * clicked. Polling, pop-ups and sound end with the session and restart when the
 * setting, the hospital or the rights change.
 */
import { App, Typography } from 'antd';
import type { MouseEvent } from 'react';
import { useEffect, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { history } from 'umi';
import { findRoute } from '../../routes/table';
import type { PermissionMap } from '../../session/access';
import { useSession } from '../../session/store';
import { fetchNotice, type ExamNotice } from './api';
import { MODEL_DELAY_MS, MODEL_PAGE, noticeLines, noticeModels, type NoticeCounts, type NoticeLine, type NoticeModel } from './counts';
import { startPoller } from './poller';
import { rememberShown, shownRecently } from './shown';
import { startAlert } from './sound';

const MINUTE_MS = 60_000;
/** Where a critical-value line leads (config/routes.json). */
const CRISIS_PAGE = '/crisisValue';

const noticeKey = (model: NoticeModel) => `notice-${model}`;

function NoticeTitle({ model }: { model: NoticeModel }) {
  const { t } = useTranslation();
  return <span data-testid={`notice-${model}-title`}>{t(`entity.notice.title.${model}`)}</span>;
}

function NoticeBody({ model, lines, alerting, onOpen }: { model: NoticeModel; lines: NoticeLine[]; alerting: boolean; onOpen(path: string): void }) {
  const { t } = useTranslation();
  const openCrisis = (e: MouseEvent) => {
    // The critical values have their own list; the rest of the pop-up opens the module's page.
    e.stopPropagation();
    onOpen(CRISIS_PAGE);
  };
  return (
    <div data-testid={`notice-${model}`} data-alert={alerting ? 'on' : 'off'}>
      {lines.map((l) => (
        <div key={l.kind} data-testid={`notice-${model}-${l.kind}`} onClick={l.kind === 'crisis' ? openCrisis : undefined}>
          <Typography.Text type={l.kind === 'crisis' && l.count > 0 ? 'danger' : undefined}>
            {t(`entity.notice.count.${l.kind}`)}: <strong data-testid={`notice-${model}-${l.kind}-count`}>{l.count}</strong>
          </Typography.Text>
        </div>
      ))}
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('entity.notice.open')}
      </Typography.Text>
    </div>
  );
}

interface Cycle {
  models: NoticeModel[];
  intervalMinutes: number;
  durationSeconds: number;
  sound: boolean;
  audioUrl: string;
  map: PermissionMap;
}

/** What the cycle depends on, as one string: the effect restarts only when it changes. */
function useCycle(): string {
  const { user } = useSession();
  const notice = user?.setting?.examNotice as ExamNotice | undefined;
  if (!user || !notice?.noticeOpen) return '';
  const models = noticeModels(notice.modelList, user.permissionMap);
  if (!models.length) return '';
  const cycle: Cycle & { user: unknown; hospital: unknown } = {
    user: user.userId,
    hospital: user.hospitalId,
    models,
    // The server's defaults fill these; the fallbacks only cover a user info without them.
    intervalMinutes: notice.interval ?? 5,
    durationSeconds: notice.duration ?? 10,
    sound: notice.sound !== false,
    audioUrl: notice.audioUrl ?? '',
    map: user.permissionMap,
  };
  return JSON.stringify(cycle);
}

/**
 * A route declared `quiet` shows no pop-ups: the wall screen's cockpit (no one there acts on
 * them), the viewer (a window of its own beside the main one, whose series panel a pop-up
 * at the top left would cover and whose alert would loop a second time) and the video
 * room and its replay (the alert would go into the call). The main window keeps them.
 */
function useQuietRoute(): boolean {
  return useSyncExternalStore(
    (listener) => history.listen(listener),
    () => findRoute(history.location.pathname)?.quiet === true,
  );
}

export function NoticeCenter() {
  const { notification } = App.useApp();
  const cycle = useCycle();
  const quiet = useQuietRoute();

  useEffect(() => {
    if (!cycle || quiet) return undefined;
    const { models, intervalMinutes, durationSeconds, sound, audioUrl, map } = JSON.parse(cycle) as Cycle;
    const alerts = new Map<NoticeModel, () => void>();
    const silence = (model: NoticeModel) => {
      alerts.get(model)?.();
      alerts.delete(model);
    };
    const close = (model: NoticeModel) => {
      silence(model);
      notification.destroy(noticeKey(model));
    };
    const open = (model: NoticeModel, path: string) => {
      close(model);
      history.push(path);
    };

    const show = (model: NoticeModel, counts: NoticeCounts) => {
      const lines = noticeLines(model, counts, map);
      if (!lines.length) {
        close(model);
        return;
      }
      // A reload within the interval does not pop the same counts up again (./shown).
      if (shownRecently(sessionStorage, model, cycle, counts, Date.now(), intervalMinutes * MINUTE_MS)) return;
      rememberShown(sessionStorage, model, cycle, counts, Date.now());
      const unwritten = lines.find((l) => l.kind === 'unwritten')?.count ?? 0;
      const alerting = model === 'remote' && sound && unwritten > 0;
      if (!alerting) silence(model);
      else if (!alerts.has(model)) alerts.set(model, startAlert(audioUrl || undefined));
      notification.open({
        key: noticeKey(model),
        placement: 'topLeft',
        duration: durationSeconds,
        message: <NoticeTitle model={model} />,
        description: <NoticeBody model={model} lines={lines} alerting={alerting} onOpen={(path) => open(model, path)} />,
        // A pop-up of critical values alone (a clinician's) opens their list, not the module's.
        onClick: () => open(model, lines.every((l) => l.kind === 'crisis') ? CRISIS_PAGE : MODEL_PAGE[model]),
        onClose: () => silence(model),
        style: { cursor: 'pointer' },
      });
    };

    const poller = startPoller({
      targets: models.map((key) => ({ key, delayMs: MODEL_DELAY_MS[key] })),
      intervalMs: intervalMinutes * MINUTE_MS,
      poll: fetchNotice,
      onResult: show,
      isHidden: () => document.visibilityState === 'hidden',
    });
    const onVisibility = () => poller.visibilityChanged();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      poller.stop();
      for (const model of models) close(model);
    };
  }, [cycle, quiet, notification]);

  return null;
}

export default NoticeCenter;
