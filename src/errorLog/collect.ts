/**
 * Browser glue for the error list: window.onerror, unhandledrejection and the error
 * boundary all end in recordError(). Rejections of server calls (RequestError) are
 * not script errors: the reply handler already dealt with them.
 */
import { RequestError } from '../services/request';
import { appendErrorLog, toEntry } from './store';

export function recordError(reason: unknown): void {
  if (reason instanceof RequestError) return;
  try {
    appendErrorLog(localStorage, toEntry(reason, window.location.href));
  } catch {
    // Never let error collection raise errors of its own.
  }
}

let installed = false;

export function installErrorCollection(): void {
  if (installed || typeof window === 'undefined') return;
  installed = true;
  window.addEventListener('error', (event) => {
    if (!event.error && !event.message) return;
    recordError(event.error ?? event.message);
  });
  window.addEventListener('unhandledrejection', (event) => recordError(event.reason));
}
