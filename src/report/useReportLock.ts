/**
 * The report lock seen from the detail page (issue #8 "Concurrency"): while the page
 * holds it, it renews it every third of the workflow's lockSeconds when the page is
 * visible (and at once when it becomes visible again), and frees it when the page is
 * left, closed or reloaded; while someone else holds it, it asks the lock state now
 * and then and says when it is free. A renewal the server refuses (unlocked by a user
 * with the right, or lapsed and taken over) is reported as lost; the page reloads.
 */
import { useEffect, useRef } from 'react';
import { lockState, performAction, releaseOnLeave, type ReportDetail } from './api';
import { WORKFLOW } from './workflow';

/** Renew well before the lock lapses (120 s: every 40 s). */
export const RENEW_MS = (WORKFLOW.lockSeconds * 1000) / 3;
/** How often a page kept out looks whether the lock is free again. */
export const FREE_POLL_MS = 10_000;

export interface LockEvents {
  /** The server refused to renew the caller's lock. */
  onLost(): void;
  /** The lock someone else held is gone. */
  onFreed(): void;
}

const visible = () => typeof document === 'undefined' || document.visibilityState === 'visible';

export function useReportLock(id: number, detail: ReportDetail | undefined, events: LockEvents): void {
  const held = Boolean(detail?.lockMine);
  const lockedByOther = Boolean(detail?.lockState && !detail.lockMine);
  const handlers = useRef(events);
  handlers.current = events;
  const holding = useRef(false);
  holding.current = held;

  // The heartbeat while held.
  useEffect(() => {
    if (!held) return undefined;
    let live = true;
    const renew = () => {
      if (!visible()) return;
      performAction('renew', id, {}).catch(() => {
        if (live && holding.current) handlers.current.onLost();
      });
    };
    const timer = window.setInterval(renew, RENEW_MS);
    const onVisible = () => visible() && renew();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      live = false;
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [id, held]);

  // Waiting for another user's lock to go.
  useEffect(() => {
    if (!lockedByOther) return undefined;
    let live = true;
    const look = () => {
      if (!visible()) return;
      lockState(id).then(
        (s) => live && !s.lockState && handlers.current.onFreed(),
        () => undefined,
      );
    };
    const timer = window.setInterval(look, FREE_POLL_MS);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [id, lockedByOther]);

  // Freed when the page goes away: another report (id changes), another route, or the tab closing or reloading.
  useEffect(() => {
    const leave = () => {
      if (!holding.current) return;
      holding.current = false;
      releaseOnLeave(id);
    };
    window.addEventListener('pagehide', leave);
    return () => {
      window.removeEventListener('pagehide', leave);
      leave();
    };
  }, [id]);
}
