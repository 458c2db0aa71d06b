/**
 * A file's type from its first bytes (magic numbers), never from the name or the
 * client's Content-Type: an upload is judged by what it is. Pure; the types known are
 * those some purpose may accept (./purposes.ts), plus a few that are refused by name
 * in the tests (GIF, ZIP) so a refusal says "this is a GIF", not "unknown".
 */

export interface SniffedType {
  mime: string;
  /** The extension the stored file gets (the print sheet reads PNG or JPEG from it). */
  ext: string;
}

/** Bytes the sniffer needs at most (DICOM's preamble plus "DICM"). */
export const SNIFF_BYTES = 132;

const startsWith = (bytes: Uint8Array, magic: number[], at = 0) => magic.every((b, i) => bytes[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

const SIGNATURES: Array<{ type: SniffedType; test: (b: Uint8Array) => boolean }> = [
  { type: { mime: 'image/png', ext: 'png' }, test: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: { mime: 'image/jpeg', ext: 'jpg' }, test: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { type: { mime: 'image/gif', ext: 'gif' }, test: (b) => startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a')) },
  { type: { mime: 'image/webp', ext: 'webp' }, test: (b) => startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8) },
  { type: { mime: 'application/pdf', ext: 'pdf' }, test: (b) => startsWith(b, ascii('%PDF-')) },
  // DICOM Part 10: a 128-byte preamble, then "DICM".
  { type: { mime: 'application/dicom', ext: 'dcm' }, test: (b) => startsWith(b, ascii('DICM'), 128) },
  { type: { mime: 'application/zip', ext: 'zip' }, test: (b) => startsWith(b, [0x50, 0x4b, 0x03, 0x04]) },
];

/** The type the first bytes say, or undefined when no known signature matches. */
export function sniffType(head: Uint8Array): SniffedType | undefined {
  return SIGNATURES.find((s) => s.test(head))?.type;
}
