/**
 * The custom string formats of the schemas (spec section 5), as plain functions shared
 * by the server (registered on its ajv) and the client (Formily validators built in
 * src/schema/toFormily.ts). Pure: no node or browser imports, so both bundles take it.
 * A schema names a format ("format": "id-card"); both sides then agree on the rule.
 * The standard formats (uri, email, ipv4, …) are ajv-formats' own definitions, the ones
 * Fastify adds to the server's ajv (its full mode), so the form accepts exactly what
 * the server accepts (http://10.1.1.5:8080/his, an IPv6 literal) and refuses the same.
 */
import { fullFormats } from 'ajv-formats/dist/formats';

/** ISO 7064 MOD 11-2 weights of the first 17 digits of a mainland identity number. */
const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
/** Check character by (weighted sum mod 11). */
const ID_CHECK = '10X98765432';

/**
 * Mainland 18-character resident identity number: area code, a real birth date, a
 * sequence and the MOD 11-2 check character (X may be written lower-case, as the
 * pattern of common.json#/definitions/idCard admits).
 */
export function isIdCard(value: string): boolean {
  if (!/^[1-9]\d{16}[\dXx]$/.test(value)) return false;
  const year = Number(value.slice(6, 10));
  const month = Number(value.slice(10, 12));
  const day = Number(value.slice(12, 14));
  // Date.UTC rolls an impossible date over (Feb 30 → Mar 2); a real one survives the round trip.
  const birth = new Date(Date.UTC(year, month - 1, day));
  if (year < 1800 || birth.getUTCFullYear() !== year || birth.getUTCMonth() !== month - 1 || birth.getUTCDate() !== day) return false;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(value[i]) * ID_WEIGHTS[i];
  return ID_CHECK[sum % 11] === value[17].toUpperCase();
}

/** The mainland mobile rule: optional +86, then 1, a digit 3-9 and 9 digits. */
export function isMobileCn(value: string): boolean {
  return /^(\+86)?1[3-9]\d{9}$/.test(value);
}

/** Latin letters only (codes such as a department's shortcut). */
export function isLetters(value: string): boolean {
  return /^[A-Za-z]+$/.test(value);
}

export function isLowercase(value: string): boolean {
  return /^[a-z]+$/.test(value);
}

export function isUppercase(value: string): boolean {
  return /^[A-Z]+$/.test(value);
}

/** The id of a file kept by the file service (/api/file/v1): a UUID. */
export function isFileId(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

/** Format name as the schemas write it → its test. The one list both sides register. */
export const STRING_FORMATS: Readonly<Record<string, (value: string) => boolean>> = Object.freeze({
  'id-card': isIdCard,
  'mobile-cn': isMobileCn,
  letters: isLetters,
  lowercase: isLowercase,
  uppercase: isUppercase,
  'file-id': isFileId,
});

type FormatTest = (value: string) => boolean;

/** ajv-formats' definition of a standard format as a test: a regular expression, a function or {validate}. */
function standardFormat(name: string): FormatTest | undefined {
  if (!Object.prototype.hasOwnProperty.call(fullFormats, name)) return undefined;
  const def = fullFormats[name as keyof typeof fullFormats] as unknown;
  const validate = def && typeof def === 'object' && 'validate' in def ? (def as { validate: unknown }).validate : def;
  if (validate instanceof RegExp) return (value) => validate.test(value);
  if (typeof validate === 'function') return (value) => Boolean((validate as FormatTest)(value));
  return undefined;
}

/**
 * The test of any string format a schema names, as the server's ajv runs it: the
 * schemas' own (STRING_FORMATS) first, else the standard one; undefined for a name
 * neither knows (ajv refuses such a schema at start-up).
 */
export function formatTest(name: string): FormatTest | undefined {
  return STRING_FORMATS[name] ?? standardFormat(name);
}

/** What registering needs of an ajv instance; structural, so this module imports no ajv. */
export interface FormatHost {
  addFormat(name: string, format: { type: 'string'; validate: (value: string) => boolean }): unknown;
}

/**
 * Adds every custom format to an ajv instance. Usable as a Fastify `ajv.plugins` entry
 * (its name is not ajv-formats', so Fastify still adds the standard formats too).
 */
export function customFormats<T extends FormatHost>(ajv: T): T {
  for (const [name, validate] of Object.entries(STRING_FORMATS)) ajv.addFormat(name, { type: 'string', validate });
  return ajv;
}
