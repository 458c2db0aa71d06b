/**
 * Chinese character sets of received datasets (PS3.3 C.12.1.1.2, PS3.5 6.1): GB18030,
 * GBK and ISO 2022 IR 58 (GB2312 through code extension), which dcmjs either refuses
 * (a multi-valued Specific Character Set) or reads without its escape sequences, and
 * data without (0008,0005) from a modality that writes its own default character set
 * (the device's `defaultCharset`). Such a dataset is parsed with its text read as bytes
 * (latin1, one character per byte) and its text values decoded here. Pure functions.
 */

/** The character sets decoded here, by DICOM defined term (upper case, spaces or underscores alike). */
const DECODERS: Record<string, string> = {
  GB18030: 'gb18030',
  GBK: 'gbk',
  // GB2312 is a subset of GBK: once the escape sequences are gone its bytes are GBK's.
  'ISO 2022 IR 58': 'gbk',
  'ISO IR 58': 'gbk',
  'ISO IR 192': 'utf-8',
  'ISO IR 100': 'latin1',
  'ISO 2022 IR 100': 'latin1',
  'ISO IR 6': 'latin1',
  'ISO 2022 IR 6': 'latin1',
};

const term = (value: string) => value.trim().toUpperCase().replace(/_/g, ' ');

/** Whether `value` (a Specific Character Set or a device's default) is one this module decodes. */
export function knownCharset(value: string): boolean {
  return value.split('\\').every((t) => !t.trim() || term(t) in DECODERS);
}

/**
 * Whether a dataset declaring `declared` ('' when it has no (0008,0005)) needs its text
 * decoded here rather than by dcmjs: a Chinese set, several terms, or no declaration
 * with a device default other than the default repertoire.
 */
export function decodesHere(declared: string | undefined, deviceDefault: string | null | undefined): string | undefined {
  if (declared === undefined || !declared.trim()) {
    const fallback = deviceDefault?.trim();
    return fallback && knownCharset(fallback) && DECODERS[term(fallback)] !== 'latin1' ? fallback : undefined;
  }
  if (declared.includes('\\')) return declared;
  return ['GB18030', 'GBK', 'ISO 2022 IR 58'].includes(term(declared)) ? declared : undefined;
}

/** ISO 2022 escape sequences (ESC, intermediate bytes, a final byte): they only switch sets. */
const ESCAPES = /\x1b[\x20-\x2f]*[\x30-\x7e]/g;

/** The text of `bytes` in the character set `charset` (its terms; the first Chinese one wins). */
export function decodeText(bytes: Buffer, charset: string): string {
  const terms = charset.split('\\').map(term).filter((t) => t in DECODERS);
  const decoder = terms.find((t) => DECODERS[t] !== 'latin1') ?? terms[0] ?? 'ISO IR 6';
  const text = new TextDecoder(DECODERS[decoder] ?? 'latin1').decode(bytes);
  return text.replace(ESCAPES, '');
}

const TEXT_VRS = new Set(['SH', 'LO', 'ST', 'LT', 'UT', 'UC', 'PN']);
const PN_GROUPS = ['Alphabetic', 'Ideographic', 'Phonetic'] as const;
type PersonName = Partial<Record<(typeof PN_GROUPS)[number], string>>;

/** A dataset in DICOM JSON (dicomFile.ts DicomJson), as far as decoding reads and writes it. */
type Dataset = Record<string, { vr: string; Value?: unknown[] }>;

/** A value parsed one byte per character, back to its bytes. */
const bytesOf = (s: string) => Buffer.from(s, 'latin1');

/**
 * Decodes the text values of a dataset read byte per character, in place, sequences
 * included. Values are joined before decoding and split after: a GBK or GB18030
 * character may hold the byte of a backslash, which the parser took for a separator.
 */
export function decodeDataset(json: Dataset, charset: string): void {
  for (const entry of Object.values(json)) {
    if (entry.vr === 'SQ') {
      for (const item of (entry.Value ?? []) as Dataset[]) decodeDataset(item, charset);
      continue;
    }
    if (!TEXT_VRS.has(entry.vr) || !entry.Value?.length) continue;
    if (entry.vr === 'PN') {
      const raw = (entry.Value as PersonName[]).map((pn) => (typeof pn === 'string' ? pn : PN_GROUPS.map((g) => pn?.[g] ?? '').join('=').replace(/=+$/, ''))).join('\\');
      entry.Value = decodeText(bytesOf(raw), charset)
        .split('\\')
        .map((value) => {
          const groups = value.split('=');
          const pn: PersonName = {};
          PN_GROUPS.forEach((g, i) => {
            if (groups[i]) pn[g] = groups[i];
          });
          return pn;
        });
      continue;
    }
    const values = entry.Value.map(String);
    // VRs of one value (ST, LT, UT) keep backslashes as text.
    entry.Value = ['ST', 'LT', 'UT'].includes(entry.vr) ? values.map((v) => decodeText(bytesOf(v), charset)) : decodeText(bytesOf(values.join('\\')), charset).split('\\');
  }
}

/**
 * Where the value of (0008,0005) is in a Part-10 file's first bytes, when present
 * (explicit or implicit VR little endian dataset after the meta group): its offset and
 * length, so a copy can blank it for the parser. The element is among the first of
 * the dataset.
 */
export function findCharsetValue(bytes: Buffer): { offset: number; length: number; value: string } | undefined {
  const tag = Buffer.from([0x08, 0x00, 0x05, 0x00]);
  for (let at = bytes.indexOf(tag, 132); at >= 0 && at < 16384; at = bytes.indexOf(tag, at + 1)) {
    if (at + 8 > bytes.length) return undefined;
    const explicit = bytes.toString('latin1', at + 4, at + 6) === 'CS';
    const length = explicit ? bytes.readUInt16LE(at + 6) : bytes.readUInt32LE(at + 4);
    const offset = at + 8;
    if (length > 256 || offset + length > bytes.length) continue;
    const value = bytes.toString('latin1', offset, offset + length).replace(/\0/g, '').trim();
    if (/^[A-Z0-9 _\\-]*$/i.test(value)) return { offset, length, value };
  }
  return undefined;
}
