/**
 * The one way the client calls the server (spec sections 7 and 8).
 *
 * Split in two so the rules are testable in node:
 * - pure: buildHeaders / buildUrl / handleReply decide headers and what a reply means,
 *   driven by config/app.json and config/errors.json (`handling` per code);
 * - effects: the `ui` object (toast, modal, reload, token) is injected. The browser one
 *   lives in ./requestUi.ts and is installed by the app root with setRequestUi().
 * This module must not import antd, React or touch `window` at import time.
 */
import app from '../../config/app.json';
import { errorCatalogue as defaultCatalogue, errorTextKey, type ErrorCatalogue, type Handling } from '../../config/errors';

export { errorTextKey };
export type { ErrorCatalogue, Handling };

/** Codes for failures that carry no server status. */
export const NO_STATUS = 'NO_STATUS';
export const NETWORK_ERROR = 'NETWORK';
export const ABORTED = 'ABORTED';

/** What every rejected call carries. `data` is the parsed reply body, if any. */
export class RequestError extends Error {
  readonly code: string;
  readonly httpStatus: number;
  readonly data: unknown;
  readonly requestId?: string;

  constructor(init: { code: string; httpStatus: number; message: string; data?: unknown; requestId?: string }) {
    super(init.message);
    this.name = 'RequestError';
    this.code = init.code;
    this.httpStatus = init.httpStatus;
    this.data = init.data;
    this.requestId = init.requestId;
  }
}

/** The side effects a reply may cause. */
export interface ReplyUi {
  /** Red toast for `seconds`. */
  error(text: string, seconds: number): void;
  /** Modal with one confirm button. */
  confirm(title: string, content: string, onOk: () => void): void;
  reload(delayMs: number): void;
  clearToken(): void;
  /** Text for a key; `fallback` (or the key) when no language has it. */
  t(key: string, fallback?: string): string;
  /**
   * Told of every failure that carries a status, after the handling above. The session
   * layer uses it to end a session the server no longer accepts (src/session/store.ts).
   */
  onFailure?(error: RequestError): void;
}

export interface Reply {
  httpStatus: number;
  /** Raw text (parsed here) or an already parsed value. */
  body: unknown;
}

export interface HandleOptions {
  catalogue?: ErrorCatalogue;
  errorToastSeconds?: number;
  reloadAfterNoAccessMs?: number;
}

function parseBody(body: unknown): { empty: boolean; value: unknown; json: boolean } {
  if (body === undefined || body === null) return { empty: true, value: undefined, json: false };
  if (typeof body !== 'string') return { empty: false, value: body, json: true };
  if (body.trim() === '') return { empty: true, value: undefined, json: false };
  try {
    return { empty: false, value: JSON.parse(body), json: true };
  } catch {
    return { empty: false, value: body, json: false };
  }
}

function statusOf(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const s = (value as { status?: unknown }).status;
  if (typeof s === 'string' && s !== '') return s;
  if (typeof s === 'number') return String(s);
  return undefined;
}

/**
 * A catalogue text with placeholders ("Invalid parameters: {{detail}}") needs values
 * only the server had; its message, already in the request's language, says it whole.
 */
function localText(text: string, serverMessage: string): string {
  return serverMessage && /\{\{\w+\}\}/.test(text) ? serverMessage : text;
}

/**
 * Turns a reply into data (returned) or a RequestError (thrown), causing the UI effects
 * of spec section 8 through `ui`. Pure apart from what it calls on `ui`.
 */
