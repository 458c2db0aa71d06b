/**
 * Media types as DICOMweb uses them: Content-Type of a STOW-RS request and the Accept
 * header of a retrieve (RFC 9110 media ranges with parameters, ordered by q; PS3.18
 * for the type and transfer-syntax parameters of multipart/related). Pure.
 */

export interface MediaType {
  /** "multipart/related", lower case. */
  essence: string;
  params: Record<string, string>;
  q: number;
}

/** Splits on `sep` outside double quotes. */
function splitOutsideQuotes(text: string, sep: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' && text[i - 1] !== '\\') quoted = !quoted;
    else if (c === sep && !quoted) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

export function parseMediaType(text: string): MediaType {
  const [essence, ...rest] = splitOutsideQuotes(text, ';');
  const params: Record<string, string> = {};
  let q = 1;
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const key = p.slice(0, eq).trim().toLowerCase();
    let value = p.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    if (key === 'q') q = Number.isFinite(Number(value)) ? Number(value) : 1;
    else params[key] = value;
  }
  return { essence: essence.trim().toLowerCase(), params, q };
}

/** The media ranges of an Accept header, best first; `*\/*` when there is none. */
export function parseAccept(header: string | string[] | undefined): MediaType[] {
  const text = [header ?? []].flat().join(',');
  const ranges = splitOutsideQuotes(text, ',')
    .filter((r) => r.trim())
    .map(parseMediaType)
    .filter((r) => r.q > 0);
  if (!ranges.length) return [{ essence: '*/*', params: {}, q: 1 }];
  // Stable: equal q keeps the client's order.
  return ranges.map((r, i) => ({ r, i })).sort((a, b) => b.r.q - a.r.q || a.i - b.i).map(({ r }) => r);
}

/** Whether a range such as "image/*" or "*\/*" covers `essence`. */
export function covers(range: string, essence: string): boolean {
  if (range === '*/*' || range === essence) return true;
  return range.endsWith('/*') && essence.startsWith(range.slice(0, -1));
}
