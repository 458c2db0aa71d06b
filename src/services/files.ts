/**
 * The client of the file service (/api/file/v1): a purpose's policy (cached per
 * page), and one call that uploads a file as the policy says: in one request when it
 * fits a chunk, else in chunks (init, chunk n, complete) with progress after each,
 * resuming after a failed chunk by asking the server which chunks arrived. No React,
 * no DOM beyond Blob; the request function is injectable (the generated calls take it)
 * so tests drive it in node.
 */
import {
  getDetailById,
  getPolicyByPurpose,
  getUploadById,
  postDeleteById,
  postUpload,
  postUploadCompleteById,
  postUploadInit,
  putUploadChunkByIdByN,
  type GetDetailByIdData,
  type GetPolicyByPurposeData,
  type PostUploadQuery,
} from './generated/file';
import { request as defaultRequest, RequestError, type RequestFn } from './request';

/** A kept file as the file service describes it. */
export type FileMeta = GetDetailByIdData;
/** A purpose's policy: what an upload may be. */
export type FilePolicy = GetPolicyByPurposeData;
/** Where an upload goes: its purpose, the owning record and the file's name. */
export type UploadTarget = PostUploadQuery;
export type FilePurpose = UploadTarget['purpose'];

/** Downloads are bytes, not the envelope: fetched by URL (with the session's headers). */
export const FILE_API = '/api/file/v1';

export interface UploadOptions {
  request?: RequestFn;
  /** Bytes the server holds so far, of `total`. */
  onProgress?(sent: number, total: number): void;
  signal?: AbortSignal;
  /** Rounds of "which chunks arrived?" after a failed chunk before giving up. */
  resumeAttempts?: number;
}

const policies = new Map<FilePurpose, Promise<FilePolicy>>();

/** A purpose's policy; asked once per page (a failure is asked again next time). */
export function filePolicy(purpose: FilePurpose, request?: RequestFn): Promise<FilePolicy> {
  let hit = policies.get(purpose);
  if (!hit) {
    hit = getPolicyByPurpose(purpose, { quiet: true, request });
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
  const { request, signal } = options;
  const policy = await filePolicy(target.purpose, request);
  const total = file.size;
  const progress = (sent: number) => options.onProgress?.(Math.min(sent, total), total);
  progress(0);
  if (total <= policy.chunkSize) {
    const kept = await postUpload(target, { raw: file, quiet: true, signal, request });
    progress(total);
    return kept;
  }
  const init = await postUploadInit({ ...target, size: total }, { quiet: true, signal, request });
  const bytesOf = (received: number[]) => received.reduce((n, c) => n + Math.min(init.chunkSize, total - c * init.chunkSize), 0);
  let received = new Set<number>();
  let attempts = options.resumeAttempts ?? 3;
  for (;;) {
    try {
      for (let n = 0; n < init.chunkCount; n++) {
        if (received.has(n)) continue;
        const chunk = file.slice(n * init.chunkSize, Math.min(total, (n + 1) * init.chunkSize));
        const status = await putUploadChunkByIdByN(init.id, n, { raw: chunk, quiet: true, signal, request });
        received = new Set(status.received);
        progress(bytesOf(status.received));
      }
      const kept = await postUploadCompleteById(init.id, { quiet: true, signal, request });
      progress(total);
      return kept;
    } catch (e) {
      // FILE004: the server misses chunks we thought sent; a broken connection: we do not know.
      const missing = e instanceof RequestError && e.code === 'FILE004';
      if ((!missing && !transient(e)) || attempts-- <= 0) throw e;
      const status = await getUploadById(init.id, { quiet: true, signal, request });
      received = new Set(status.received);
      progress(bytesOf(status.received));
    }
  }
}

/** A kept file's content (with the session's headers), for a preview or a download. */
export function downloadFile(id: string, request: RequestFn = defaultRequest): Promise<Blob> {
  return request<Blob>(`${FILE_API}/download/${encodeURIComponent(id)}`, { responseType: 'blob', quiet: true });
}

export function fileDetail(id: string, request?: RequestFn): Promise<FileMeta> {
  return getDetailById(id, { quiet: true, request });
}

/** Deletes a kept file (or drops an unfinished upload of the caller's). */
export async function deleteFile(id: string, request?: RequestFn): Promise<void> {
  await postDeleteById(id, { quiet: true, request });
}
