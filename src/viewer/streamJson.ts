/**
 * A JSON array answer read as its bytes come in (the viewer's series metadata,
 * ./dicomweb.ts): the first element handed over as soon as it is complete, then the
 * whole body's bytes. Pure streams and bytes: no DOM, no request wrapper.
 */

/**
 * Where the first element of a JSON array ends, read as its bytes come in: feed each
 * chunk in turn; the answer is the offset (in the whole body) just past the element's
 * closing brace, -1 while it is not complete, -2 when there is none (an empty array,
 * not an array). Bytes are enough: the characters that
 * count ({ } [ ] " \\) are ASCII, and no byte of a multi-byte UTF-8 character is.
 */
export function firstElementScanner(): (chunk: Uint8Array) => number {
  let offset = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let found = -1;
  return (chunk) => {
    // Settled (found, or no first element): later chunks change nothing.
    if (found !== -1) return found;
    for (let k = 0; k < chunk.length; k++) {
      const c = chunk[k];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) {
        // Not an array: no first element to hand over.
        if (depth === 0 && c === 0x7b) return (found = -2);
        depth += 1;
      }
      else if (c === 0x7d || c === 0x5d) {
        depth -= 1;
        // Back at the array's own level after an element: that element is complete.
        if (depth === 1 && c === 0x7d) return (found = offset + k + 1);
        if (depth <= 0) return (found = -2);
      }
    }
    offset += chunk.length;
    return -1;
  };
}

/** The chunks of a body as one array (the one chunk itself when there is one). */
export function joinChunks(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (let k = 0; k < chunks.length; k++) {
    out.set(chunks[k], at);
    at += chunks[k].length;
  }
  return out;
}

/**
 * Reads a JSON array body to its end; `onFirst` gets the first element's text as soon
 * as its closing brace is in (a hint: a failure in it is logged, not thrown).
 */
export async function readArrayBody(body: ReadableStream<Uint8Array>, onFirst?: (text: string) => void): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let scan: ((chunk: Uint8Array) => number) | undefined = onFirst && firstElementScanner();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    const end = scan?.(value) ?? -1;
    if (end === -1) continue;
    scan = undefined;
    if (end < 0) continue;
    const bytes = joinChunks(chunks, size);
    try {
      onFirst!(new TextDecoder().decode(bytes.subarray(bytes.indexOf(0x7b), end)));
    } catch (e) {
      console.warn('viewer: first element of the answer not read ahead', e);
    }
  }
  return joinChunks(chunks, size);
}
