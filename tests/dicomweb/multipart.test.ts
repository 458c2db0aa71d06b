/**
 * The streaming multipart/related reader and writer of server/dicomweb/multipart.ts,
 * and the Accept parsing of media.ts:
 * - parts come out whole whatever the chunking (1, 7 and 4096 bytes: the delimiter is
 *   split across chunks), with a preamble, an epilogue, transport padding, a part
 *   without headers, and part bodies that contain CRLF and "--" runs
 * - a body without its close delimiter, without any delimiter, or over the size limit
 *   fails and aborts the open part
 * - what the writer produces reads back the same
 * - Accept ranges ordered by q, quoted parameters kept whole
 */
import { Readable } from 'node:stream';
import { MultipartError, multipartStream, readMultipart, type PartHeaders } from '../../server/dicomweb/multipart';
import { parseAccept } from '../../server/dicomweb/media';

async function* chunked(body: Buffer, size: number) {
  for (let i = 0; i < body.length; i += size) yield body.subarray(i, i + size);
}

async function read(body: Buffer, size: number, boundary = 'XyZ', maxBytes?: number) {
  const parts: Array<{ headers: PartHeaders; body: Buffer }> = [];
  const aborted: number[] = [];
  const count = await readMultipart(
    chunked(body, size),
    boundary,
    (headers) => {
      const chunks: Buffer[] = [];
      const index = parts.length + aborted.length;
      return {
        write: (c) => void chunks.push(Buffer.from(c)),
        end: () => void parts.push({ headers, body: Buffer.concat(chunks) }),
        abort: () => void aborted.push(index),
      };
    },
    maxBytes,
  ).catch((e) => {
    if (e instanceof MultipartError) return e;
    throw e;
  });
  return { count, parts, aborted };
}

// Starts of the delimiter that do not complete it: a matcher must not lose or invent bytes.
const first = Buffer.from('line one\r\n--Xy\r\n-XyZ\r\r\n--X--XyZ without CRLF before it\r\n\r\n--');
const second = Buffer.concat([Buffer.from([0, 1, 2, 0x0d, 0x0a, 0x2d, 0x2d]), Buffer.alloc(5000, 0x2d)]);
const body = Buffer.concat([
  Buffer.from('preamble to ignore\r\n--XyZ\r\nContent-Type: application/dicom\r\nX-Folded: a\r\n b\r\n\r\n'),
  first,
  Buffer.from('\r\n--XyZ \t\r\n\r\n'),
  second,
  Buffer.from('\r\n--XyZ--\r\nepilogue to ignore'),
]);

test.each([1, 7, 4096])('parts come out whole in chunks of %i bytes', async (size) => {
  const { count, parts, aborted } = await read(body, size);
  expect(count).toBe(2);
  expect(aborted).toEqual([]);
  expect(parts[0].headers).toEqual({ 'content-type': 'application/dicom', 'x-folded': 'a b' });
  expect(parts[0].body.equals(first)).toBe(true);
  // The second part has no headers at all.
  expect(parts[1].headers).toEqual({});
  expect(parts[1].body.equals(second)).toBe(true);
});

test('a body cut short, without a delimiter, or too large fails and aborts the open part', async () => {
  const cut = await read(body.subarray(0, body.length - 40), 64);
  expect(cut.count).toBeInstanceOf(MultipartError);
  expect(cut.aborted).toEqual([1]);
  expect((await read(Buffer.from('just some bytes'), 4)).count).toBeInstanceOf(MultipartError);
  const big = await read(body, 100, 'XyZ', 1000);
  expect(big.count).toBeInstanceOf(MultipartError);
  expect((big.count as Error).message).toMatch(/larger than 1000/);
});

test('what the writer streams reads back the same', async () => {
  const payloads = [Buffer.from('\r\n--b\r\n'), Buffer.alloc(100_000, 7)];
  const stream = multipartStream('b0undary', [
    { headers: { 'Content-Type': 'application/dicom' }, body: payloads[0] },
    { headers: { 'Content-Type': 'application/octet-stream' }, body: async () => Readable.from([payloads[1].subarray(0, 10), payloads[1].subarray(10)]) },
  ]);
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  const { parts } = await read(Buffer.concat(chunks), 333, 'b0undary');
  expect(parts.map((p) => p.headers['content-type'])).toEqual(['application/dicom', 'application/octet-stream']);
  expect(parts.map((p, i) => p.body.equals(payloads[i]))).toEqual([true, true]);
});

test('a body let go early opens no further part and closes the streams it opened', async () => {
  const opened: Readable[] = [];
  const stream = multipartStream(
    'b',
    Array.from({ length: 50 }, () => ({
      headers: { 'Content-Type': 'application/dicom' },
      body: async () => {
        const file = Readable.from([Buffer.alloc(4 << 20, 1), Buffer.alloc(4 << 20, 2)], { objectMode: false });
        opened.push(file);
        return file;
      },
    })),
  );
  // Read into the first part, then the client goes away (leaving a for-await destroys the body with an AbortError).
  stream.on('error', () => undefined);
  let bytes = 0;
  for await (const c of stream) if ((bytes += (c as Buffer).length) > 1 << 20) break;
  if (!stream.closed) await new Promise((resolve) => stream.once('close', resolve));
  // The generator's cleanup runs as the destroyed stream returns it.
  await new Promise((resolve) => setImmediate(resolve));
  // This part and the few read ahead of it (multipart.ts AHEAD), not the 50; all closed.
  expect(opened.length).toBeGreaterThan(0);
  expect(opened.length).toBeLessThanOrEqual(6);
  expect(opened.map((f) => f.destroyed)).toEqual(opened.map(() => true));
});

test('parts read whole are sent as they are, in order', async () => {
  const payloads = [Buffer.alloc(3000, 1), Buffer.alloc(0), Buffer.alloc(70_000, 3)];
  const stream = multipartStream('w', payloads.map((p) => ({ headers: { 'Content-Length': p.length }, body: async () => p })));
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  const { parts } = await read(Buffer.concat(chunks), 4096, 'w');
  expect(parts.map((p, i) => p.body.equals(payloads[i]))).toEqual([true, true, true]);
});

test('Accept: ranges by q, quoted parameters with commas and semicolons kept whole', () => {
  const ranges = parseAccept('image/png;q=0.5, multipart/related; type="application/dicom"; transfer-syntax=*, x/y; p="a,b;c", image/jpeg;q=0');
  expect(ranges.map((r) => r.essence)).toEqual(['multipart/related', 'x/y', 'image/png']);
  expect(ranges[0].params).toEqual({ type: 'application/dicom', 'transfer-syntax': '*' });
  expect(ranges[1].params.p).toBe('a,b;c');
  expect(parseAccept(undefined).map((r) => r.essence)).toEqual(['*/*']);
});
