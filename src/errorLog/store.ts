/**
 * The client's error list (spec section 8: "Script errors go to an error list"):
 * a capped list in localStorage, newest first. Storage is injected so it runs in node.
 */
export interface ErrorLogEntry {
  /** ISO 8601. */
  time: string;
  message: string;
  stack?: string;
  url: string;
}

export const ERROR_LOG_KEY = 'rcloud-error-log';
export const ERROR_LOG_CAP = 100;

type Store = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export function readErrorLog(storage: Store): ErrorLogEntry[] {
  try {
    const parsed = JSON.parse(storage.getItem(ERROR_LOG_KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

export function appendErrorLog(storage: Store, entry: ErrorLogEntry, cap = ERROR_LOG_CAP): ErrorLogEntry[] {
  const list = [entry, ...readErrorLog(storage)].slice(0, cap);
  try {
    storage.setItem(ERROR_LOG_KEY, JSON.stringify(list));
  } catch {
    // Quota exceeded: keep the newest half rather than lose the new entry.
    storage.setItem(ERROR_LOG_KEY, JSON.stringify(list.slice(0, Math.ceil(cap / 2))));
  }
  return list;
}

export function clearErrorLog(storage: Store): void {
  storage.removeItem(ERROR_LOG_KEY);
}

/** An entry from whatever was thrown or rejected. */
export function toEntry(reason: unknown, url: string, now: Date = new Date()): ErrorLogEntry {
  const err = reason as { message?: unknown; stack?: unknown } | null | undefined;
  const message =
    typeof err?.message === 'string' && err.message ? err.message : typeof reason === 'string' ? reason : safeString(reason);
  return { time: now.toISOString(), message, stack: typeof err?.stack === 'string' ? err.stack : undefined, url };
}

function safeString(value: unknown): string {
  try {
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  } catch {
    return String(value);
  }
}
