/**
 * multipart/related (RFC 2046 5.1) both ways, as streams: the reader hands each part's
 * bytes to a sink as they arrive (a STOW-RS part of 500 MB never sits in memory), the
 * writer builds a response body from parts produced one after another (a WADO-RS
 * study is read file by file while the client receives it).
 */
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { ahead } from '../lib/ahead';

export interface PartSink {
  write(chunk: Buffer): Promise<unknown> | void;
  /** The part's body is complete. */
  end(): Promise<void> | void;
  /** The body ended or failed inside this part. */
  abort(): Promise<void> | void;
}

export class MultipartError extends Error {}

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');
const MAX_HEADER_BYTES = 16 * 1024;

/** Part headers, names in lower case. */
export type PartHeaders = Record<string, string>;

function parseHeaders(block: string): PartHeaders {
  const headers: PartHeaders = {};
  // Folded header lines (obsolete, but allowed in MIME) continue with whitespace.
  for (const line of block.split('\r\n').reduce<string[]>((acc, l) => {
    if (/^[ \t]/.test(l) && acc.length) acc[acc.length - 1] += ` ${l.trim()}`;
    else if (l) acc.push(l);
    return acc;
  }, [])) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * Reads a multipart body from `source`, calling `begin` for each part and feeding its
 * sink; resolves with the number of parts once the close delimiter is read. Throws
 * MultipartError for a body that is not multipart with this boundary, or that ends
 * early, after aborting the open part. `maxBytes` bounds the whole body.
 */
export async function readMultipart(
  source: AsyncIterable<Buffer | string>,
  boundary: string,
  begin: (headers: PartHeaders) => Promise<PartSink> | PartSink,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<number> {
  // The delimiter is CRLF "--" boundary; the body's first one may lack the CRLF, so
  // the body is read as if it started with one.
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  let buf: Buffer = CRLF;
  let state: 'preamble' | 'afterDelimiter' | 'headers' | 'body' | 'done' = 'preamble';
  let sink: PartSink | undefined;
  let parts = 0;
  let total = 0;
  try {
    for await (const piece of source) {
      const chunk = typeof piece === 'string' ? Buffer.from(piece, 'latin1') : piece;
      total += chunk.length;
      if (total > maxBytes) throw new MultipartError(`request body larger than ${maxBytes} bytes`);
      if (state === 'done') continue; // the epilogue is ignored
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      for (;;) {
        if (state === 'preamble') {
          const at = buf.indexOf(delimiter);
          if (at < 0) {
            if (buf.length > MAX_HEADER_BYTES + delimiter.length) throw new MultipartError('no multipart boundary found');
            break;
          }
          buf = buf.subarray(at + delimiter.length);
          state = 'afterDelimiter';
        } else if (state === 'afterDelimiter') {
          if (buf.length < 2) break;
          if (buf[0] === 0x2d && buf[1] === 0x2d) {
            state = 'done';
            buf = Buffer.alloc(0);
            break;
          }
          // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
          let i = 0;
          while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x09)) i++;
          if (i + 2 > buf.length) break;
          if (buf[i] !== 0x0d || buf[i + 1] !== 0x0a) throw new MultipartError('malformed multipart delimiter line');
          // Keep the CRLF: an empty header block is then found as CRLF CRLF right here.
          buf = buf.subarray(i);
          state = 'headers';
        } else if (state === 'headers') {
          const end = buf.indexOf(HEADERS_END);
          if (end < 0) {
            if (buf.length > MAX_HEADER_BYTES) throw new MultipartError('part headers too long');
            break;
          }
          const headers = parseHeaders(buf.subarray(2, end).toString('utf8'));
          buf = buf.subarray(end + HEADERS_END.length);
          sink = await begin(headers);
          parts++;
          state = 'body';
        } else if (state === 'body') {
          const at = buf.indexOf(delimiter);
          if (at >= 0) {
            if (at > 0) await sink!.write(buf.subarray(0, at));
            const done = sink!;
            sink = undefined;
            await done.end();
            buf = buf.subarray(at + delimiter.length);
            state = 'afterDelimiter';
            continue;
          }
          // Everything but a possible start of the delimiter can go to the part now.
          const keep = Math.min(buf.length, delimiter.length - 1);
          if (buf.length > keep) await sink!.write(buf.subarray(0, buf.length - keep));
          // A copy: the kept tail must not pin the whole received chunk.
          buf = Buffer.from(buf.subarray(buf.length - keep));
          break;
        } else break;
      }
    }
    if (state !== 'done') throw new MultipartError(state === 'preamble' ? 'no multipart boundary found' : 'multipart body ended before its close delimiter');
    return parts;
  } catch (e) {
    if (sink) await sink.abort();
    throw e;
  }
}

/** A boundary that no DICOM file will contain by chance. */
export function newBoundary(): string {
  return `rcloud-${crypto.randomBytes(16).toString('hex')}`;
}

export interface OutPart {
  headers: Record<string, string | number>;
  /** The part's bytes, or a function opening them (whole, or as a stream) when their turn comes. */
  body: Buffer | (() => Promise<Buffer | AsyncIterable<Buffer | Uint8Array> | Iterable<Buffer | Uint8Array>>);
}

/**
 * Parts opened ahead of the one going out: a series' files are read while earlier ones
 * are sent, several at once (reading 300 slices one at a time ran at half the speed of
 * four at a time from a cold page cache, a third of it from a warm one).
 */
const AHEAD = 4;

/**
 * A multipart body of `parts`, produced lazily: each part's body is opened a few parts
 * before its turn (AHEAD) and what a stream gives is passed on as the client takes it,
 * so memory holds a few parts' bytes, not the whole response. A client that goes away
 * destroys the body: no further part is opened, and a part opened as a stream is
 * destroyed (its file closed).
 */
export function multipartStream(boundary: string, parts: readonly OutPart[]): Readable {
  type Opened = Awaited<ReturnType<Exclude<OutPart['body'], Buffer>>>;
  const open = async ({ body }: OutPart): Promise<Opened> => (Buffer.isBuffer(body) ? body : body());
  const close = (opened: Opened) => opened instanceof Readable && opened.destroy();
  async function* chunks(): AsyncGenerator<Buffer | Uint8Array> {
    let current: Opened | undefined;
    try {
      for (const [part, opening] of ahead(parts, open, AHEAD, close)) {
        const head = Object.entries(part.headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
        yield Buffer.from(`--${boundary}\r\n${head}\r\n`, 'utf8');
        current = await opening;
        if (Buffer.isBuffer(current)) yield current;
        else for await (const chunk of current) yield chunk;
        current = undefined;
        yield CRLF;
      }
      yield Buffer.from(`--${boundary}--\r\n`, 'latin1');
    } finally {
      // Gone early: close the part being sent (ahead closes those opened after it).
      if (current) close(current);
    }
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 << 20 });
}
