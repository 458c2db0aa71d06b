/**
 * The client of the file service (/api/file/v1): a purpose's policy (cached per
 * page), and one call that uploads a file as the policy says: in one request when it
 * fits a chunk, else in chunks (init, chunk n, complete) with progress after each,
 * resuming after a failed chunk by asking the server which chunks arrived. No React,
 * no DOM beyond Blob; the request function is injected so tests drive it in node.
 */
import { request as defaultRequest, RequestError, type RequestFn } from './request';
import type { FileMeta, FilePolicy, UploadStatus, UploadTarget } from '../shared/answers';

export type { FileMeta, FilePolicy, UploadTarget };

export const FILE_API = '/api/file/v1';

export interface UploadOptions {
  request?: RequestFn;
  /** Bytes the server holds so far, of `total`. */
  onProgress?(sent: number, total: number): void;
  signal?: AbortSignal;
  /** Rounds of "which chunks arrived?" after a failed chunk before giving up. */
  resumeAttempts?: number;
}

const policies = new Map<string, Promise<FilePolicy>>();

/** A purpose's policy; asked once per page (a failure is asked again next time). */
export function filePolicy(purpose: string, request: RequestFn = defaultRequest): Promise<FilePolicy> {
  let hit = policies.get(purpose);
  if (!hit) {
    hit = request<FilePolicy>(`${FILE_API}/policy/${encodeURIComponent(purpose)}`, { quiet: true });
    hit.catch(() => policies.delete(purpose));
    policies.set(purpose, hit);
  }
  return hit;
}

/** Failures worth resuming from: the network, or the server not answering as itself. */
function transient(e: unknown): boolean {
  return e instanceof RequestError && (e.httpStatus === 0 || e.httpStatus >= 500 || e.code === 'NO_STATUS');
}

/** Uploads `file` for `target`; answers what the server kept. Refusals are the server's RequestError. */
export async function uploadFile(file: Blob, target: UploadTarget, options: UploadOptions = {}): Promise<FileMeta> {
  const request = options.request ?? defaultRequest;
  const policy = await filePolicy(target.purpose, request);
  const total = file.size;
  const progress = (sent: number) => options.onProgress?.(Math.min(sent, total), total);
  progress(0);
  if (total <= policy.chunkSize) {
    const kept = await request<FileMeta>(`${FILE_API}/upload`, { raw: file, query: { ...target }, quiet: true, signal: options.signal });
    progress(total);
    return kept;
  }
  const init = await request<UploadStatus>(`${FILE_API}/upload/init`, { body: { ...target, size: total }, quiet: true, signal: options.signal });
  const bytesOf = (received: number[]) => received.reduce((n, c) => n + Math.min(init.chunkSize, total - c * init.chunkSize), 0);
  let received = new Set<number>();
  let attempts = options.resumeAttempts ?? 3;
  for (;;) {
    try {
      for (let n = 0; n < init.chunkCount; n++) {
        if (received.has(n)) continue;
        const chunk = file.slice(n * init.chunkSize, Math.min(total, (n + 1) * init.chunkSize));
        const status = await request<UploadStatus>(`${FILE_API}/upload/${init.id}/chunk/${n}`, { method: 'PUT', raw: chunk, quiet: true, signal: options.signal });
        received = new Set(status.received);
        progress(bytesOf(status.received));
      }
      const kept = await request<FileMeta>(`${FILE_API}/upload/${init.id}/complete`, { method: 'POST', quiet: true, signal: options.signal });
      progress(total);
      return kept;
    } catch (e) {
      // FILE004: the server misses chunks we thought sent; a broken connection: we do not know.
      const missing = e instanceof RequestError && e.code === 'FILE004';
      if ((!missing && !transient(e)) || attempts-- <= 0) throw e;
      const status = await request<UploadStatus>(`${FILE_API}/upload/${init.id}`, { quiet: true, signal: options.signal });
      received = new Set(status.received);
      progress(bytesOf(status.received));
    }
  }
}

/** A kept file's content (with the session's headers), for a preview or a download. */
export function downloadFile(id: string, request: RequestFn = defaultRequest): Promise<Blob> {
  return request<Blob>(`${FILE_API}/download/${encodeURIComponent(id)}`, { responseType: 'blob', quiet: true });
}

export function fileDetail(id: string, request: RequestFn = defaultRequest): Promise<FileMeta> {
  return request<FileMeta>(`${FILE_API}/detail/${encodeURIComponent(id)}`, { quiet: true });
}

/** Deletes a kept file (or drops an unfinished upload of the caller's). */
export function deleteFile(id: string, request: RequestFn = defaultRequest): Promise<void> {
  return request<void>(`${FILE_API}/delete/${encodeURIComponent(id)}`, { method: 'POST', quiet: true });
}
