/**
 * The file service's client (src/services/files.ts) against a scripted request function:
 * - a file that fits a chunk goes in one request, as raw bytes with its target
 * - a larger one: init, each chunk with progress, complete; a chunk whose answer was
 *   lost (network failure) is found missing by asking the server, and only it is sent
 *   again; a refusal (a catalogue code) is not retried
 */
import { filePolicy, uploadFile } from '@/services/files';
import { RequestError, type RequestFn, type RequestOptions } from '@/services/request';

const policy = { purpose: 'examAttachment', ownerKind: 'exam', types: ['application/pdf'], maxBytes: 1000, chunkSize: 10 };

/** A server holding received chunks; `failOnce` chunk numbers lose their answer the first time (the bytes arrived). */
function fakeServer(failOnce: number[] = [], refuse?: string) {
  const calls: string[] = [];
  const received = new Set<number>();
  const fail = new Set(failOnce);
  const request = (async (path: string, options: RequestOptions = {}) => {
    calls.push(`${options.method ?? (options.body || options.raw ? 'POST' : 'GET')} ${path.replace(/^\/api\/file\/v1/, '')}`);
    if (path.endsWith('/policy/examAttachment')) return policy;
    if (path.endsWith('/upload')) return { id: 'small', size: (options.raw as Blob).size, query: options.query };
    if (path.endsWith('/upload/init')) return { id: 'u1', chunkSize: 10, chunkCount: 3, received: [], complete: false };
    const chunk = /\/chunk\/(\d+)$/.exec(path);
    if (chunk) {
      const n = Number(chunk[1]);
      if (refuse) throw new RequestError({ code: refuse, httpStatus: 400, message: 'refused' });
      received.add(n);
      if (fail.delete(n)) throw new RequestError({ code: 'NETWORK', httpStatus: 0, message: 'connection reset' });
      return { id: 'u1', chunkSize: 10, chunkCount: 3, received: [...received].sort(), complete: false };
    }
    if (path.endsWith('/complete')) return { id: 'u1', size: 25 };
    if (path.endsWith('/upload/u1')) return { id: 'u1', chunkSize: 10, chunkCount: 3, received: [...received].sort(), complete: false };
    throw new Error(`unexpected ${path}`);
  }) as RequestFn;
  return { request, calls };
}

describe('file upload client', () => {
  test('a small file in one request', async () => {
    const { request, calls } = fakeServer();
    const kept = await uploadFile(new Blob(['0123456789']), { purpose: 'examAttachment', ownerId: 7, name: 'a.pdf' }, { request });
    expect(kept).toMatchObject({ id: 'small', size: 10, query: { purpose: 'examAttachment', ownerId: 7, name: 'a.pdf' } });
    expect(calls).toEqual(['GET /policy/examAttachment', 'POST /upload']);
  });

  test('chunks with progress; a chunk whose answer was lost is resumed, not the rest', async () => {
    const { request, calls } = fakeServer([1]);
    const progress: number[] = [];
    const kept = await uploadFile(new Blob(['x'.repeat(25)]), { purpose: 'examAttachment', ownerId: 7, name: 'b.pdf' }, { request, onProgress: (sent) => progress.push(sent) });
    expect(kept).toEqual({ id: 'u1', size: 25 });
    // The policy is cached from the test before.
    expect(calls).toEqual(['POST /upload/init', 'PUT /upload/u1/chunk/0', 'PUT /upload/u1/chunk/1', 'GET /upload/u1', 'PUT /upload/u1/chunk/2', 'POST /upload/u1/complete']);
    expect(progress).toEqual([0, 10, 20, 25, 25]);
  });

  test('a refusal is the server’s answer, not retried', async () => {
    const { request, calls } = fakeServer([], 'UCENTER703');
    await expect(uploadFile(new Blob(['y'.repeat(25)]), { purpose: 'examAttachment', ownerId: 7, name: 'c.pdf' }, { request })).rejects.toMatchObject({ code: 'UCENTER703' });
    expect(calls).toEqual(['POST /upload/init', 'PUT /upload/u1/chunk/0']);
    await expect(filePolicy('examAttachment', request)).resolves.toEqual(policy);
  });
});