export function handleReply(reply: Reply, ui: ReplyUi, options: HandleOptions = {}): unknown {
  const catalogue = options.catalogue ?? defaultCatalogue;
  const seconds = options.errorToastSeconds ?? app.errorToastSeconds;
  const reloadMs = options.reloadAfterNoAccessMs ?? app.reloadAfterNoAccessMs;
  const { httpStatus } = reply;
  const parsed = parseBody(reply.body);
  const ok = httpStatus >= 200 && httpStatus < 300;

  if (parsed.empty) {
    if (ok) return undefined;
    throw new RequestError({ code: NO_STATUS, httpStatus, message: `HTTP ${httpStatus}` });
  }
  const status = parsed.json ? statusOf(parsed.value) : undefined;
  if (status === undefined) {
    // Non-JSON or no status: rejected without a message (spec: "No status: rejected").
    throw new RequestError({ code: NO_STATUS, httpStatus, message: `HTTP ${httpStatus}`, data: parsed.value });
  }
  const envelope = parsed.value as { data?: unknown; message?: unknown; requestId?: unknown };
  if (status === '0') return envelope.data;

  const serverMessage = typeof envelope.message === 'string' ? envelope.message : '';
  const requestId = typeof envelope.requestId === 'string' ? envelope.requestId : undefined;
  const handling: Handling = catalogue.codes[status]?.handling ?? 'message';
  const text = localText(ui.t(errorTextKey(status, catalogue), serverMessage || ui.t('error.common')), serverMessage);
  const error = new RequestError({ code: status, httpStatus, message: text, data: parsed.value, requestId });

  switch (handling) {
    case 'silent':
      break;
    case 'reload':
      ui.error(text, seconds);
      ui.reload(reloadMs);
      break;
    case 'relogin':
      ui.confirm(ui.t('error.loginTimeout'), ui.t('error.loginTimeoutContent'), () => {
        ui.clearToken();
        ui.reload(0);
      });
      break;
    case 'common':
      ui.error(ui.t('error.common'), seconds);
      break;
    case 'message':
    default:
      ui.error(text, seconds);
      break;
  }
  ui.onFailure?.(error);
  throw error;
}

/** Only these three storage reads matter to the wrapper. */
export type TokenStorage = Pick<Storage, 'getItem'>;

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  query?: Record<string, QueryValue | QueryValue[]>;
  /** JSON body. */
  body?: unknown;
  /** Form-encoded body (application/x-www-form-urlencoded). */
  form?: Record<string, QueryValue>;
  /** Raw bytes as the body (application/octet-stream): a file or a chunk of one. */
  raw?: Blob;
  headers?: Record<string, string>;
  /** Send Remember-Me (the login call; also implied by the login path). */
  rememberMe?: boolean;
  /** Send neither X-App-Id nor X-Auth-Token (spec: one sickness-list call). */
  skipAppHeaders?: boolean;
  /**
   * No error toast: the caller shows the failure itself (login and password forms, next
   * to the field). Modals, reloads and the session hook still happen.
   */
  quiet?: boolean;
  /**
   * "blob": a successful reply is the body as it came (a picture the API serves with
   * the same headers as every call); a failure is still the envelope, handled as usual.
   */
  responseType?: 'json' | 'blob';
  signal?: AbortSignal;
}

export const LOGIN_PATH = '/api/uaa/v1/login';

export function isLoginCall(path: string, options: RequestOptions): boolean {
  if (options.rememberMe) return true;
  const pathname = path.replace(/^[a-z]+:\/\/[^/]+/i, '').split(/[?#]/)[0];
  return pathname === LOGIN_PATH;
}

export function buildHeaders(path: string, options: RequestOptions, storage: TokenStorage | undefined): Record<string, string> {
  const headers: Record<string, string> = { Accept: options.responseType === 'blob' ? '*/*' : 'application/json' };
  if (options.form) headers['Content-Type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
  else if (options.raw) headers['Content-Type'] = 'application/octet-stream';
  else if (options.body !== undefined) headers['Content-Type'] = 'application/json;charset=UTF-8';
  if (!options.skipAppHeaders) {
    headers['X-App-Id'] = app.clientAppId;
    const token = storage?.getItem(app.tokenStorageKey);
    if (token) headers['X-Auth-Token'] = token;
    if (isLoginCall(path, options)) {
      const remember = storage?.getItem(app.rememberMeStorageKey);
      if (remember !== null && remember !== undefined) headers['Remember-Me'] = remember;
    }
  }
  return { ...headers, ...options.headers };
}

export function encodeForm(form: Record<string, QueryValue>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (v !== undefined && v !== null) params.append(k, String(v));
  return params.toString();
}

export function buildUrl(base: string, path: string, query?: RequestOptions['query']): string {
  const absolute = /^[a-z]+:\/\//i.test(path);
  let url = absolute ? path : `${base.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
  if (query) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      for (const item of Array.isArray(v) ? v : [v]) if (item !== undefined && item !== null) params.append(k, String(item));
    }
    const qs = params.toString();
    if (qs) url += (url.includes('?') ? '&' : '?') + qs;
  }
  return url;
}

export interface FetchedReply {
  status: number;
  text(): Promise<string>;
  /** Needed only for responseType "blob". */
  blob?(): Promise<Blob>;
}

export interface RequestDeps {
  fetch: (url: string, init: RequestInit) => Promise<FetchedReply>;
  ui: () => ReplyUi;
  storage: () => TokenStorage | undefined;
  baseUrl: () => string;
}

export type RequestFn = <T = unknown>(path: string, options?: RequestOptions) => Promise<T>;

function quietUi(ui: ReplyUi): ReplyUi {
  return { ...ui, error: () => undefined };
}

export function createRequest(deps: RequestDeps): RequestFn {
  const uiFor = (options: RequestOptions) => (options.quiet ? quietUi(deps.ui()) : deps.ui());
  return async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const method = options.method ?? (options.body !== undefined || options.form || options.raw ? 'POST' : 'GET');
    const init: RequestInit = {
      method,
      headers: buildHeaders(path, options, deps.storage()),
      credentials: 'same-origin',
      signal: options.signal,
    };
    if (options.form) init.body = encodeForm(options.form);
    else if (options.raw) init.body = options.raw;
    else if (options.body !== undefined) init.body = JSON.stringify(options.body);

    let response: FetchedReply;
    let text: string;
    try {
      response = await deps.fetch(buildUrl(deps.baseUrl(), path, options.query), init);
      const ok = response.status >= 200 && response.status < 300;
      if (ok && options.responseType === 'blob' && response.blob) return (await response.blob()) as T;
      text = await response.text();
    } catch (e) {
      const aborted = (e as { name?: string })?.name === 'AbortError';
      if (!aborted) {
        const ui = uiFor(options);
        ui.error(ui.t('error.network'), app.errorToastSeconds);
      }
      throw new RequestError({
        code: aborted ? ABORTED : NETWORK_ERROR,
        httpStatus: 0,
        message: (e as Error)?.message ?? String(e),
      });
    }
    return handleReply({ httpStatus: response.status, body: text }, uiFor(options)) as T;
  };
}

/** Reply effects used until the app root installs the antd-based ones. */
const consoleUi: ReplyUi = {
  error: (text) => console.error(text),
  confirm: (title, content, onOk) => {
    console.warn(title, content);
    onOk();
  },
  reload: (delayMs) => {
    if (typeof window !== 'undefined') setTimeout(() => window.location.reload(), delayMs);
  },
  clearToken: () => {
    if (typeof localStorage !== 'undefined') localStorage.removeItem(app.tokenStorageKey);
  },
  t: (key, fallback) => fallback ?? key,
};

let currentUi: ReplyUi = consoleUi;

export function setRequestUi(ui: ReplyUi): void {
  currentUi = ui;
}

/** Build-time API_BASE (see .umirc.ts `define`), else the page origin. */
export function apiBase(): string {
  const configured = process.env.API_BASE;
  if (configured) return configured;
  return typeof window !== 'undefined' ? window.location.origin : '';
}

export const request: RequestFn = createRequest({
  fetch: (url, init) => fetch(url, init),
  ui: () => currentUi,
  storage: () => (typeof localStorage !== 'undefined' ? localStorage : undefined),
  baseUrl: apiBase,
});

export default request;
